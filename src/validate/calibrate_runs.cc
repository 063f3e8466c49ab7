#include "validate/calibrate_runs.h"

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <map>
#include <mutex>

#include <fmt/format.h>

#include "step/estimate.h"
#include "util/error.h"
#include "util/thread_pool.h"

namespace paratune {
namespace {

// The value CalibrationToml writes ({:.3g}) and HardwareCatalog::Merge reads back, so that the
// "after" predictions are exactly what the written file gives.
double AsWritten(double x) { return std::strtod(fmt::format("{:.3g}", x).c_str(), nullptr); }

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

double RunApe(double predicted, double measured) { return std::abs(predicted - measured) / measured; }

bool SameCalibration(const Calibration& a, const Calibration& b) {
  for (const CalibrationField& f : kCalibrationFields)
    if (a.*f.value != b.*f.value) return false;
  return true;
}

}  // namespace

namespace {

// The rows FitCalibration fits (modelable, not low confidence), less those the cost model
// rejects (FitCalibration skips them too), each predicted with its starting calibration into
// out.rows.
std::vector<PublishedRun> UsableRuns(const std::vector<PublishedRun>& all, RunsCalibration& out) {
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
    throw InputError(
        fmt::format("calibrating needs at least 2 usable runs (modelable, confidence not low, a layout "
                    "the cost model accepts), got {}",
                    runs.size()));
  return runs;
}

// Per set of fractions fitted, the fit on all runs (index n) and the n leave-one-out fits, all
// in parallel: each is independent.
std::vector<std::vector<CalibrationFit>> FitAll(const std::vector<PublishedRun>& runs,
                                                const std::vector<FitFractions>& fitted, int rounds, Progress* progress,
                                                int threads) {
  const size_t n = runs.size();
  std::vector<std::vector<CalibrationFit>> fits(fitted.size(), std::vector<CalibrationFit>(n + 1));
  const int64_t jobs = static_cast<int64_t>(fitted.size() * (n + 1));
  std::atomic<int64_t> done{0};
  std::mutex progress_mutex;
  ReportProgress(progress, "calibrating, fit", 0, jobs);
  ParallelFor(static_cast<size_t>(jobs), threads, [&](size_t job) {
    const size_t set = job / (n + 1), i = job % (n + 1);
    std::vector<PublishedRun> train;
    train.reserve(n);
    for (size_t k = 0; k < n; ++k)
      if (k != i) train.push_back(runs[k]);
    fits[set][i] = FitCalibration(train, rounds, nullptr, fitted[set]);
    RoundAsWritten(fits[set][i]);
    const int64_t d = ++done;
    std::lock_guard<std::mutex> lock(progress_mutex);
    ReportProgress(progress, "calibrating, fit", d, jobs);
  });
  return fits;
}

// One set of fractions: its predictions in sample and held out, and the fit's errors and row
// counts per generation. `set_fits` is that set's FitAll entry (nullptr for kNone: the starting
// calibration, a fit that moved nothing).
RunsCalibrationCandidate Candidate(FitFractions f, const std::vector<PublishedRun>& runs,
                                   const std::vector<RunsCalibrationRow>& rows, std::vector<CalibrationFit>* set_fits) {
  const size_t n = runs.size();
  RunsCalibrationCandidate c;
  c.fractions = f;
  if (!set_fits) {
    for (const PublishedRun& r : runs) c.fit.by_generation[r.cluster.gpu.generation] = r.cluster.gpu.calibration;
    for (size_t i = 0; i < n; ++i) c.after.push_back(rows[i].before), c.loo.push_back(rows[i].before);
  } else {
    c.fit = std::move((*set_fits)[n]);
    for (size_t i = 0; i < n; ++i) {
      c.after.push_back(Predict(runs[i], CalibrationFor(c.fit, runs[i])));
      c.loo.push_back(Predict(runs[i], CalibrationFor((*set_fits)[i], runs[i])));
    }
  }
  // The fit's own row counts and errors per generation, with the fractions as written.
  std::map<std::string, std::pair<double, int>> after_by_gen, before_by_gen;  // sum of errors, rows
  for (size_t i = 0; i < n; ++i) {
    const RunsCalibrationRow& row = rows[i];
    c.mape_after += RunApe(c.after[i], row.measured_tokens_per_s_per_gpu) / n;
    c.mape_loo += RunApe(c.loo[i], row.measured_tokens_per_s_per_gpu) / n;
    auto& [sum, count] = after_by_gen[row.generation];
    sum += RunApe(c.after[i], row.measured_tokens_per_s_per_gpu);
    ++count;
    before_by_gen[row.generation].first += RunApe(row.before, row.measured_tokens_per_s_per_gpu);
    ++before_by_gen[row.generation].second;
  }
  for (const auto& [gen, e] : after_by_gen) {
    c.fit.mape_after[gen] = e.first / e.second;
    c.fit.mape_before[gen] = before_by_gen[gen].first / before_by_gen[gen].second;
    c.fit.rows[gen] = e.second;
  }
  return c;
}

// The candidate with the lowest held-out error (on a tie the smaller set, earlier in the list)
// becomes out's choice.
void ChooseBest(RunsCalibration& out) {
  const RunsCalibrationCandidate* best = &out.candidates.front();
  for (const RunsCalibrationCandidate& c : out.candidates)
    if (c.mape_loo < best->mape_loo - 1e-12) best = &c;
  out.chosen = best->fractions;
  out.fit = best->fit;
  out.mape_after = best->mape_after;
  out.mape_loo = best->mape_loo;
  for (size_t i = 0; i < out.rows.size(); ++i) out.rows[i].after = best->after[i], out.rows[i].loo = best->loo[i];
}

// The whole procedure on all runs but i (its own three sets, its own choice), then run i
// predicted by what it chose. Each inner call is serial; the n calls run in parallel.
void Nested(RunsCalibration& out, const std::vector<PublishedRun>& runs, int rounds, Progress* progress, int threads) {
  const size_t n = runs.size();
  out.nested.assign(n, 0);
  std::atomic<int64_t> nested_done{0};
  std::mutex progress_mutex;
  ReportProgress(progress, "calibrating, nested", 0, static_cast<int64_t>(n));
  ParallelFor(n, threads, [&](size_t i) {
    std::vector<PublishedRun> train;
    for (size_t k = 0; k < n; ++k)
      if (k != i) train.push_back(runs[k]);
    const RunsCalibration inner = CalibrateFromRuns(train, rounds, nullptr, 1);
    out.nested[i] = Predict(runs[i], CalibrationFor(inner.fit, runs[i]));
    const int64_t d = ++nested_done;
    std::lock_guard<std::mutex> lock(progress_mutex);
    ReportProgress(progress, "calibrating, nested", d, static_cast<int64_t>(n));
  });
  out.mape_nested = 0;
  for (size_t i = 0; i < n; ++i)
    out.mape_nested += RunApe(out.nested[i], out.rows[i].measured_tokens_per_s_per_gpu) / n;
}

}  // namespace

RunsCalibration CalibrateFromRuns(const std::vector<PublishedRun>& all, int rounds, Progress* progress, int threads,
                                  std::optional<FitFractions> only, bool nested) {
  if (rounds < kMinCalibrationRounds || rounds > kMaxCalibrationRounds)
    throw InputError(fmt::format("`rounds` must be between {} and {}, got {}", kMinCalibrationRounds,
                                 kMaxCalibrationRounds, rounds));
  RunsCalibration out;
  out.rounds = rounds;
  const std::vector<PublishedRun> runs = UsableRuns(all, out);
  const size_t n = runs.size();
  // The sets of fractions tried; "none" needs no fit: the starting calibration.
  const std::vector<FitFractions> sets =
      only ? std::vector<FitFractions>{*only}
           : std::vector<FitFractions>{FitFractions::kNone, FitFractions::kGemm, FitFractions::kAll};
  std::vector<FitFractions> fitted;
  for (FitFractions f : sets)
    if (f != FitFractions::kNone) fitted.push_back(f);
  std::vector<std::vector<CalibrationFit>> fits = FitAll(runs, fitted, rounds, progress, threads);
  for (size_t i = 0; i < n; ++i)
    out.mape_before += RunApe(out.rows[i].before, out.rows[i].measured_tokens_per_s_per_gpu) / n;
  size_t next_fit = 0;
  for (FitFractions f : sets)
    out.candidates.push_back(Candidate(f, runs, out.rows, f == FitFractions::kNone ? nullptr : &fits[next_fit++]));
  ChooseBest(out);
  if (nested && !only && n >= 3) Nested(out, runs, rounds, progress, threads);
  return out;
}

}  // namespace paratune
