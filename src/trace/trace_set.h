// TraceSet: the ranks of one job, read from a directory of per-rank profiler files or a list of
// files, in parallel across cores. Each rank's number comes from the file (Kineto
// distributedInfo.rank), else from its name ("rank-3", "rank3", "rank_3", "worker3"), else it is
// an error asking the user to name the files or pass the rank.
#pragma once

#include <string>
#include <vector>

#include "trace/trace_event.h"

namespace paratune {

struct TraceSetOptions {
  int threads = 0;  // 0: one per hardware thread (at most one per file)
};

// Expands `inputs` (files, or directories whose *.json, *.json.gz, *.pt.trace.json(.gz),
// *.sqlite files are taken) and reads them; Nsight exports (.sqlite / .db, or an SQLite header)
// may contribute several ranks (one per GPU). Ranks are sorted; a duplicate rank, a rank that
// cannot be determined, or no input files throws InputError.
std::vector<RankTrace> ReadTraceSet(const std::vector<std::string>& inputs, const TraceSetOptions& options = {});

// The rank encoded in a file name ("rank-3.json", "rank_3", "rank3", "worker3.123.pt.trace.json"),
// or -1.
int RankFromFileName(const std::string& path);

}  // namespace paratune
