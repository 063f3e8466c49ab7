// Tests of the ranking pairs: which runs form a pair, and how predictions order them.
#include "validate/ranking.h"

#include <gtest/gtest.h>

namespace paratune {
namespace {

PublishedRun RunOf(const std::string& id, int tp, double measured) {
  PublishedRun r;
  r.id = id;
  r.model_name = "llama-3.1-8b";
  r.gpu_name = "H100-SXM";
  r.num_gpus = 8;
  r.training.seq = 4096;
  r.layout.tp = tp;
  r.target_tokens_per_s_per_gpu = measured;
  return r;
}

TEST(Ranking, PairsShareModelGpuCountAndSequenceAndDifferInLayoutByMoreThanTheThreshold) {
  const PublishedRun a = RunOf("a", 1, 1000), b = RunOf("b", 2, 1100);
  EXPECT_TRUE(RankingPair(a, b));                     // 10% apart
  EXPECT_FALSE(RankingPair(a, RunOf("c", 2, 1050)));  // 5% apart: not more than the threshold
  EXPECT_TRUE(RankingPair(a, RunOf("c", 2, 1050), 0.04));
  EXPECT_FALSE(RankingPair(a, RunOf("d", 1, 1100)));  // the same layout: run-to-run spread
  PublishedRun other_gpu = b;
  other_gpu.gpu_name = "A100-SXM-80GB";
  EXPECT_FALSE(RankingPair(a, other_gpu));
  PublishedRun other_seq = b;
  other_seq.training.seq = 8192;
  EXPECT_FALSE(RankingPair(a, other_seq));
  PublishedRun other_count = b;
  other_count.num_gpus = 16;
  EXPECT_FALSE(RankingPair(a, other_count));
  PublishedRun other_precision = RunOf("e", 1, 1100);
  other_precision.training.precision = Precision::kFp8;
  EXPECT_TRUE(RankingPair(a, other_precision));
}

TEST(Ranking, CountsThePairsPredictionsOrderAsMeasured) {
  const PublishedRun a = RunOf("a", 1, 1000), b = RunOf("b", 2, 1100), c = RunOf("c", 4, 1300);
  const std::vector<const PublishedRun*> runs = {&a, &b, &c};
  // Measured c > b > a; predicted b > c > a: (b, a) and (c, a) agree, (c, b) does not.
  const PairOrder o = OrderPairs(runs, {900, 1200, 1150});
  EXPECT_EQ(o.pairs, 3);
  EXPECT_EQ(o.agree, 2);
  ASSERT_EQ(o.disagreements.size(), 1u);
  EXPECT_EQ(o.disagreements[0], (std::pair<size_t, size_t>{2, 1}));  // c measured faster than b
  // A run not predicted (negative) is left out with its pairs.
  const PairOrder without_b = OrderPairs(runs, {900, -1, 1150});
  EXPECT_EQ(without_b.pairs, 1);
  EXPECT_EQ(without_b.agree, 1);
  EXPECT_TRUE(without_b.disagreements.empty());
}

}  // namespace
}  // namespace paratune
