// libFuzzer target: ParseKinetoTrace must return a RankTrace or throw InputError on any bytes, and
// AnalyzeTraces must then survive whatever the reader let through (odd times, duplicate
// correlations, empty names, ...). Anything else (another exception, a crash, a sanitizer report,
// a hang) is a bug.
//
// The in-memory parse reads 64 KiB at a time, so short inputs never cross a chunk boundary. The
// same bytes are therefore also streamed from a memfd with the smallest chunk (4 KiB), which
// cuts events at refills and buffer compactions; the two readings must agree.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "trace/kineto_reader.h"
#include "analysis/trace_analysis.h"
#include "trace/trace_event.h"
#include "util/error.h"

namespace {

// What a reading says, independent of how the bytes were chunked (names by text: the interned
// ids may differ when a batch is re-parsed event by event).
std::string Summary(const paratune::RankTrace& t) {
  std::string s = std::to_string(t.rank) + "|" + t.rank_source + "|" + std::to_string(t.world_size) + "|" +
                  std::to_string(t.base_time_ns) + "|" + t.device_name + "|" + std::to_string(t.legacy_layout) +
                  std::to_string(t.fractional_ts) + "|" + std::to_string(t.skipped_events) + "|";
  const paratune::TraceWarnings& w = t.warnings;
  for (int64_t x : {w.truncated, w.bad_number, w.missing_field, w.negative_duration, w.invalid_utf8, w.malformed_event})
    s += std::to_string(x) + ",";
  // Where a value went wrong (line and byte) must not depend on the chunking either; the label
  // differs between the two readings, so only what follows it is compared.
  const size_t colon = w.first_bad_value.find(':');
  s += "|" + w.truncated_at + "|" + (colon == std::string::npos ? w.first_bad_value : w.first_bad_value.substr(colon));
  // What is kept beside the events: memory events, copy bandwidths, what syncs wait on.
  for (const paratune::MemoryEvent& m : t.memory)
    s += "\nmemory " + std::to_string(m.ts_ns) + " " + std::to_string(m.bytes) + " " +
         std::to_string(m.total_allocated) + " " + std::to_string(m.total_reserved) + " " +
         std::to_string(m.device_type) + " " + std::to_string(m.device_id);
  for (const auto& [event, gbps] : t.memory_bandwidth_gbps)
    s += "\nbandwidth " + std::to_string(event) + " " + std::to_string(gbps);
  for (const paratune::SyncWait& w : t.sync_waits)
    s += "\nwait " + std::to_string(w.event) + " " + std::to_string(w.wait_on_stream) + " " +
         std::to_string(w.record_correlation);
  for (const paratune::TraceEvent& e : t.events) {
    s += "\n" + std::to_string(e.ts_ns) + " " + std::to_string(e.dur_ns) + " " + std::to_string(e.stream) + " " +
         std::to_string(e.correlation) + " " + std::to_string(static_cast<int>(e.kind)) + " " + std::to_string(e.tid) +
         " " + t.Name(e);
    if (e.collective >= 0) {
      const paratune::CollectiveArgs& c = t.collectives[static_cast<size_t>(e.collective)];
      s += " [" + c.collective + " " + std::to_string(c.in_nelems) + " " + std::to_string(c.out_nelems) + " " +
           std::to_string(c.group_size) + " " + c.dtype + " " + c.process_group + "]";
    }
  }
  return s;
}

// The same bytes through ReadKinetoTrace with 4 KiB chunks; nullopt when it threw InputError.
std::optional<paratune::RankTrace> ReadStreamed(const uint8_t* data, size_t size) {
  const int fd = memfd_create("kineto_trace_fuzz", 0);
  if (fd < 0) std::abort();
  for (size_t done = 0; done < size;) {
    const ssize_t n = write(fd, data + done, size - done);
    if (n <= 0) std::abort();
    done += static_cast<size_t>(n);
  }
  std::optional<paratune::RankTrace> t;
  try {
    paratune::KinetoReadOptions options;
    options.chunk_bytes = 4096;
    t = paratune::ReadKinetoTrace("/proc/self/fd/" + std::to_string(fd), options);
  } catch (const paratune::InputError&) {
  }
  close(fd);
  return t;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > (1u << 20)) return 0;  // keep each run short; the reader streams larger files the same way
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<paratune::RankTrace> ranks;
  try {
    ranks.push_back(paratune::ParseKinetoTrace(text, "fuzz.json"));
  } catch (const paratune::InputError&) {
  }
  // The file reader inflates gzip; the in-memory one does not, so only plain bytes compare.
  const bool gzip = size >= 2 && data[0] == 0x1f && data[1] == 0x8b;
  const std::optional<paratune::RankTrace> streamed = ReadStreamed(data, size);
  if (!gzip && streamed.has_value() != !ranks.empty()) {
    std::fprintf(stderr, "in-memory and 4 KiB-chunk readings disagree: %s\n",
                 ranks.empty() ? "only the streamed one parsed" : "only the in-memory one parsed");
    std::abort();
  }
  if (ranks.empty()) return 0;
  paratune::RankTrace& t = ranks[0];
  if (!gzip) {
    const std::string a = Summary(t), b = Summary(*streamed);
    if (a != b) {
      std::fprintf(stderr, "in-memory and 4 KiB-chunk readings disagree:\n--- in memory\n%s\n--- streamed\n%s\n",
                   a.c_str(), b.c_str());
      std::abort();
    }
  }
  // What the reader promises: interned names and collective args in range, no negative durations.
  for (const paratune::TraceEvent& e : t.events) {
    if (e.name >= t.names.size() || e.dur_ns < 0) std::abort();
    if (e.collective < -1 || (e.collective >= 0 && static_cast<size_t>(e.collective) >= t.collectives.size()))
      std::abort();
  }
  if (t.warnings.truncated > 1 || t.bytes_read < 0 || t.bytes_read > static_cast<int64_t>(size)) std::abort();
  // Every counted bad value is described (ReadTraceSet's error names it), and only then.
  if ((t.warnings.BadValues() > 0) != !t.warnings.first_bad_value.empty()) std::abort();
  if (t.warnings.truncated != 0 && t.warnings.truncated_at.empty()) std::abort();
  t.rank = 0;
  const paratune::TraceAnalysis a = paratune::AnalyzeTraces(ranks);
  if (a.ranks.size() != 1 || a.ranks[0].gpu_events > a.ranks[0].events) std::abort();
  for (uint32_t i : a.ranks[0].analysed_events)
    if (i >= t.events.size()) std::abort();
  return 0;
}
