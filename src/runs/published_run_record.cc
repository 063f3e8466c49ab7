#include "runs/published_run_record.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "step/estimate.h"
#include "step/estimate_json.h"
#include "util/error.h"
#include "validate/scenario_json.h"

namespace paratune {

CsvRecords RecordsOfPublishedRuns(const std::vector<PublishedRun>& rows, const std::string& cluster) {
  CsvRecords out;
  for (const PublishedRun& row : rows) {
    if (!row.modelable) {
      out.skipped.emplace_back(row.id, "not modelable: " + row.reason);
      continue;
    }
    if (row.target_tokens_per_s_per_gpu <= 0) {
      out.skipped.emplace_back(row.id, "no measured tokens/s per GPU");
      continue;
    }
    Estimate e;
    try {
      e = EstimateStep(row.model, row.cluster, row.training, row.layout);
    } catch (const InputError& err) {
      out.skipped.emplace_back(row.id, std::string("the cost model rejects its layout: ") + err.what());
      continue;
    }
    RunRecord r;
    r.name = row.id;
    r.cluster = cluster.empty() ? row.gpu_name : cluster;
    r.model = row.model_name;
    r.gpu = row.gpu_name;
    r.gpus = row.num_gpus;
    r.layout_json = LayoutToJson(row.layout, row.training).dump();
    r.scenario_json = ScenarioToJson({row.model, row.cluster, row.training, row.layout}).dump();
    r[Metric::kTokensPerSPerGpu] = {row.target_tokens_per_s_per_gpu, e.tokens_per_s_per_gpu};
    r[Metric::kStepTime].predicted = e.step_time_s;
    if (row.target_step_time_s > 0) r[Metric::kStepTime].measured = row.target_step_time_s;
    r[Metric::kPeakMemory].predicted = e.peak_allocated_bytes;
    if (row.measured_peak_memory_bytes > 0) r[Metric::kPeakMemory].measured = row.measured_peak_memory_bytes;
    r[Metric::kMfu].predicted = e.mfu;
    r[Metric::kTokensPerHour].predicted = e.tokens_per_s * 3600;
    SetTag(r, "source", row.source);
    if (!row.confidence.empty()) SetTag(r, "confidence", row.confidence);
    if (!row.precision_raw.empty()) SetTag(r, "precision", row.precision_raw);
    if (!row.hf_model.empty()) SetTag(r, "hf_model", row.hf_model);
    out.records.push_back(std::move(r));
  }
  return out;
}

RunsToFit PublishedRunsOfRecords(const std::vector<RunRecord>& records, const HardwareCatalog& hardware) {
  RunsToFit out;
  for (const RunRecord& r : records) {
    const double measured = r[Metric::kTokensPerSPerGpu].measured;
    if (r.scenario_json.empty()) {
      out.skipped.emplace_back(r.name, "no scenario recorded (record it with `runs record --csv`)");
      continue;
    }
    if (!HasFigure(measured) || measured <= 0) {
      out.skipped.emplace_back(r.name, "no measured tokens/s per GPU");
      continue;
    }
    Scenario s;
    try {
      s = ScenarioFromJsonText(r.scenario_json, "run '" + r.name + "' scenario");
    } catch (const InputError& err) {
      out.skipped.emplace_back(r.name, err.what());
      continue;
    }
    PublishedRun p;
    p.id = r.name;
    p.model_name = r.model;
    p.gpu_name = r.gpu;
    p.num_gpus = static_cast<int>(s.cluster.gpus);
    p.target_tokens_per_s_per_gpu = measured;
    p.modelable = true;
    for (const auto& [k, v] : r.tags) {
      if (k == "confidence") p.confidence = v;
      if (k == "source") p.source = v;
    }
    p.model = std::move(s.model);
    p.cluster = std::move(s.cluster);
    p.training = s.training;
    p.layout = s.layout;
    try {
      p.cluster.gpu.calibration = hardware.Find(p.cluster.gpu.name).calibration;
    } catch (const InputError&) {
      // A GPU the catalog does not know (a custom chip recorded with its own calibration).
    }
    out.runs.push_back(std::move(p));
  }
  return out;
}

}  // namespace paratune
