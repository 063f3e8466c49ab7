#include "validate/calibrate.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "step/estimate.h"
#include "util/error.h"
#include "validate/ranking.h"

namespace paratune {
namespace {

// Physically plausible range of each fraction (docs/validation.md, "Bounds"): what public
// microbenchmarks show well-tuned and poorly tuned stacks reach. The fit stays inside them, so a
// software difference between sources cannot push a fraction to an impossible value.
struct Bound {
  double Calibration::*value;
  double lo, hi;
};
constexpr Bound kBounds[] = {
    // cuBLAS large GEMMs 60-85% of dense peak on A100/H100; B200 BF16 under TE 2.11 measures
    // 0.45-0.51 for large shapes at 4,096 tokens (MooreThreads/SimuMax,
    // configs/system/b200_bf16_ceperm.json, accurate_efficient_factor).
    {&Calibration::gemm_bf16, 0.45, 0.85},
    {&Calibration::gemm_fp8, 0.45, 0.80},  // FP8 GEMMs reach a lower fraction than BF16 (scaling, casts)
    {&Calibration::gemm_fp4, 0.35, 0.75},
    {&Calibration::attention, 0.25, 0.75},  // FlashAttention-2 on Hopper ~35%, FA3/cuDNN ~75% forward
    {&Calibration::hbm, 0.50, 0.95},        // streaming kernels
    {&Calibration::nvlink, 0.50, 0.95},     // nccl-tests bus bandwidth over link bandwidth
    {&Calibration::net, 0.50, 0.95},
    // NCCL over PCIe Gen4/Gen5 without NVLink: rings cross PCIe switches and the CPU root
    // complex; nccl-tests busbw on 8-GPU PCIe servers is a third to most of the x16 link rate.
    {&Calibration::pcie, 0.30, 0.90},
    // NCCL runs one thread block per channel, 16-32 channels on NVSwitch and InfiniBand systems
    // (NCCL's MAXCHANNELS is 32; logs show 24 on HGX A100, NVIDIA/nccl-tests#100, and 16 on an
    // H100 cluster, NVIDIA/nccl#1453), over 108 (A100), 132 (H100) or 148 (B200) SMs.
    {&Calibration::nccl_sm_share, 0.10, 0.30},
    // Host time per kernel issued from Python: PyTorch's bare-operator micro-benchmarks measure
    // 2.3-3.4 us (pytorch/pytorch#32194); with autograd and module code around a kernel 5-25 us
    // (cost/host_launch.h, docs/stacks.md "Launches").
    {&Calibration::host_op_s, 3e-6, 25e-6},
};

const Bound& BoundOf(double Calibration::*f) {
  return *std::find_if(std::begin(kBounds), std::end(kBounds), [&](const Bound& b) { return b.value == f; });
}

// How well a calibration predicts a generation's rows: the mean absolute percentage error of
// tokens/s per GPU and the ranking pairs (validate/ranking.h) it orders against their
// measurement. A step is taken when it lowers the error without misordering more pairs: the fit
// never buys error with a ranking a planner would follow into the wrong layout.
struct Score {
  int misordered = 0;
  double mape = 0;
  bool Better(const Score& o) const { return misordered <= o.misordered && mape + 1e-9 < o.mape; }
};

Score Evaluate(std::vector<PublishedRun>& runs, const Calibration& c) {
  double sum = 0;
  int n = 0;
  std::vector<const PublishedRun*> of;
  std::vector<double> predicted;
  for (PublishedRun& r : runs) {
    r.cluster.gpu.calibration = c;
    of.push_back(&r);
    predicted.push_back(-1);
    try {
      const Estimate e = EstimateStep(r.model, r.cluster, r.training, r.layout);
      sum += std::abs(e.tokens_per_s_per_gpu - r.target_tokens_per_s_per_gpu) / r.target_tokens_per_s_per_gpu;
      predicted.back() = e.tokens_per_s_per_gpu;
      ++n;
    } catch (const InputError&) {
    }
  }
  const PairOrder o = OrderPairs(of, predicted);
  return {o.pairs - o.agree, n ? sum / n : 0};
}

}  // namespace

namespace {

// The fractions a generation's rows are fitted for: a GEMM fraction only if a row's precision
// uses it, all or only the GEMM ones as asked.
std::vector<double Calibration::*> FittedFields(const std::vector<PublishedRun>& runs, FitFractions fractions) {
  std::vector<double Calibration::*> fields;
  for (const CalibrationField& f : kCalibrationFields) {
    const bool gemm =
        f.value == &Calibration::gemm_bf16 || f.value == &Calibration::gemm_fp8 || f.value == &Calibration::gemm_fp4;
    const bool used = !gemm || std::any_of(runs.begin(), runs.end(), [&](const PublishedRun& r) {
      return GemmFraction(r.training.precision) == f.value;
    });
    // The NCCL SM share is a count (channels over SMs, calibration_initial.toml), not fitted: the
    // rows cannot tell it from the GEMM fractions and drive it to a bound.
    const bool counted = f.value == &Calibration::nccl_sm_share;
    const bool allowed = !counted && (fractions == FitFractions::kAll || (fractions == FitFractions::kGemm && gemm));
    if (used && allowed) fields.push_back(f.value);
  }
  return fields;
}

// Coordinate descent on `fields` from c: each round tries each fraction a step up and down
// (the step halves every round) while the score improves. Returns the best score.
Score Descend(std::vector<PublishedRun>& runs, const std::vector<double Calibration::*>& fields, int rounds,
              Calibration& c, Score best, Progress* progress, int64_t& done, int64_t total) {
  double step = 0.16;
  for (int round = 0; round < rounds; ++round, step /= 2) {
    ReportProgress(progress, "calibrating, round", done++, total);
    for (double Calibration::*field : fields) {
      const Bound& bound = BoundOf(field);
      double* x = &(c.*field);
      for (bool improved = true; improved;) {
        improved = false;
        for (double dir : {+1.0, -1.0}) {
          const double old = *x;
          *x = std::clamp(old * (1 + dir * step), bound.lo, bound.hi);
          const Score m = Evaluate(runs, c);
          if (m.Better(best)) {
            best = m;
            improved = true;
            break;
          }
          *x = old;
        }
      }
    }
  }
  return best;
}

}  // namespace

CalibrationFit FitCalibration(const std::vector<PublishedRun>& all, int rounds, Progress* progress,
                              FitFractions fractions) {
  if (rounds < kMinCalibrationRounds || rounds > kMaxCalibrationRounds)
    throw InputError(fmt::format("`rounds` must be between {} and {}, got {}", kMinCalibrationRounds,
                                 kMaxCalibrationRounds, rounds));
  std::map<std::string, std::vector<PublishedRun>> by_gen;
  for (const PublishedRun& r : all)
    if (r.modelable && r.confidence != "low") by_gen[r.cluster.gpu.generation].push_back(r);
  if (by_gen.empty())
    throw InputError("no row can be used for the fit (none is modelable with medium or high confidence)");
  CalibrationFit fit;
  const int64_t total = static_cast<int64_t>(by_gen.size()) * rounds;
  int64_t done = 0;
  for (auto& [gen, runs] : by_gen) {
    Calibration c = runs.front().cluster.gpu.calibration;
    const std::vector<double Calibration::*> fields = FittedFields(runs, fractions);
    Score best = Evaluate(runs, c);
    fit.mape_before[gen] = best.mape;
    fit.misordered_before[gen] = best.misordered;
    best = Descend(runs, fields, rounds, c, best, progress, done, total);
    fit.by_generation[gen] = c;
    fit.rows[gen] = static_cast<int>(runs.size());
    fit.mape_after[gen] = best.mape;
    fit.misordered_after[gen] = best.misordered;
  }
  ReportProgress(progress, "calibrating, round", total, total);
  return fit;
}

std::string CalibrationToml(const CalibrationFit& fit, const std::string& header) {
  std::string out = header;
  for (const auto& [gen, c] : fit.by_generation) {
    out += fmt::format("\n[calibration.{}]\n", gen);
    out += fmt::format("# fitted on {} rows: MAPE {:.1f}% -> {:.1f}%", fit.rows.at(gen), 100 * fit.mape_before.at(gen),
                       100 * fit.mape_after.at(gen));
    const auto before = fit.misordered_before.find(gen), after = fit.misordered_after.find(gen);
    if (before != fit.misordered_before.end() && after != fit.misordered_after.end())
      out += fmt::format(", misordered pairs {} -> {}", before->second, after->second);
    out += "\n";
    // Three significant digits: the fractions (all in [0.1, 1]) to the thousandth, host_op_s in
    // seconds as 8.5e-06 (calibrate_runs.cc AsWritten reads back the same text).
    for (const CalibrationField& f : kCalibrationFields) out += fmt::format("{} = {:.3g}\n", f.key, c.*f.value);
  }
  return out;
}

}  // namespace paratune
