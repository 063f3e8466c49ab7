#include "util/edit_distance.h"

#include <gtest/gtest.h>

namespace paratune {
namespace {

// The textbook pairs: kitten/sitting 3 (Levenshtein 1966; Wagner and Fischer 1974).
TEST(EditDistance, Levenshtein) {
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3u);
  EXPECT_EQ(EditDistance("", "abc"), 3u);
  EXPECT_EQ(EditDistance("flaw", "lawn"), 2u);
  EXPECT_EQ(EditDistance("same", "same"), 0u);
}

TEST(EditDistance, Misspellings) {
  EXPECT_TRUE(LooksLikeMisspelling("--tensor-model-paralel-size", "--tensor-model-parallel-size"));
  EXPECT_TRUE(LooksLikeMisspelling("--num-layer", "--num-layers"));
  EXPECT_FALSE(LooksLikeMisspelling("--num-layers", "--num-layers"));
  EXPECT_FALSE(LooksLikeMisspelling("--lr", "--seq-length"));
  EXPECT_FALSE(LooksLikeMisspelling("--use-flash-attn", "--use-mcore-models"));
}

}  // namespace
}  // namespace paratune
