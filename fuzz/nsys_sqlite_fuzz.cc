// libFuzzer target: the fuzz bytes are an SQLite database file (written to a memfd and opened
// by path, as `paratune analyze` opens an Nsight Systems export). ReadNsightSqlite must return
// its ranks or throw InputError, and AnalyzeTraces must then survive whatever the reader let
// through. Anything else (another exception, a crash, a sanitizer report, a hang) is a bug.
//
// Seeds (fuzz/corpus/nsys_sqlite/) are small exports in the schema of `nsys export --type
// sqlite` with 512-byte pages, made by fuzz/nsys_sqlite_corpus.sh; most mutations of a database
// file are corrupt pages, which SQLite reports as errors, so the dictionary
// (fuzz/nsys_sqlite.dict) carries the table and column names and SQLite's page markers.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "analysis/trace_analysis.h"
#include "trace/nsys_reader.h"
#include "trace/trace_event.h"
#include "util/error.h"

namespace {

void Check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "reader promise broken: %s\n", what);
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > (1u << 20)) return 0;  // keep each run short
  const int fd = memfd_create("nsys_sqlite_fuzz", 0);
  if (fd < 0) std::abort();
  for (size_t done = 0; done < size;) {
    const ssize_t n = write(fd, data + done, size - done);
    if (n <= 0) std::abort();
    done += static_cast<size_t>(n);
  }
  std::vector<paratune::RankTrace> ranks;
  try {
    ranks = paratune::ReadNsightSqlite("/proc/self/fd/" + std::to_string(fd));
  } catch (const paratune::InputError&) {
  }
  close(fd);
  if (ranks.empty()) return 0;

  // What the reader promises (nsys_reader.h): ranks 0..n-1, events sorted by start with names in
  // range and no negative durations, times within the supported bound, and every counted bad
  // value described.
  for (size_t r = 0; r < ranks.size(); ++r) {
    const paratune::RankTrace& t = ranks[r];
    Check(t.rank == static_cast<int>(r), "ranks numbered in order");
    Check(!t.events.empty(), "a rank has events");
    for (size_t i = 0; i < t.events.size(); ++i) {
      const paratune::TraceEvent& e = t.events[i];
      Check(e.name < t.names.size(), "name in range");
      Check(e.dur_ns >= 0, "no negative duration");
      Check(e.ts_ns >= -paratune::kMaxTraceTimeNs && e.ts_ns <= paratune::kMaxTraceTimeNs &&
                e.dur_ns <= paratune::kMaxTraceTimeNs - e.ts_ns,
            "times within the bound");
      Check(e.collective == -1, "no collective args from nsys");
      if (i > 0) Check(t.events[i - 1].ts_ns <= e.ts_ns, "events sorted by start");
    }
    const paratune::TraceWarnings& w = t.warnings;
    Check(w.bad_number >= 0 && w.missing_field >= 0 && w.negative_duration >= 0 && w.truncated == 0, "warning counts");
    Check((w.BadValues() > 0) == !w.first_bad_value.empty(), "a bad value is counted with its description");
  }
  const paratune::TraceAnalysis a = paratune::AnalyzeTraces(ranks);
  Check(a.ranks.size() == ranks.size(), "one analysis per rank");
  for (size_t r = 0; r < a.ranks.size(); ++r) {
    Check(a.ranks[r].gpu_events <= a.ranks[r].events, "GPU events among the events");
    for (uint32_t i : a.ranks[r].analysed_events) Check(i < ranks[r].events.size(), "analysed event in range");
  }
  return 0;
}
