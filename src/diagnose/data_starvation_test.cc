#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <functional>

#include <fmt/format.h>

#include "analysis/trace_analysis.h"
#include "diagnose/rules.h"
#include "trace/trace_set.h"
#include "util/test_util.h"

namespace paratune {
namespace {

constexpr double kStarvationT0 = 1714564800;  // 2024-05-01 12:00:00 UTC

GpuTelemetry UtilCapture(int gpus, int polls, const std::function<double(int, int)>& util) {
  GpuTelemetry t;
  t.path = "smi.csv";
  t.source = TelemetrySource::kNvidiaSmi;
  t.gpus = gpus;
  t.sample_count = polls;
  t.interval_s = 1;
  for (int p = 0; p < polls; ++p)
    for (int g = 0; g < gpus; ++g) {
      TelemetrySample s;
      s.line = 2 + p * gpus + g;
      s.sample = p;
      s.gpu = g;
      s.time_s = kStarvationT0 + p + 0.002 * g;
      s.util_fraction = util(g, p);
      s.sm_clock_hz = 1980e6;
      s.max_sm_clock_hz = 1980e6;
      s.reasons = s.util_fraction < 0.05 ? 0x1 : 0x0;
      s.reasons_known = true;
      t.samples.push_back(s);
    }
  return t;
}

std::vector<Finding> StarvationFindings(const DiagnoseInputs& in) {
  std::vector<Finding> out;
  MakeDataStarvationRule()->Check(in, &out);
  return out;
}

std::vector<Finding> RunTelemetry(const GpuTelemetry& t) {
  DiagnoseInputs in;
  in.telemetry.push_back(t);
  return StarvationFindings(in);
}

// A deterministic wobble of a few points, as 1 s utilisation wanders at a steady load.
double Wobble(int g, int p) { return 0.02 * std::sin(0.7 * p + 1.3 * g); }

TEST(DataStarvation, SawToothUtilisationOnEveryGpu) {
  // Period 10 polls: busy at 98% for 6, starved at 5% for 4 (each GPU's phase a little off).
  const auto t = UtilCapture(8, 600, [](int g, int p) {
    const int phase = (p + g % 2) % 10;
    return std::clamp((phase < 6 ? 0.97 : 0.05) + Wobble(g, p), 0.0, 1.0);
  });
  const auto f = RunTelemetry(t);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].rule, "data_starvation");
  EXPECT_EQ(f[0].where.gpus, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_NEAR(f[0].where.period_s, 10.0, 1.0);
  ASSERT_EQ(f[0].where.time_ranges_s.size(), 1u);
  EXPECT_NEAR(f[0].where.time_ranges_s[0].first, kStarvationT0, 1e-6);
  // Mean 0.6*0.97 + 0.4*0.05 = 0.602 of a ~0.98 high level: about 38% lost.
  EXPECT_NEAR(f[0].loss_fraction, 1 - 0.602 / 0.985, 0.02);
  EXPECT_EQ(f[0].severity, Severity::kCritical);
  EXPECT_NE(f[0].message.find("busy 60% of each period"), std::string::npos) << f[0].message;
  EXPECT_NE(f[0].fix.find("num_workers"), std::string::npos);
}

TEST(DataStarvation, SilentOnSteadyUtilisationWithIdleStart) {
  const auto t = UtilCapture(8, 600, [](int g, int p) { return p < 30 ? 0.0 : 0.97 + Wobble(g, p); });
  EXPECT_TRUE(RunTelemetry(t).empty());
}

TEST(DataStarvation, SilentWhenOnlyAFewGpusArePeriodic) {
  // Two GPUs of eight with periodic dips: not the loader (each rank has its own).
  const auto t = UtilCapture(8, 600, [](int g, int p) { return (g < 2 && p % 10 >= 6) ? 0.05 : 0.97 + Wobble(g, p); });
  EXPECT_TRUE(RunTelemetry(t).empty());
}

TEST(DataStarvation, SawToothInDcgmiGract) {
  // dcgmi dmon -d 500: GRACT busy for 5 samples of 8, 4 s per period at 0.5 s per sample; the
  // time is relative to the start of the capture (dcgmi prints no timestamps).
  std::string text = "$ dcgmi dmon -e 1001,1002 -d 500\n#Entity   GRACT   SMACT\nID\n";
  for (int s = 0; s < 240; ++s)
    for (int g = 0; g < 4; ++g)
      text += fmt::format("GPU {}  {:.3f}  {:.3f}\n", g, s % 8 < 5 ? 0.97 : 0.02, s % 8 < 5 ? 0.85 : 0.01);
  const auto f = RunTelemetry(ParseGpuTelemetry(text, "dmon.txt"));
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].where.gpus, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_DOUBLE_EQ(f[0].where.period_s, 4.0);
  EXPECT_NEAR(f[0].where.time_ranges_s[0].first, 0.0, 1e-12);
  EXPECT_NEAR(f[0].where.time_ranges_s[0].second, 239 * 0.5, 1e-12);
  // Mean (5 * 0.97 + 3 * 0.02) / 8 = 0.61375 of the 0.97 high level.
  EXPECT_NEAR(f[0].loss_fraction, 1 - 0.61375 / 0.97, 1e-9);
}

