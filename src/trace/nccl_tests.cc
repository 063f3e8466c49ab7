// NcclTestsReader of nccl-tests output (github.com/NVIDIA/nccl-tests). The layout it reads is the one
// printed by src/common.cu (up to 2.18) and src/util.cu (2.19, writeDeviceReport,
// writeResultHeader, writeBenchmarkLinePreamble/Body, writeResultFooter):
//
//   # nThread 1 nGpus 8 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20 ...
//   #  Rank  0 Group  0 Pid  12345 on  node-01 device  0 [0x07] NVIDIA H100 80GB HBM3
//   #       size         count      type   redop    root     time   algbw   busbw #wrong     time ...
//   #        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us) ...
//     1073741824     268435456     float     sum      -1   4521.3  237.49  415.60      0   4519.0 ...
//   # Out of bounds values : 0 OK
//   # Avg bus bandwidth    : 123.45
//
// The columns are taken from the header line by name, so every variant reads the same way:
// before 2.13 all_gather printed no redop/root, broadcast a root but no redop, and an "error"
// column (the largest relative error, "%5.0le") instead of "#wrong"; the rank lines lacked
// "Group"; 2.19 adds per-iteration columns (i_min ... i_cv%), a "cputime" header with -C and a
// trailing timestamp with -Z. Also accepted: the excerpt format of Stas Bekman's "Machine
// Learning Engineering" book (size/time/algbw/busbw only, no '#', sizes written 1_048_576), with
// the `$ ./build/all_reduce_perf ...` command line naming the program and `[...]` elisions.
#include "trace/nccl_tests.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>
#include <cstring>
#include <set>

#include "util/error.h"
#include "util/file.h"
#include "util/text.h"

namespace paratune {
namespace {

// More ranks than any training job runs (the largest published: about 100,000 GPUs).
constexpr int64_t kMaxRanks = int64_t{1} << 20;

// The program names of nccl-tests' binaries (src/Makefile), longest first so that
// "all_reduce_perf" is not read as "reduce_perf".
struct ProgramName {
  const char* prefix;
  Collective collective;
};
constexpr ProgramName kPrograms[] = {
    {"reduce_scatter_perf", Collective::kReduceScatter},
    {"all_reduce_perf", Collective::kAllReduce},
    {"all_gather_perf", Collective::kAllGather},
    {"alltoallv_perf", Collective::kOther},
    {"broadcast_perf", Collective::kBroadcast},
    {"hypercube_perf", Collective::kOther},
    {"alltoall_perf", Collective::kAllToAll},
    {"sendrecv_perf", Collective::kSendRecv},
    {"scatter_perf", Collective::kOther},
    {"gather_perf", Collective::kOther},
    {"reduce_perf", Collective::kReduce},
};

constexpr double kMicro = 1e-6;  // the "(us)" time columns
constexpr double kGiga = 1e9;    // "(GB/s)": nccl-tests divides bytes by 1.0E9 (src/*.cu GetBw)

void NcclTokens(std::string_view line, std::vector<std::string_view>& t) {
  t.clear();
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    size_t j = i;
    while (j < line.size() && line[j] != ' ' && line[j] != '\t') ++j;
    if (j > i) t.push_back(line.substr(i, j - i));
    i = j;
  }
}

std::vector<std::string_view> NcclTokens(std::string_view line) {
  std::vector<std::string_view> t;
  NcclTokens(line, t);
  return t;
}

bool IsDigits(std::string_view s, bool allow_underscore) {
  if (s.empty() || s.front() == '_' || s.back() == '_') return false;
  for (char c : s)
    if (!(std::isdigit(static_cast<unsigned char>(c)) || (allow_underscore && c == '_'))) return false;
  return true;
}

class NcclTestsReader {
 public:
  NcclTestsReader(std::string_view text, const std::string& where) : text_(text), where_(where) { run_.path = where; }

  NcclTestsRun Read() {
    if (TrimBlanks(text_).empty()) throw InputError(where_ + ": empty file (expected nccl-tests output)");
    size_t pos = 0;
    int line_no = 0;
    while (pos < text_.size()) {
      size_t end = text_.find('\n', pos);
      if (end == std::string_view::npos) end = text_.size();
      std::string_view line = text_.substr(pos, end - pos);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      ++line_no;
      Line(line, line_no);
      pos = end + 1;
    }
    Finish();
    return std::move(run_);
  }

 private:
  [[noreturn]] void Fail(int line, const std::string& what) const {
    throw InputError(where_ + ":" + std::to_string(line) + ": " + what);
  }

