// AnalyzeTracesAcross: one job's trace set read and measured by the processes of a launcher
// (`mpirun -n N paratune analyze DIR`, `srun paratune analyze DIR`; util/process_group.h). Each
// process reads its share of the files, balanced by size, measures its ranks with its threads
// (AnalyzeRank) and keeps their events to itself; what crosses processes is small: first each
// file's error, its ranks and the ProfilerStep numbers they name (HTA's last-step filter is a
// decision over all ranks), then each rank's figures in the paratune.analyze/1 field lists
// (analysis_json.h) with its communication kernels' durations, which the stragglers match across
// ranks. Every process then combines the same parts (CombineRanks), so the analysis is the one a
// single process makes of the same set (docs/analysis.md, "Across processes").
#pragma once

#include <string>
#include <vector>

#include "analysis/trace_analysis.h"
#include "trace/trace_set.h"
#include "util/process_group.h"

namespace paratune {

// The files each process reads: the largest first, each to the process with the fewest bytes so
// far (ties: the lower process), the same on every process. Indices into `files`, ascending.
std::vector<std::vector<size_t>> ShareFiles(const std::vector<std::string>& files, int processes);

// Every process of `group` calls it with the same arguments and gets the same analysis, or the
// same InputError, ReadTraceSet's: a file's read error (the first file's in the given order), then
// a rank read twice, then the first unusable rank. An error of one process stops every process at
// the next exchange; none waits for another.
TraceAnalysis AnalyzeTracesAcross(const std::vector<std::string>& inputs, const TraceSetOptions& read,
                                  const AnalysisOptions& options, ProcessGroup& group);

}  // namespace paratune
