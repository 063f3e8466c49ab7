#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "diagnose/rules.h"
#include "util/test_util.h"

namespace paratune {
namespace {

constexpr double kThrottlingT0 = 1714564800;  // 2024-05-01 12:00:00 UTC

// An nvidia-smi capture of `gpus` GPUs polled every second: all idle (0x1, 345 MHz, 0%) for the
// first `idle` polls, then busy at 1980 MHz of 1980, 650 W of 700, 65 C, no reason bits;
// `tweak` changes a (gpu, poll) sample.
GpuTelemetry Capture(int gpus, int polls, int idle, const std::function<void(int, int, TelemetrySample&)>& tweak = {}) {
  GpuTelemetry t;
  t.path = "smi.csv";
  t.source = TelemetrySource::kNvidiaSmi;
  t.gpus = gpus;
  t.sample_count = polls;
  t.interval_s = 1;
  for (int p = 0; p < polls; ++p) {
    for (int g = 0; g < gpus; ++g) {
      TelemetrySample s;
      s.line = 2 + p * gpus + g;
      s.sample = p;
      s.gpu = g;
      s.time_s = kThrottlingT0 + p + 0.003 * g;
      const bool is_idle = p < idle;
      s.util_fraction = is_idle ? 0 : 0.98;
      s.sm_clock_hz = is_idle ? 345e6 : 1980e6;
      s.max_sm_clock_hz = 1980e6;
      s.power_w = is_idle ? 70 : 650;
      s.power_limit_w = 700;
      s.temperature_c = is_idle ? 33 : 65;
      s.reasons = is_idle ? 0x1 : 0x0;
      s.reasons_known = true;
      if (tweak) tweak(g, p, s);
      t.samples.push_back(s);
    }
  }
  return t;
}

std::vector<Finding> CheckThrottling(const Rule& rule, const GpuTelemetry& t) {
  DiagnoseInputs in;
  in.telemetry.push_back(t);
  std::vector<Finding> out;
  rule.Check(in, &out);
  return out;
}

// GPU 3 thermally throttled from poll 200 to 399: SW thermal slowdown, HW thermal slowdown for
// polls 300..349, the clock down to 1500 MHz, the temperature at 90 C.
GpuTelemetry ThermalFault() {
  return Capture(8, 600, 10, [](int g, int p, TelemetrySample& s) {
    if (g == 3 && p >= 200 && p < 400) {
      s.reasons = (p >= 300 && p < 350) ? 0x60 : 0x20;
      s.sm_clock_hz = 1500e6;
      s.temperature_c = 90;
      s.power_w = 560;
    }
  });
}

TEST(ThermalThrottling, FindsTheGpuTheRangeAndTheLoss) {
  const auto rule = MakeThermalThrottlingRule();
  EXPECT_STREQ(rule->Name(), "thermal_throttling");
  const auto f = CheckThrottling(*rule, ThermalFault());
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].rule, "thermal_throttling");
  EXPECT_EQ(f[0].severity, Severity::kCritical);  // 0x40 is the hardware thermal slowdown
  EXPECT_EQ(f[0].where.gpus, std::vector<int>{3});
  ASSERT_EQ(f[0].where.time_ranges_s.size(), 1u);
  EXPECT_NEAR(f[0].where.time_ranges_s[0].first, kThrottlingT0 + 200 + 0.009, 1e-6);
  EXPECT_NEAR(f[0].where.time_ranges_s[0].second, kThrottlingT0 + 399 + 0.009, 1e-6);
  // (1 - 1500/1980) over 200 of 600 polls.
  EXPECT_NEAR(f[0].loss_fraction, (1 - 1500.0 / 1980.0) * 200.0 / 600.0, 1e-9);
  EXPECT_NE(f[0].title.find("sw_thermal_slowdown|hw_thermal_slowdown"), std::string::npos) << f[0].title;
  EXPECT_NE(f[0].message.find("GPUs 0,1,2,4,5,6,7 wait for it"), std::string::npos) << f[0].message;
  EXPECT_NE(f[0].message.find("1500 MHz, 24.2% below its unthrottled 1980 MHz"), std::string::npos) << f[0].message;
  EXPECT_NE(f[0].message.find("90 C (max 90 C) while throttled against 65 C otherwise"), std::string::npos)
      << f[0].message;
  EXPECT_NE(f[0].fix.find("Cool GPU 3"), std::string::npos);
  EXPECT_EQ(f[0].where.lines, std::vector<std::string>{"smi.csv:" + std::to_string(2 + 200 * 8 + 3)});
  // The power rule stays silent: no power bit.
  EXPECT_TRUE(CheckThrottling(*MakePowerThrottlingRule(), ThermalFault()).empty());
}

