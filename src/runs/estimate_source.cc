// paratune.estimate/1 (docs/json.md): the cost model's prediction for one layout, read back into
// the Estimate that wrote it (step/estimate_json.h). Predicted figures: throughput.{mfu, hfu,
// tokens_per_s_per_gpu, step_time_s, comm_share, bubble_rate}, tokens per hour = tokens_per_s x
// 3600, memory.peak_bytes, and the step-time breakdown (the terms of schema/step_time.h, each
// into the metric it names).
#include <map>
#include <optional>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "runs/source_reader.h"
#include "schema/step_time.h"
#include "step/estimate_json.h"

namespace paratune {

void ReadEstimateJson(const nlohmann::json& doc, const std::string& where, const std::string& json_path,
                      RunRecord& into) {
  const JsonFields fields(doc, where);
  const Estimate e = EstimateFromJson(JsonView(fields, doc, json_path));  // checks the document first
  RecordEstimate(e, doc.at("layout"), into);
}

void RecordEstimate(const Estimate& e, const nlohmann::json& layout, RunRecord& into) {
  into.model = e.model;
  into.gpu = e.gpu;
  into.gpus = e.gpus;
  into.layout_json = layout.dump();  // the layout as the document gives it
  auto predict = [&](Metric m, double v) { into[m].predicted = v; };
  predict(Metric::kMfu, e.mfu);
  predict(Metric::kHfu, e.hfu);
  predict(Metric::kTokensPerSPerGpu, e.tokens_per_s_per_gpu);
  predict(Metric::kTokensPerHour, e.tokens_per_s * 3600.0);
  predict(Metric::kStepTime, e.step_time_s);
  predict(Metric::kCommShare, e.comm_share);
  predict(Metric::kBubbleShare, e.bubble_rate);
  predict(Metric::kPeakMemory, e.peak_memory_bytes);
  // Each step-time term into the metric schema/step_time.h names for it, summed where terms
  // share one (offload has no metric of its own: it is counted in "other", so the terms still
  // add up to the step). A term added after the schema's first version reads as 0 where absent.
  std::map<Metric, double> terms;
  for (const StepTerm& term : kStepTerms) {
    const std::optional<Metric> m = MetricByName(term.registry_metric);
    if (!m) throw std::logic_error(std::string("step term ") + term.key + " names no registry metric");
    terms[*m] += e.time.*term.value;
  }
  for (const auto& [m, v] : terms) predict(m, v);
}

namespace {

class EstimateSourceReader final : public SourceReader {
 public:
  std::string_view Kind() const override { return kEstimateSchema; }
  bool Accepts(const SourceFile& f) const override { return f.HasSchema(Kind()); }
  void Read(const SourceFile& f, RunRecord& into) const override { ReadEstimateJson(*f.json, f.path, "", into); }
};

}  // namespace

std::unique_ptr<SourceReader> MakeEstimateSourceReader() { return std::make_unique<EstimateSourceReader>(); }

}  // namespace paratune