  void Line(std::string_view raw, int n) {
    std::string_view line = TrimBlanks(raw);
    if (line.empty()) return;
    const bool hashed = line.front() == '#';
    std::string_view body = hashed ? TrimBlanks(line.substr(1)) : line;
    NcclTokens(body, tokens_);
    const auto& tok = tokens_;
    if (tok.empty()) return;
    if (tok[0] == "size" && std::find(tok.begin(), tok.end(), "busbw") != tok.end()) return Header(tok, n);
    if (tok[0] == "(B)") return Units(tok, n);
    if (hashed) return Comment(body, tok, n);
    if (!columns_.empty() && IsDigits(tok[0], true)) return Row(tok, n);
    // Command lines ("$ ./build/all_reduce_perf -b 8 -e 8G -f 2 -g 8", "mpirun ... ./all_reduce_perf
    // ..."), NCCL INFO lines and elisions: only a program name and its -g/-t flags are taken.
    if (run_.program.empty()) CommandLine(tok);
  }

  void CommandLine(const std::vector<std::string_view>& tok) {
    for (size_t i = 0; i < tok.size(); ++i) {
      std::string_view base = tok[i];
      if (auto slash = base.rfind('/'); slash != std::string_view::npos) base.remove_prefix(slash + 1);
      if (!SetProgram(base)) continue;
      for (size_t j = i + 1; j + 1 < tok.size(); ++j) {
        if (tok[j] == "-g" || tok[j] == "--ngpus") ParseFlagInt(tok[j + 1], &flag_gpus_);
        if (tok[j] == "-t" || tok[j] == "--nthreads") ParseFlagInt(tok[j + 1], &flag_threads_);
      }
      return;
    }
  }

  static void ParseFlagInt(std::string_view s, int* out) {
    int64_t v = 0;
    if (ParseInteger(s, &v) == NumberParse::kOk && v > 0 && v <= 1 << 20) *out = static_cast<int>(v);
  }

  bool SetProgram(std::string_view base) {
    for (const auto& p : kPrograms) {
      const size_t len = std::strlen(p.prefix);
      if (base.substr(0, len) == p.prefix) {
        run_.program = std::string(base.substr(0, len));
        program_collective_ = p.collective;
        return true;
      }
    }
    return false;
  }

  void Comment(std::string_view body, const std::vector<std::string_view>& tok, int n) {
    if (tok[0] == "nThread") return Threads(tok, n);
    if (tok[0] == "Rank") return RankLine(body, tok, n);
    if (body.starts_with("Collective test starting")) {
      if (auto colon = body.find(':'); colon != std::string_view::npos && run_.program.empty()) {
        auto name = TrimBlanks(body.substr(colon + 1));
        if (auto slash = name.rfind('/'); slash != std::string_view::npos) name.remove_prefix(slash + 1);
        SetProgram(name);
      }
      return;
    }
    if (tok.size() >= 3 && tok[0] == "Avg" && tok[1] == "bus" && tok[2] == "bandwidth") {
      auto colon = body.find(':');
      if (colon == std::string_view::npos) Fail(n, "'Avg bus bandwidth' line has no ':' before the value");
      auto vt = NcclTokens(body.substr(colon + 1));
      if (vt.empty()) Fail(n, "field 'Avg bus bandwidth': no value");
      run_.printed_avg_busbw_bytes_per_s = Number(vt[0], "Avg bus bandwidth", n) * kGiga;
      run_.avg_busbw_line = n;
    }
  }

  // "# nThread 1 nGpus 8 minBytes ..."
  void Threads(const std::vector<std::string_view>& tok, int n) {
    for (size_t i = 0; i + 1 < tok.size(); ++i) {
      if (tok[i] != "nThread" && tok[i] != "nGpus") continue;
      int64_t v = 0;
      if (ParseInteger(tok[i + 1], &v) != NumberParse::kOk || v < 1 || v > 1 << 20)
        Fail(n, "field '" + std::string(tok[i]) + "': " + Quote(tok[i + 1]) + " is not a positive integer");
      (tok[i] == "nThread" ? header_threads_ : header_gpus_) = static_cast<int>(v);
    }
  }

