// The Kineto writer: a step model's events as Kineto's Chrome-trace JSON (the layout of
// libkineto/src/output_json.cpp), through an 8 MB buffer to a file, gzip-compressed on request.
#pragma once

#include <zlib.h>

#include "common.h"
#include "step_model.h"

namespace gen_trace {
// ---------------------------------------------------------------------------------------------
// Output.

class Sink {
 public:
  Sink() = default;
  Sink(const Sink&) = delete;
  Sink& operator=(const Sink&) = delete;
  ~Sink() { Close(); }

  void Open(const std::string& path, bool gzip) {
    path_ = path;
    if (gzip) {
      gz_ = gzopen(path.c_str(), "wb1");
      if (!gz_) Fail(fmt::format("cannot open {}: {}", path, std::strerror(errno)));
      gzbuffer(gz_, 1 << 20);
    } else {
      f_ = std::fopen(path.c_str(), "wb");
      if (!f_) Fail(fmt::format("cannot open {}: {}", path, std::strerror(errno)));
    }
    buf.reserve(kFlushAt + (1 << 20));
  }
  void MaybeFlush() {
    if (buf.size() >= kFlushAt) Flush();
  }
  void Flush() {
    if (buf.size() == 0) return;
    bool ok = true;
    if (gz_) {
      ok = gzwrite(gz_, buf.data(), static_cast<unsigned>(buf.size())) == static_cast<int>(buf.size());
    } else if (f_) {
      ok = std::fwrite(buf.data(), 1, buf.size(), f_) == buf.size();
    }
    if (!ok) Fail(fmt::format("cannot write {}: {}", path_, std::strerror(errno)));
    written += static_cast<int64_t>(buf.size());
    buf.clear();
  }
  void Close() {
    if (gz_) {
      const int rc = gzclose(gz_);
      gz_ = nullptr;
      if (rc != Z_OK) Fail(fmt::format("cannot write {}", path_));
    }
    if (f_) {
      const int rc = std::fclose(f_);
      f_ = nullptr;
      if (rc != 0) Fail(fmt::format("cannot write {}: {}", path_, std::strerror(errno)));
    }
  }

  Buf buf;
  int64_t written = 0;  // uncompressed bytes flushed

 private:
  static constexpr size_t kFlushAt = 8 << 20;
  std::string path_;
  gzFile gz_ = nullptr;
  std::FILE* f_ = nullptr;
};

struct Writer {
  const Tables& t;
  const Config& c;
  int pid;
  int tids[2];
  int64_t events = 0;

  static void Put(Buf& b, std::string_view s) { b.append(s.data(), s.data() + s.size()); }

