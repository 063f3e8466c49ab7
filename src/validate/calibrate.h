// Fits the per-generation calibration (data/calibration.toml: achievable fractions of GEMM,
// attention, HBM, NVLink and network peaks) to published runs by minimising the mean absolute
// percentage error of tokens/s per GPU, one GPU generation at a time, never accepting a step that
// misorders more ranking pairs (validate/ranking.h). Coordinate descent over the physical
// fractions, each kept inside a plausible range; nothing per row or model.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "hardware/gpu_spec.h"
#include "util/enum_names.h"
#include "util/progress.h"
#include "validate/published_runs.h"

namespace paratune {

struct CalibrationFit {
  std::map<std::string, Calibration> by_generation;
  std::map<std::string, int> rows;            // rows used per generation
  std::map<std::string, double> mape_before;  // with the starting calibration
  std::map<std::string, double> mape_after;
  // Ranking pairs (validate/ranking.h) among a generation's rows ordered against measurement.
  std::map<std::string, int> misordered_before;
  std::map<std::string, int> misordered_after;
};

// Coordinate-descent rounds: the step halves each round, from 16% to 0.5% after six and below
// 1e-5 after 15, finer than any figure the development data can resolve.
inline constexpr int kMinCalibrationRounds = 1;
inline constexpr int kMaxCalibrationRounds = 15;

// Which fractions a fit may move: none (the starting calibration kept), only the GEMM fractions
// (of the precisions the rows use: the term a software stack moves most, one or two parameters
// where a cluster has few runs), or all eight (the development fit). Nested: each set holds the
// one before it (`calibrate --from-runs` chooses among them by held-out error).
enum class FitFractions : uint8_t { kNone, kGemm, kAll };
inline constexpr EnumNames<FitFractions, 3> kFitFractionsNames{
    {{{FitFractions::kNone, "none"}, {FitFractions::kGemm, "gemm"}, {FitFractions::kAll, "all"}}}, 3};

// Uses rows that are modelable and not of "low" confidence. `runs` are copied internally.
// Throws InputError when `rounds` is outside [kMinCalibrationRounds, kMaxCalibrationRounds] or
// no row can be used. Reports each round of each generation to `progress`.
CalibrationFit FitCalibration(const std::vector<PublishedRun>& runs, int rounds = 6, Progress* progress = nullptr,
                              FitFractions fractions = FitFractions::kAll);

// The fit as the text of data/calibration.toml.
std::string CalibrationToml(const CalibrationFit& fit, const std::string& header_comment);

}  // namespace paratune
