// libFuzzer target: the fuzz bytes are an SQLite database file (written to a temporary file and
// opened by path, as `paratune analyze` opens an Nsight Systems export; not a memfd, whose
// /proc/self/fd link SQLite resolves to a name it cannot open). ReadNsightSqlite must return
// its ranks or throw InputError, and AnalyzeTraces must then survive whatever the reader let
// through. Anything else (another exception, a crash, a sanitizer report, a hang) is a bug.
//
// Seeds (fuzz/corpus/nsys_sqlite/) are small exports in the schema of `nsys export --type
// sqlite` with 512-byte pages, made by fuzz/nsys_sqlite_corpus.sh; most mutations of a database
// file are corrupt pages, which SQLite reports as errors, so the dictionary
// (fuzz/nsys_sqlite.dict) carries the table and column names and SQLite's page markers.
#include <fcntl.h>
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

// One scratch file per process, rewritten for every input and removed at exit (with any -wal or
// -shm file SQLite made beside it for an input that claims WAL mode). The path lives in a static
// buffer, which outlives the exit handler (a static std::string would be destroyed first).
char g_scratch[4096];

void RemoveScratch() {
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) unlink((std::string(g_scratch) + suffix).c_str());
}

const std::string& ScratchPath() {
  static const std::string path = [] {
    // $TMPDIR, else /dev/shm (memory: several times more runs per second than a disk), else /tmp.
    const char* env = std::getenv("TMPDIR");
    const std::string dir = env && *env ? env : access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    std::string templ = dir + "/nsys_sqlite_fuzz.XXXXXX";
    if (templ.size() >= sizeof g_scratch) std::abort();
    const int fd = mkstemp(templ.data());
    if (fd < 0) std::abort();
    close(fd);
    std::snprintf(g_scratch, sizeof g_scratch, "%s", templ.c_str());
    std::atexit(RemoveScratch);
    return templ;
  }();
  return path;
}

void WriteScratch(const uint8_t* data, size_t size) {
  const int fd = open(ScratchPath().c_str(), O_WRONLY | O_TRUNC);
  if (fd < 0) std::abort();
  for (size_t done = 0; done < size;) {
    const ssize_t n = write(fd, data + done, size - done);
    if (n <= 0) std::abort();
    done += static_cast<size_t>(n);
  }
  close(fd);
  for (const char* suffix : {"-wal", "-shm", "-journal"}) unlink((ScratchPath() + suffix).c_str());
}

void Check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "reader promise broken: %s\n", what);
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > (1u << 20)) return 0;  // keep each run short
  WriteScratch(data, size);
  std::vector<paratune::RankTrace> ranks;
  try {
    ranks = paratune::ReadNsightSqlite(ScratchPath());
  } catch (const paratune::InputError&) {
  }
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
