#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "diagnose/rules.h"

namespace paratune {
namespace {

constexpr double kT0 = 1714521600.0;  // 2024-05-01 00:00:00

// A Megatron-like log: iterations first..last every `log_interval`, `pace_s` per iteration with a
// deterministic +-0.5% wobble, timestamps rounded to whole seconds as Megatron printed them before
// 2026. `extra(i)` adds wall time to the interval ending at iteration i (a save, a slowdown).
struct LogSpec {
  int64_t first = 10, last = 3000, log_interval = 10;
  double pace_s = 1.2;
  bool timestamps = true;
  bool timer_stopped = true;  // Megatron since late 2023: a synchronous save is not in "elapsed"
};

template <typename Extra>
TrainingLog MakeLog(const LogSpec& spec, Extra extra) {
  TrainingLog log;
  log.path = "train.log";
  double t = kT0;
  int line = 1;
  for (int64_t it = spec.first; it <= spec.last; it += spec.log_interval) {
    IterationRecord r;
    r.line = line;
    line += 10;  // room for save lines and timer blocks between iteration lines
    r.iteration = it;
    r.interval_iterations = it == spec.first ? 0 : spec.log_interval;
    const double wobble = 1.0 + 0.005 * std::sin(static_cast<double>(it) * 0.7);
    const double busy = static_cast<double>(spec.log_interval) * spec.pace_s * wobble;
    const auto [gap_extra, elapsed_extra] = extra(it);
    t += busy + gap_extra + elapsed_extra;
    r.time_s = spec.timestamps ? std::round(t) : kNotGiven;
    r.elapsed_per_iteration_s =
        (busy + elapsed_extra + (spec.timer_stopped ? 0.0 : gap_extra)) / static_cast<double>(spec.log_interval);
    log.iterations.push_back(r);
  }
  return log;
}

void AddSave(TrainingLog* log, int64_t iteration, bool async, double timer_s) {
  // The save lines follow the iteration line of `iteration`.
  int line = 0;
  double t = kNotGiven;
  for (const auto& r : log->iterations)
    if (r.iteration == iteration) {
      line = r.line;
      t = r.time_s;
    }
  log->checkpoints.push_back({line, CheckpointEventKind::kSaveStarted, iteration, t});
  if (async) log->checkpoints.push_back({line, CheckpointEventKind::kAsyncScheduled, iteration, t});
  log->checkpoints.push_back({line, CheckpointEventKind::kSaved, iteration, t});
  TimerSample ts;
  ts.line = line + 1;  // lines are not exact here; only the order matters
  ts.name = "save-checkpoint";
  ts.min_s = timer_s * 0.99;
  ts.max_s = timer_s;
  ts.iteration = iteration;
  log->timers.push_back(ts);
}

std::vector<Finding> RunRule(const TrainingLog& log) {
  DiagnoseInputs in;
  in.logs.push_back(log);
  std::vector<Finding> out;
  MakeCheckpointStallRule()->Check(in, &out);
  return out;
}

struct Extra {
  double gap_s = 0, elapsed_s = 0;
};

TEST(CheckpointStall, SynchronousSavesShowInTheTimestampGaps) {
  // Saves at 500, 1000, ..., 2500 take 60 s each with Megatron's timer stopped: the elapsed time
  // per iteration never shows them, the gap to the next iteration line does. The final save at
  // 3000 (after the last iteration) is not a stall.
  const LogSpec spec;
  TrainingLog log = MakeLog(spec, [](int64_t it) { return (it % 500 == 10 && it > 10) ? Extra{60, 0} : Extra{}; });
  for (int64_t s = 500; s <= 3000; s += 500) AddSave(&log, s, false, 60.0);
  const auto out = RunRule(log);
  ASSERT_EQ(out.size(), 1u);
  const Finding& f = out[0];
  EXPECT_EQ(f.rule, "checkpoint_stall");
  EXPECT_EQ(f.where.iterations, (std::vector<int64_t>{500, 1000, 1500, 2000, 2500}));
  EXPECT_EQ(f.where.period_iterations, 500);
  // 50 intervals of 12 s plus one 60 s save between saves.
  EXPECT_NEAR(f.where.period_s, 660.0, 2.0);
  // Lost: 5 x 60 s out of 299 intervals x 12 s + 300 s = 3888 s.
  EXPECT_NEAR(f.loss_fraction, 300.0 / 3888.0, 0.003);
  EXPECT_EQ(f.severity, Severity::kWarning);
  ASSERT_EQ(f.where.time_ranges_s.size(), 5u);
  EXPECT_EQ(f.where.lines.size(), 5u);
  EXPECT_NE(f.title.find("Synchronous"), std::string::npos);
  EXPECT_NE(f.fix.find("--async-save"), std::string::npos);
  // The evidence carries each save's lost time (60 s within the timestamp rounding) and timer.
  ASSERT_GE(f.evidence.size(), 2u);
  EXPECT_NEAR(f.evidence[0].value, 60.0, 1.5);
  EXPECT_DOUBLE_EQ(f.evidence[1].value, 60.0);
}

TEST(CheckpointStall, AsynchronousSavesSlowTheIterationsAfterThem) {
  // Each async save costs 2 s of scheduling (gap) and makes the next 30 iterations 80% slower.
  const LogSpec spec;
  TrainingLog log = MakeLog(spec, [](int64_t it) {
    if (it <= 10) return Extra{};
    const int64_t since = (it - 10) % 500;  // 0 for the interval right after a save
    if (since == 0) return Extra{2.0, 0.8 * 12};
    if (since <= 20) return Extra{0, 0.8 * 12};
    return Extra{};
  });
  for (int64_t s = 500; s < 3000; s += 500) AddSave(&log, s, true, 2.0);
  const auto out = RunRule(log);
  ASSERT_EQ(out.size(), 1u);
  const Finding& f = out[0];
  EXPECT_EQ(f.where.iterations, (std::vector<int64_t>{500, 1000, 1500, 2000, 2500}));
  EXPECT_EQ(f.where.period_iterations, 500);
  // Lost per save 2 + 3 x 9.6 = 30.8 s; wall 299 x 12 + 5 x 30.8 = 3742 s.
  EXPECT_NEAR(f.loss_fraction, 154.0 / 3742.0, 0.004);
  EXPECT_EQ(f.severity, Severity::kWarning);
  EXPECT_NE(f.title.find("Asynchronous"), std::string::npos);
  EXPECT_NEAR(f.evidence[0].value, 30.8, 1.5);
}

TEST(CheckpointStall, CleanResumedLogWithAFinalSaveIsNotAStall) {
  // Resumed at 12000, async saves that cost nothing, and a 120 s synchronous final save.
  LogSpec spec;
  spec.first = 12010;
  spec.last = 15000;
  TrainingLog log = MakeLog(spec, [](int64_t) { return Extra{}; });
  for (int64_t s = 12500; s < 15000; s += 500) AddSave(&log, s, true, 0.8);
  AddSave(&log, 15000, false, 120.0);
  EXPECT_TRUE(RunRule(log).empty());
}

TEST(CheckpointStall, OneSlowSaveIsAnIncidentNotAPattern) {
  const LogSpec spec;
  TrainingLog log = MakeLog(spec, [](int64_t it) { return it == 1010 ? Extra{60, 0} : Extra{}; });
  for (int64_t s = 500; s < 3000; s += 500) AddSave(&log, s, false, 1.0);
  EXPECT_TRUE(RunRule(log).empty());
}

TEST(CheckpointStall, PeriodicStallsWithoutSaveLines) {
  // No checkpoint lines at all (another logger, or lines filtered out): stalls every 400 iterations.
  const LogSpec spec;
  const TrainingLog log = MakeLog(spec, [](int64_t it) {
    return (it % 400 == 10 && it > 10) ? Extra{45, 0} : Extra{};
  });
  const auto out = RunRule(log);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].where.period_iterations, 400);
  EXPECT_EQ(out[0].where.iterations, (std::vector<int64_t>{400, 800, 1200, 1600, 2000, 2400, 2800}));
  EXPECT_NEAR(out[0].loss_fraction, 7 * 45.0 / (299 * 12.0 + 7 * 45.0), 0.003);
}

