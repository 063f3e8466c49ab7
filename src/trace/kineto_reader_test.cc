#include "trace/kineto_reader.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdio>
#include <fstream>

#include "util/test_util.h"

namespace paratune {
namespace {

const char* kKernel =
    R"J({"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "pid": 0, "tid": 20,
  "ts": 4458677009853.422, "dur": 2636.669,
  "args": {"device": 0, "stream": 20, "correlation": 60047, "Collective name": "allreduce", "In msg nelems": 6637568,
           "Out msg nelems": 6637568, "Group size": 8, "dtype": "BFloat16", "Process Group Name": "0"}})J";

std::string Wrap(const std::string& events, const std::string& tail = "") {
  return R"({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3"}],
  "distributedInfo": {"backend": "nccl", "rank": 5, "world_size": 8}, "traceEvents": [)" +
         events + "]" + tail + "}";
}

std::string TempPath(const std::string& name) { return testing::TempDir() + "/paratune_kineto_" + name; }

TEST(KinetoReader, ReadsCurrentLayoutWithNanosecondTimestampsAndCollectiveArgs) {
  const std::string json = Wrap(std::string(kKernel) + R"J(,
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 7, "tid": 7, "ts": 4458677009850.5, "dur": 3.25,
     "args": {"correlation": 60047}},
    {"ph": "i", "cat": "cpu_instant_event", "name": "mark", "ts": 1},
    {"ph": "X", "cat": "Trace", "name": "PyTorch Profiler (0)", "ts": 1, "dur": 10},
    {"ph": "s", "id": 60047, "pid": 7, "tid": 7, "ts": 4458677009850.5, "cat": "ac2g", "name": "ac2g"})J",
                                R"(, "baseTimeNanoseconds": 1711964646000000000)");
  const RankTrace t = ParseKinetoTrace(json, "t.json");
  EXPECT_EQ(t.rank, 5);
  EXPECT_EQ(t.rank_source, "distributedInfo");
  EXPECT_EQ(t.world_size, 8);
  EXPECT_EQ(t.base_time_ns, 1711964646000000000);
  EXPECT_EQ(t.device_name, "NVIDIA H100 80GB HBM3");
  EXPECT_TRUE(t.fractional_ts);
  EXPECT_FALSE(t.legacy_layout);
  ASSERT_EQ(t.events.size(), 2u);
  EXPECT_EQ(t.skipped_events, 3);  // instant, "Trace" span, flow start
  const TraceEvent& k = t.events[0];
  EXPECT_EQ(k.kind, EventKind::kKernel);
  EXPECT_EQ(k.ts_ns, 4458677009853422);  // µs with three decimals, kept exactly in ns
  EXPECT_EQ(k.dur_ns, 2636669);
  EXPECT_EQ(k.stream, 20);
  EXPECT_EQ(k.correlation, 60047);
  ASSERT_EQ(k.collective, 0);
  EXPECT_EQ(t.collectives[0].collective, "allreduce");
  EXPECT_EQ(t.collectives[0].in_nelems, 6637568);
  EXPECT_EQ(t.collectives[0].group_size, 8);
  EXPECT_EQ(t.collectives[0].dtype, "BFloat16");
  EXPECT_EQ(t.collectives[0].process_group, "0");
  EXPECT_EQ(t.events[1].kind, EventKind::kRuntime);
  EXPECT_EQ(t.events[1].ts_ns, 4458677009850500);
  EXPECT_EQ(t.events[1].dur_ns, 3250);
  EXPECT_EQ(t.events[1].stream, -1);
  EXPECT_EQ(t.Name(t.events[1]), "cudaLaunchKernel");
  EXPECT_EQ(t.warnings.Total(), 0);
}

