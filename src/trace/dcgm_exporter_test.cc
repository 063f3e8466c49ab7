// The DCGM exporter reader (trace/dcgm_exporter.h) on pages in dcgm-exporter's form (its
// README's sample output: `DCGM_FI_DEV_SM_CLOCK{gpu="0", UUID=..., device="nvidia0", ...} 139`),
// stamped as Prometheus's /federate endpoint writes them; broken pages are one line naming the
// file, line and what is wrong.
#include "trace/dcgm_exporter.h"

#include <gtest/gtest.h>

#include "util/error.h"

namespace paratune {
namespace {

std::string Sample(const std::string& field, int gpu, const std::string& value, int64_t ms) {
  return field + "{gpu=\"" + std::to_string(gpu) + "\",UUID=\"GPU-" + std::to_string(gpu) + "\",device=\"nvidia" +
         std::to_string(gpu) + "\",modelName=\"NVIDIA B200\"} " + value + " " + std::to_string(ms) + "\n";
}

TEST(DcgmExporter, OneSamplePerTimestampAndGpuInSiUnits) {
  std::string page = "# HELP DCGM_FI_DEV_SM_CLOCK SM frequency (in MHz).\n# TYPE DCGM_FI_DEV_SM_CLOCK gauge\n";
  for (int t = 0; t < 3; ++t)
    for (int g : {1, 0}) {
      const int64_t ms = 1714564800000 + 15000 * t;
      page += Sample("DCGM_FI_DEV_SM_CLOCK", g, "1965", ms);
      page += Sample("DCGM_FI_DEV_GPU_UTIL", g, "87", ms);
      page += Sample("DCGM_FI_DEV_POWER_USAGE", g, "912.5", ms);
      page += Sample("DCGM_FI_PROF_SM_ACTIVE", g, "0.75", ms);
      page += Sample("DCGM_FI_DEV_CLOCKS_EVENT_REASONS", g, t == 2 && g == 1 ? "4" : "0", ms);
      page += "go_goroutines 12\n";  // another metric of the page, not DCGM's: ignored
    }
  ASSERT_TRUE(LooksLikeDcgmExporter(page));
  const GpuTelemetry t = ParseGpuTelemetry(page, "d.prom");
  EXPECT_EQ(t.source, TelemetrySource::kDcgmExporter);
  EXPECT_EQ(t.gpus, 2);
  EXPECT_EQ(t.sample_count, 3);
  EXPECT_DOUBLE_EQ(t.interval_s, 15.0);
  ASSERT_EQ(t.samples.size(), 6u);
  const TelemetrySample& s = t.samples[5];  // time 2, GPU 1: time order, then GPU order
  EXPECT_EQ(s.gpu, 1);
  EXPECT_EQ(s.sample, 2);
  EXPECT_DOUBLE_EQ(s.time_s, 1714564830.0);
  EXPECT_DOUBLE_EQ(s.sm_clock_hz, 1965e6);
  EXPECT_DOUBLE_EQ(s.util_fraction, 0.87);
  EXPECT_DOUBLE_EQ(s.power_w, 912.5);
  EXPECT_DOUBLE_EQ(s.sm_active, 0.75);
  EXPECT_TRUE(s.reasons_known);
  EXPECT_EQ(s.reasons, 0x4u);
  EXPECT_TRUE(std::isnan(s.temperature_c));  // not in the page
  EXPECT_EQ(t.samples[0].gpu, 0);
  EXPECT_EQ(t.samples[0].line, 9);  // GPU 0's first row (GPU 1's come first in the page)
}

TEST(DcgmExporter, BrokenPagesNameTheFileLineAndWhat) {
  auto error = [](const std::string& text) {
    try {
      ParseGpuTelemetry(text, "d.prom");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error("DCGM_FI_DEV_SM_CLOCK{gpu=\"0\"} 1980\n"),
            "d.prom:1: DCGM_FI_DEV_SM_CLOCK without a timestamp: capture through Prometheus's /federate endpoint, "
            "or stamp each scrape (docs/diagnose-telemetry.md, \"DCGM exporter\")");
  EXPECT_EQ(error("DCGM_FI_DEV_SM_CLOCK{UUID=\"x\"} 1980 1\n"),
            "d.prom:1: DCGM_FI_DEV_SM_CLOCK without a gpu label (dcgm-exporter labels each GPU's samples gpu=\"N\")");
  EXPECT_EQ(error("DCGM_FI_DEV_SM_CLOCK{gpu=\"zero\"} 1980 1\n"),
            "d.prom:1: DCGM_FI_DEV_SM_CLOCK: gpu label 'zero' is not a GPU index (0-1023)");
  EXPECT_EQ(error("DCGM_FI_DEV_GPU_UTIL{gpu=\"0\"} 130 1\n"), "d.prom:1: DCGM_FI_DEV_GPU_UTIL 130 is outside [0, 100]");
  EXPECT_EQ(error("DCGM_FI_DEV_GPU_TEMP{gpu=\"0\"} NaN 1\n"),
            "d.prom:1: DCGM_FI_DEV_GPU_TEMP nan is outside [-100, 300]");
  EXPECT_EQ(error("DCGM_FI_DEV_CLOCK_THROTTLE_REASONS{gpu=\"0\"} 4.5 1\n"),
            "d.prom:1: DCGM_FI_DEV_CLOCK_THROTTLE_REASONS 4.5 is not a bitmask");
  EXPECT_EQ(error("# TYPE DCGM_FI_DEV_FB_USED gauge\nDCGM_FI_DEV_FB_USED{gpu=\"0\"} 1 1\n"),
            "d.prom: no DCGM_FI_ sample the reader uses (SM clock, power, temperature, utilisation, clock-event "
            "reasons, profiling ratios)");
  EXPECT_EQ(error("DCGM_FI_DEV_SM_CLOCK{gpu=\"0\" 1980 1\n"), "d.prom:1: labels not separated by ',' or closed by '}'");
}

}  // namespace
}  // namespace paratune
