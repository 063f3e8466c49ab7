#include "validate/calibrate.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "step/estimate.h"
#include "util/error.h"

namespace paratune {
namespace {

// Physically plausible range of each fraction (docs/validation.md, "Bounds"): what public
// microbenchmarks show well-tuned and poorly tuned stacks reach. The fit stays inside them, so a
// software difference between sources cannot push a fraction to an impossible value.
struct Bound {
  double lo, hi;
};
constexpr Bound kBounds[] = {
    {0.50, 0.85},  // gemm_bf16: cuBLAS large GEMMs 60-85% of dense peak
    {0.45, 0.80},  // gemm_fp8: FP8 GEMMs reach a lower fraction than BF16 (scaling, casts)
    {0.35, 0.75},  // gemm_fp4
    {0.25, 0.75},  // attention: FlashAttention-2 on Hopper ~35%, FA3/cuDNN ~75% forward
    {0.50, 0.95},  // hbm: streaming kernels
    {0.50, 0.95},  // nvlink: nccl-tests bus bandwidth over link bandwidth
    {0.50, 0.95},  // net
};

double* Field(Calibration& c, int i) {
  switch (i) {
    case 0: return &c.gemm_bf16;
    case 1: return &c.gemm_fp8;
    case 2: return &c.gemm_fp4;
    case 3: return &c.attention;
    case 4: return &c.hbm;
    case 5: return &c.nvlink;
    default: return &c.net;
  }
}
constexpr const char* kNames[] = {"gemm_bf16", "gemm_fp8", "gemm_fp4", "attention", "hbm", "nvlink", "net"};

double Mape(std::vector<PublishedRun>& runs, const Calibration& c) {
  double sum = 0;
  int n = 0;
  for (PublishedRun& r : runs) {
    r.cluster.gpu.calibration = c;
    try {
      const Estimate e = EstimateStep(r.model, r.cluster, r.training, r.layout);
      sum += std::abs(e.tokens_per_s_per_gpu - r.target_tokens_per_s_per_gpu) / r.target_tokens_per_s_per_gpu;
      ++n;
    } catch (const InputError&) {
    }
  }
  return n ? sum / n : 0;
}

}  // namespace

CalibrationFit FitCalibration(const std::vector<PublishedRun>& all, int rounds) {
  std::map<std::string, std::vector<PublishedRun>> by_gen;
  for (const PublishedRun& r : all)
    if (r.modelable && r.confidence != "low") by_gen[r.cluster.gpu.generation].push_back(r);
  CalibrationFit fit;
  for (auto& [gen, runs] : by_gen) {
    Calibration c = runs.front().cluster.gpu.calibration;
    // Which fractions these rows can inform: a GEMM precision only if a row uses it.
    bool used[7] = {false, false, false, true, true, true, true};
    for (const PublishedRun& r : runs) used[static_cast<int>(r.training.precision)] = true;
    double best = Mape(runs, c);
    fit.mape_before[gen] = best;
    double step = 0.16;
    for (int round = 0; round < rounds; ++round, step /= 2) {
      for (int i = 0; i < 7; ++i) {
        if (!used[i]) continue;
        double* x = Field(c, i);
        for (bool improved = true; improved;) {
          improved = false;
          for (double dir : {+1.0, -1.0}) {
            const double old = *x;
            *x = std::clamp(old * (1 + dir * step), kBounds[i].lo, kBounds[i].hi);
            const double m = Mape(runs, c);
            if (m + 1e-9 < best) {
              best = m;
              improved = true;
              break;
            }
            *x = old;
          }
        }
      }
    }
    fit.by_generation[gen] = c;
    fit.rows[gen] = static_cast<int>(runs.size());
    fit.mape_after[gen] = best;
  }
  return fit;
}

std::string CalibrationToml(const CalibrationFit& fit, const std::string& header) {
  std::string out = header;
  for (const auto& [gen, c] : fit.by_generation) {
    out += fmt::format("\n[calibration.{}]\n", gen);
    out += fmt::format("# fitted on {} rows: MAPE {:.1f}% -> {:.1f}%\n", fit.rows.at(gen), 100 * fit.mape_before.at(gen),
                       100 * fit.mape_after.at(gen));
    Calibration copy = c;
    for (int i = 0; i < 7; ++i) out += fmt::format("{} = {:.3f}\n", kNames[i], *Field(copy, i));
  }
  return out;
}

}  // namespace paratune