TEST(KinetoReader, ReadsLegacyLayoutAndEpochMicroseconds) {
  // The 2021 layout: Operator/Runtime/Kernel, tid "stream 7", no distributedInfo.
  const std::string json = R"J({"schemaVersion": 1, "traceEvents": [
    {"ph": "X", "cat": "Operator", "name": "ProfilerStep#16", "pid": 25738, "tid": "25738", "ts": 1623143093496582, "dur": 159363},
    {"ph": "X", "cat": "Kernel", "name": "cask_cudnn::computeOffsetsKernel(cask_cudnn::ComputeOffsetsParams)", "pid": 0,
     "tid": "stream 7", "ts": 1623143093553659, "dur": 2, "args": {"stream": 7, "correlation": 160663, "external id": 24213}}
  ]})J";
  const RankTrace t = ParseKinetoTrace(json, "legacy.json");
  EXPECT_TRUE(t.legacy_layout);
  EXPECT_FALSE(t.fractional_ts);
  EXPECT_EQ(t.rank, -1);
  ASSERT_EQ(t.events.size(), 2u);
  EXPECT_EQ(t.events[0].kind, EventKind::kCpuOp);
  EXPECT_EQ(t.events[0].ts_ns, 1623143093496582000);
  EXPECT_EQ(t.events[1].kind, EventKind::kKernel);
  EXPECT_EQ(t.events[1].stream, 7);
}

// "[memory]" instant events (profile_memory=True) as the shared traces write them: the current
// layout (cpu_instant_event, with the allocator's totals; hta/df_index_resolver) and the 2021 one
// (no category, Bytes only; kineto_tb_plugin/resnet50). They are kept beside the events, not as
// events; an unusable number skips the memory event like any other.
TEST(KinetoReader, ReadsMemoryEventsOfBothLayouts) {
  const std::string json = R"J({"traceEvents": [
    {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 783658, "tid": 785244,
     "ts": 1669783687464300, "args": {"Ev Idx": 42070, "Device Type": 1, "Device Id": 1, "Addr": 139926520725504,
     "Bytes": 5242880, "Total Allocated": 5435638784, "Total Reserved": 12782141440}},
    {"ph": "i", "s": "t", "name": "[memory]", "pid": 25738, "tid": 25738, "ts": 1623143093496534,
     "args": {"Device Type": 0, "Device Id": -1, "Bytes": -4}},
    {"ph": "i", "s": "t", "name": "[memory]", "ts": 5, "args": {"Device Type": 1, "Device Id": 0, "Bytes": "x"}},
    {"ph": "i", "s": "t", "name": "[not memory]", "ts": 6, "args": {"Bytes": 8}},
    {"ph": "X", "cat": "kernel", "name": "k", "ts": 7, "dur": 2, "args": {"stream": 7}}
  ]})J";
  const RankTrace t = ParseKinetoTrace(json, "m.json");
  ASSERT_EQ(t.memory.size(), 2u);
  EXPECT_EQ(t.memory[0].ts_ns, 1669783687464300000);
  EXPECT_EQ(t.memory[0].bytes, 5242880);
  EXPECT_EQ(t.memory[0].total_allocated, 5435638784);
  EXPECT_EQ(t.memory[0].total_reserved, 12782141440);
  EXPECT_EQ(t.memory[0].device_type, 1);
  EXPECT_EQ(t.memory[0].device_id, 1);
  EXPECT_EQ(t.memory[1].bytes, -4);
  EXPECT_EQ(t.memory[1].total_allocated, -1);
  EXPECT_EQ(t.memory[1].device_type, 0);
  EXPECT_EQ(t.memory[1].device_id, -1);
  EXPECT_EQ(t.events.size(), 1u);
  EXPECT_EQ(t.warnings.bad_number, 1);
  EXPECT_CONTAINS(t.warnings.first_bad_value, "args.Bytes");
}

// CUPTI's "memory bandwidth (GB/s)" of a memcpy or memset is kept beside the event; a value
// that is not a number skips the event as a bad number.
TEST(KinetoReader, ReadsTheMemoryBandwidthOfCopies) {
  const std::string json = R"J({"traceEvents": [
    {"ph": "X", "cat": "gpu_memset", "name": "Memset (Device)", "pid": 1, "tid": 7, "ts": 10, "dur": 2,
     "args": {"External id": 869004, "device": 0, "context": 1, "stream": 7, "correlation": 869004, "bytes": 1408,
     "memory bandwidth (GB/s)": 0.7333333333333333}},
    {"ph": "X", "cat": "kernel", "name": "k", "ts": 12, "dur": 2, "args": {"stream": 7}},
    {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pinned -> Device)", "ts": 20, "dur": 3,
     "args": {"stream": 7, "memory bandwidth (GB/s)": "fast"}}
  ]})J";
  const RankTrace t = ParseKinetoTrace(json, "bw.json");
  ASSERT_EQ(t.events.size(), 2u);
  ASSERT_EQ(t.memory_bandwidth_gbps.size(), 1u);
  EXPECT_EQ(t.memory_bandwidth_gbps[0].first, 0u);
  EXPECT_DOUBLE_EQ(t.memory_bandwidth_gbps[0].second, 0.7333333333333333);
  EXPECT_EQ(t.warnings.bad_number, 1);
  EXPECT_CONTAINS(t.warnings.first_bad_value, "args.memory bandwidth (GB/s)");
}

