// Malloc settings for a process that reads traces of a gigabyte: glibc's tunables (glibc manual,
// "Memory Allocation Tunables"; glibc >= 2.35 for glibc.malloc.hugetlb) that give its large
// arrays 2 MiB pages (transparent huge pages by madvise: 512x fewer page faults) and keep memory
// it frees for reuse instead of handing it back and faulting it in again. glibc reads tunables
// only from the environment at start, so the command line sets them and starts itself again
// (cli/main.cc) when what it is asked to read is large enough to pay for the second start (about
// 20 ms, mostly the dynamic loader); measured in docs/performance.md ("Huge pages").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace paratune {

// The tunables, colon-separated as GLIBC_TUNABLES takes them: hugetlb=1 (madvise transparent
// huge pages on what malloc maps), mmap_threshold 32 MiB (glibc's own upper bound of the dynamic
// threshold: blocks below it come from the heap and are reused), trim_threshold 1 GiB.
extern const char* const kLargeHeapTunables;

// The GLIBC_TUNABLES value the process should run with, given its current one (null: unset), or
// nothing when the environment has already decided: GLIBC_TUNABLES set at all, even empty (the
// user's choice, and the guard against starting again twice).
std::optional<std::string> LargeHeapTunables(const char* current);

// Inputs of at least this many bytes pay for starting again with the tunables: on the 2-core
// box of docs/performance.md a 3.4 MB generated trace took 33 ms less CPU, a 15.6 MB one 53 ms,
// the 998.6 MB one 0.5 s, while a second start costs about 20 ms.
constexpr int64_t kLargeHeapInputBytes = int64_t{8} << 20;

// The bytes of the regular files that `args` name, a directory counting its regular files (one
// level, as trace sets are laid out, its first 4,096 entries at most); names that are not files
// (flags, values) count nothing. Stops counting at `limit`.
int64_t NamedInputBytes(const std::vector<std::string_view>& args, int64_t limit = kLargeHeapInputBytes);

}  // namespace paratune
