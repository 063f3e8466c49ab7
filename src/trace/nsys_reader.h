// Reader for Nsight Systems SQLite exports (`nsys export --type sqlite report.nsys-rep`, or
// `nsys profile --export sqlite`), turning the CUDA activity, CUDA runtime and NVTX tables into
// one RankTrace per GPU. Table and column names follow the Nsight Systems documentation,
// "Exporter" / "SQLite Export Schema Reference"
// (https://docs.nvidia.com/nsight-systems/UserGuide/, and the nsys-exporter pages); what is read
// and how it maps is in docs/nsight.md.
#pragma once

#include <functional>

#include <string>
#include <vector>

#include "trace/trace_event.h"

namespace paratune {

// Reads the export at `path` (opened read-only). Returns one RankTrace per GPU device that has
// kernels, memcpys or memsets (CUPTI_ACTIVITY_KIND_KERNEL / _MEMCPY / _MEMSET), sorted by
// deviceId; rank is the position in that order (0 for a single device), rank_source
// "nsight device", base_time_ns 0 (times are the export's ns), events sorted by start.
//
// CUDA runtime calls go to the device of the GPU activity with the same correlationId (within
// the same process); a call that launched nothing goes to the one device its process drives,
// else it is dropped. NVTX push/pop and start/end ranges (ProfilerStep#N) go to every device
// their process drives, or to every rank when the process drove none.
//
// Rows with NULL times or names are skipped and counted in warnings.missing_field, rows with
// end < start in warnings.negative_duration (on the row's rank, else on the first rank).
// Throws InputError (one line naming the file and the table or column) when the file is not
// SQLite, lacks StringIds or a column that is read, or holds no usable GPU activity.
// `on_rows`, when given, is called every 65,536 rows read (of any table): a caller's progress,
// and its chance to stop a long read by throwing.
std::vector<RankTrace> ReadNsightSqlite(const std::string& path, const std::function<void()>& on_rows = {});

}  // namespace paratune
