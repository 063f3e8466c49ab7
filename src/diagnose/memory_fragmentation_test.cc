#include <gtest/gtest.h>

#include "diagnose/rules.h"
#include "trace/kineto_reader.h"
#include "util/test_util.h"

namespace paratune {
namespace {

RankAnalysis FragmentedRank(int rank, int64_t allocated, int64_t reserved) {
  RankAnalysis r;
  r.rank = rank;
  MemoryTimeline m;
  m.peak.allocated_bytes = allocated;
  m.peak_reserved_bytes = reserved;
  r.memory = m;
  return r;
}

std::vector<Finding> RunFragmentationRule(const DiagnoseInputs& in) {
  std::vector<Finding> out;
  MakeMemoryFragmentationRule()->Check(in, &out);
  return out;
}

// Rank 1 reserves 70 GB for a 40 GB peak (30 GB, 43% unused): a finding, info without the GPU,
// a warning on an 80 GB H100 (70 GB is 87.5%: not yet) only near capacity (76 GB of 80: 95%).
TEST(MemoryFragmentation, ReservedFarAboveThePeak) {
  DiagnoseInputs in;
  in.analysis = TraceAnalysis{};
  in.analysis->ranks = {FragmentedRank(0, 40'000'000'000, 44'000'000'000),
                        FragmentedRank(1, 40'000'000'000, 70'000'000'000)};
  auto out = RunFragmentationRule(in);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].rule, "memory_fragmentation");
  EXPECT_EQ(out[0].severity, Severity::kInfo);
  EXPECT_EQ(out[0].where.gpus, std::vector<int>{1});
  EXPECT_CONTAINS(out[0].title, "allocator holds 30.0 GB reserved above a 40.0 GB peak allocated (rank 1)");
  EXPECT_CONTAINS(out[0].fix, "expandable_segments:True");
  in.cluster = ClusterSpec{};
  in.cluster->gpu.hbm_bytes = 80e9;
  EXPECT_EQ(RunFragmentationRule(in)[0].severity, Severity::kInfo);
  in.analysis->ranks[1] = FragmentedRank(1, 40'000'000'000, 76'000'000'000);
  out = RunFragmentationRule(in);
  EXPECT_EQ(out[0].severity, Severity::kWarning);
  EXPECT_CONTAINS(out[0].message, "the reserved peak is 95% of the GPU's 80 GB");
  // 1.5 GB unused (below 2 GB), or 20% unused: nothing.
  in.analysis->ranks = {FragmentedRank(0, 4'000'000'000, 5'500'000'000),
                        FragmentedRank(1, 40'000'000'000, 50'000'000'000)};
  EXPECT_TRUE(RunFragmentationRule(in).empty());
  in.analysis.reset();
  EXPECT_TRUE(RunFragmentationRule(in).empty());
}

// hta/df_index_resolver: 12.78 GB reserved, peak allocated 6.63 GB (48% never in use at the peak).
TEST(MemoryFragmentation, SharedTrace) {
  PARATUNE_SHARED_OR_SKIP(path, "traces/hta/df_index_resolver/df_index_resolver.json.gz");
  RankTrace t = ReadKinetoTrace(path);
  DiagnoseInputs in;
  in.analysis = AnalyzeTraces({t});
  const auto out = RunFragmentationRule(in);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_CONTAINS(out[0].title, "allocator holds 6.2 GB reserved above a 6.6 GB peak allocated (rank 1)");
}

}  // namespace
}  // namespace paratune
