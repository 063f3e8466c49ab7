#include "util/malloc_tuning.h"

#include <filesystem>
#include <system_error>

namespace paratune {

const char* const kLargeHeapTunables =
    "glibc.malloc.hugetlb=1:glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=1073741824";

std::optional<std::string> LargeHeapTunables(const char* current) {
  if (current != nullptr) return std::nullopt;
  return std::string(kLargeHeapTunables);
}

namespace {

constexpr int kMaxEntries = 4096;  // entries read per directory named

int64_t RegularFileBytes(const std::filesystem::directory_entry& e) {
  std::error_code ec;
  if (!e.is_regular_file(ec) || ec) return 0;
  const auto n = e.file_size(ec);
  return ec ? 0 : static_cast<int64_t>(n);
}

}  // namespace

int64_t NamedInputBytes(const std::vector<std::string_view>& args, int64_t limit) {
  namespace fs = std::filesystem;
  int64_t total = 0;
  for (std::string_view a : args) {
    if (a.empty() || a.front() == '-') continue;
    std::error_code ec;
    const fs::directory_entry e(fs::path(a), ec);
    if (ec) continue;
    if (e.is_directory(ec) && !ec) {
      int entries = 0;  // a directory of many small files is not read to its end for a guess
      for (fs::directory_iterator it(e.path(), ec), end; !ec && it != end && total < limit && entries < kMaxEntries;
           it.increment(ec), ++entries)
        total += RegularFileBytes(*it);
    } else {
      total += RegularFileBytes(e);
    }
    if (total >= limit) break;
  }
  return total;
}

}  // namespace paratune