// A cuda_sync event's "wait_on_stream" and "wait_on_cuda_event_record_corr_id" (pytorch/kineto
// #808) are kept beside it, -1 meaning none; a value that is not an integer skips the event.
TEST(KinetoReader, ReadsWhatASyncWaitsOn) {
  const std::string json = R"J({"traceEvents": [
    {"ph": "X", "cat": "cuda_sync", "name": "Event Sync", "pid": 0, "tid": -1, "ts": 10, "dur": 4,
     "args": {"cuda_sync_kind": "Event Sync", "wait_on_stream": 20, "wait_on_cuda_event_record_corr_id": 32,
     "wait_on_cuda_event_id": 9, "stream": -1, "correlation": 54}},
    {"ph": "X", "cat": "cuda_sync", "name": "Event Sync", "ts": 20, "dur": 4,
     "args": {"wait_on_stream": -1, "wait_on_cuda_event_record_corr_id": -1, "stream": -1, "correlation": 24}},
    {"ph": "X", "cat": "kernel", "name": "k", "ts": 30, "dur": 2, "args": {"stream": 7, "wait_on_stream": 3}},
    {"ph": "X", "cat": "cuda_sync", "name": "Stream Wait Event", "ts": 40, "dur": 1,
     "args": {"stream": 24, "wait_on_stream": "twenty"}}
  ]})J";
  const RankTrace t = ParseKinetoTrace(json, "sync.json");
  ASSERT_EQ(t.events.size(), 3u);
  ASSERT_EQ(t.sync_waits.size(), 1u);  // not the one that waits on nothing, not the kernel's
  EXPECT_EQ(t.sync_waits[0].event, 0u);
  EXPECT_EQ(t.sync_waits[0].wait_on_stream, 20);
  EXPECT_EQ(t.sync_waits[0].record_correlation, 32);
  EXPECT_EQ(t.warnings.bad_number, 1);
  EXPECT_CONTAINS(t.warnings.first_bad_value, "args.wait_on_stream");
}

// A batch of events that fails (a later event is not valid JSON) is read again event by event:
// what was kept beside the events from the failed attempt (a copy's bandwidth, what a sync
// waits on, a memory event) is dropped with its events, not kept twice.
TEST(KinetoReader, AFailedBatchKeepsNothingTwice) {
  const std::string json =
      "{\"traceEvents\": [\n"
      R"J({"ph": "X", "cat": "gpu_memset", "name": "Memset (Device)", "ts": 10, "dur": 2,
                               "args": {"stream": 7, "memory bandwidth (GB/s)": 0.5}},
                           {"ph": "X", "cat": "cuda_sync", "name": "Event Sync", "ts": 20, "dur": 4,
                               "args": {"wait_on_stream": 20, "wait_on_cuda_event_record_corr_id": 32, "stream": -1}},
                           {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "ts": 25,
                               "args": {"Device Type": 1, "Device Id": 0, "Bytes": 512, "Total Allocated": 512,
                               "Total Reserved": 2048}},)J"
      R"J({"ph": "X", "cat": "kernel" "name": "k", "ts": 30, "dur": 2, "args": {"stream": 7}})J"
      "\n]}";
  const RankTrace t = ParseKinetoTrace(json, "batch.json");
  ASSERT_EQ(t.events.size(), 2u);
  EXPECT_EQ(t.warnings.malformed_event, 1);
  EXPECT_EQ(t.memory_bandwidth_gbps.size(), 1u);
  EXPECT_EQ(t.sync_waits.size(), 1u);
  EXPECT_EQ(t.memory.size(), 1u);
}

