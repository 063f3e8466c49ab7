// Streaming reader for PyTorch profiler (Kineto) Chrome-trace JSON, plain or gzip, in the
// current layout (cpu_op/kernel/cuda_runtime..., distributedInfo, baseTimeNanoseconds) and the
// 2021 layout (Operator/Kernel/Runtime). The file is read in chunks: each traceEvents element is
// cut out by a small scanner and parsed on its own with simdjson, so memory stays at one chunk
// plus the compact RankTrace, never a DOM of the whole file.
// Format: Kineto's output_json.cpp (github.com/pytorch/kineto, libkineto/src/output_json.cpp).
#pragma once

#include <functional>

#include <cstdint>
#include <string>
#include <string_view>

#include "trace/trace_event.h"

namespace paratune {

struct KinetoReadOptions {
  size_t chunk_bytes = 4 << 20;  // bytes read (decompressed) per refill
  // Told, after each refill, how many bytes of the file (compressed bytes for gzip) were read so
  // far: a caller's progress, and its chance to stop a long read by throwing.
  std::function<void(int64_t file_bytes_read)> on_read;
};

// Reads `path` (".gz" or plain; gzip is detected from the bytes). Survivable problems (a bad
// event, a truncated file) are counted in RankTrace::warnings; a file that is not a Kineto trace
// at all (not JSON, no traceEvents, nothing readable) throws InputError naming the file and what
// is wrong. The rank comes from distributedInfo.rank when present, else stays -1 (see
// AssignRank in trace_set.h).
RankTrace ReadKinetoTrace(const std::string& path, const KinetoReadOptions& options = {});

// The same from bytes in memory (tests, fuzzing). `label` names the input in errors.
RankTrace ParseKinetoTrace(std::string_view json, const std::string& label);

}  // namespace paratune
