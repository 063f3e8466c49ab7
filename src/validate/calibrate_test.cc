// Tests of the development fit: scripts/fit_calibration.sh's fit of both development files,
// from data/calibration_initial.toml, reproduces the compiled-in data/calibration.toml and
// misorders no more ranking pairs than the starting calibration.
#include "validate/calibrate.h"

#include <gtest/gtest.h>

#include <cmath>
#include <iterator>

#include "hardware/hardware_catalog.h"
#include "util/file.h"
#include "util/test_util.h"

namespace paratune {
namespace {

// About 12 s in release on the 2-core box, 271 s under AddressSanitizer (CI of 2026-12-07 with
// ../shared beside the clone: it alone held the sanitizer suite over 10 minutes), so asserted in
// release, as CalibrateFromRuns.MosaicMlH100ClusterNestedLeaveOneOut is.
TEST(FitCalibration, DevelopmentFitReproducesTheCatalogWithoutLosingRankingPairs) {
  PARATUNE_SHARED_OR_SKIP(published, "validation/published_runs_dev.csv");
  PARATUNE_SHARED_OR_SKIP(simumax, "validation/simumax_runs_dev.csv");
  if (kSanitizerBuild)
    GTEST_SKIP() << "skipped in a sanitizer build: the development fit is arithmetic only, asserted by the release run";
  const HardwareCatalog built_in = HardwareCatalog::BuiltIn();
  HardwareCatalog hw = HardwareCatalog::BuiltIn();
  const std::string initial = std::string(PARATUNE_SOURCE_DIR) + "/data/calibration_initial.toml";
  hw.Merge(ReadFile(initial), initial);
  std::vector<PublishedRun> runs = ReadPublishedRuns(ReadFile(published), published, hw);
  std::vector<PublishedRun> more = ReadPublishedRuns(ReadFile(simumax), simumax, hw);
  runs.insert(runs.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
  const CalibrationFit fit = FitCalibration(runs, 6);  // the script's `calibrate` default
  ASSERT_EQ(fit.by_generation.size(), 3u);             // ampere, blackwell, hopper
  for (const auto& [gen, c] : fit.by_generation) {
    EXPECT_LE(fit.misordered_after.at(gen), fit.misordered_before.at(gen)) << gen;
    EXPECT_LT(fit.mape_after.at(gen), fit.mape_before.at(gen)) << gen;
    // The catalog's calibration of a GPU of this generation is the fit, to the 3 decimals the
    // TOML keeps.
    const PublishedRun* of_gen = nullptr;
    for (const PublishedRun& r : runs)
      if (r.cluster.gpu.generation == gen) of_gen = &r;
    ASSERT_NE(of_gen, nullptr) << gen;
    const Calibration& shipped = built_in.Find(of_gen->cluster.gpu.name).calibration;
    for (const CalibrationField& f : kCalibrationFields)
      EXPECT_NEAR(shipped.*f.value, c.*f.value, 5e-4 + 1e-12) << gen << " " << f.key;
  }
}

}  // namespace
}  // namespace paratune