  // "Rank  0 Group  0 Pid  12345 on  node-01 device  0 [0x07] NVIDIA H100 80GB HBM3"; before
  // nccl-tests 2.13 without "Group"; 2.19 prints the bus id as [0000:07:00].
  void RankLine(std::string_view body, const std::vector<std::string_view>& tok, int n) {
    auto int_after = [&](std::string_view key, bool required) -> long long {
      for (size_t i = 0; i < tok.size(); ++i)
        if (tok[i] == key) {
          if (i + 1 >= tok.size()) Fail(n, "Rank line: field '" + std::string(key) + "' has no value");
          int64_t v = 0;
          const auto& s = tok[i + 1];
          if (ParseInteger(s, &v) != NumberParse::kOk || v < 0)
            Fail(n, "Rank line: field '" + std::string(key) + "': " + Quote(s) + " is not a non-negative integer");
          return v;
        }
      if (required)
        Fail(n, "Rank line: no field '" + std::string(key) + "' (expected 'Rank N ... on HOST device N [BUS] NAME')");
      return -1;
    };
    const long long rank = int_after("Rank", true);
    int_after("device", true);
    std::string host;
    for (size_t i = 0; i + 1 < tok.size(); ++i)
      if (tok[i] == "on") host = std::string(tok[i + 1]);
    if (host.empty()) Fail(n, "Rank line: no field 'on HOST'");
    const auto close = body.find(']');
    if (close == std::string_view::npos) Fail(n, "Rank line: no '[BUS]' before the device name");
    const std::string device(TrimBlanks(body.substr(close + 1)));
    if (device.empty()) Fail(n, "Rank line: no device name after the bus id");
    if (rank > 1 << 24) Fail(n, "Rank line: field 'Rank': " + std::to_string(rank) + " is out of range");
    if (!ranks_seen_.insert(rank).second) Fail(n, "Rank line: rank " + std::to_string(rank) + " is listed twice");
    run_.devices.push_back(device);
    run_.hosts.push_back(host);
  }

  void Header(const std::vector<std::string_view>& tok, int n) {
    if (!columns_.empty())
      Fail(n, "a second result table (the first header is at line " + std::to_string(run_.header_line) +
                  "); give one nccl-tests run per file");
    run_.header_line = n;
    int times = 0, algbws = 0, busbws = 0, checks = 0;
    for (const auto& t : tok) {
      Column c;
      c.name = std::string(t);
      if (t == "size")
        c.kind = Col::kSize;
      else if (t == "count")
        c.kind = Col::kCount;
      else if (t == "type")
        c.kind = Col::kType;
      else if (t == "redop")
        c.kind = Col::kRedop;
      else if (t == "root")
        c.kind = Col::kRoot;
      else if (t == "time" || t == "cputime")
        c.kind = Col::kTime, c.in_place = times++ > 0;
      else if (t == "algbw")
        c.kind = Col::kAlgbw, c.in_place = algbws++ > 0;
      else if (t == "busbw")
        c.kind = Col::kBusbw, c.in_place = busbws++ > 0;
      else if (t == "#wrong")
        c.kind = Col::kWrong, c.in_place = checks++ > 0;
      else if (t == "error")
        c.kind = Col::kError, c.in_place = checks++ > 0;
      else if (t == "timestamp")
        c.kind = Col::kTimestamp;
      c.field = c.in_place ? "in-place " + c.name : c.name;
      columns_.push_back(c);
    }
    if (times == 0 || algbws == 0) Fail(n, "result header has no 'time' or 'algbw' column");
    if (times > 2 || busbws > 2 || algbws > 2) Fail(n, "result header has more than two time/algbw/busbw groups");
    for (size_t i = 0; i + 1 < columns_.size(); ++i)
      if (columns_[i].kind == Col::kTimestamp) Fail(n, "result header: 'timestamp' is not the last column");
  }

  void Units(const std::vector<std::string_view>& tok, int n) {
    if (columns_.empty()) Fail(n, "units line before the result header");
    for (const auto& t : tok) {
      if (t.front() != '(') continue;
      if (t != "(B)" && t != "(elements)" && t != "(us)" && t != "(GB/s)" && t != "(%)")
        Fail(n, "unit " + Quote(t) + " is not one nccl-tests prints (expected (B), (elements), (us), (GB/s), (%))");
    }
  }

  double Number(std::string_view s, const std::string& field, int n) const {
    double v = 0;
    const NumberParse st = ParseNumber(s, &v);
    if (st == NumberParse::kOutOfRange) Fail(n, "field '" + field + "': " + Quote(s) + " is out of range");
    if (st == NumberParse::kNotFinite) Fail(n, "field '" + field + "': " + Quote(s) + " is not finite");
    if (st != NumberParse::kOk) Fail(n, "field '" + field + "': " + Quote(s) + " is not a number");
    return v;
  }

  double NonNegative(std::string_view s, const std::string& field, int n) const {
    const double v = Number(s, field, n);
    if (v < 0) Fail(n, "field '" + field + "': " + Quote(s) + " is negative");
    return v;
  }