  void CpuEvent(Buf& b, int th, const CpuEv& e) {
    ++events;
    auto out = fmt::appender(b);
    switch (e.kind) {
      case CpuKind::kX: {
        const OpT& o = t.ops[e.op];
        if (e.op == kOpProfilerStep) {
          fmt::format_to(out,
                         FMT_COMPILE("  {{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#{}\", "
                                     "\"pid\": {}, \"tid\": "),
                         e.a, pid);
        } else {
          Put(b, o.prefix);
        }
        fmt::format_to(out, FMT_COMPILE("{}, \"ts\": {}.{:03}, \"dur\": {}.{:03}, \"args\": {{"), tids[th], e.ts / 1000,
                       e.ts % 1000, e.dur / 1000, e.dur % 1000);
        if (o.cat == Cat::kPython) {
          fmt::format_to(out, FMT_COMPILE("\"Python parent id\": {}, \"Python id\": {}, "), e.b, e.a);
          if (e.op >= kOpPyBlock0)
            fmt::format_to(out, FMT_COMPILE("\"Python module id\": {}, "), e.op - kOpPyBlock0 + 1);
          fmt::format_to(out, FMT_COMPILE("\"Python thread\": 0, \"Ev Idx\": {}}}}},\n"), e.evidx);
          return;
        }
        fmt::format_to(out, FMT_COMPILE("\"External id\": {}, \"Record function id\": {}, "), e.ext, e.ext);
        if (e.seq >= 0) fmt::format_to(out, FMT_COMPILE("\"Sequence number\": {}, \"Fwd thread id\": 1, "), e.seq);
        fmt::format_to(out, FMT_COMPILE("\"Ev Idx\": {}"), e.evidx);
        Put(b, o.dims);
        Put(b, "}},\n");
        return;
      }
      case CpuKind::kMemory:
        fmt::format_to(
            out,
            FMT_COMPILE(
                "  {{\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": \"[memory]\", "
                "\"pid\": {}, \"tid\": {}, \"ts\": {}.{:03}, \"args\": {{\"Total Reserved\": {}, "
                "\"Total Allocated\": {}, \"Bytes\": {}, \"Addr\": {}, \"Device Id\": 0, \"Device Type\": 1}}}},\n"),
            pid, tids[th], e.ts / 1000, e.ts % 1000, 68719476736LL, e.b, e.a,
            139800000000000LL + (e.b & 0xffffffffLL) * 512);
        return;
      case CpuKind::kFlowS:
      case CpuKind::kFlowF:
        fmt::format_to(
            out,
            FMT_COMPILE("  {{\"ph\": \"{}\", \"id\": {}, \"pid\": {}, \"tid\": {}, \"ts\": {}.{:03}, \"cat\": "
                        "\"fwdbwd\", \"name\": \"fwdbwd\"{}}},\n"),
            e.kind == CpuKind::kFlowS ? "s" : "f", e.a, pid, tids[th], e.ts / 1000, e.ts % 1000,
            e.kind == CpuKind::kFlowF ? ", \"bp\": \"e\"" : "");
        return;
    }
  }

  void GpuEvent(Buf& b, const GpuEv& g) {
    auto out = fmt::appender(b);
    if (g.kind != GpuKind::kNone) {
      events += 4;
      if (g.kind == GpuKind::kKernel) {
        const KSpec& k = t.kern[g.kern];
        Put(b, k.prefix);
        fmt::format_to(out,
                       FMT_COMPILE("{}.{:03}, \"dur\": {}.{:03}, \"args\": {{\"External id\": {}, \"queued\": 0, "
                                   "\"device\": 0, \"context\": 1, \"stream\": {}, \"correlation\": {}"),
                       g.ts / 1000, g.ts % 1000, g.dur / 1000, g.dur % 1000, g.ext, g.stream, g.corr);
        Put(b, k.tail);
        Put(b, "}},\n");
      } else {
        static constexpr const char* kNames[] = {"", "Memcpy HtoD (Pinned -> Device)", "Memcpy DtoD (Device -> Device)",
                                                 "Memcpy DtoH (Device -> Pageable)", "Memset (Device)"};
        const bool memset = g.kind == GpuKind::kMemset;
        fmt::format_to(
            out,
            FMT_COMPILE("  {{\"ph\": \"X\", \"cat\": \"{}\", \"name\": \"{}\", \"pid\": 0, \"tid\": {}, "
                        "\"ts\": {}.{:03}, \"dur\": {}.{:03}, \"args\": {{\"External id\": {}, \"device\": 0, "
                        "\"context\": 1, \"stream\": {}, \"correlation\": {}, \"bytes\": {}, "
                        "\"memory bandwidth (GB/s)\": {}}}}},\n"),
            memset ? "gpu_memset" : "gpu_memcpy", kNames[static_cast<int>(g.kind)], g.stream, g.ts / 1000, g.ts % 1000,
            g.dur / 1000, g.dur % 1000, g.ext, g.stream, g.corr, g.bytes,
            static_cast<double>(g.bytes) / static_cast<double>(g.dur));
      }
      fmt::format_to(
          out,
          FMT_COMPILE("  {{\"ph\": \"f\", \"id\": {}, \"pid\": 0, \"tid\": {}, \"ts\": {}.{:03}, \"cat\": \"ac2g\", "
                      "\"name\": \"ac2g\", \"bp\": \"e\"}},\n"),
          g.corr, g.stream, g.ts / 1000, g.ts % 1000);
    } else {
      events += 1;
    }
    const RtInfo& r = kRt[static_cast<int>(g.rt)];
    fmt::format_to(
        out,
        FMT_COMPILE("  {{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"{}\", \"pid\": {}, \"tid\": {}, "
                    "\"ts\": {}.{:03}, \"dur\": {}.{:03}, \"args\": {{\"External id\": {}, \"cbid\": {}, "
                    "\"correlation\": {}}}}},\n"),
        r.name, pid, tids[g.th], g.rt_ts / 1000, g.rt_ts % 1000, g.rt_dur / 1000, g.rt_dur % 1000, g.ext, r.cbid,
        g.corr);
    if (g.kind != GpuKind::kNone)
      fmt::format_to(out,
                     FMT_COMPILE("  {{\"ph\": \"s\", \"id\": {}, \"pid\": {}, \"tid\": {}, \"ts\": {}.{:03}, \"cat\": "
                                 "\"ac2g\", \"name\": \"ac2g\"}},\n"),
                     g.corr, pid, tids[g.th], g.rt_ts / 1000, g.rt_ts % 1000);
  }