// A trace analysis of one rank with `n` steps: CPU step `step_s`, data loader `loader_s` at its
// start, then `gpu_s` of GPU work; the GPU idle share over the span `idle_share`.
TraceAnalysis Analysis(int n, double step_s, double loader_s, double gpu_s, double idle_share) {
  TraceAnalysis a;
  RankAnalysis r;
  r.rank = 0;
  r.path = "rank0.json";
  r.temporal.window_s = n * step_s;
  r.temporal.idle_s = idle_share * r.temporal.window_s;
  r.temporal.compute_s = r.temporal.window_s - r.temporal.idle_s;
  double loader = 0, steps = 0;
  for (int i = 0; i < n; ++i) {
    IterationStats it;
    it.step = 10 + i;
    it.cpu_start_ns = static_cast<int64_t>(i * step_s * 1e9);
    it.gpu_start_ns = static_cast<int64_t>((i * step_s + loader_s + 0.001) * 1e9);
    it.cpu_step_s = step_s;
    it.dataloader_s = loader_s;
    it.gpu.window_s = gpu_s;
    loader += loader_s;
    steps += step_s;
    r.iterations.push_back(it);
  }
  r.dataloader_share = loader / steps;
  r.idle.push_back({7, "host_wait", 0.8 * r.temporal.idle_s, 0.8, 100});
  a.ranks.push_back(r);
  return a;
}

TEST(DataStarvation, LoaderShareFromTraces) {
  DiagnoseInputs in;
  // 45 ms of loading in a 150 ms step, 104 ms of GPU work: idle 31%.
  in.analysis = Analysis(5, 0.150, 0.045, 0.104, 0.31);
  const auto f = StarvationFindings(in);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NEAR(f[0].loss_fraction, 0.30, 1e-9);  // min(loader share 0.30, idle 0.31)
  EXPECT_EQ(f[0].severity, Severity::kCritical);
  EXPECT_EQ(f[0].where.gpus, std::vector<int>{0});
  EXPECT_EQ(f[0].where.iterations, (std::vector<int64_t>{10, 11, 12, 13, 14}));
  // 3 * 45 / (150 - 45) = 1.29: two workers keep the pipeline 3x ahead.
  EXPECT_NE(f[0].fix.find("num_workers >= 2"), std::string::npos) << f[0].fix;
  // Idle at step start: each step's GPU work starts 46 ms in and lasts 104 ms, so the gap
  // after the previous step's work is 150 - 104 = 46 ms of each 150 ms step.
  bool found = false;
  for (const auto& e : f[0].evidence)
    if (e.name == "GPU idle at step start") {
      found = true;
      EXPECT_NEAR(e.value, 0.046 / 0.150, 1e-6);
    }
  EXPECT_TRUE(found);
  // Below the 5% input-bound mark: no finding.
  in.analysis = Analysis(5, 0.120, 0.0015, 0.118, 0.15);
  EXPECT_TRUE(StarvationFindings(in).empty());
}

// Acceptance (issue 11): the TensorBoard profiler plugin's ResNet-50 traces, with the loader in
// the training process (num_workers=0) and with four workers.
struct SharedRun {
  TraceAnalysis analysis;
  std::vector<Finding> findings;
};
SharedRun AnalyseShared(const std::string& dir) {
  DiagnoseInputs in;
  in.traces = ReadTraceSet({dir});
  in.analysis = AnalyzeTraces(in.traces);
  SharedRun r{*in.analysis, StarvationFindings(in)};
  const RankAnalysis& k = r.analysis.ranks.at(0);
  std::printf("%s: dataloader share %.4f, idle %.4f, steps %zu, mean step %.4f s\n", dir.c_str(), k.dataloader_share,
              k.temporal.idle_s / k.temporal.window_s, k.iterations.size(), k.step_time.mean);
  return r;
}

TEST(DataStarvation, SharedResnet50NumWorkers0IsStarved) {
  PARATUNE_SHARED_OR_SKIP(dir, "traces/kineto_tb_plugin/resnet50_num_workers_0");
  const SharedRun r = AnalyseShared(dir);
  // paratune analyze: data load 29.60% of the step, GPU idle 30.46% (ProfilerStep#16..#20).
  EXPECT_NEAR(r.analysis.ranks[0].dataloader_share, 0.2960, 5e-4);
  ASSERT_EQ(r.findings.size(), 1u);
  const Finding& f = r.findings[0];
  EXPECT_EQ(f.rule, "data_starvation");
  EXPECT_EQ(f.severity, Severity::kCritical);
  EXPECT_NEAR(f.loss_fraction, 0.2960, 5e-4);  // the loader share, below the idle share
  EXPECT_EQ(f.where.iterations, (std::vector<int64_t>{16, 17, 18, 19, 20}));
  EXPECT_NE(f.fix.find("num_workers >= 2"), std::string::npos) << f.fix;
  for (const auto& e : f.evidence) std::printf("  %s = %.4f %s\n", e.name.c_str(), e.value, e.unit.c_str());
}

TEST(DataStarvation, SharedResnet50NumWorkers4IsNot) {
  PARATUNE_SHARED_OR_SKIP(dir, "traces/kineto_tb_plugin/resnet50_num_workers_4");
  const SharedRun r = AnalyseShared(dir);
  // 1.11% of the step: the four workers keep ahead of the GPU.
  EXPECT_NEAR(r.analysis.ranks[0].dataloader_share, 0.0111, 5e-4);
  EXPECT_TRUE(r.findings.empty());
}

}  // namespace
}  // namespace paratune