TEST(ThermalThrottling, SoftwareSlowdownOnlyIsAWarningByItsLoss) {
  const auto t = Capture(8, 600, 0, [](int g, int p, TelemetrySample& s) {
    if (g == 1 && p >= 100 && p < 160) {
      s.reasons = 0x20;
      s.sm_clock_hz = 1800e6;
    }
  });
  const auto f = CheckThrottling(*MakeThermalThrottlingRule(), t);
  ASSERT_EQ(f.size(), 1u);
  const double loss = (1 - 1800.0 / 1980.0) * 60.0 / 600.0;  // 0.91%
  EXPECT_NEAR(f[0].loss_fraction, loss, 1e-9);
  EXPECT_EQ(f[0].severity, Severity::kInfo);  // below the 2% warning mark and no hardware bit
}

TEST(PowerThrottling, PowerCapOnOneGpu) {
  // GPU 5 at its 700 W cap with the SW power cap bit from poll 100 to 399, 1700 MHz; the bit
  // clears for one poll now and then (bridged).
  const auto t = Capture(8, 600, 10, [](int g, int p, TelemetrySample& s) {
    if (g == 5 && p >= 100 && p < 400) {
      s.reasons = (p % 50 == 7) ? 0x0 : 0x4;
      s.sm_clock_hz = (p % 50 == 7) ? 1980e6 : 1700e6;
      s.power_w = 699.5;
    }
  });
  const auto f = CheckThrottling(*MakePowerThrottlingRule(), t);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].rule, "power_throttling");
  EXPECT_EQ(f[0].where.gpus, std::vector<int>{5});
  ASSERT_EQ(f[0].where.time_ranges_s.size(), 1u);
  EXPECT_NEAR(f[0].where.time_ranges_s[0].first, kThrottlingT0 + 100 + 0.015, 1e-6);
  EXPECT_NEAR(f[0].where.time_ranges_s[0].second, kThrottlingT0 + 399 + 0.015, 1e-6);
  // 294 of the 300 polls at 1700 MHz (polls 107, 157, ..., 357 at 1980 MHz).
  const double loss = (1 - 1700.0 / 1980.0) * 294.0 / 600.0;
  EXPECT_NEAR(f[0].loss_fraction, loss, 1e-9);
  EXPECT_EQ(f[0].severity, Severity::kWarning);
  EXPECT_NE(f[0].message.find("700 W of its 700 W limit"), std::string::npos) << f[0].message;
  EXPECT_TRUE(CheckThrottling(*MakeThermalThrottlingRule(), t).empty());
}

TEST(PowerThrottling, PowerBrakeIsCriticalAndTwoGpusShareTheSlowestClock) {
  const auto t = Capture(4, 100, 0, [](int g, int p, TelemetrySample& s) {
    if (g == 0 && p >= 10 && p < 20) s.reasons = 0x80, s.sm_clock_hz = 990e6;
    if (g == 2 && p >= 15 && p < 30) s.reasons = 0x4, s.sm_clock_hz = 1485e6;
  });
  const auto f = CheckThrottling(*MakePowerThrottlingRule(), t);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, Severity::kCritical);
  EXPECT_EQ(f[0].where.gpus, (std::vector<int>{0, 2}));
  // Polls 10..19 run at GPU 0's 0.5, polls 20..29 at GPU 2's 0.75: (10*0.5 + 10*0.25) / 100.
  EXPECT_NEAR(f[0].loss_fraction, (10 * 0.5 + 10 * 0.25) / 100.0, 1e-9);
  EXPECT_NE(f[0].message.find("GPUs 1,3 wait for them"), std::string::npos) << f[0].message;
}