  // The 'size' field: a byte count.
  double SizeField(std::string_view s, int n) const {
    if (!IsDigits(s, true)) Fail(n, "field 'size': " + Quote(s) + " is not a byte count");
    // Digits with optional '_' group separators (the book excerpt's 1_048_576).
    uint64_t v = 0;
    for (char ch : s) {
      if (ch == '_') continue;
      if (v > ((uint64_t{1} << 62) - 9) / 10) Fail(n, "field 'size': " + Quote(s) + " is out of range");
      v = v * 10 + static_cast<uint64_t>(ch - '0');
    }
    return static_cast<double>(v);
  }

  // The 'count' field: an element count.
  int64_t CountField(std::string_view s, int n) const {
    int64_t v = 0;
    const NumberParse st = ParseInteger(s, &v);
    if (st == NumberParse::kOutOfRange) Fail(n, "field 'count': " + Quote(s) + " is out of range");
    if (st != NumberParse::kOk || v < 0) Fail(n, "field 'count': " + Quote(s) + " is not an element count");
    return v;
  }

  // The 'root' field: a rank or -1.
  int RootField(std::string_view s, int n) const {
    int64_t v = 0;
    if (ParseInteger(s, &v) != NumberParse::kOk || v < -1 || v > INT_MAX)
      Fail(n, "field 'root': " + Quote(s) + " is not a rank or -1");
    return static_cast<int>(v);
  }

  void Row(const std::vector<std::string_view>& tok, int n) {
    const bool stamped = columns_.back().kind == Col::kTimestamp;
    const size_t need = columns_.size() - (stamped ? 1 : 0);
    if (tok.size() < need || (!stamped && tok.size() > need))
      Fail(n, "row has " + std::to_string(tok.size()) + " fields, the header at line " +
                  std::to_string(run_.header_line) + " has " + std::to_string(columns_.size()) + " columns");
    NcclTestRow r;
    r.line = n;
    for (size_t i = 0; i < need; ++i) Field(columns_[i], tok[i], n, &r);
    run_.rows.push_back(std::move(r));
  }

  // GPUs x threads, each up to 2^20, in 64 bits (their product overflowed an int: found by
  // nccl_tests_fuzz); more ranks than any job has is an error.
  int Ranks(int gpus, int threads) const {
    const int64_t ranks = static_cast<int64_t>(gpus) * std::max(threads, 1);
    if (ranks > kMaxRanks)
      throw InputError(where_ + ": nThread x nGpus = " + std::to_string(ranks) + " ranks, more than " +
                       std::to_string(kMaxRanks));
    return static_cast<int>(ranks);
  }

  void Finish() {
    if (columns_.empty())
      throw InputError(
          where_ +
          ": no nccl-tests result table (expected a header line '#  size  count  type ... time  algbw  busbw ...')");
    if (run_.rows.empty())
      throw InputError(where_ + ":" + std::to_string(run_.header_line) +
                       ": the result table has no rows (the run stopped before its first size)");
    // Ranks: the Rank lines list every rank (gathered to rank 0 under MPI); without them, one
    // process drives nThread x nGpus GPUs (the header line, or -t and -g on the command line).
    if (!run_.devices.empty()) {
      run_.ranks = static_cast<int>(run_.devices.size());
      run_.nodes = static_cast<int>(std::set<std::string>(run_.hosts.begin(), run_.hosts.end()).size());
    } else if (header_gpus_ > 0) {
      run_.ranks = Ranks(header_gpus_, header_threads_);
    } else if (flag_gpus_ > 0) {
      run_.ranks = Ranks(flag_gpus_, flag_threads_);
    }
    run_.collective = program_collective_;
    if (run_.collective == Collective::kOther && run_.program.empty()) run_.collective = FromColumns();
  }

  // Without a program name: only the rooted collectives say what they are by their columns (a
  // root >= 0; with a reduction op, reduce, else broadcast), and only all-reduce has a bus
  // bandwidth factor above 1 (2(n-1)/n, nccl-tests doc/PERFORMANCE.md), so a busbw above algbw
  // names it.
  Collective FromColumns() const {
    const NcclTestRow& r = run_.rows.back();
    if (r.root >= 0) return (r.redop.empty() || r.redop == "none") ? Collective::kBroadcast : Collective::kReduce;
    if (r.algbw_bytes_per_s > 0 && r.busbw_bytes_per_s > 1.05 * r.algbw_bytes_per_s) return Collective::kAllReduce;
    return Collective::kOther;
  }

  enum class Col { kSize, kCount, kType, kRedop, kRoot, kTime, kAlgbw, kBusbw, kWrong, kError, kTimestamp, kOther };
  struct Column {
    std::string name;
    std::string field;  // the name in error messages: "busbw", "in-place busbw"
    Col kind = Col::kOther;
    bool in_place = false;
  };