  void GpuAnnEvent(Buf& b, const GpuAnn& a) {
    ++events;
    fmt::format_to(
        fmt::appender(b),
        FMT_COMPILE("  {{\"ph\": \"X\", \"cat\": \"gpu_user_annotation\", \"name\": \"{}\", \"pid\": 0, "
                    "\"tid\": {}, \"ts\": {}.{:03}, \"dur\": {}.{:03}, \"args\": {{\"External id\": {}}}}},\n"),
        t.ops[a.op].name, kComputeStream, a.ts / 1000, a.ts % 1000, a.dur / 1000, a.dur % 1000, a.ext);
  }

  // pass 0: main thread, 1: autograd thread, 2: GPU and runtime, 3: GPU annotations
  void Pass(Buf& b, int pass, const Model& m) {
    if (pass <= 1) {
      for (const CpuEv& e : m.cpu[pass]) CpuEvent(b, pass, e);
    } else if (pass == 2) {
      for (const GpuEv& g : m.gpu) GpuEvent(b, g);
    } else {
      for (const GpuAnn& a : m.gann) GpuAnnEvent(b, a);
    }
  }

  void Header(Buf& b) {
    auto out = fmt::appender(b);
    fmt::format_to(out,
                   "{{\n"
                   "  \"schemaVersion\": 1,\n"
                   "  \"deviceProperties\": [\n"
                   "    {{\n"
                   "      \"id\": 0, \"name\": \"NVIDIA H100 80GB HBM3\", \"totalGlobalMem\": 84929216512,\n"
                   "      \"computeMajor\": 9, \"computeMinor\": 0,\n"
                   "      \"maxThreadsPerBlock\": 1024, \"maxThreadsPerMultiprocessor\": 2048,\n"
                   "      \"regsPerBlock\": 65536, \"warpSize\": 32,\n"
                   "      \"sharedMemPerBlock\": 49152, \"numSms\": {}\n"
                   "    , \"regsPerMultiprocessor\": 65536, \"sharedMemPerBlockOptin\": 232448, "
                   "\"sharedMemPerMultiprocessor\": 233472\n"
                   "    }}\n"
                   "  ],\n"
                   "  \"distributedInfo\": {{\"backend\": \"nccl\", \"rank\": {}, \"world_size\": {}, \"pg_count\": 1, "
                   "\"pg_config\": [{{\"pg_name\": \"0\", \"pg_desc\": \"default_pg\", \"backend_config\": "
                   "\"cuda:nccl\", \"pg_size\": {}, \"ranks\": [",
                   kNumSms, c.rank, c.world, c.world);
    for (int r = 0; r < c.world; ++r) fmt::format_to(out, FMT_COMPILE("{}{}"), r ? ", " : "", r);
    Put(b, "]}], \"nccl_version\": \"2.21.5\"},\n  \"traceEvents\": [\n");
  }

