#include "diagnose/diagnosis_series.h"

#include <gtest/gtest.h>

namespace paratune {
namespace {

TEST(DiagnosisSeries, ThroughputIsThinnedEvenlyWithSavesAndTheFirstQuantityGiven) {
  DiagnoseInputs in;
  TrainingLog log;
  log.path = "train.log";
  for (int i = 1; i <= 5000; ++i) {
    IterationRecord r;
    r.iteration = i;
    r.elapsed_per_iteration_s = 0.5;
    r.tflops_per_gpu = 400 + (i > 2500 ? -50 : 0);
    log.iterations.push_back(r);
  }
  CheckpointEvent c;
  c.iteration = 1000;
  log.checkpoints.push_back(c);
  in.logs.push_back(log);
  const DiagnosisSeries s = SeriesOf(in);
  ASSERT_EQ(s.throughput.size(), 1u);
  const ThroughputSeries& t = s.throughput[0];
  EXPECT_EQ(t.quantity, "tflops_per_gpu");  // tokens/s absent; TFLOP/s on every line
  ASSERT_EQ(t.iterations.size(), kMaxSeriesPoints);
  EXPECT_EQ(t.iterations.front(), 1);
  EXPECT_EQ(t.iterations.back(), 5000);
  EXPECT_EQ(t.values.front(), 400);
  EXPECT_EQ(t.values.back(), 350);
  EXPECT_EQ(t.save_iterations, std::vector<double>{1000});
}

TEST(DiagnosisSeries, TelemetryGivesOneSeriesPerGpu) {
  DiagnoseInputs in;
  GpuTelemetry tel;
  tel.path = "smi.csv";
  for (int k = 0; k < 10; ++k)
    for (int g = 0; g < 2; ++g) {
      TelemetrySample s;
      s.gpu = g;
      s.time_s = 1000 + k;
      s.sm_clock_hz = 1.98e9 - g * 1e8;
      s.temperature_c = 60 + g;
      tel.samples.push_back(s);
    }
  in.telemetry.push_back(tel);
  const DiagnosisSeries s = SeriesOf(in);
  ASSERT_EQ(s.telemetry.size(), 2u);
  EXPECT_EQ(s.telemetry[1].gpu, 1);
  EXPECT_EQ(s.telemetry[1].time_s.size(), 10u);
  EXPECT_DOUBLE_EQ(s.telemetry[1].sm_clock_hz[3], 1.88e9);
  EXPECT_DOUBLE_EQ(s.telemetry[0].temperature_c[9], 60);
}

}  // namespace
}  // namespace paratune
