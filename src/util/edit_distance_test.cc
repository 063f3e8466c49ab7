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

// The banded distance agrees with the full one within its limit, and says limit + 1 beyond it.
TEST(EditDistance, WithinALimit) {
  const char* words[] = {"",
                         "a",
                         "kitten",
                         "sitting",
                         "flaw",
                         "lawn",
                         "--num-layers",
                         "--num-layer",
                         "--tensor-model-parallel-size",
                         "--tensor-model-paralel-size",
                         "--pipeline-model-parallel-size",
                         "xyz"};
  for (const char* a : words)
    for (const char* b : words)
      for (size_t limit : {0u, 1u, 2u, 3u, 5u, 40u}) {
        const size_t full = EditDistance(a, b);
        EXPECT_EQ(EditDistanceWithin(a, b, limit), full <= limit ? full : limit + 1)
            << a << " / " << b << " / " << limit;
      }
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
