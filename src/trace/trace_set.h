// TraceSet: the ranks of one job, read from a directory of per-rank profiler files or a list of
// files, in parallel across cores. Each rank's number comes from the file (Kineto
// distributedInfo.rank), else from its name ("rank-3", "rank3", "rank_3", "worker3"), else it is
// an error asking the user to name the files or pass the rank.
#pragma once

#include <string>
#include <vector>

#include "trace/trace_event.h"
#include "util/progress.h"

namespace paratune {

struct TraceSetOptions {
  int threads = 0;  // 0: one per hardware thread (at most one per file)
  // Accept a partial trace: a truncated file keeps the events read before the end, and events
  // whose numbers are unusable (not a number, beyond 64 bits or their range, a negative
  // duration) are skipped; both are counted in RankTrace::warnings. Without it either is an
  // InputError naming the file (and, for a number, the line and field).
  bool allow_partial = false;
  // Told the megabytes read so far within files and the files read, from the reading threads in
  // turn ("reading traces, MB" after each 4 MB refill of a Kineto trace and every 65,536 rows of
  // an Nsight export, "reading traces, files" after each file).
  Progress* progress = nullptr;
};

// Expands `inputs` (files, or directories whose *.json, *.json.gz, *.pt.trace.json(.gz),
// *.sqlite files are taken) and reads them; Nsight exports (.sqlite / .db, or an SQLite header)
// may contribute several ranks (one per GPU). Ranks are sorted; a duplicate rank, a rank that
// cannot be determined, no input files, a rank with no events, and (unless allow_partial) a
// truncated file or an unusable number throw InputError.
std::vector<RankTrace> ReadTraceSet(const std::vector<std::string>& inputs, const TraceSetOptions& options = {});

// The rank encoded in a file name ("rank-3.json", "rank_3", "rank3", "worker3.123.pt.trace.json"),
// or -1.
int RankFromFileName(const std::string& path);

}  // namespace paratune
