#include "util/malloc_tuning.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace paratune {

TEST(MallocTuning, UnsetEnvironmentGetsTheLargeHeapTunables) {
  const auto t = LargeHeapTunables(nullptr);
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(*t, "glibc.malloc.hugetlb=1:glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=1073741824");
}

TEST(MallocTuning, AnyUserSettingIsLeftAlone) {
  EXPECT_FALSE(LargeHeapTunables("").has_value());  // the documented way to opt out
  EXPECT_FALSE(LargeHeapTunables("glibc.malloc.hugetlb=0").has_value());
  EXPECT_FALSE(LargeHeapTunables("glibc.pthread.rseq=0").has_value());
  EXPECT_FALSE(LargeHeapTunables(kLargeHeapTunables).has_value());  // started again: no loop
}

TEST(MallocTuning, NamedInputBytesCountsFilesAndDirectoriesOneLevelDeep) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(testing::TempDir()) / "malloc_tuning_inputs";
  fs::remove_all(dir);
  fs::create_directories(dir / "set" / "nested");
  auto write = [](const fs::path& p, size_t n) { std::ofstream(p, std::ios::binary) << std::string(n, 'x'); };
  write(dir / "one.json", 1000);
  write(dir / "set" / "rank0.json", 300);
  write(dir / "set" / "rank1.json", 200);
  write(dir / "set" / "nested" / "deep.json", 5000);  // below the set's level: not counted
  const std::string one = (dir / "one.json").string(), set = (dir / "set").string();
  EXPECT_EQ(NamedInputBytes({one}), 1000);
  EXPECT_EQ(NamedInputBytes({set}), 500);
  EXPECT_EQ(NamedInputBytes({"analyze", one, "--json", set, "-o", (dir / "missing").string()}), 1500);
  EXPECT_EQ(NamedInputBytes({"--out=" + one}), 0);               // a flag is not a file, even with a file in it
  EXPECT_EQ(NamedInputBytes({one, set}, /*limit=*/1000), 1000);  // counting stops at the limit
  // A directory is read to its 4,096th entry at most: 5,000 one-byte files count 4,096 at most.
  fs::create_directories(dir / "many");
  for (int i = 0; i < 5000; ++i) write(dir / "many" / ("f" + std::to_string(i)), 1);
  EXPECT_EQ(NamedInputBytes({(dir / "many").string()}), 4096);
  fs::remove_all(dir);
}

}  // namespace paratune