TEST(CheckpointStall, OldMegatronFoldsTheSaveIntoTheElapsedTime) {
  // Before late 2023 the interval timer ran through the save and logs had no timestamps.
  LogSpec spec;
  spec.timestamps = false;
  spec.timer_stopped = false;
  TrainingLog log = MakeLog(spec, [](int64_t it) { return (it % 500 == 10 && it > 10) ? Extra{60, 0} : Extra{}; });
  for (int64_t s = 500; s <= 3000; s += 500) AddSave(&log, s, false, 60.0);
  const auto out = RunRule(log);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].where.period_iterations, 500);
  EXPECT_TRUE(std::isnan(out[0].where.period_s));
  EXPECT_NEAR(out[0].loss_fraction, 300.0 / (299 * 12.0 + 300), 0.002);
}

TEST(CheckpointStall, AThroughputStepIsNotAStall) {
  // From iteration 1500 on every iteration takes 20% longer (a change point, another rule's
  // finding); saves every 500 cost nothing. Neither the save-aligned nor the periodic test fires.
  const LogSpec spec;
  auto slower = [](int64_t it) { return it > 1500 ? Extra{0, 0.2 * 12} : Extra{}; };
  TrainingLog with_saves = MakeLog(spec, slower);
  for (int64_t s = 500; s < 3000; s += 500) AddSave(&with_saves, s, false, 0.5);
  EXPECT_TRUE(RunRule(with_saves).empty());
  EXPECT_TRUE(RunRule(MakeLog(spec, slower)).empty());
  // A slow stretch of 200 iterations in the middle is not periodic either.
  EXPECT_TRUE(RunRule(MakeLog(spec, [](int64_t it) {
                return it > 1000 && it <= 1200 ? Extra{0, 6} : Extra{};
              })).empty());
}

TEST(CheckpointStall, SaysNothingWithoutLogs) {
  DiagnoseInputs in;
  std::vector<Finding> out;
  MakeCheckpointStallRule()->Check(in, &out);
  EXPECT_TRUE(out.empty());
}

}  // namespace
}  // namespace paratune
