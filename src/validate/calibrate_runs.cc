#include "validate/calibrate_runs.h"

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <mutex>

#include <fmt/format.h>

#include "step/estimate.h"
#include "util/error.h"
#include "util/thread_pool.h"

namespace paratune {
namespace {

// The value CalibrationToml writes ({:.3f}) and HardwareCatalog::Merge reads back, so that the
// "after" predictions are exactly what the written file gives.
double AsWritten(double x) { return std::strtod(fmt::format("{:.3f}", x).c_str(), nullptr); }

void RoundAsWritten(CalibrationFit& fit) {
  for (auto& [gen, c] : fit.by_generation)
    for (const CalibrationField& f : kCalibrationFields) c.*f.value = AsWritten(c.*f.value);
}

double Predict(PublishedRun run, const Calibration& c) {
  run.cluster.gpu.calibration = c;
  return EstimateStep(run.model, run.cluster, run.training, run.layout).tokens_per_s_per_gpu;
}

// The calibration `fit` gives `run`'s generation, or the run's own when the fit has none.
const Calibration& CalibrationFor(const CalibrationFit& fit, const PublishedRun& run) {
  auto it = fit.by_generation.find(run.cluster.gpu.generation);
  return it != fit.by_generation.end() ? it->second : run.cluster.gpu.calibration;
}

double Ape(double predicted, double measured) { return std::abs(predicted - measured) / measured; }

bool SameCalibration(const Calibration& a, const Calibration& b) {
  for (const CalibrationField& f : kCalibrationFields)
    if (a.*f.value != b.*f.value) return false;
  return true;
}

}  // namespace

RunsCalibration CalibrateFromRuns(const std::vector<PublishedRun>& all, int rounds, Progress* progress,
                                  int threads) {
  if (rounds < kMinCalibrationRounds || rounds > kMaxCalibrationRounds)
    throw InputError(fmt::format("`rounds` must be between {} and {}, got {}", kMinCalibrationRounds,
                                 kMaxCalibrationRounds, rounds));
  // The rows FitCalibration fits (modelable, not low confidence), less those the cost model
  // rejects (FitCalibration skips them too), each predicted with its starting calibration.
  RunsCalibration out;
  out.rounds = rounds;
  std::vector<PublishedRun> runs;
  std::map<std::string, const PublishedRun*> first_of_generation;
  for (const PublishedRun& r : all) {
    if (!r.modelable || r.confidence == "low" || r.target_tokens_per_s_per_gpu <= 0) continue;
    double before = 0;
    try {
      before = Predict(r, r.cluster.gpu.calibration);
    } catch (const InputError&) {
      continue;
    }
    const auto [it, added] = first_of_generation.emplace(r.cluster.gpu.generation, &r);
    if (!added && !SameCalibration(it->second->cluster.gpu.calibration, r.cluster.gpu.calibration))
      throw InputError(fmt::format("runs '{}' and '{}' ({}) start from different calibrations; give them one",
                                   it->second->id, r.id, r.cluster.gpu.generation));
    runs.push_back(r);
    out.rows.push_back({r.id, r.cluster.gpu.generation, r.target_tokens_per_s_per_gpu, before, 0, 0});
  }
  if (runs.size() < 2)
    throw InputError(fmt::format("calibrating needs at least 2 usable runs (modelable, confidence not low, a layout "
                                 "the cost model accepts), got {}",
                                 runs.size()));

  // The fit on all runs (index n) and the n leave-one-out fits, in parallel: each is independent.
  const size_t n = runs.size();
  std::vector<CalibrationFit> fits(n + 1);
  std::atomic<int64_t> done{0};
  std::mutex progress_mutex;
  ReportProgress(progress, "calibrating, fit", 0, static_cast<int64_t>(n + 1));
  ParallelFor(n + 1, threads, [&](size_t i) {
    std::vector<PublishedRun> train;
    train.reserve(n);
    for (size_t k = 0; k < n; ++k)
      if (k != i) train.push_back(runs[k]);
    fits[i] = FitCalibration(train, rounds, nullptr);
    RoundAsWritten(fits[i]);
    const int64_t d = ++done;
    std::lock_guard<std::mutex> lock(progress_mutex);
    ReportProgress(progress, "calibrating, fit", d, static_cast<int64_t>(n + 1));
  });
  out.fit = std::move(fits[n]);

  std::map<std::string, std::pair<double, int>> after_by_gen;  // sum of errors, rows
  for (size_t i = 0; i < n; ++i) {
    RunsCalibrationRow& row = out.rows[i];
    row.after = Predict(runs[i], CalibrationFor(out.fit, runs[i]));
    row.loo = Predict(runs[i], CalibrationFor(fits[i], runs[i]));
    out.mape_before += Ape(row.before, row.measured_tokens_per_s_per_gpu) / n;
    out.mape_after += Ape(row.after, row.measured_tokens_per_s_per_gpu) / n;
    out.mape_loo += Ape(row.loo, row.measured_tokens_per_s_per_gpu) / n;
    auto& [sum, rows] = after_by_gen[row.generation];
    sum += Ape(row.after, row.measured_tokens_per_s_per_gpu);
    ++rows;
  }
  // The fit's own "after" with the fractions as written.
  for (const auto& [gen, e] : after_by_gen) out.fit.mape_after[gen] = e.first / e.second;
  return out;
}

}  // namespace paratune
