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
// truncated file or an unusable number throw InputError: a file's read error first (the first
// file's in the given order), then a rank read twice, then the first unusable rank.
std::vector<RankTrace> ReadTraceSet(const std::vector<std::string>& inputs, const TraceSetOptions& options = {});

// The pieces of ReadTraceSet, for a set read by several processes (analysis/distributed_analysis.h):
// the files `inputs` name, in the order ReadTraceSet reads them (a directory's trace files sorted
// by name; the same InputErrors); some of those files read on their own, each with its ranks
// numbered (from the trace, else the file name; a lone file of a one-file set without either is
// rank 0), or the one-line error it gave; why a rank cannot be analysed ("" when it can: events,
// and unless allow_partial, whole and every number usable); and the checks over the set's ranks:
// no rank from two files (the message names the later file in rank, then file order), then the
// first unusable rank in that order.
std::vector<std::string> ExpandTraceInputs(const std::vector<std::string>& inputs);
struct TraceFileRead {
  size_t file = 0;  // index into the files
  std::vector<RankTrace> ranks;
  std::string error;  // the InputError's line; empty when read
};
std::vector<TraceFileRead> ReadTraceFiles(const std::vector<std::string>& files, const std::vector<size_t>& which,
                                          const TraceSetOptions& options = {});
std::string UnusableReason(const RankTrace& t, bool allow_partial);
struct RankOrigin {
  int rank = 0;
  std::string path;
  size_t file = 0;
  std::string unusable;  // UnusableReason
};
void CheckRankSet(std::vector<RankOrigin> origins);

// The rank encoded in a file name ("rank-3.json", "rank_3", "rank3", "worker3.123.pt.trace.json"),
// or -1.
int RankFromFileName(const std::string& path);

}  // namespace paratune