TEST(Throttling, CleanCaptureWithIdleStartIsSilent) {
  // 0x1 (GPU idle) at a low clock is not throttling.
  const auto t = Capture(8, 600, 60);
  EXPECT_TRUE(CheckThrottling(*MakeThermalThrottlingRule(), t).empty());
  EXPECT_TRUE(CheckThrottling(*MakePowerThrottlingRule(), t).empty());
}

TEST(Throttling, TransientsAreNotSustained) {
  // Two polls of the power cap, and a single poll of thermal slowdown.
  const auto t = Capture(2, 100, 0, [](int g, int p, TelemetrySample& s) {
    if (g == 1 && (p == 40 || p == 41)) s.reasons = 0x4, s.sm_clock_hz = 1700e6;
    if (g == 0 && p == 70) s.reasons = 0x20, s.sm_clock_hz = 1600e6;
  });
  EXPECT_TRUE(CheckThrottling(*MakePowerThrottlingRule(), t).empty());
  EXPECT_TRUE(CheckThrottling(*MakeThermalThrottlingRule(), t).empty());
}

TEST(Throttling, ReferenceFallsBackToClocksMax) {
  // Throttled for the whole capture: no unthrottled poll, so clocks.max.sm is the reference.
  const auto t = Capture(1, 50, 0, [](int, int, TelemetrySample& s) {
    s.reasons = 0x4;
    s.sm_clock_hz = 1584e6;
  });
  const auto f = CheckThrottling(*MakePowerThrottlingRule(), t);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NEAR(f[0].loss_fraction, 1 - 1584.0 / 1980.0, 1e-9);  // 0.2
  EXPECT_NE(f[0].message.find("(clocks.max.sm)"), std::string::npos) << f[0].message;
}

TEST(Throttling, SilentWithoutReasonBitsOrForDcgmi) {
  auto t = ThermalFault();
  for (auto& s : t.samples) s.reasons_known = false;
  EXPECT_TRUE(CheckThrottling(*MakeThermalThrottlingRule(), t).empty());
  auto d = ThermalFault();
  d.source = TelemetrySource::kDcgmiDmon;
  EXPECT_TRUE(CheckThrottling(*MakeThermalThrottlingRule(), d).empty());
  DiagnoseInputs none;
  std::vector<Finding> out;
  MakeThermalThrottlingRule()->Check(none, &out);
  EXPECT_TRUE(out.empty());
}

TEST(Throttling, ReadsARealFormatCapture) {
  // The same through the reader: nvidia-smi rows of one poll a few ms apart.
  std::string csv =
      "timestamp, index, utilization.gpu [%], clocks.current.sm [MHz], clocks.max.sm [MHz], power.draw [W], "
      "power.limit [W], "
      "temperature.gpu, clocks_event_reasons.active\n";
  for (int p = 0; p < 30; ++p)
    for (int g = 0; g < 2; ++g) {
      const bool hot = g == 1 && p >= 10 && p < 20;
      csv += "2024/05/01 12:00:" + std::string(p < 10 ? "0" : "") + std::to_string(p) + ".10" + std::to_string(g) +
             ", " + std::to_string(g) + ", 99 %, " + (hot ? "1410" : "1980") + " MHz, 1980 MHz, 600.00 W, 700.00 W, " +
             (hot ? "92" : "70") + ", " + (hot ? "0x0000000000000040" : "0x0000000000000000") + "\n";
    }
  const auto f = CheckThrottling(*MakeThermalThrottlingRule(), ParseGpuTelemetry(csv, "real.csv"));
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].where.gpus, std::vector<int>{1});
  EXPECT_NEAR(f[0].where.time_ranges_s[0].first, kThrottlingT0 + 10.101, 1e-6);
  EXPECT_NEAR(f[0].where.time_ranges_s[0].second, kThrottlingT0 + 19.101, 1e-6);
  EXPECT_NEAR(f[0].loss_fraction, (1 - 1410.0 / 1980.0) * 10.0 / 30.0, 1e-9);
  EXPECT_EQ(f[0].severity, Severity::kCritical);
}

