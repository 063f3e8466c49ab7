#include "analysis/memory_timeline.h"

#include <gtest/gtest.h>

#include "analysis/test_events.h"
#include "trace/kineto_reader.h"
#include "util/test_util.h"

namespace paratune {
namespace {

MemoryEvent Mem(int64_t ts_us, int64_t bytes, int64_t allocated, int64_t reserved, int device = 0) {
  return {ts_us * 1000, bytes, allocated, reserved, 1, device};
}

// By hand: two steps; the peak of step 1 is 300 during forward > aten::mm, of step 2 250 during
// backward; the CPU's events and another GPU's are left out.
TEST(MemoryTimeline, PeaksPerStepAndWhereTheyHappen) {
  RankTrace t;
  t.names = {"ProfilerStep#1", "ProfilerStep#2", "forward", "aten::mm", "backward"};
  t.events = {test_events::At(0, EventKind::kUserAnnotation, 0, 100),
              test_events::At(1, EventKind::kUserAnnotation, 100, 100),
              test_events::At(2, EventKind::kUserAnnotation, 10, 50), test_events::At(3, EventKind::kCpuOp, 20, 10),
              test_events::At(4, EventKind::kUserAnnotation, 110, 80)};
  t.memory = {Mem(5, 100, 100, 512),
              Mem(25, 200, 300, 512),
              Mem(70, -200, 100, 512),
              Mem(120, 150, 250, 1024),
              Mem(150, -50, 200, 1024),
              Mem(30, 999, 9999, 9999, 1),
              MemoryEvent{40'000, 8, 8, 8, 0, -1}};
  const auto m = MemoryTimelineOf(t);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->device_id, 0);
  EXPECT_TRUE(m->absolute);
  EXPECT_EQ(m->events, 5);
  EXPECT_EQ(m->peak.allocated_bytes, 300);
  EXPECT_EQ(m->peak.reserved_bytes, 512);
  EXPECT_NEAR(m->peak.at_s, 20e-6, 1e-12);
  EXPECT_EQ(m->peak.running, (std::vector<std::string>{"forward", "aten::mm"}));
  EXPECT_EQ(m->peak_reserved_bytes, 1024);
  ASSERT_EQ(m->steps.size(), 2u);
  EXPECT_EQ(m->steps[1].step, 2);
  EXPECT_EQ(m->steps[1].allocated_bytes, 250);
  EXPECT_EQ(m->steps[1].running, (std::vector<std::string>{"backward"}));
  EXPECT_EQ(m->samples.size(), 5u);
  EXPECT_EQ(m->samples.back().allocated_bytes, 200);

  // Without the allocator's totals (PyTorch < 1.10): the bytes summed from the profile's start.
  for (MemoryEvent& e : t.memory) e.total_allocated = -1, e.total_reserved = -1;
  const auto old = MemoryTimelineOf(t);
  EXPECT_FALSE(old->absolute);
  EXPECT_EQ(old->peak.allocated_bytes, 300);  // 100 + 200
  EXPECT_EQ(old->peak.reserved_bytes, -1);
  EXPECT_FALSE(MemoryTimelineOf(RankTrace{}).has_value());
}

// Many events: at most kMemorySamples samples, the peak among them.
TEST(MemoryTimeline, SamplesKeepThePeak) {
  RankTrace t;
  for (int i = 0; i < 100'000; ++i) t.memory.push_back(Mem(i, 1, i == 77'777 ? 5'000'000 : i, 1 << 30));
  const auto m = MemoryTimelineOf(t);
  ASSERT_LE(m->samples.size(), static_cast<size_t>(kMemorySamples));
  int64_t best = 0;
  for (const MemorySample& s : m->samples) best = std::max(best, s.allocated_bytes);
  EXPECT_EQ(best, 5'000'000);
  EXPECT_EQ(m->samples.back().allocated_bytes, 99'999);
}

// hta/df_index_resolver (28,010 memory events, 26,770 on CUDA device 1; PyTorch with totals): the
// figures computed from the raw JSON by a separate script (the allocator's Total Allocated at its
// maximum, the first time it is reached, and the ops whose spans hold that time).
TEST(MemoryTimeline, SharedTraceWithTheAllocatorsTotals) {
  PARATUNE_SHARED_OR_SKIP(path, "traces/hta/df_index_resolver/df_index_resolver.json.gz");
  const auto m = MemoryTimelineOf(ReadKinetoTrace(path));
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->device_id, 1);
  EXPECT_EQ(m->events, 26'770);
  EXPECT_EQ(m->peak.allocated_bytes, 6'629'508'096);
  EXPECT_EQ(m->peak.reserved_bytes, 12'782'141'440);
  EXPECT_NEAR(m->peak.at_s, 0.175037, 1e-9);
  EXPECT_EQ(m->peak.running,
            (std::vector<std::string>{"autograd::engine::evaluate_function: CompiledFunctionBackward",
                                      "CompiledFunctionBackward", "aten::clone", "aten::empty_like", "aten::empty"}));
  ASSERT_EQ(m->steps.size(), 5u);
  const double at[] = {0.175037, 0.53479, 0.888399, 1.23439, 1.567475};
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(m->steps[i].step, static_cast<int64_t>(i) + 2);
    EXPECT_EQ(m->steps[i].allocated_bytes, 6'629'508'096);
    EXPECT_NEAR(m->steps[i].at_s, at[i], 1e-9);
  }
}

}  // namespace
}  // namespace paratune
