#include "validate/calibrate_runs.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "hardware/hardware_catalog.h"
#include "model/catalog.h"
#include "step/estimate.h"
#include "util/file.h"
#include "util/test_util.h"
#include "validate/calibrate_json.h"

namespace paratune {
namespace {

PublishedRun Run(const std::string& id, const std::string& model, const ClusterSpec& cluster, int tp, int pp,
                 int64_t seq, int64_t global_batch) {
  PublishedRun r;
  r.id = id;
  r.modelable = true;
  r.confidence = "high";
  r.model = LoadModel(model);
  r.cluster = cluster;
  r.num_gpus = cluster.gpus;
  r.gpu_name = cluster.gpu.name;
  r.training = Training{seq, global_batch, Precision::kBf16};
  r.layout.tp = tp;
  r.layout.pp = pp;
  return r;
}

double Predict(PublishedRun r, const Calibration& c) {
  r.cluster.gpu.calibration = c;
  return EstimateStep(r.model, r.cluster, r.training, r.layout).tokens_per_s_per_gpu;
}

// Runs "measured" on a cluster whose BF16 GEMMs reach `factor` x the catalog's fraction
// (everything else as the catalog says): the runs' targets are the cost model's own predictions
// with that calibration.
std::vector<PublishedRun> SlowGemmRuns(const HardwareCatalog& hw, double factor, Calibration& truth) {
  const ClusterSpec h100x8 = hw.Cluster("H100-SXM", 8), h100x16 = hw.Cluster("H100-SXM", 16);
  std::vector<PublishedRun> runs = {
      Run("8b-tp1", "llama-3.1-8b", h100x8, 1, 1, 8192, 64),    Run("8b-tp2", "llama-3.1-8b", h100x8, 2, 1, 4096, 128),
      Run("7b-tp1", "mistral-7b", h100x8, 1, 1, 4096, 128),     Run("q8b-tp2", "qwen3-8b", h100x8, 2, 1, 8192, 64),
      Run("70b-tp8", "llama-3.1-70b", h100x16, 8, 2, 8192, 64), Run("13b-tp4", "llama-2-13b", h100x16, 4, 1, 4096, 128),
  };
  truth = h100x8.gpu.calibration;
  truth.gemm_bf16 *= factor;
  for (PublishedRun& r : runs) r.target_tokens_per_s_per_gpu = Predict(r, truth);
  return runs;
}

// A slowdown of exactly the fit's first step (16% down, FitCalibration's starting step): the
// first move of the first fraction finds it, the errors vanish (up to the 3 decimals the TOML
// keeps: the catalog's Hopper 0.643 x 0.84 = 0.54012 is written 0.540), and no later move
// improves on zero.
TEST(CalibrateFromRuns, RecoversAKnownSlowdownOfOneStep) {
  const HardwareCatalog hw = HardwareCatalog::BuiltIn();
  Calibration truth;
  const std::vector<PublishedRun> runs = SlowGemmRuns(hw, 0.84, truth);
  const Calibration start = hw.Find("H100-SXM").calibration;
  const RunsCalibration rc = CalibrateFromRuns(runs, 6);
  ASSERT_EQ(rc.rows.size(), runs.size());
  ASSERT_EQ(rc.fit.by_generation.size(), 1u);
  const Calibration& fitted = rc.fit.by_generation.at("hopper");
  ASSERT_EQ(start.gemm_bf16, 0.643);  // data/calibration.toml, hopper
  EXPECT_EQ(fitted.gemm_bf16, 0.540);
  for (const CalibrationField& f : kCalibrationFields) {
    if (f.value != &Calibration::gemm_bf16) {
      EXPECT_EQ(fitted.*f.value, start.*f.value) << f.key;
    }
  }
  // Before: the catalog's fraction is 1/0.84 too high, so every run is predicted too fast, by
  // less than 1/0.84 (GEMMs are most but not all of a step).
  for (const RunsCalibrationRow& row : rc.rows) {
    EXPECT_GT(row.before, row.measured_tokens_per_s_per_gpu) << row.id;
    EXPECT_LT(row.before, row.measured_tokens_per_s_per_gpu / 0.84) << row.id;
  }
  EXPECT_GT(rc.mape_before, 0.10);
  EXPECT_LT(rc.mape_after, 0.001);  // 0.564 vs 0.56448: 0.1% at most on the GEMM share
  EXPECT_LT(rc.mape_loo, 0.001);
  EXPECT_DOUBLE_EQ(rc.fit.mape_before.at("hopper"), rc.mape_before);
  EXPECT_DOUBLE_EQ(rc.fit.mape_after.at("hopper"), rc.mape_after);
}

// A slowdown of 10%, between steps. Measured: MAPE 7.26% before; fitting all eight fractions,
// 1.21% after and 1.95% leave-one-out: the first 16% step overshoots to 0.539 (truth 0.578) and
// the coordinate descent settles in a nearby corner (attention 0.25 -> 0.31, HBM 0.50 -> 0.63
// make up for it): MAPE is not smooth and the fractions overlap on these six runs. The GEMM
// fraction alone reaches 0.09% in and out of the fit, so that set is the one chosen
// (ChoosesTheSetOfFractionsByHeldOutError). Either way the error falls several-fold and the
// GEMM fraction moves the right way.
TEST(CalibrateFromRuns, ReducesTheErrorOfASlowdownBetweenSteps) {
  const HardwareCatalog hw = HardwareCatalog::BuiltIn();
  Calibration truth;
  const std::vector<PublishedRun> runs = SlowGemmRuns(hw, 0.9, truth);
  const RunsCalibration rc = CalibrateFromRuns(runs, 6);
  const double start = hw.Find("H100-SXM").calibration.gemm_bf16;
  const double fitted = rc.fit.by_generation.at("hopper").gemm_bf16;
  EXPECT_LT(fitted, start);
  EXPECT_NEAR(fitted, truth.gemm_bf16, 0.16 * start);  // within the first step
  EXPECT_GT(rc.mape_before, 0.05);
  EXPECT_LT(rc.mape_after, rc.mape_before / 5);
  EXPECT_LT(rc.mape_loo, rc.mape_before / 3);
}

// The three nested sets of fractions (none, GEMM only, all eight) are each fitted and held out,
// and the lowest held-out error chosen. A cluster whose only difference is its BF16 GEMMs is
// fitted best by the GEMM fraction alone; one whose HBM-bound kernels are slower needs the
// fractions GEMM-only cannot move; one the catalog predicts exactly keeps the catalog.
TEST(CalibrateFromRuns, ChoosesTheSetOfFractionsByHeldOutError) {
  const HardwareCatalog hw = HardwareCatalog::BuiltIn();
  Calibration truth;
  const std::vector<PublishedRun> slow_gemm = SlowGemmRuns(hw, 0.9, truth);
  const RunsCalibration g = CalibrateFromRuns(slow_gemm, 6);
  ASSERT_EQ(g.candidates.size(), 3u);
  for (const auto& c : g.candidates)
    std::printf("slow GEMM: %-4s after %.2f%% held out %.2f%%\n", kFitFractionsNames.Name(c.fractions),
                100 * c.mape_after, 100 * c.mape_loo);
  EXPECT_EQ(g.candidates[0].fractions, FitFractions::kNone);
  EXPECT_EQ(g.candidates[0].mape_loo, g.mape_before);  // the catalog, held out or not
  EXPECT_EQ(g.candidates[0].mape_after, g.mape_before);
  EXPECT_EQ(g.chosen, FitFractions::kGemm);
  const Calibration& fitted = g.fit.by_generation.at("hopper");
  for (const CalibrationField& f : kCalibrationFields) {
    if (f.value != &Calibration::gemm_bf16) {
      EXPECT_EQ(fitted.*f.value, hw.Find("H100-SXM").calibration.*f.value) << f.key;
    }
  }
  EXPECT_LT(g.mape_loo, g.candidates[2].mape_loo + 1e-12);
  EXPECT_EQ(g.mape_loo, g.candidates[1].mape_loo);

  // Faster HBM-bound kernels and slower attention (HBM at 1.5 x the catalog's fraction, which
  // sits at the lower bound 0.50, attention at 0.72 x; the truth inside the bounds): outside
  // what GEMM alone moves.
  std::vector<PublishedRun> slow_hbm = slow_gemm;
  Calibration hbm = hw.Find("H100-SXM").calibration;
  hbm.hbm *= 1.5;
  hbm.attention *= 0.72;
  for (PublishedRun& r : slow_hbm) r.target_tokens_per_s_per_gpu = Predict(r, hbm);
  const RunsCalibration h = CalibrateFromRuns(slow_hbm, 6);
  for (const auto& c : h.candidates)
    std::printf("slow HBM: %-4s after %.2f%% held out %.2f%%\n", kFitFractionsNames.Name(c.fractions),
                100 * c.mape_after, 100 * c.mape_loo);
  EXPECT_EQ(h.chosen, FitFractions::kAll);
  EXPECT_LT(h.mape_loo, h.candidates[1].mape_loo);

  // Exactly what the catalog predicts: nothing to gain, the catalog kept.
  std::vector<PublishedRun> exact = slow_gemm;
  for (PublishedRun& r : exact) r.target_tokens_per_s_per_gpu = Predict(r, hw.Find("H100-SXM").calibration);
  const RunsCalibration e = CalibrateFromRuns(exact, 3);
  EXPECT_EQ(e.chosen, FitFractions::kNone);
  EXPECT_EQ(e.mape_before, 0);

  // `only`: that set alone.
  const RunsCalibration a = CalibrateFromRuns(slow_gemm, 3, nullptr, 0, FitFractions::kAll);
  ASSERT_EQ(a.candidates.size(), 1u);
  EXPECT_EQ(a.chosen, FitFractions::kAll);
}

// The TOML is a --hardware override of the one generation fitted: HardwareCatalog::Merge takes
// it, and estimating with the merged catalog's calibration gives the "after" predictions.
TEST(CalibrateFromRuns, TomlIsAHardwareOverrideThatReproducesTheFit) {
  const HardwareCatalog builtin = HardwareCatalog::BuiltIn();
  Calibration truth;
  const std::vector<PublishedRun> runs = SlowGemmRuns(builtin, 0.9, truth);
  const RunsCalibration rc = CalibrateFromRuns(runs, 4);
  const std::string toml = CalibrationToml(rc.fit, "# test\n");
  EXPECT_EQ(toml.find("[calibration.ampere]"), std::string::npos);
  EXPECT_EQ(toml.find("[calibration.blackwell]"), std::string::npos);
  EXPECT_NE(toml.find("[calibration.hopper]"), std::string::npos);
  HardwareCatalog hw = builtin;
  hw.Merge(toml, "out.toml");
  // Only hopper moved.
  EXPECT_EQ(hw.Find("A100-80GB").calibration.gemm_bf16, builtin.Find("A100-80GB").calibration.gemm_bf16);
  EXPECT_EQ(hw.Find("B200").calibration.hbm, builtin.Find("B200").calibration.hbm);
  const nlohmann::json j = RunsCalibrationJson(rc, "lab-h100", toml);
  EXPECT_EQ(j["schema"], "paratune.calibrate/1");
  EXPECT_EQ(j["toml"], toml);
  EXPECT_EQ(j["from_runs"]["cluster"], "lab-h100");
  EXPECT_EQ(j["from_runs"]["runs"], runs.size());
  EXPECT_EQ(j["from_runs"]["mape_loo"], rc.mape_loo);
  EXPECT_EQ(j["from_runs"]["rows"][0]["name"], "8b-tp1");
  EXPECT_EQ(j["from_runs"]["rows"][0]["after_tokens_per_s_per_gpu"], rc.rows[0].after);
  EXPECT_EQ(j["generations"][0]["fractions"]["gemm_bf16"], rc.fit.by_generation.at("hopper").gemm_bf16);
  for (size_t i = 0; i < runs.size(); ++i) {
    PublishedRun r = runs[i];
    r.cluster = hw.Cluster(r.gpu_name, r.num_gpus);
    EXPECT_EQ(EstimateStep(r.model, r.cluster, r.training, r.layout).tokens_per_s_per_gpu, rc.rows[i].after) << r.id;
  }
}

TEST(CalibrateFromRuns, BadInput) {
  const HardwareCatalog hw = HardwareCatalog::BuiltIn();
  Calibration truth;
  std::vector<PublishedRun> runs = SlowGemmRuns(hw, 0.9, truth);
  EXPECT_CONTAINS(InputErrorOf([&] { CalibrateFromRuns({runs.front()}, 2); }),
                  "at least 2 usable runs (modelable, confidence not low, a layout the cost model accepts), got 1");
  EXPECT_CONTAINS(InputErrorOf([&] { CalibrateFromRuns(runs, 0); }), "`rounds` must be between 1 and 15, got 0");
  runs[1].cluster.gpu.calibration.hbm = 0.6;
  EXPECT_EQ(InputErrorOf([&] { CalibrateFromRuns(runs, 2); }),
            "runs '8b-tp1' and '8b-tp2' (hopper) start from different calibrations; give them one");
}

// Issue 14's acceptance on development data: one cluster's rows as its measured runs (one
// source on one GPU). The starting ("uncalibrated") calibration is the catalog's, which was
// itself fitted on all development rows of every source together, these included: the cluster's
// own fit must still beat it on the runs it did not see. Measured at 6 rounds for every source
// (docs/validation.md, "Calibrating from a cluster's runs"): choosing among none, GEMM only and
// all eight fractions by held-out error, 6 of the 12 clusters improve held out and the other 6
// keep the catalog; none gets worse. The two below run in about a second; dgxc (80 s) is
// measured in the docs, not here.
RunsCalibration CalibrateCluster(const std::string& csv, const std::string& source, int rounds, bool nested = false) {
  const HardwareCatalog hw = HardwareCatalog::BuiltIn();
  std::vector<PublishedRun> runs;
  for (PublishedRun& r : ReadPublishedRuns(ReadFile(csv), csv, hw))
    if (r.source == source) runs.push_back(std::move(r));
  return CalibrateFromRuns(runs, rounds, nullptr, 0, std::nullopt, nested);
}

// Runs `fit`, prints its figures and time under `name`, and returns it.
template <class Fit>
RunsCalibration Timed(const std::string& name, Fit fit) {
  const auto t0 = std::chrono::steady_clock::now();
  const RunsCalibration rc = fit();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf(
      "%s: %zu runs, %d rounds, %.1f s: MAPE before %.2f%%, after %.2f%%, leave-one-out %.2f%% (%s), "
      "nested %.2f%%\n",
      name.c_str(), rc.rows.size(), rc.rounds, seconds, 100 * rc.mape_before, 100 * rc.mape_after, 100 * rc.mape_loo,
      kFitFractionsNames.Name(rc.chosen), 100 * rc.mape_nested);
  return rc;
}

// 0.1 s at 6 rounds on the 2-core development box. Since the B200 collective latencies
// (2026-12-05) the catalog fits these 12 rows in-sample at 2.20%, and no fit on 11 of them
// predicts the twelfth better: the choice held out keeps the catalog ("none"), which is what it
// is for (2026-12-03: 2.69% before, 2.45% held out with the cluster's own fit).
TEST(CalibrateFromRuns, SimuMaxB200ClusterKeepsTheCatalog) {
  PARATUNE_SHARED_OR_SKIP(csv, "validation/simumax_runs_dev.csv");
  const RunsCalibration rc =
      Timed("SimuMax-B200", [&] { return CalibrateCluster(csv, "SimuMax-B200-release-v1.2", 6); });
  EXPECT_EQ(rc.rows.size(), 12u);
  EXPECT_LT(rc.mape_before, 0.03);
  EXPECT_EQ(rc.chosen, FitFractions::kNone);
  EXPECT_DOUBLE_EQ(rc.mape_loo, rc.mape_before);
  EXPECT_DOUBLE_EQ(rc.mape_after, rc.mape_before);
}

// Megatron-LM's H100 weak-scaling table (9 usable rows), which the catalog fits at 10.7%
// in-sample: the cluster's own fit lowers the error, held out as well (2026-12-05: 7.2%).
TEST(CalibrateFromRuns, MegatronH100ClusterLeaveOneOut) {
  PARATUNE_SHARED_OR_SKIP(csv, "validation/published_runs_dev.csv");
  const RunsCalibration rc =
      Timed("MegatronLM-H100", [&] { return CalibrateCluster(csv, "MegatronLM-README-H100", 6); });
  EXPECT_EQ(rc.rows.size(), 9u);
  EXPECT_LT(rc.mape_after, rc.mape_before);
  EXPECT_LT(rc.mape_loo, rc.mape_before);
}

std::vector<PublishedRun> MosaicMlH100Runs(const std::string& csv) {
  std::vector<PublishedRun> runs;
  const HardwareCatalog hw = HardwareCatalog::BuiltIn();
  for (PublishedRun& r : ReadPublishedRuns(ReadFile(csv), csv, hw))
    if (r.source == "MosaicML-llm-foundry" && r.gpu_name == "H100-SXM") runs.push_back(std::move(r));
  return runs;
}

// About a second in release.
TEST(CalibrateFromRuns, MosaicMlH100ClusterLeaveOneOut) {
  PARATUNE_SHARED_OR_SKIP(csv, "validation/published_runs_dev.csv");
  const RunsCalibration rc = Timed("MosaicML-H100", [&] { return CalibrateFromRuns(MosaicMlH100Runs(csv), 6); });
  EXPECT_EQ(rc.rows.size(), 34u);
  EXPECT_LT(rc.mape_after, rc.mape_before);
  EXPECT_LT(rc.mape_loo, rc.mape_before);
}

// The choice of fractions held out too (nested): still below the catalog. About 20 s in release
// on the 2-core box, over the 600 s test limit under AddressSanitizer, so asserted in release.
TEST(CalibrateFromRuns, MosaicMlH100ClusterNestedLeaveOneOut) {
  PARATUNE_SHARED_OR_SKIP(csv, "validation/published_runs_dev.csv");
  if (kSanitizerBuild)
    GTEST_SKIP() << "skipped in a sanitizer build: the nested fit is arithmetic only, asserted by the release run";
  const RunsCalibration rc = Timed("MosaicML-H100", [&] {
    return CalibrateFromRuns(MosaicMlH100Runs(csv), 6, nullptr, 0, std::nullopt, /*nested=*/true);
  });
  EXPECT_EQ(rc.rows.size(), 34u);
  EXPECT_LT(rc.mape_after, rc.mape_before);
  EXPECT_LT(rc.mape_loo, rc.mape_before);
  EXPECT_LT(rc.mape_nested, rc.mape_before);
}

}  // namespace
}  // namespace paratune