TEST(KinetoReader, ReadsTheJsonArrayFormat) {
  const RankTrace t = ParseKinetoTrace(
      R"([{"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": 2, "args": {"stream": "7"}}])", "a.json");
  ASSERT_EQ(t.events.size(), 1u);
  EXPECT_EQ(t.events[0].stream, 7);  // numeric strings are numbers, as HTA reads them
}

TEST(KinetoReader, TruncatedFileKeepsTheEventsReadAndWarns) {
  std::string json = Wrap(std::string(kKernel) + "," + kKernel + "," + kKernel);
  json.resize(json.size() - 200);  // cut inside the third event
  const RankTrace t = ParseKinetoTrace(json, "cut.json");
  EXPECT_EQ(t.events.size(), 2u);
  EXPECT_EQ(t.warnings.truncated, 1);
  EXPECT_EQ(t.rank, 5);
}

TEST(KinetoReader, BrokenEventsAreCountedAndSkipped) {
  const std::string json = Wrap(
      // integer beyond 64 bits
      R"({"ph": "X", "cat": "kernel", "name": "big", "ts": 99999999999999999999999, "dur": 1},)"
      R"({"ph": "X", "cat": "kernel", "name": "bigcorr", "ts": 1, "dur": 1, "args": {"correlation": 18446744073709551616}},)"
      // missing ts, missing name
      R"({"ph": "X", "cat": "kernel", "name": "nots", "dur": 1},)"
      R"({"ph": "X", "cat": "kernel", "ts": 1, "dur": 1},)"
      // negative duration
      R"({"ph": "X", "cat": "kernel", "name": "neg", "ts": 1, "dur": -5},)"
      // not a number
      R"({"ph": "X", "cat": "kernel", "name": "nan", "ts": "soon", "dur": 1},)"
      // not an object, and a syntax error inside an object
      R"(17, {"ph": "X", "cat": "kernel", "name": "bad" "ts": 1},)"
      // invalid UTF-8 in the name: kept with '?'
      "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm\xff\xfe\", \"ts\": 3, \"dur\": 4},"
      R"({"ph": "X", "cat": "kernel", "name": "good", "ts": 5, "dur": 6})");
  const RankTrace t = ParseKinetoTrace(json, "broken.json");
  EXPECT_EQ(t.warnings.bad_number, 3);
  EXPECT_EQ(t.warnings.missing_field, 2);
  EXPECT_EQ(t.warnings.negative_duration, 1);
  EXPECT_EQ(t.warnings.malformed_event, 2);
  EXPECT_EQ(t.warnings.invalid_utf8, 1);
  ASSERT_EQ(t.events.size(), 2u);
  EXPECT_EQ(t.Name(t.events[0]), "gemm??");
  EXPECT_EQ(t.Name(t.events[1]), "good");
  EXPECT_EQ(t.events[1].ts_ns, 5000);
}