  // Sets the row's value of column c from the field s (line n).
  void Field(const Column& c, std::string_view s, int n, NcclTestRow* r) const {
    const std::string& field = c.field;
    switch (c.kind) {
      case Col::kSize:
        r->size_bytes = SizeField(s, n);
        break;
      case Col::kCount:
        r->count = CountField(s, n);
        break;
      case Col::kType:
        r->type = std::string(s);
        break;
      case Col::kRedop:
        r->redop = std::string(s);
        break;
      case Col::kRoot:
        r->root = RootField(s, n);
        break;
      case Col::kTime:
        (c.in_place ? r->inplace_time_s : r->time_s) = NonNegative(s, field, n) * kMicro;
        break;
      case Col::kAlgbw:
        (c.in_place ? r->inplace_algbw_bytes_per_s : r->algbw_bytes_per_s) = NonNegative(s, field, n) * kGiga;
        break;
      case Col::kBusbw:
        (c.in_place ? r->inplace_busbw_bytes_per_s : r->busbw_bytes_per_s) = NonNegative(s, field, n) * kGiga;
        break;
      case Col::kWrong: {
        if (s == "N/A") break;
        // "%6g" of a count: large counts print as 1.2e+06.
        const double v = NonNegative(s, field, n);
        if (v != std::floor(v) || v > 9e18) Fail(n, "field '" + field + "': " + Quote(s) + " is not a count");
        (c.in_place ? r->inplace_wrong : r->wrong) = static_cast<int64_t>(v);
        break;
      }
      case Col::kError:
        if (s != "N/A") (c.in_place ? r->inplace_error : r->error) = NonNegative(s, field, n);
        break;
      case Col::kTimestamp:
      case Col::kOther:
        break;
    }
  }

  std::string_view text_;
  const std::string& where_;
  NcclTestsRun run_;
  std::vector<Column> columns_;
  std::vector<std::string_view> tokens_;  // of the current line, reused
  std::set<long long> ranks_seen_;
  Collective program_collective_ = Collective::kOther;
  int header_threads_ = 0, header_gpus_ = 0, flag_threads_ = 0, flag_gpus_ = 0;
};

}  // namespace

bool LooksLikeNcclTests(std::string_view head) {
  if (head.find("# nThread ") != std::string_view::npos) return true;
  if (head.find("Collective test starting") != std::string_view::npos) return true;
  return head.find("algbw") != std::string_view::npos && head.find("busbw") != std::string_view::npos;
}

NcclTestsRun ParseNcclTests(std::string_view text, const std::string& where) {
  return NcclTestsReader(text, where).Read();
}

NcclTestsRun ReadNcclTests(const std::string& path) {
  return ParseNcclTests(ReadMaybeGzipFile(path, size_t{256} << 20), path);
}

const char* NcclTestCollectiveName(Collective c) {
  switch (c) {
    case Collective::kAllReduce:
      return "all_reduce";
    case Collective::kAllGather:
      return "all_gather";
    case Collective::kReduceScatter:
      return "reduce_scatter";
    case Collective::kAllToAll:
      return "alltoall";
    case Collective::kBroadcast:
      return "broadcast";
    case Collective::kReduce:
      return "reduce";
    case Collective::kSendRecv:
      return "sendrecv";
    case Collective::kOther:
      return "unknown";
  }
  return "unknown";
}

double LargeMessageBusBandwidth(const NcclTestsRun& run, double min_bytes) {
  struct Sample {
    double size, busbw;
  };
  std::vector<Sample> s;
  for (const auto& r : run.rows) {
    const double b = std::isnan(r.busbw_bytes_per_s) ? r.inplace_busbw_bytes_per_s : r.busbw_bytes_per_s;
    if (!std::isnan(b)) s.push_back({r.size_bytes, b});
  }
  if (s.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::vector<double> large;
  for (const auto& x : s)
    if (x.size >= min_bytes) large.push_back(x.busbw);
  if (large.empty()) {
    std::stable_sort(s.begin(), s.end(), [](const Sample& a, const Sample& b) { return a.size > b.size; });
    const size_t quarter = std::max<size_t>(1, (s.size() + 3) / 4);
    for (size_t i = 0; i < quarter; ++i) large.push_back(s[i].busbw);
  }
  std::sort(large.begin(), large.end());
  const size_t m = large.size();
  return m % 2 ? large[m / 2] : 0.5 * (large[m / 2 - 1] + large[m / 2]);
}

}  // namespace paratune