  void Footer(Buf& b, int64_t end_ns) {
    auto out = fmt::appender(b);
    const int64_t t0 = kTraceStartNs;
    auto meta = [&](const char* name, std::string_view pid_s, int64_t tid, const char* key, std::string_view val) {
      ++events;
      fmt::format_to(out,
                     "  {{\"name\": \"{}\", \"ph\": \"M\", \"ts\": {}.{:03}, \"pid\": {}, \"tid\": {}, \"args\": "
                     "{{\"{}\": {}}}}},\n",
                     name, t0 / 1000, t0 % 1000, pid_s, tid, key, val);
    };
    const std::string p = std::to_string(pid);
    meta("process_name", p, 0, "name", "\"python3\"");
    meta("process_labels", p, 0, "labels", "\"CPU\"");
    meta("process_sort_index", p, 0, "sort_index", p);
    meta("process_name", "0", 0, "name", "\"python3\"");
    meta("process_labels", "0", 0, "labels", "\"GPU 0\"");
    meta("process_sort_index", "0", 0, "sort_index", "16777216");
    for (int s : {kComputeStream, kNcclStream}) {
      meta("thread_name", "0", s, "name", fmt::format("\"stream {} \"", s));
      meta("thread_sort_index", "0", s, "sort_index", std::to_string(s + 0x20000000));
    }
    meta("thread_name", p, tids[kMain], "name", fmt::format("\"thread {} (pt_main_thread)\"", tids[kMain]));
    meta("thread_sort_index", p, tids[kMain], "sort_index", std::to_string(tids[kMain]));
    meta("thread_name", p, tids[kAutograd], "name", fmt::format("\"thread {} (pt_autograd_0)\"", tids[kAutograd]));
    meta("thread_sort_index", p, tids[kAutograd], "sort_index", std::to_string(tids[kAutograd]));
    const int64_t dur = end_ns - t0;
    fmt::format_to(
        out,
        "  {{\"ph\": \"X\", \"cat\": \"Trace\", \"ts\": {}.{:03}, \"dur\": {}.{:03}, \"pid\": \"Spans\", "
        "\"tid\": \"PyTorch Profiler\", \"name\": \"PyTorch Profiler (0)\", \"args\": {{\"Op count\": 0}}}},\n",
        t0 / 1000, t0 % 1000, dur / 1000, dur % 1000);
    meta("process_sort_index", "\"Spans\"", 0, "sort_index", "536870912");
    fmt::format_to(
        out,
        "  {{\"name\": \"Iteration Start: PyTorch Profiler\", \"ph\": \"i\", \"s\": \"g\", \"pid\": \"Traces\", "
        "\"tid\": \"Trace PyTorch Profiler\", \"ts\": {}.{:03}}},\n",
        t0 / 1000, t0 % 1000);
    const int64_t wend = end_ns + 1000000;
    fmt::format_to(out,
                   "  {{\"name\": \"Record Window End\", \"ph\": \"i\", \"s\": \"g\", \"pid\": \"\", \"tid\": \"\", "
                   "\"ts\": {}.{:03}}}\n",
                   wend / 1000, wend % 1000);
    events += 3;
    fmt::format_to(out,
                   "  ],\n"
                   "  \"traceName\": \"{}\",\n"
                   "  \"displayTimeUnit\": \"ms\",\n"
                   "  \"baseTimeNanoseconds\": {}\n"
                   "}}\n",
                   Esc(c.out), kBaseTimeNs);
  }
};

}  // namespace gen_trace