TEST(KinetoReader, UnusableFilesAreOneLineErrors) {
  EXPECT_CONTAINS(InputErrorOf([] { ParseKinetoTrace("", "e.json"); }), "e.json: empty file");
  EXPECT_CONTAINS(InputErrorOf([] { ParseKinetoTrace("hello", "h.json"); }), "h.json: not a Chrome-trace JSON file");
  // The first character, not a number that reads like an offset (issue 32: "starts with byte 40").
  EXPECT_CONTAINS(InputErrorOf([] { ParseKinetoTrace("(x)", "p.json"); }),
                  "p.json: not a Chrome-trace JSON file (its first character is '(', expected");
  EXPECT_CONTAINS(InputErrorOf([] { ParseKinetoTrace("\x01x", "c.json"); }),
                  "(its first character is byte 0x01, expected");
  EXPECT_CONTAINS(InputErrorOf([] { ParseKinetoTrace(R"({"schemaVersion": 1})", "n.json"); }),
                  "n.json: no \"traceEvents\"");
  EXPECT_CONTAINS(InputErrorOf([] { ParseKinetoTrace(R"({"schemaVersion": 1, "trace)", "c.json"); }),
                  "c.json: file ends");
  EXPECT_CONTAINS(InputErrorOf([] { ParseKinetoTrace(R"({"traceEvents": 5})", "v.json"); }), "is not an array");
  EXPECT_CONTAINS(InputErrorOf([] { ParseKinetoTrace(R"({"traceEvents": [{"a": 1} x]})", "s.json"); }),
                  "s.json: byte 26: expected ',' or ']'");
  EXPECT_CONTAINS(InputErrorOf([] { ReadKinetoTrace(TempPath("does-not-exist.json")); }), "cannot open");
}

TEST(KinetoReader, SkipsAUtf8ByteOrderMark) {
  const RankTrace t = ParseKinetoTrace(
      "\xEF\xBB\xBF"
      R"({"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": 2}]})",
      "bom.json");
  ASSERT_EQ(t.events.size(), 1u);
  EXPECT_EQ(t.events[0].dur_ns, 2000);
}

TEST(KinetoReader, EmptyTraceHasNoEvents) {
  const RankTrace t = ParseKinetoTrace(R"({"traceEvents": []})", "empty.json");
  EXPECT_TRUE(t.events.empty());
  EXPECT_EQ(t.warnings.Total(), 0);
}

TEST(KinetoReader, GzipAndSmallChunksGiveTheSameEvents) {
  std::string events;
  for (int i = 0; i < 2000; ++i) {
    if (i) events += ",\n";
    events += R"({"ph": "X", "cat": "kernel", "name": "k)" + std::to_string(i % 7) + R"(", "ts": )" +
              std::to_string(1000 + i * 10) + R"(.125, "dur": 5, "args": {"stream": 7, "correlation": )" +
              std::to_string(i) + "}}";
  }
  const std::string json = Wrap(events);
  const std::string plain = TempPath("plain.json"), gz = TempPath("trace.json.gz");
  std::ofstream(plain, std::ios::binary) << json;
  gzFile f = gzopen(gz.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  gzwrite(f, json.data(), static_cast<unsigned>(json.size()));
  gzclose(f);
  KinetoReadOptions small;
  small.chunk_bytes = 4096;  // events straddle chunk boundaries
  const RankTrace a = ReadKinetoTrace(plain, small), b = ReadKinetoTrace(gz);
  ASSERT_EQ(a.events.size(), 2000u);
  ASSERT_EQ(b.events.size(), 2000u);
  for (size_t i = 0; i < a.events.size(); ++i) {
    EXPECT_EQ(a.events[i].ts_ns, b.events[i].ts_ns);
    EXPECT_EQ(a.Name(a.events[i]), b.Name(b.events[i]));
  }
  EXPECT_EQ(a.events[1999].ts_ns, (1000 + 1999 * 10) * 1000 + 125);
  EXPECT_EQ(a.names.size(), 7u);
  EXPECT_EQ(a.bytes_read, static_cast<int64_t>(json.size()));

  // A truncated .gz keeps what decompressed and warns.
  std::string bytes;
  {
    std::ifstream in(gz, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  const std::string cut = TempPath("cut.json.gz");
  std::ofstream(cut, std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  const RankTrace c = ReadKinetoTrace(cut);
  EXPECT_EQ(c.warnings.truncated, 1);
  EXPECT_GT(c.events.size(), 100u);
  EXPECT_LT(c.events.size(), 2000u);
  std::remove(plain.c_str());
  std::remove(gz.c_str());
  std::remove(cut.c_str());
}

}  // namespace
}  // namespace paratune

namespace paratune {
namespace {

// Every chunk size must give the same events: the buffer may end anywhere, including between
// an event's closing brace and its comma (a bug the fuzz target found).
TEST(KinetoReader, EveryChunkBoundaryGivesTheSameEvents) {
  std::string events;
  for (int i = 0; i < 120; ++i) {
    if (i) events += (i % 3 == 0) ? "," : " ,\n  ";
    events += R"({"ph": "X", "cat": "kernel", "name": "k)" + std::to_string(i % 5) + R"(", "ts": )" +
              std::to_string(100 + i) + R"(, "dur": 1, "args": {"stream": 7, "correlation": )" + std::to_string(i) +
              "}}";
  }
  const std::string json = R"({"traceEvents": [)" + events + "]}";
  const std::string path = testing::TempDir() + "/paratune_kineto_chunks.json";
  std::ofstream(path, std::ios::binary) << json;
  for (size_t chunk = 4096; chunk < 4096 + 160; ++chunk) {
    KinetoReadOptions o;
    o.chunk_bytes = chunk;
    const RankTrace t = ReadKinetoTrace(path, o);
    ASSERT_EQ(t.events.size(), 120u) << "chunk " << chunk;
    ASSERT_EQ(t.warnings.Total(), 0) << "chunk " << chunk;
    ASSERT_EQ(t.events[119].correlation, 119) << "chunk " << chunk;
  }
  std::remove(path.c_str());
}

}  // namespace
}  // namespace paratune

namespace paratune {
namespace {

// Extreme values in every numeric field of an event: a number beyond 64 bits (or 1e400), a
// negative one where none is allowed, a non-number. None wraps: the event is skipped and
// counted, and the first is described in one line naming the file, the line and the field.
// The bad event is on line 3, after a good one.
TEST(KinetoReader, ExtremeNumbersInEventsAreLocatedAndNeverWrap) {
  struct Case {
    const char* field;  // as the message names it
    const char* json;   // the event's fields after name and cat
    const char* value;  // as the message quotes it
  };
  const Case cases[] = {
      {"ts", R"("ts": 99999999999999999999999, "dur": 1)", "99999999999999999999999"},
      {"ts", R"("ts": 1e400, "dur": 1)", "1e400"},
      {"ts", R"("ts": "soon", "dur": 1)", "\"soon\""},
      {"ts", R"("ts": 9223372036854775.807, "dur": 1)", "9223372036854775.807"},  // 2^63 ns
      {"dur", R"("ts": 1, "dur": 18446744073709551616)", "18446744073709551616"},
      {"dur", R"("ts": 1, "dur": -1e400)", "-1e400"},
      {"dur", R"("ts": 1, "dur": true)", "true"},
      {"args.stream", R"("ts": 1, "dur": 1, "args": {"stream": 9223372036854775808})", "9223372036854775808"},
      {"args.stream", R"("ts": 1, "dur": 1, "args": {"stream": -7})", "-7"},
      {"args.stream", R"("ts": 1, "dur": 1, "args": {"stream": "seven"})", "\"seven\""},
      {"args.stream", R"("ts": 1, "dur": 1, "args": {"stream": 1e400})", "1e400"},
      {"args.correlation", R"("ts": 1, "dur": 1, "args": {"correlation": -2})", "-2"},
      {"args.correlation", R"("ts": 1, "dur": 1, "args": {"correlation": 1.5})", "1.5"},
      {"args.correlation", R"("ts": 1, "dur": 1, "args": {"correlation": 99999999999999999999})",
       "99999999999999999999"},
      {"args.device", R"("ts": 1, "dur": 1, "args": {"device": -1})", "-1"},
      {"args.device", R"("ts": 1, "dur": 1, "args": {"device": 1e400})", "1e400"},
      {"args.In msg nelems", R"("ts": 1, "dur": 1, "args": {"In msg nelems": 99999999999999999999})",
       "99999999999999999999"},
      {"args.In msg nelems", R"("ts": 1, "dur": 1, "args": {"In msg nelems": -5})", "-5"},
      {"args.Out msg nelems", R"("ts": 1, "dur": 1, "args": {"Out msg nelems": "many"})", "\"many\""},
      {"args.Group size", R"("ts": 1, "dur": 1, "args": {"Group size": 0})", "0"},
      {"args.Group size", R"("ts": 1, "dur": 1, "args": {"Group size": 4294967296})", "4294967296"},
      {"args.Group size", R"("ts": 1, "dur": 1, "args": {"Group size": 1e400})", "1e400"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.json);
    const std::string json = std::string("{\"traceEvents\": [\n") +
                             R"({"ph": "X", "cat": "kernel", "name": "good", "ts": 5, "dur": 6},)" + "\n" +
                             R"({"ph": "X", "cat": "kernel", "name": "bad", )" + c.json + "}\n]}";
    const RankTrace t = ParseKinetoTrace(json, "x.json");
    ASSERT_EQ(t.events.size(), 1u);
    EXPECT_EQ(t.Name(t.events[0]), "good");
    EXPECT_EQ(t.warnings.bad_number, 1);
    EXPECT_EQ(t.warnings.Total(), 1);
    const std::string& m = t.warnings.first_bad_value;
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    EXPECT_CONTAINS(m, "x.json:3: event 'bad': field '" + std::string(c.field) + "': " + c.value);
  }
  // Values at the edges stay exact: 2^63 - 1 as a stream, a negative ts relative to the time base.
  const RankTrace ok = ParseKinetoTrace(
      R"({"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": -3.5, "dur": 0, "args": {"stream": 9223372036854775807, "correlation": -1, "Group size": 16777215, "In msg nelems": 9223372036854775807}}]})",
      "edge.json");
  ASSERT_EQ(ok.events.size(), 1u);
  EXPECT_EQ(ok.warnings.Total(), 0);
  EXPECT_EQ(ok.events[0].ts_ns, -3500);
  EXPECT_EQ(ok.events[0].stream, 9223372036854775807);
  EXPECT_EQ(ok.events[0].correlation, -1);
  EXPECT_EQ(ok.collectives.at(0).group_size, 16777215);
  EXPECT_EQ(ok.collectives.at(0).in_nelems, 9223372036854775807);
}

// A negative duration and a ts + dur beyond the supported range are located the same way.
TEST(KinetoReader, NegativeDurationAndOutOfRangeTimesAreLocated) {
  const RankTrace n = ParseKinetoTrace(
      "{\"traceEvents\": [\n\n{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"neg\", \"ts\": 1, \"dur\": -5}]}",
      "n.json");
  EXPECT_EQ(n.warnings.negative_duration, 1);
  EXPECT_CONTAINS(n.warnings.first_bad_value, "n.json:3: event 'neg': field 'dur' is negative: -5 us");
  const RankTrace r = ParseKinetoTrace(
      R"({"traceEvents": [{"ph": "X", "cat": "kernel", "name": "late", "ts": 3999999999999999, "dur": 2}]})", "r.json");
  EXPECT_EQ(r.warnings.bad_number, 1);
  EXPECT_CONTAINS(r.warnings.first_bad_value, "r.json:1: event 'late': fields 'ts' + 'dur' beyond the +-4e18 ns");
}

// The top-level numbers: baseTimeNanoseconds, distributedInfo's rank and world size,
// deviceProperties' ids. A bad one is counted and described; the value is not used.
TEST(KinetoReader, ExtremeTopLevelNumbersAreLocatedAndNotUsed) {
  struct Case {
    const char* top;
    const char* message;
  };
  const Case cases[] = {
      {R"("baseTimeNanoseconds": 1e400)", "field 'baseTimeNanoseconds': 1e400 is not an integer"},
      {R"("baseTimeNanoseconds": 99999999999999999999)",
       "field 'baseTimeNanoseconds': 99999999999999999999 does not fit 64 bits"},
      {R"("baseTimeNanoseconds": 9000000000000000000)", "field 'baseTimeNanoseconds': 9000000000000000000 is beyond"},
      {R"("distributedInfo": {"rank": -1})", "field 'distributedInfo.rank': -1 is outside 0..16777215"},
      {R"("distributedInfo": {"rank": 1e400})", "field 'distributedInfo.rank': 1e400 does not fit 64 bits"},
      {R"("distributedInfo": {"rank": "zero"})", "field 'distributedInfo.rank': \"zero\" is not an integer"},
      {R"("distributedInfo": {"rank": 4294967296})", "field 'distributedInfo.rank': 4294967296 is outside 0..16777215"},
      {R"("distributedInfo": {"world_size": 0})", "field 'distributedInfo.world_size': 0 is outside 1..16777215"},
      {R"("deviceProperties": [{"id": -3, "name": "H100"}])", "field 'deviceProperties.id': -3 is outside 0..16777215"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.top);
    const std::string json =
        std::string("{\"schemaVersion\": 1,\n") + c.top +
        ",\n\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 1, \"dur\": 1}]}";
    const RankTrace t = ParseKinetoTrace(json, "top.json");
    ASSERT_EQ(t.events.size(), 1u);
    EXPECT_EQ(t.warnings.bad_number, 1);
    EXPECT_EQ(t.rank, -1);
    EXPECT_EQ(t.base_time_ns, 0);
    EXPECT_EQ(t.world_size, 0);
    EXPECT_EQ(t.device_name, "");
    EXPECT_CONTAINS(t.warnings.first_bad_value, std::string("top.json:2: ") + c.message);
  }
}

// Line numbers count the newlines of the whole file, whichever chunk the bad event lands in.
TEST(KinetoReader, LineNumbersSurviveChunkBoundaries) {
  std::string json = "{\"traceEvents\": [\n";
  for (int i = 0; i < 400; ++i)
    json += R"(  {"ph": "X", "cat": "kernel", "name": "k", "ts": )" + std::to_string(i) + R"(, "dur": 1},)" + "\n";
  json += R"(  {"ph": "X", "cat": "kernel", "name": "bad", "ts": 1, "dur": 1, "args": {"stream": -9}})"
          "\n]}";
  const std::string path = testing::TempDir() + "/paratune_kineto_lines.json";
  std::ofstream(path, std::ios::binary) << json;
  for (size_t chunk : {4096, 4099, 5000, 1 << 20}) {
    KinetoReadOptions o;
    o.chunk_bytes = chunk;
    const RankTrace t = ReadKinetoTrace(path, o);
    ASSERT_EQ(t.events.size(), 400u) << chunk;
    EXPECT_CONTAINS(t.warnings.first_bad_value, path + ":402: event 'bad': field 'args.stream': -9");
  }
  std::remove(path.c_str());
}

}  // namespace
}  // namespace paratune

namespace paratune {
namespace {

// Found by kineto_trace_fuzz in CI: an event whose first "cat" is not a string and whose second
// is was counted as a bad number without its description. Now it is described like any other.
TEST(KinetoReader, ABadCategoryBeforeAGoodOneIsDescribed) {
  const RankTrace t = ParseKinetoTrace(
      R"({"traceEvents": [{"ph": "X", "cat": 5, "cat": "kernel", "name": "k", "ts": 1, "dur": 1}]})", "cat.json");
  EXPECT_EQ(t.events.size(), 0u);
  EXPECT_EQ(t.warnings.bad_number, 1);
  EXPECT_EQ(t.warnings.first_bad_value, "cat.json:1: event 'k': field 'cat': 5 is not a string (byte 17)");
}

}  // namespace
}  // namespace paratune

namespace paratune {
namespace {

// The thread of each CPU-side event is kept as a key (the call stacks of kernel_sequences.h):
// equal "tid" values give equal keys, different ones different keys, whether integers or the
// 2021 layout's strings; an event without "tid" is thread 0.
TEST(KinetoReader, KeepsEachCpuEventsThreadAsAKey) {
  const std::string json = R"J({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 4045, "ts": 1, "dur": 1},
    {"ph": "X", "cat": "cpu_op", "name": "b", "pid": 1, "tid": 4046, "ts": 2, "dur": 1},
    {"ph": "X", "cat": "cpu_op", "name": "c", "pid": 1, "tid": 4045, "ts": 3, "dur": 1},
    {"ph": "X", "cat": "Operator", "name": "d", "pid": 1, "tid": "thread 9 (python)", "ts": 4, "dur": 1},
    {"ph": "X", "cat": "Operator", "name": "e", "pid": 1, "tid": "thread 9 (python)", "ts": 5, "dur": 1},
    {"ph": "X", "cat": "cpu_op", "name": "f", "pid": 1, "ts": 6, "dur": 1}]})J";
  const RankTrace t = ParseKinetoTrace(json, "tids.json");
  ASSERT_EQ(t.events.size(), 6u);
  EXPECT_EQ(t.events[0].tid, t.events[2].tid);
  EXPECT_NE(t.events[0].tid, t.events[1].tid);
  EXPECT_EQ(t.events[3].tid, t.events[4].tid);
  EXPECT_NE(t.events[3].tid, t.events[0].tid);
  EXPECT_EQ(t.events[5].tid, 0);
}

}  // namespace
}  // namespace paratune