// Issue 37: the same episode captured by NVIDIA's DCGM exporter (its Prometheus text, stamped
// through a Prometheus server's /federate endpoint) and by nvidia-smi gives the same finding: GPU 1
// at 1410 of 1980 MHz with the hardware thermal slowdown bit for polls 10 to 19 of 30.
TEST(Throttling, DcgmExporterCaptureGivesTheSameFindingAsNvidiaSmi) {
  std::string csv =
      "timestamp, index, utilization.gpu [%], clocks.current.sm [MHz], clocks.max.sm [MHz], power.draw [W], "
      "power.limit [W], temperature.gpu, clocks_event_reasons.active\n";
  std::string prom;
  for (int p = 0; p < 30; ++p) {
    const int64_t ms = static_cast<int64_t>(kThrottlingT0) * 1000 + p * 1000;
    prom += "# HELP DCGM_FI_DEV_SM_CLOCK SM frequency (in MHz).\n# TYPE DCGM_FI_DEV_SM_CLOCK gauge\n";
    for (int g = 0; g < 2; ++g) {
      const bool hot = g == 1 && p >= 10 && p < 20;
      csv += "2024/05/01 12:00:" + std::string(p < 10 ? "0" : "") + std::to_string(p) + ".000, " + std::to_string(g) +
             ", 99 %, " + (hot ? "1410" : "1980") + " MHz, 1980 MHz, 600.00 W, 700.00 W, " + (hot ? "92" : "70") +
             ", " + (hot ? "0x0000000000000040" : "0x0000000000000000") + "\n";
      const std::string labels = "{gpu=\"" + std::to_string(g) +
                                 "\",UUID=\"GPU-0\",device=\"nvidia0\",modelName=\"NVIDIA H100 80GB HBM3\","
                                 "Hostname=\"node1\",instance=\"node1:9400\",job=\"dcgm\"} ";
      const std::string at = " " + std::to_string(ms) + "\n";
      prom += "DCGM_FI_DEV_SM_CLOCK" + labels + (hot ? "1410" : "1980") + at;
      prom += "DCGM_FI_DEV_MAX_SM_CLOCK" + labels + "1980" + at;
      prom += "DCGM_FI_DEV_GPU_UTIL" + labels + "99" + at;
      prom += "DCGM_FI_DEV_POWER_USAGE" + labels + "600.000000" + at;
      prom += "DCGM_FI_DEV_POWER_MGMT_LIMIT" + labels + "700.000000" + at;
      prom += "DCGM_FI_DEV_GPU_TEMP" + labels + (hot ? "92" : "70") + at;
      prom += "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS" + labels + (hot ? "64" : "0") + at;
      prom += "DCGM_FI_DEV_FB_USED" + labels + "61234" + at;  // a field the reader does not use
    }
  }
  const GpuTelemetry from_dcgm = ParseGpuTelemetry(prom, "dcgm.prom");
  EXPECT_EQ(from_dcgm.source, TelemetrySource::kDcgmExporter);
  EXPECT_EQ(from_dcgm.gpus, 2);
  EXPECT_EQ(from_dcgm.sample_count, 30);
  EXPECT_DOUBLE_EQ(from_dcgm.interval_s, 1.0);
  for (const Rule* rule : {MakeThermalThrottlingRule().release(), MakePowerThrottlingRule().release()}) {
    const std::unique_ptr<const Rule> owned(rule);
    const auto a = CheckThrottling(*rule, ParseGpuTelemetry(csv, "smi.csv"));
    const auto b = CheckThrottling(*rule, from_dcgm);
    ASSERT_EQ(a.size(), b.size()) << rule->Name();
    for (size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(a[i].rule, b[i].rule);
      EXPECT_EQ(a[i].severity, b[i].severity);
      EXPECT_EQ(a[i].where.gpus, b[i].where.gpus);
      EXPECT_EQ(a[i].where.time_ranges_s, b[i].where.time_ranges_s);
      EXPECT_DOUBLE_EQ(a[i].loss_fraction, b[i].loss_fraction);
      EXPECT_EQ(a[i].title, b[i].title);
    }
  }
  EXPECT_EQ(CheckThrottling(*MakeThermalThrottlingRule(), from_dcgm).size(), 1u);
  EXPECT_NEAR(CheckThrottling(*MakeThermalThrottlingRule(), from_dcgm)[0].loss_fraction,
              (1 - 1410.0 / 1980.0) * 10.0 / 30.0, 1e-9);
}

}  // namespace
}  // namespace paratune
