#include "trace/gpu_telemetry.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <string>

#include <fmt/format.h>

#include "util/test_util.h"

namespace paratune {
namespace {

// nvidia-smi --query-gpu=timestamp,index,utilization.gpu,clocks.sm,clocks.max.sm,power.draw,
// power.limit,temperature.gpu,clocks_throttle_reasons.active --format=csv -l 1, as a driver
// before 535 prints it: the header names clocks.sm as clocks.current.sm; the rows of one poll
// carry timestamps a few ms apart.
constexpr const char* kSmiCsv =
    "timestamp, index, utilization.gpu [%], clocks.current.sm [MHz], clocks.max.sm [MHz], power.draw [W], power.limit "
    "[W], "
    "temperature.gpu, clocks_throttle_reasons.active\n"
    "2024/05/01 12:00:00.101, 0, 0 %, 345 MHz, 1980 MHz, 71.20 W, 700.00 W, 33, 0x0000000000000001\n"
    "2024/05/01 12:00:00.104, 1, 0 %, 345 MHz, 1980 MHz, 70.95 W, 700.00 W, 34, 0x0000000000000001\n"
    "2024/05/01 12:00:01.102, 0, 98 %, 1980 MHz, 1980 MHz, 650.10 W, 700.00 W, 61, 0x0000000000000000\n"
    "2024/05/01 12:00:01.109, 1, 97 %, 1755 MHz, 1980 MHz, 699.80 W, 700.00 W, 62, 0x0000000000000004\n"
    "2024/05/01 12:00:02.103, 0, 99 %, 1980 MHz, 1980 MHz, 655.00 W, 700.00 W, 62, 0x0000000000000000\n"
    "2024/05/01 12:00:02.111, 1, 99 %, 1410 MHz, 1980 MHz, 540.00 W, 700.00 W, 91, 0x0000000000000060\n";

TEST(GpuTelemetry, ReadsNvidiaSmiCsvWithUnits) {
  const GpuTelemetry t = ParseGpuTelemetry(kSmiCsv, "smi.csv");
  EXPECT_EQ(t.source, TelemetrySource::kNvidiaSmi);
  EXPECT_EQ(t.path, "smi.csv");
  ASSERT_EQ(t.samples.size(), 6u);
  EXPECT_EQ(t.gpus, 2);
  EXPECT_EQ(t.sample_count, 3);
  // Sample starts 12:00:00.101, 01.102, 02.103: steps 1.001 and 1.001 s.
  EXPECT_NEAR(t.interval_s, 1.001, 1e-6);
  const TelemetrySample& s = t.samples[3];
  EXPECT_EQ(s.line, 5);
  EXPECT_EQ(s.sample, 1);
  EXPECT_EQ(s.gpu, 1);
  EXPECT_NEAR(s.time_s, 1714564801.109, 1e-6);  // 2024-05-01 12:00:01.109 read as UTC
  EXPECT_DOUBLE_EQ(s.util_fraction, 0.97);
  EXPECT_DOUBLE_EQ(s.sm_clock_hz, 1755e6);
  EXPECT_DOUBLE_EQ(s.max_sm_clock_hz, 1980e6);
  EXPECT_DOUBLE_EQ(s.power_w, 699.8);
  EXPECT_DOUBLE_EQ(s.power_limit_w, 700.0);
  EXPECT_DOUBLE_EQ(s.temperature_c, 62);
  EXPECT_TRUE(s.reasons_known);
  EXPECT_EQ(s.reasons, 0x4u);
  EXPECT_EQ(t.samples[5].reasons, 0x60u);
  EXPECT_EQ(t.samples[0].reasons, 0x1u);
  EXPECT_TRUE(std::isnan(s.gr_active));
}

TEST(GpuTelemetry, NewerDriverNameAnyOrderSubsetNoUnitsAndNotAvailable) {
  // clocks_event_reasons.active (drivers 535+), columns reordered, --format=csv,nounits, an
  // unused column (name), values nvidia-smi cannot read printed in brackets.
  const std::string csv =
      "index, name, clocks_event_reasons.active, timestamp, power.draw [W], temperature.gpu\n"
      "3, NVIDIA H100 80GB HBM3, 0x0000000000000020, 2026-01-02 03:04:05.500, 612.5, 88\n"
      "3, NVIDIA H100 80GB HBM3, [N/A], 2026-01-02 03:04:06.500, [Not Supported], 89\n"
      "3, NVIDIA H100 80GB HBM3, 0x0000000000000000, 2026-01-02 03:04:07.500, 600, [Unknown Error]\n";
  const GpuTelemetry t = ParseGpuTelemetry(csv, "new.csv");
  ASSERT_EQ(t.samples.size(), 3u);
  EXPECT_EQ(t.gpus, 1);
  EXPECT_EQ(t.sample_count, 3);  // one GPU: every row is a sample
  EXPECT_DOUBLE_EQ(t.interval_s, 1.0);
  EXPECT_EQ(t.samples[0].gpu, 3);
  EXPECT_EQ(t.samples[0].reasons, 0x20u);
  EXPECT_DOUBLE_EQ(t.samples[0].power_w, 612.5);
  EXPECT_FALSE(t.samples[1].reasons_known);
  EXPECT_TRUE(std::isnan(t.samples[1].power_w));
  EXPECT_TRUE(std::isnan(t.samples[2].temperature_c));
  EXPECT_TRUE(std::isnan(t.samples[0].util_fraction));  // not queried
  EXPECT_TRUE(std::isnan(t.samples[0].sm_clock_hz));
}

TEST(GpuTelemetry, GroupsBySampleNotByTimestamp) {
  // Four GPUs whose rows of one poll straddle a second boundary; a poll that missed GPU 2.
  std::string csv = "timestamp, index, utilization.gpu [%]\n";
  csv += "2024/05/01 12:00:00.998, 0, 50 %\n2024/05/01 12:00:00.999, 1, 50 %\n";
  csv += "2024/05/01 12:00:01.003, 2, 50 %\n2024/05/01 12:00:01.004, 3, 50 %\n";
  csv += "2024/05/01 12:00:02.000, 0, 60 %\n2024/05/01 12:00:02.002, 1, 60 %\n2024/05/01 12:00:02.004, 3, 60 %\n";
  csv += "2024/05/01 12:00:03.001, 0, 70 %\n";
  const GpuTelemetry t = ParseGpuTelemetry(csv, "g.csv");
  EXPECT_EQ(t.gpus, 4);
  EXPECT_EQ(t.sample_count, 3);
  const int expected[] = {0, 0, 0, 0, 1, 1, 1, 2};
  for (size_t i = 0; i < t.samples.size(); ++i) EXPECT_EQ(t.samples[i].sample, expected[i]) << i;
  EXPECT_NEAR(t.interval_s, (1.002 + 1.001) / 2, 1e-6);  // median of two steps: their mean
}

TEST(GpuTelemetry, RepeatedHeaderAndBlankLinesAndCrLf) {
  const std::string csv =
      "timestamp, index, clocks.sm [MHz]\r\n2024/05/01 12:00:00.000, 0, 1980 MHz\r\n\r\n"
      "timestamp, index, clocks.sm [MHz]\r\n2024/05/01 12:00:01.000, 0, 1950 MHz\r\n";
  const GpuTelemetry t = ParseGpuTelemetry(csv, "r.csv");
  ASSERT_EQ(t.samples.size(), 2u);
  EXPECT_DOUBLE_EQ(t.samples[1].sm_clock_hz, 1950e6);
  EXPECT_EQ(t.samples[1].line, 5);
}

TEST(GpuTelemetry, RefusesHeaderlessCsv) {
  const std::string msg = InputErrorOf([] {
    ParseGpuTelemetry("2024/05/01 12:00:00.101, 0, 98, 1980, 1980, 650.10, 700.00, 61, 0x0000000000000000\n", "nh.csv");
  });
  EXPECT_EQ(msg,
            "nh.csv:1: nvidia-smi CSV without its header line (--format=csv,noheader): the column order is unknown; "
            "capture with --format=csv (nounits is fine)");
}

TEST(GpuTelemetry, BrokenNvidiaSmiInput) {
  const std::string h = "timestamp, index, utilization.gpu [%], clocks_throttle_reasons.active\n";
  const auto err = [](const std::string& text) { return InputErrorOf([&] { ParseGpuTelemetry(text, "b.csv"); }); };
  EXPECT_EQ(err(""), "b.csv: empty file (expected nvidia-smi --query-gpu CSV or dcgmi dmon output)");
  EXPECT_EQ(err("\n \n"), "b.csv: only blank lines (expected nvidia-smi --query-gpu CSV or dcgmi dmon output)");
  // Truncated last line.
  EXPECT_EQ(err(h + "2024/05/01 12:00:00.101, 0, 98 %, 0x0000000000000000\n2024/05/01 12:00:01.101, 0, 9"),
            "b.csv:3: 3 fields, the header (line 1) has 4");
  EXPECT_EQ(err(h + "2024/05/01 12:00:00.101, 0, ninety %, 0x0\n"),
            "b.csv:2: field 'utilization.gpu': 'ninety %' is not a number of %");
  EXPECT_EQ(err(h + "2024/05/01 12:00:00.101, 0, 250 %, 0x0\n"),
            "b.csv:2: field 'utilization.gpu': '250 %' is out of range (0 to 100)");
  EXPECT_EQ(err(h + "2024/05/01 12:00:00.101, 0, 1e400 %, 0x0\n"),
            "b.csv:2: field 'utilization.gpu': '1e400 %' is not a number of %");
  EXPECT_EQ(err(h + "2024/05/01 12:00:00.101, 0, nan %, 0x0\n"),
            "b.csv:2: field 'utilization.gpu': 'nan %' is not a number of %");
  EXPECT_EQ(err(h + "2024/05/01 12:00:00.101, 0, 50 %, 0x10000000000000000\n"),
            "b.csv:2: field 'clocks_throttle_reasons.active': '0x10000000000000000' has more than 64 bits");
  EXPECT_EQ(err(h + "2024/05/01 12:00:00.101, 0, 50 %, Active\n"),
            "b.csv:2: field 'clocks_throttle_reasons.active': 'Active' is not a hex bitmask (0x0000000000000004)");
  EXPECT_EQ(err(h + "2024/05/01 12:00:00.101, 0, 50 %, 0xZZ\n"),
            "b.csv:2: field 'clocks_throttle_reasons.active': '0xZZ' is not a hex bitmask (0x0000000000000004)");
  EXPECT_EQ(err(h + "yesterday, 0, 50 %, 0x0\n"),
            "b.csv:2: field 'timestamp': 'yesterday' is not a timestamp (YYYY/MM/DD HH:MM:SS.mmm)");
  EXPECT_EQ(err(h + "2024/05/01 12:00:00.101, 99999999999, 50 %, 0x0\n"),
            "b.csv:2: field 'index': '99999999999' is not a GPU index (0..1023)");
  EXPECT_EQ(err(h + "2024/05/01 12:00:00.101, -1, 50 %, 0x0\n"),
            "b.csv:2: field 'index': '-1' is not a GPU index (0..1023)");
  EXPECT_EQ(err(h), "b.csv:1: nvidia-smi header but no sample rows");
  EXPECT_EQ(err("index, utilization.gpu [%]\n0, 50 %\n"),
            "b.csv:1: nvidia-smi CSV without a 'timestamp' column (query timestamp,index,... with --format=csv)");
  EXPECT_EQ(err("timestamp, utilization.gpu [%]\n2024/05/01 12:00:00.101, 50 %\n"),
            "b.csv:1: nvidia-smi CSV without an 'index' column (query timestamp,index,... with --format=csv)");
  EXPECT_CONTAINS(err("timestamp, index, name\n2024/05/01 12:00:00.101, 0, H100\n"),
                  "b.csv:1: nvidia-smi CSV with none of");
  EXPECT_EQ(err("timestamp, index, clocks.sm [GHz]\n"), "b.csv:1: column 'clocks.sm' is in [GHz], expected [MHz]");
  EXPECT_EQ(err(h + "2024/05/01 12:00:00.101, 0, 50 %, 0x0\ntimestamp, index, power.draw [W], utilization.gpu [%]\n"),
            "b.csv:3: a different nvidia-smi header than the one at line 1 (one capture per file)");
  EXPECT_EQ(err("step,loss\n1,2.5\n"),
            "b.csv:1: 'step,loss' is neither an nvidia-smi --query-gpu CSV header nor a dcgmi dmon '#Entity' header");
  EXPECT_EQ(err(h + "2024/05/01 12:00:00.101, 0, 50 %, 0x0\n2024/05/01 12:00:00.101, 0, 5" + std::string(1, '\0') +
                "0 %, 0x0\n"),
            "b.csv:3: NUL byte: not a text CSV");
  // Binary garbage.
  std::string garbage;
  for (int i = 0; i < 256; ++i) garbage += static_cast<char>((i * 37 + 11) & 0xff);
  EXPECT_CONTAINS(err(garbage), "b.csv:");
  EXPECT_CONTAINS(err(h + garbage), "b.csv:");
}

// dcgmi dmon -e 1001,1002,1003,1004,1005 with its two header lines, repeated, and N/A values.
constexpr const char* kDcgmi =
    "#Entity   GRACT        SMACT        SMOCC        TENSO        DRAMA\n"
    "ID\n"
    "GPU 0     0.987        0.912        0.456        0.321        0.654\n"
    "GPU 1     0.985        0.905        0.450        0.318        0.650\n"
    "GPU 0     0.120        0.080        0.050        0.010        0.030\n"
    "GPU 1     N/A          N/A          N/A          N/A          N/A\n"
    "#Entity   GRACT        SMACT        SMOCC        TENSO        DRAMA\n"
    "ID\n"
    "GPU 0     0.990        0.915        0.460        0.330        0.660\n"
    "GPU 1     0.989        0.913        0.458        0.329        0.658\n";

TEST(GpuTelemetry, ReadsDcgmiDmon) {
  const GpuTelemetry t = ParseGpuTelemetry(kDcgmi, "dmon.txt");
  EXPECT_EQ(t.source, TelemetrySource::kDcgmiDmon);
  ASSERT_EQ(t.samples.size(), 6u);
  EXPECT_EQ(t.gpus, 2);
  EXPECT_EQ(t.sample_count, 3);
  EXPECT_DOUBLE_EQ(t.interval_s, 1.0);  // dcgmi's default -d 1000 ms
  EXPECT_EQ(t.samples[4].line, 9);
  EXPECT_EQ(t.samples[4].sample, 2);
  EXPECT_DOUBLE_EQ(t.samples[4].time_s, 2.0);
  EXPECT_DOUBLE_EQ(t.samples[0].gr_active, 0.987);
  EXPECT_DOUBLE_EQ(t.samples[0].sm_active, 0.912);
  EXPECT_DOUBLE_EQ(t.samples[0].sm_occupancy, 0.456);
  EXPECT_DOUBLE_EQ(t.samples[0].tensor_active, 0.321);
  EXPECT_DOUBLE_EQ(t.samples[0].dram_active, 0.654);
  EXPECT_TRUE(std::isnan(t.samples[3].gr_active));
  EXPECT_FALSE(t.samples[0].reasons_known);
  EXPECT_TRUE(std::isnan(t.samples[0].sm_clock_hz));
}

TEST(GpuTelemetry, DcgmiIntervalFromEchoedCommandAndOtherFields) {
  const std::string text =
      "$ dcgmi dmon -e 1001,155,150,100,203 -d 500\n"
      "# Entity  GRACT  POWER  TMPTR  SMCLK  GPUTL\n"
      "      ID         W      C      MHz    %\n"
      "GPU-I 1    0.5    N/A    N/A    N/A    N/A\n"
      "GPU 0     0.950  612.3  71     1980   97\n"
      "GPU 0     0.940  610.0  72     1965   96\n";
  const GpuTelemetry t = ParseGpuTelemetry(text, "d.txt");
  ASSERT_EQ(t.samples.size(), 2u);  // the MIG instance row is skipped
  EXPECT_DOUBLE_EQ(t.interval_s, 0.5);
  EXPECT_DOUBLE_EQ(t.samples[1].time_s, 0.5);
  EXPECT_DOUBLE_EQ(t.samples[0].power_w, 612.3);
  EXPECT_DOUBLE_EQ(t.samples[0].temperature_c, 71);
  EXPECT_DOUBLE_EQ(t.samples[1].sm_clock_hz, 1965e6);
  EXPECT_DOUBLE_EQ(t.samples[1].util_fraction, 0.96);
}

TEST(GpuTelemetry, BrokenDcgmiInput) {
  const auto err = [](const std::string& text) { return InputErrorOf([&] { ParseGpuTelemetry(text, "d.txt"); }); };
  const std::string h = "#Entity   GRACT   SMACT\nID\n";
  EXPECT_EQ(err(h + "GPU 0  0.9  0.8\nGPU 1  0.9\n"), "d.txt:4: 1 values, the header (line 1) has 2");
  EXPECT_EQ(err(h + "GPU 0  0.9  busy\n"), "d.txt:3: field 'SMACT': 'busy' is not a number");
  EXPECT_EQ(err(h + "GPU 0  1.5  0.8\n"), "d.txt:3: field 'GRACT': '1.5' is out of range (0 to 1)");
  EXPECT_EQ(err(h + "GPU x  0.9  0.8\n"), "d.txt:3: field 'Entity': 'GPU x' is not a GPU index (0..1023)");
  EXPECT_EQ(err(h + "Error setting watches. Result: -5\n"),
            "d.txt:3: 'Error setting watches. Result: -5' is not a dcgmi dmon row (GPU <index> then 2 values)");
  EXPECT_EQ(err(h), "d.txt:1: dcgmi dmon header but no GPU rows");
  EXPECT_EQ(err("#Entity\nGPU 0\n"), "d.txt:1: dcgmi dmon header without field columns");
  EXPECT_EQ(err(h + "GPU 0  0.9  0.8\n#Entity   GRACT   DRAMA\n"),
            "d.txt:4: dcgmi dmon header differs from the one at line 1 (one capture per file)");
  EXPECT_EQ(err(h + "GPU 0  0.9  0.8\nGPU 0  0.9  0." + std::string(1, '\0') + "8\n"),
            "d.txt:4: NUL byte: not a dcgmi dmon text capture");
}

TEST(GpuTelemetry, LooksLike) {
  EXPECT_TRUE(LooksLikeGpuTelemetry(kSmiCsv));
  EXPECT_TRUE(LooksLikeGpuTelemetry(kDcgmi));
  EXPECT_TRUE(LooksLikeGpuTelemetry("# dcgmi dmon -e 1001\n#Entity GRACT\nID\n"));
  EXPECT_TRUE(LooksLikeGpuTelemetry("index, temperature.gpu\n0, 45\n"));
  // Headerless nvidia-smi rows are recognised, so that the reader can say why they are refused.
  EXPECT_TRUE(LooksLikeGpuTelemetry("2024/05/01 12:00:00.101, 0, 98 %, 1980 MHz\n"));
  EXPECT_FALSE(LooksLikeGpuTelemetry(""));
  EXPECT_FALSE(LooksLikeGpuTelemetry("timestamp,tokens_per_s\n2024-05-01 12:00:00,1234.5\n"));
  EXPECT_FALSE(LooksLikeGpuTelemetry(" [2024-05-01 12:00:00] iteration      100/  1000 | consumed samples: 1\n"));
  EXPECT_FALSE(LooksLikeGpuTelemetry("\tGPU0\tGPU1\tCPU Affinity\nGPU0\t X \tNV18\n"));
  EXPECT_FALSE(LooksLikeGpuTelemetry("# nThread 1 nGpus 8 minBytes 8 maxBytes 8589934592\n#  Rank  0 Group  0 Pid\n"));
  EXPECT_FALSE(LooksLikeGpuTelemetry("{\"traceEvents\": []}"));
}

TEST(GpuTelemetry, ClockReasonNamesAndMasks) {
  EXPECT_EQ(ClockReasonNames(0), "none");
  EXPECT_EQ(ClockReasonNames(0x1), "gpu_idle");
  EXPECT_EQ(ClockReasonNames(0x60), "sw_thermal_slowdown|hw_thermal_slowdown");
  EXPECT_EQ(ClockReasonNames(0x4 | 0x200), "sw_power_cap|0x200");
  EXPECT_EQ(ClockReasonNames(0x1ff),
            "gpu_idle|applications_clocks_setting|sw_power_cap|hw_slowdown|sync_boost|sw_thermal_slowdown|"
            "hw_thermal_slowdown|hw_power_brake_slowdown|display_clock_setting");
  EXPECT_EQ(ClockReasonMask(ClockReasonCause::kThermal), 0x8u | 0x20u | 0x40u);
  EXPECT_EQ(ClockReasonMask(ClockReasonCause::kPower), 0x4u | 0x80u);
  EXPECT_EQ(ThrottlingReasonMask(), 0x4u | 0x8u | 0x20u | 0x40u | 0x80u);
  EXPECT_EQ(ThrottlingReasonMask() & 0x1u, 0u);  // idle is not throttling
}

TEST(GpuTelemetry, EightGpusForAnHourParseQuickly) {
  std::string csv =
      "timestamp, index, utilization.gpu [%], clocks.current.sm [MHz], clocks.max.sm [MHz], power.draw [W], "
      "power.limit [W], "
      "temperature.gpu, clocks_event_reasons.active\n";
  for (int s = 0; s < 3600; ++s)
    for (int g = 0; g < 8; ++g)
      csv += fmt::format(
          "2024/05/01 {:02}:{:02}:{:02}.{:03}, {}, 97 %, 1980 MHz, 1980 MHz, 650.25 W, 700.00 W, 65, "
          "0x0000000000000000\n",
          12 + s / 3600, (s / 60) % 60, s % 60, 100 + g, g);
  const auto t0 = std::chrono::steady_clock::now();
  const GpuTelemetry t = ParseGpuTelemetry(csv, "hour.csv");
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(t.samples.size(), 28800u);
  EXPECT_EQ(t.sample_count, 3600);
  EXPECT_DOUBLE_EQ(t.interval_s, 1.0);
  // A few ms in a release build (docs/diagnose-telemetry.md); the bound leaves room for
  // sanitizer builds and a loaded machine.
  EXPECT_LT(secs, 1.0);
  RecordProperty("parse_seconds", std::to_string(secs));
}

}  // namespace
}  // namespace paratune
