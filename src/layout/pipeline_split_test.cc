#include "layout/pipeline_split.h"

#include <gtest/gtest.h>

#include <numeric>

namespace paratune {
namespace {

std::vector<int> Repeat(int n, int times) { return std::vector<int>(static_cast<size_t>(times), n); }

// Llama-3.1-405B's 126 layers on pp 8 with --account-for-embedding-in-pipeline-split and
// --account-for-loss-in-pipeline-split (transformer_block.py get_num_layers_to_build):
// (126 + 2) / 8 = 16 per rank; rank 0 builds 16 - 1 = 15 (the embedding is its 16th "layer"),
// rank 7 builds 16 - 1 = 15 (the loss), ranks 1-6 build 16: 15 + 6*16 + 15 = 126.
TEST(PipelineSplit, Llama405BOnPp8CountsEmbeddingAndLoss) {
  std::vector<int> want = {15, 16, 16, 16, 16, 16, 16, 15};
  EXPECT_EQ(AccountForSplit(126, 8, 1, true, true), want);
  // With vp 2: (126 + 2) / 16 = 8 per chunk; chunk 0 (vp 0 of rank 0) and chunk 15 (vp 1 of
  // rank 7) build 7.
  std::vector<int> vp2 = Repeat(8, 16);
  vp2.front() = 7;
  vp2.back() = 7;
  EXPECT_EQ(AccountForSplit(126, 8, 2, true, true), vp2);
  // Embedding only: 127 is prime, no pp > 1 divides it; loss only the same.
  EXPECT_TRUE(AccountForSplit(126, 8, 1, true, false).empty());
  EXPECT_TRUE(AccountForSplit(126, 8, 1, false, true).empty());
  // pp 128: one "layer" per rank, so rank 0 would build none.
  EXPECT_TRUE(AccountForSplit(126, 64, 2, true, true).empty());
  EXPECT_EQ(DescribeSplit(126, 8, 1, want).kind, SplitKind::kAccountBoth);
  EXPECT_EQ(DescribeSplit(126, 8, 2, vp2).kind, SplitKind::kAccountBoth);
}

// DeepSeek-V3's 61 layers: 62 = 2*31 and 63 = 7*9, so no power-of-two pp > 1 takes an
// account-for split; Megatron's first/last counts do. pp 4: middle ranks n = ceil(61/4) = 16,
// first + last = 61 - 2*16 = 29, each in [1, 16]: (13, 16), (14, 15), (15, 14), (16, 13).
// The most balanced split, by hand: DeepSeek-V3's 61 layers on pp 16: 3 per rank and 13 extra,
// to ranks 1..13 (middle ranks first), so ranks 0, 14 and 15 hold 3. 30 layers on pp 4, vp 2:
// 7 per rank and 2 extra to ranks 1 and 2; rank 0's 7 as 4 + 3 (virtual stage 0 takes the
// extra), chunk k = c*pp + s. pp 2: no middle rank, the first rank takes the extra.
TEST(PipelineSplit, BalancedSplitGivesExtraLayersToTheMiddleRanks) {
  std::vector<int> ds(16, 4);
  ds[0] = ds[14] = ds[15] = 3;
  EXPECT_EQ(BalancedSplit(61, 16, 1), ds);
  EXPECT_EQ(std::accumulate(ds.begin(), ds.end(), 0), 61);
  EXPECT_EQ(BalancedSplit(30, 4, 2), (std::vector<int>{4, 4, 4, 4, 3, 4, 4, 3}));
  EXPECT_EQ(BalancedSplit(7, 2, 1), (std::vector<int>{4, 3}));
  EXPECT_EQ(DescribeSplit(30, 4, 2, BalancedSplit(30, 4, 2)).kind, SplitKind::kCustom);
  EXPECT_TRUE(BalancedSplit(7, 4, 2).empty());  // 8 chunks, 7 layers: one would be empty
  EXPECT_TRUE(BalancedSplit(8, 0, 1).empty());
}

TEST(PipelineSplit, DeepSeekV3FirstLastCandidates) {
  const std::vector<std::vector<int>> c = SplitCandidates(61, 4, 1);
  ASSERT_EQ(c.size(), 4u);
  EXPECT_EQ(c[0], (std::vector<int>{13, 16, 16, 16}));
  EXPECT_EQ(c[3], (std::vector<int>{16, 16, 16, 13}));
  for (const auto& v : c) EXPECT_EQ(std::accumulate(v.begin(), v.end(), 0), 61);
  // The description prefers the fewest flags: only the last rank differs here.
  const SplitDescription d = DescribeSplit(61, 4, 1, c[3]);
  EXPECT_EQ(d.kind, SplitKind::kFirstLast);
  EXPECT_EQ(d.first, 0);
  EXPECT_EQ(d.last, 13);
  const SplitDescription e = DescribeSplit(61, 4, 1, c[1]);  // 14, 16, 16, 15
  EXPECT_EQ(e.first, 14);
  EXPECT_EQ(e.last, 15);
  // pp 16: n = 4, first + last = 61 - 14*4 = 5: four splits, e.g. 1, 4 x 14, 4.
  EXPECT_EQ(SplitCandidates(61, 16, 1).size(), 4u);
  // vp 2 has no even or account-for split of 61 over 8 chunks, and first/last is searched
  // with vp 1 only.
  EXPECT_TRUE(SplitCandidates(61, 4, 2).empty());
}

TEST(PipelineSplit, MegatronUnevenRules) {
  // transformer_config.py: first/last multiples of vp, the middle divisible by the middle ranks.
  EXPECT_EQ(FirstLastSplit(61, 4, 1, 13, 16), (std::vector<int>{13, 16, 16, 16}));
  EXPECT_TRUE(FirstLastSplit(61, 4, 1, 12, 16).empty());  // 33 over 2 middle ranks
  EXPECT_TRUE(FirstLastSplit(62, 4, 2, 15, 15).empty());  // 15 not a multiple of vp 2
  // vp 2: rank totals 14, 16, 16, 14 -> chunks 7, 8, 8, 7 | 7, 8, 8, 7.
  EXPECT_EQ(FirstLastSplit(60, 4, 2, 14, 14), (std::vector<int>{7, 8, 8, 7, 7, 8, 8, 7}));
  EXPECT_TRUE(FirstLastSplit(10, 2, 1, 10, 0).empty());  // no layer left for the last rank
  // Even counts are described as even, whatever produced them.
  EXPECT_EQ(DescribeSplit(64, 4, 1, Repeat(16, 4)).kind, SplitKind::kEven);
  EXPECT_EQ(DescribeSplit(64, 4, 1, {}).kind, SplitKind::kEven);
  EXPECT_EQ(DescribeSplit(64, 4, 1, {10, 20, 20, 14}).kind, SplitKind::kFirstLast);  // first 10, last 14
  EXPECT_EQ(DescribeSplit(64, 4, 1, {10, 20, 19, 15}).kind, SplitKind::kCustom);     // unequal middle ranks
  // Even splits are the only candidate where they exist.
  EXPECT_EQ(SplitCandidates(80, 4, 2), (std::vector<std::vector<int>>{{}}));
  Layout l;
  l.pp = 4;
  l.vp = 2;
  EXPECT_EQ(ChunkLayers(80, l), Repeat(10, 8));
}

}  // namespace
}  // namespace paratune
