#include "validate/validation.h"

#include <algorithm>
#include <cmath>

#include "step/estimate.h"
#include "util/error.h"
#include "util/stats.h"

namespace paratune {

ErrorStats Summarize(std::vector<double> e) {
  ErrorStats s;
  s.n = static_cast<int>(e.size());
  if (e.empty()) return s;
  std::sort(e.begin(), e.end());
  double sum = 0;
  for (double x : e) sum += x;
  s.mean = sum / s.n;
  s.median = Median(e);
  s.p90 = NearestRankPercentile(e, 0.9);
  s.max = e.back();
  return s;
}

const GroupDimension kGroupDimensions[5] = {
    {"gpu", [](const PublishedRun& r) { return r.gpu_name; }},
    {"arch", [](const PublishedRun& r) { return r.arch; }},
    {"precision", [](const PublishedRun& r) { return std::string(PrecisionName(r.training.precision)); }},
    {"source", [](const PublishedRun& r) { return r.source; }},
    {"confidence", [](const PublishedRun& r) { return r.confidence; }},
};

namespace {

double RowApe(double predicted, double measured) { return std::abs(predicted - measured) / measured; }

// Ours and SimuMax's errors, overall and by every dimension; `ours` and `simumax` pick a row's
// two errors (empty when it lacks them).
ComparedErrors Compare(const std::vector<RunPrediction>& rows, std::optional<double> RunPrediction::*ours,
                       std::optional<double> RunPrediction::*simumax) {
  struct Lists {
    std::vector<double> ours, simumax, ours_on_simumax_rows;
  };
  Lists all;
  std::map<std::pair<std::string, std::string>, Lists> by;
  for (const RunPrediction& p : rows) {
    if (!(p.*ours)) continue;
    std::vector<Lists*> lists = {&all};
    for (const GroupDimension& d : kGroupDimensions) lists.push_back(&by[{d.name, d.value(*p.run)}]);
    for (Lists* l : lists) {
      l->ours.push_back(*(p.*ours));
      if (p.*simumax) {
        l->simumax.push_back(*(p.*simumax));
        l->ours_on_simumax_rows.push_back(*(p.*ours));
      }
    }
  }
  const auto stats = [](const Lists& l) {
    return ComparedStats{Summarize(l.ours), Summarize(l.simumax), Summarize(l.ours_on_simumax_rows)};
  };
  ComparedErrors out;
  out.overall = stats(all);
  for (const GroupDimension& d : kGroupDimensions)
    for (const auto& [key, l] : by)
      if (key.first == d.name) out.groups.push_back({key.first, key.second, stats(l)});
  return out;
}

// One run predicted, or the reason it is not (not modelable, or a layout the model refuses).
RunPrediction PredictRun(const PublishedRun& r) {
  RunPrediction p;
  p.run = &r;
  if (!r.modelable) {
    p.reason = r.reason;
    return p;
  }
  try {
    const Estimate e = EstimateStep(r.model, r.cluster, r.training, r.layout);
    p.predicted = true;
    p.predicted_tokens_per_s_per_gpu = e.tokens_per_s_per_gpu;
    p.ape = std::abs(e.tokens_per_s_per_gpu - r.target_tokens_per_s_per_gpu) / r.target_tokens_per_s_per_gpu;
    p.step_ape = std::abs(r.target_tokens_per_s_per_gpu / e.tokens_per_s_per_gpu - 1);
    p.fits = e.fits;
    p.predicted_step_time_s = e.step_time_s;
    p.predicted_peak_allocated_bytes = e.peak_allocated_bytes;
    if (r.measured_peak_memory_bytes > 0) {
      p.memory_ape = RowApe(e.peak_allocated_bytes, r.measured_peak_memory_bytes);
      if (r.simumax_peak_memory_bytes > 0)
        p.simumax_memory_ape = RowApe(r.simumax_peak_memory_bytes, r.measured_peak_memory_bytes);
    }
    // Step time against SimuMax: the rows that give its prediction and a measured step time.
    if (r.target_step_time_s > 0 && r.simumax_step_time_s > 0) {
      p.step_time_ape = RowApe(e.step_time_s, r.target_step_time_s);
      p.simumax_step_time_ape = RowApe(r.simumax_step_time_s, r.target_step_time_s);
    }
  } catch (const InputError& e) {
    p.reason = e.what();
  }
  return p;
}

}  // namespace

ValidationReport Validate(const std::vector<PublishedRun>& runs, double threshold, Progress* progress) {
  ValidationReport rep;
  rep.unmapped_sharding = UnmappedShardingTexts(runs);
  for (const PublishedRun& r : runs) {
    rep.rows.push_back(PredictRun(r));
    ReportProgress(progress, "validating, rows", static_cast<int64_t>(rep.rows.size()),
                   static_cast<int64_t>(runs.size()));
  }
  std::vector<double> all, confident, kor;
  std::map<std::pair<std::string, std::string>, std::vector<double>> by;
  for (const RunPrediction& p : rep.rows) {
    if (!p.predicted) continue;
    const PublishedRun& r = *p.run;
    all.push_back(p.ape);
    if (r.confidence != "low") confident.push_back(p.ape);
    if (r.id.rfind("KOR22-T5", 0) == 0) kor.push_back(p.step_ape);
    for (const GroupDimension& d : kGroupDimensions) by[{d.name, d.value(r)}].push_back(p.ape);
  }
  rep.overall = Summarize(all);
  rep.overall_without_low_confidence = Summarize(confident);
  rep.korthikanti_step_time = Summarize(kor);
  for (const GroupDimension& d : kGroupDimensions)
    for (const auto& [key, v] : by)
      if (key.first == d.name) rep.groups.push_back({key.first, key.second, Summarize(v)});
  rep.memory = Compare(rep.rows, &RunPrediction::memory_ape, &RunPrediction::simumax_memory_ape);
  rep.step_time = Compare(rep.rows, &RunPrediction::step_time_ape, &RunPrediction::simumax_step_time_ape);

  // Pairwise ranking (validate/ranking.h), over all rows and over the confident ones.
  std::vector<const PublishedRun*> runs_of;
  std::vector<double> predicted, predicted_confident;
  for (const RunPrediction& p : rep.rows) {
    runs_of.push_back(p.run);
    predicted.push_back(p.predicted ? p.predicted_tokens_per_s_per_gpu : -1);
    predicted_confident.push_back(p.predicted && p.run->confidence != "low" ? p.predicted_tokens_per_s_per_gpu : -1);
  }
  const auto fill = [&](RankingStats& st, const std::vector<double>& pred) {
    const PairOrder o = OrderPairs(runs_of, pred, threshold);
    st.pairs = o.pairs;
    st.agree = o.agree;
    for (const auto& [faster, slower] : o.disagreements)
      st.disagreements.push_back({runs_of[faster]->id, runs_of[slower]->id});
  };
  fill(rep.ranking, predicted);
  fill(rep.ranking_without_low_confidence, predicted_confident);
  return rep;
}

}  // namespace paratune
