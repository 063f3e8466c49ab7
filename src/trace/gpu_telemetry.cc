// GPU telemetry readers: nvidia-smi --query-gpu CSV and dcgmi dmon text (docs/diagnose-telemetry.md);
// DCGM exporter's Prometheus text is trace/dcgm_exporter.cc.
// Hand parsers, one pass over the lines: 8 GPUs x 3600 samples read in a few milliseconds.
#include "trace/gpu_telemetry.h"

#include "trace/dcgm_exporter.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "util/error.h"
#include "util/file.h"
#include "util/timestamp.h"
#include "util/text.h"

namespace paratune {
namespace {

// ---- text helpers ---------------------------------------------------------------------------

// Walks the lines of a text, 1-based, without copying.
class Lines {
 public:
  explicit Lines(std::string_view text) : text_(text) {}
  bool Next(std::string_view* line) {
    if (pos_ >= text_.size()) return false;
    const size_t end = text_.find('\n', pos_);
    const size_t stop = end == std::string_view::npos ? text_.size() : end;
    *line = text_.substr(pos_, stop - pos_);
    if (!line->empty() && line->back() == '\r') line->remove_suffix(1);
    pos_ = stop + 1;
    ++number_;
    return true;
  }
  int number() const { return number_; }

 private:
  std::string_view text_;
  size_t pos_ = 0;
  int number_ = 0;
};

bool ParseGpuIndex(std::string_view s, int* out) {
  if (s.empty() || s.size() > 6) return false;
  int v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  *out = v;
  return true;
}

// The largest GPU index accepted: DCGM's entity limit (DCGM_MAX_NUM_DEVICES is 32; a row index
// far above it is a broken file, and the per-GPU tables below stay small).
constexpr int kMaxGpuIndex = 1023;

// nvidia-smi prints values it cannot read in brackets: "[N/A]", "[Not Supported]",
// "[Unknown Error]", "[Insufficient Permissions]", "[GPU is lost]".
bool IsNotAvailable(std::string_view v) { return v.size() >= 2 && v.front() == '[' && v.back() == ']'; }

// ---- nvidia-smi ------------------------------------------------------------------------------

enum class SmiField {
  kTimestamp,
  kIndex,
  kUtil,
  kSmClock,
  kMaxSmClock,
  kPower,
  kPowerLimit,
  kTemperature,
  kReasons,
  kOther
};

// The one list of nvidia-smi columns the reader uses: the name the header prints (the query
// name for aliases such as clocks.sm, which prints as clocks.current.sm), the unit it prints in
// brackets and after each value, the factor to SI and the range of a sane value.
struct SmiColumn {
  const char* name;
  SmiField field;
  const char* unit;  // "" when nvidia-smi prints none
  double to_si;
  double min, max;  // in the printed unit
};
constexpr SmiColumn kSmiColumns[] = {
    {"timestamp", SmiField::kTimestamp, "", 1, 0, 0},
    {"index", SmiField::kIndex, "", 1, 0, kMaxGpuIndex},
    {"utilization.gpu", SmiField::kUtil, "%", 0.01, 0, 100},
    {"clocks.current.sm", SmiField::kSmClock, "MHz", 1e6, 0, 100000},
    {"clocks.sm", SmiField::kSmClock, "MHz", 1e6, 0, 100000},
    {"clocks.max.sm", SmiField::kMaxSmClock, "MHz", 1e6, 0, 100000},
    {"power.draw", SmiField::kPower, "W", 1, 0, 100000},
    {"power.draw.instant", SmiField::kPower, "W", 1, 0, 100000},
    {"power.draw.average", SmiField::kPower, "W", 1, 0, 100000},
    {"power.limit", SmiField::kPowerLimit, "W", 1, 0, 100000},
    {"enforced.power.limit", SmiField::kPowerLimit, "W", 1, 0, 100000},
    {"temperature.gpu", SmiField::kTemperature, "", 1, -100, 300},
    {"clocks_throttle_reasons.active", SmiField::kReasons, "", 1, 0, 0},  // drivers before 535
    {"clocks_event_reasons.active", SmiField::kReasons, "", 1, 0, 0},     // drivers 535 and later
};

const SmiColumn* FindSmiColumn(std::string_view name) {
  for (const auto& c : kSmiColumns)
    if (name == c.name) return &c;
  return nullptr;
}

struct HeaderColumn {
  std::string name;         // as printed, without the unit
  const SmiColumn* column;  // nullptr: a column the reader does not use
};

// Splits `line` at commas into `out` (views into line).
void SplitCommas(std::string_view line, std::vector<std::string_view>* out) {
  out->clear();
  size_t start = 0;
  while (true) {
    const size_t comma = line.find(',', start);
    if (comma == std::string_view::npos) {
      out->push_back(TrimBlanks(line.substr(start)));
      return;
    }
    out->push_back(TrimBlanks(line.substr(start, comma - start)));
    start = comma + 1;
  }
}

// "clocks.current.sm [MHz]" -> name "clocks.current.sm", unit "MHz".
void SplitUnit(std::string_view f, std::string_view* name, std::string_view* unit) {
  *unit = {};
  *name = f;
  if (!f.empty() && f.back() == ']') {
    const size_t open = f.rfind('[');
    if (open != std::string_view::npos) {
      *unit = f.substr(open + 1, f.size() - open - 2);
      *name = TrimBlanks(f.substr(0, open));
    }
  }
}

bool IsSmiHeaderName(std::string_view f) {
  std::string_view name, unit;
  SplitUnit(f, &name, &unit);
  return FindSmiColumn(name) != nullptr;
}

// A data row of a headerless capture: a "YYYY/MM/DD HH:MM:SS.mmm" timestamp, then more fields.
bool LooksLikeHeaderlessSmiRow(const std::vector<std::string_view>& f) {
  return f.size() >= 3 && f[0].size() >= 19 && f[0][4] == '/' && ParseTimestamp(f[0]).has_value();
}

[[noreturn]] void FailTelemetry(const std::string& where, int line, const std::string& what) {
  throw InputError(fmt::format("{}:{}: {}", where, line, what));
}

// Groups rows into samples (a new sample starts when a GPU index repeats within the current
// one: nvidia-smi prints every GPU once per poll, each row with its own timestamp a few ms
// apart) and fills the counts and the median interval.
class SampleGrouper {
 public:
  int Assign(int gpu) {
    if (gpu >= static_cast<int>(last_sample_.size())) last_sample_.resize(gpu + 1, -1);
    if (last_sample_[gpu] == current_) ++current_;
    if (current_ < 0) current_ = 0;
    if (last_sample_[gpu] < 0) ++gpus_;
    last_sample_[gpu] = current_;
    return current_;
  }
  int gpus() const { return gpus_; }
  int samples() const { return current_ + 1; }

 private:
  std::vector<int> last_sample_;
  int current_ = -1;
  int gpus_ = 0;
};

// The columns of an nvidia-smi header and the index of its timestamp column.
struct SmiHeader {
  std::vector<HeaderColumn> columns;
  int col_time = -1;
};

// Reads the header (line header_number): each column with the reader's column or none; fails on
// an empty column, a unit other than the reader's, and a header without a timestamp, an index or
// a value column.
SmiHeader ParseSmiHeader(std::string_view header_line, int header_number, const std::string& where) {
  std::vector<std::string_view> fields;
  SplitCommas(header_line, &fields);
  SmiHeader out;
  std::vector<HeaderColumn>& header = out.columns;
  int col_time = -1, col_index = -1, value_columns = 0;
  bool used[static_cast<int>(SmiField::kOther)] = {};
  for (size_t i = 0; i < fields.size(); ++i) {
    std::string_view name, unit;
    SplitUnit(fields[i], &name, &unit);
    if (name.empty()) FailTelemetry(where, header_number, fmt::format("header column {} is empty", i + 1));
    const SmiColumn* c = FindSmiColumn(name);
    if (c != nullptr && !unit.empty() && unit != c->unit)
      FailTelemetry(where, header_number,
                    fmt::format("column '{}' is in [{}], expected [{}]", Shown(name), Shown(unit), c->unit));
    // A second column for the same field (power.draw and power.draw.average) is not used: the
    // first one printed counts.
    if (c != nullptr && used[static_cast<int>(c->field)]) c = nullptr;
    if (c != nullptr) {
      used[static_cast<int>(c->field)] = true;
      if (c->field == SmiField::kTimestamp)
        col_time = static_cast<int>(i);
      else if (c->field == SmiField::kIndex)
        col_index = static_cast<int>(i);
      else
        ++value_columns;
    }
    header.push_back({std::string(name), c});
  }
  if (col_time < 0)
    FailTelemetry(where, header_number,
                  "nvidia-smi CSV without a 'timestamp' column (query timestamp,index,... with --format=csv)");
  if (col_index < 0)
    FailTelemetry(where, header_number,
                  "nvidia-smi CSV without an 'index' column (query timestamp,index,... with --format=csv)");
  if (value_columns == 0)
    FailTelemetry(where, header_number,
                  "nvidia-smi CSV with none of utilization.gpu, clocks.sm, clocks.max.sm, power.draw, power.limit, "
                  "temperature.gpu, clocks_event_reasons.active");
  out.col_time = col_time;
  return out;
}

// Sets the sample's clock-event reasons from the hex bitmask v (none when not available); calls
// bad with what is wrong with v.
template <typename Bad>
void ParseSmiReasons(std::string_view v, TelemetrySample* s, const Bad& bad) {
  if (IsNotAvailable(v)) return;
  if (v.size() < 3 || v[0] != '0' || (v[1] != 'x' && v[1] != 'X')) bad("is not a hex bitmask (0x0000000000000004)");
  const std::string_view hex = v.substr(2);
  if (hex.size() > 16) bad("has more than 64 bits");
  uint64_t r = 0;
  const auto [ptr, ec] = std::from_chars(hex.data(), hex.data() + hex.size(), r, 16);
  if (ec != std::errc() || ptr != hex.data() + hex.size()) bad("is not a hex bitmask (0x0000000000000004)");
  s->reasons = r;
  s->reasons_known = true;
}

// Sets the sample's value of column c from v, a number with or without its unit (none when not
// available); calls bad with what is wrong with v.
template <typename Bad>
void ParseSmiNumber(const SmiColumn* c, std::string_view v, TelemetrySample* s, const Bad& bad) {
  if (IsNotAvailable(v)) return;
  std::string_view num = v;
  // "98 %", "1980 MHz", "350.12 W" (or the number alone with nounits).
  if (c->unit[0] != '\0') {
    const size_t ul = std::strlen(c->unit);
    if (num.size() > ul && num.substr(num.size() - ul) == c->unit) num = TrimBlanks(num.substr(0, num.size() - ul));
  }
  double x = 0;
  if (ParseNumber(num, &x) != NumberParse::kOk)
    bad(c->unit[0] ? fmt::format("is not a number of {}", c->unit) : "is not a number");
  if (x < c->min || x > c->max) bad(fmt::format("is out of range ({} to {})", c->min, c->max));
  const double si = x * c->to_si;
  switch (c->field) {
    case SmiField::kUtil:
      s->util_fraction = si;
      break;
    case SmiField::kSmClock:
      s->sm_clock_hz = si;
      break;
    case SmiField::kMaxSmClock:
      s->max_sm_clock_hz = si;
      break;
    case SmiField::kPower:
      s->power_w = si;
      break;
    case SmiField::kPowerLimit:
      s->power_limit_w = si;
      break;
    case SmiField::kTemperature:
      s->temperature_c = si;
      break;
    default:
      break;
  }
}

// Sets the sample's field of the used header column h from v, the row's value (line n).
void ParseSmiField(const HeaderColumn& h, std::string_view v, const std::string& where, int n, TelemetrySample* s) {
  const SmiColumn* c = h.column;
  const auto bad = [&](const std::string& what) {
    FailTelemetry(where, n, fmt::format("field '{}': '{}' {}", h.name, Shown(v), what));
  };
  switch (c->field) {
    case SmiField::kTimestamp: {
      const auto ts = ParseTimestamp(v);
      if (!ts) bad("is not a timestamp (YYYY/MM/DD HH:MM:SS.mmm)");
      s->time_s = *ts;
      break;
    }
    case SmiField::kIndex:
      if (!ParseGpuIndex(v, &s->gpu) || s->gpu > kMaxGpuIndex)
        bad(fmt::format("is not a GPU index (0..{})", kMaxGpuIndex));
      break;
    case SmiField::kReasons:
      ParseSmiReasons(v, s, bad);
      break;
    default:
      ParseSmiNumber(c, v, s, bad);
  }
}

GpuTelemetry ParseNvidiaSmi(std::string_view text, Lines& lines, std::string_view header_line,
                            const std::string& where) {
  const int header_number = lines.number();
  const SmiHeader parsed_header = ParseSmiHeader(header_line, header_number, where);
  const std::vector<HeaderColumn>& header = parsed_header.columns;
  const int col_time = parsed_header.col_time;
  std::vector<std::string_view> fields;

  GpuTelemetry t;
  t.path = where;
  t.source = TelemetrySource::kNvidiaSmi;
  t.samples.reserve(static_cast<size_t>(std::count(text.begin(), text.end(), '\n')));
  SampleGrouper grouper;
  const std::string_view header_trimmed = TrimBlanks(header_line);
  std::string_view line;
  while (lines.Next(&line)) {
    const int n = lines.number();
    if (line.find('\0') != std::string_view::npos) FailTelemetry(where, n, "NUL byte: not a text CSV");
    const std::string_view trimmed = TrimBlanks(line);
    if (trimmed.empty()) continue;
    if (trimmed == header_trimmed) continue;  // the header again (captures appended to one file)
    SplitCommas(line, &fields);
    if (fields[0] == "timestamp" || fields[0] == "index" ||
        (static_cast<size_t>(col_time) < fields.size() && fields[col_time] == "timestamp"))
      FailTelemetry(
          where, n,
          fmt::format("a different nvidia-smi header than the one at line {} (one capture per file)", header_number));
    if (fields.size() != header.size()) {
      FailTelemetry(where, n,
                    fmt::format("{} fields, the header (line {}) has {}", fields.size(), header_number, header.size()));
    }
    TelemetrySample s;
    s.line = n;
    for (size_t i = 0; i < fields.size(); ++i) {
      if (header[i].column == nullptr) continue;
      ParseSmiField(header[i], fields[i], where, n, &s);
    }
    s.sample = grouper.Assign(s.gpu);
    t.samples.push_back(s);
  }
  if (t.samples.empty()) FailTelemetry(where, header_number, "nvidia-smi header but no sample rows");
  SetTelemetrySampling(&t, grouper.gpus(), grouper.samples());
  return t;
}

// ---- dcgmi dmon ------------------------------------------------------------------------------

enum class DcgmField { kGrAct, kSmAct, kSmOcc, kTensor, kDram, kPower, kTemperature, kSmClock, kUtil, kOther };

// The dcgmi dmon column tags the reader uses (DCGM field ids and short names, dcgm_fields.h):
// 1001-1005 are ratios 0..1; 155 POWER in W, 150 TMPTR in C, 100 SMCLK in MHz, 203 GPUTL in %.
struct DcgmColumn {
  const char* tag;
  DcgmField field;
  double to_si;
  double min, max;  // as printed
};
constexpr DcgmColumn kDcgmColumns[] = {
    {"GRACT", DcgmField::kGrAct, 1, 0, 1},
    {"SMACT", DcgmField::kSmAct, 1, 0, 1},
    {"SMOCC", DcgmField::kSmOcc, 1, 0, 1},
    {"TENSO", DcgmField::kTensor, 1, 0, 1},
    {"DRAMA", DcgmField::kDram, 1, 0, 1},
    {"POWER", DcgmField::kPower, 1, 0, 100000},
    {"TMPTR", DcgmField::kTemperature, 1, -100, 300},
    {"SMCLK", DcgmField::kSmClock, 1e6, 0, 100000},
    {"GPUTL", DcgmField::kUtil, 0.01, 0, 100},
};

// dcgmi dmon's default delay between samples (-d, milliseconds): 1000 ms.
constexpr double kDcgmDefaultIntervalS = 1.0;

void SplitBlanks(std::string_view line, std::vector<std::string_view>* out) {
  out->clear();
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    if (i >= line.size()) break;
    const size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    out->push_back(line.substr(start, i - start));
  }
}

// "#Entity GRACT ..." or "# Entity GRACT ...": the tags after the Entity word, or false.
bool DcgmHeaderTags(std::string_view line, std::vector<std::string_view>* tags) {
  line = TrimBlanks(line);
  if (line.empty() || line[0] != '#') return false;
  SplitBlanks(line.substr(1), tags);
  if (tags->empty() || (*tags)[0] != "Entity") return false;
  tags->erase(tags->begin());
  return true;
}

// The -d delay of a "dcgmi dmon ... -d 500" command line echoed into the capture, in seconds.
bool DcgmIntervalFromCommand(std::string_view line, double* interval_s) {
  if (line.find("dcgmi dmon") == std::string_view::npos) return false;
  std::vector<std::string_view> tok;
  SplitBlanks(line, &tok);
  for (size_t i = 0; i + 1 < tok.size(); ++i) {
    if (tok[i] == "-d" || tok[i] == "--delay") {
      double ms = 0;
      if (ParseNumber(tok[i + 1], &ms) == NumberParse::kOk && ms > 0) {
        *interval_s = ms / 1000;
        return true;
      }
    }
  }
  return false;
}

// Reads a dcgmi dmon header (line n): the first one sets the tags and the reader's column of each
// (or none); a repeated one must have the same tags.
void ReadDcgmHeader(const std::vector<std::string_view>& tags, int n, const std::string& where,
                    std::vector<std::string>* header_tags, std::vector<const DcgmColumn*>* columns, int* header_line) {
  if (*header_line == 0) {
    if (tags.empty()) FailTelemetry(where, n, "dcgmi dmon header without field columns");
    *header_line = n;
    for (auto tg : tags) {
      header_tags->emplace_back(tg);
      const DcgmColumn* c = nullptr;
      for (const auto& dc : kDcgmColumns)
        if (tg == dc.tag) c = &dc;
      columns->push_back(c);
    }
  } else {
    // dcgmi repeats its header every screenful; the same columns each time.
    bool same = tags.size() == header_tags->size();
    for (size_t i = 0; same && i < tags.size(); ++i) same = tags[i] == (*header_tags)[i];
    if (!same)
      FailTelemetry(
          where, n,
          fmt::format("dcgmi dmon header differs from the one at line {} (one capture per file)", *header_line));
  }
}

// Sets the sample's value of a dcgmi dmon field, in SI units.
void SetDcgmValue(DcgmField field, double si, TelemetrySample* s) {
  switch (field) {
    case DcgmField::kGrAct:
      s->gr_active = si;
      break;
    case DcgmField::kSmAct:
      s->sm_active = si;
      break;
    case DcgmField::kSmOcc:
      s->sm_occupancy = si;
      break;
    case DcgmField::kTensor:
      s->tensor_active = si;
      break;
    case DcgmField::kDram:
      s->dram_active = si;
      break;
    case DcgmField::kPower:
      s->power_w = si;
      break;
    case DcgmField::kTemperature:
      s->temperature_c = si;
      break;
    case DcgmField::kSmClock:
      s->sm_clock_hz = si;
      break;
    case DcgmField::kUtil:
      s->util_fraction = si;
      break;
    default:
      break;
  }
}

// The sample of a "GPU <index> <values>" row (line n) of the header's columns.
TelemetrySample ParseDcgmRow(const std::vector<std::string_view>& tok, const std::vector<const DcgmColumn*>& columns,
                             const std::string& where, int n) {
  TelemetrySample s;
  s.line = n;
  if (!ParseGpuIndex(tok[1], &s.gpu) || s.gpu > kMaxGpuIndex)
    FailTelemetry(where, n,
                  fmt::format("field 'Entity': 'GPU {}' is not a GPU index (0..{})", Shown(tok[1]), kMaxGpuIndex));
  for (size_t i = 0; i < columns.size(); ++i) {
    const DcgmColumn* c = columns[i];
    if (c == nullptr) continue;
    const std::string_view v = tok[i + 2];
    if (v == "N/A") continue;
    double x = 0;
    if (ParseNumber(v, &x) != NumberParse::kOk)
      FailTelemetry(where, n, fmt::format("field '{}': '{}' is not a number", c->tag, Shown(v)));
    if (x < c->min || x > c->max)
      FailTelemetry(where, n,
                    fmt::format("field '{}': '{}' is out of range ({} to {})", c->tag, Shown(v), c->min, c->max));
    SetDcgmValue(c->field, x * c->to_si, &s);
  }
  return s;
}

// Whether a row (line n) that is not a GPU's is of another entity kind, to skip; fails for anything else.
bool IsOtherDcgmEntity(const std::vector<std::string_view>& tok, std::string_view trimmed, const std::string& where,
                       int n, size_t header_columns) {
  // Other entity kinds (GPU-I, GPU-CI for MIG instances, switches, CPUs) are not per-GPU
  // rows; they are skipped. Anything else is not dcgmi dmon output.
  static constexpr std::string_view kOtherEntities[] = {"GPU-I", "GPU-CI", "Switch", "NvSwitch",
                                                        "CPU",   "Core",   "Link",   "VGPU"};
  if (std::find(std::begin(kOtherEntities), std::end(kOtherEntities), tok[0]) != std::end(kOtherEntities)) return true;
  FailTelemetry(
      where, n,
      fmt::format("'{}' is not a dcgmi dmon row (GPU <index> then {} values)", Shown(trimmed), header_columns));
}

GpuTelemetry ParseDcgmi(std::string_view text, const std::string& where) {
  GpuTelemetry t;
  t.path = where;
  t.source = TelemetrySource::kDcgmiDmon;
  double interval_s = kDcgmDefaultIntervalS;
  std::vector<std::string> header_tags;  // of the first header
  std::vector<const DcgmColumn*> columns;
  int header_line = 0;
  SampleGrouper grouper;
  std::vector<std::string_view> tok;
  Lines lines(text);
  std::string_view line;
  while (lines.Next(&line)) {
    const int n = lines.number();
    if (line.find('\0') != std::string_view::npos) FailTelemetry(where, n, "NUL byte: not a dcgmi dmon text capture");
    const std::string_view trimmed = TrimBlanks(line);
    if (trimmed.empty()) continue;
    std::vector<std::string_view> tags;
    if (DcgmHeaderTags(trimmed, &tags)) {
      ReadDcgmHeader(tags, n, where, &header_tags, &columns, &header_line);
      continue;
    }
    if (trimmed[0] == '#' || trimmed[0] == '$') {  // a comment or the echoed command line
      if (t.samples.empty()) DcgmIntervalFromCommand(trimmed, &interval_s);
      continue;
    }
    if (t.samples.empty() && trimmed.rfind("dcgmi", 0) == 0) {
      DcgmIntervalFromCommand(trimmed, &interval_s);
      continue;
    }
    SplitBlanks(trimmed, &tok);
    if (tok[0] == "ID" || tok[0] == "Id") continue;  // the second header line (units)
    if (header_line == 0) FailTelemetry(where, n, "a row before the dcgmi dmon '#Entity' header");
    if (tok[0] != "GPU" && IsOtherDcgmEntity(tok, trimmed, where, n, header_tags.size())) continue;
    if (tok.size() != header_tags.size() + 2)
      FailTelemetry(where, n,
                    fmt::format("{} values, the header (line {}) has {}", tok.size() < 2 ? 0 : tok.size() - 2,
                                header_line, header_tags.size()));
    TelemetrySample s = ParseDcgmRow(tok, columns, where, n);
    s.sample = grouper.Assign(s.gpu);
    s.time_s = s.sample * interval_s;
    t.samples.push_back(s);
  }
  if (header_line == 0) FailTelemetry(where, lines.number(), "dcgmi dmon text without an '#Entity' header");
  if (t.samples.empty()) FailTelemetry(where, header_line, "dcgmi dmon header but no GPU rows");
  SetTelemetrySampling(&t, grouper.gpus(), grouper.samples());
  return t;
}

// The first line that is not blank (empty at the end of the text), and its number.
std::string_view FirstContentLine(int* number, Lines* lines) {
  std::string_view line;
  while (lines->Next(&line)) {
    if (!TrimBlanks(line).empty()) {
      *number = lines->number();
      return line;
    }
  }
  *number = lines->number();
  return {};
}

bool IsDcgmiText(std::string_view text) {
  Lines lines(text);
  std::string_view line;
  std::vector<std::string_view> tags;
  for (int i = 0; i < 20 && lines.Next(&line); ++i) {
    const std::string_view t = TrimBlanks(line);
    if (t.empty()) continue;
    if (DcgmHeaderTags(t, &tags)) return true;
    if (t[0] == '#' || t[0] == '$' || t.rfind("dcgmi", 0) == 0) continue;
    return false;
  }
  return false;
}

}  // namespace

void SetTelemetrySampling(GpuTelemetry* t, int gpus, int samples) {
  t->gpus = gpus;
  t->sample_count = t->samples.empty() ? 0 : samples;
  // The time of a sample is that of its first row; the interval is the median step between
  // consecutive samples (robust to a late poll).
  std::vector<double> starts(t->sample_count, std::numeric_limits<double>::quiet_NaN());
  for (const auto& s : t->samples)
    if (std::isnan(starts[s.sample])) starts[s.sample] = s.time_s;
  std::vector<double> steps;
  for (size_t i = 1; i < starts.size(); ++i) steps.push_back(starts[i] - starts[i - 1]);
  if (!steps.empty()) {
    const size_t mid = steps.size() / 2;
    std::nth_element(steps.begin(), steps.begin() + mid, steps.end());
    double m = steps[mid];
    if (steps.size() % 2 == 0) {
      const double lower = *std::max_element(steps.begin(), steps.begin() + mid);
      m = (m + lower) / 2;
    }
    t->interval_s = m;
  }
}

bool LooksLikeGpuTelemetry(std::string_view head) {
  if (IsDcgmiText(head) || LooksLikeDcgmExporter(head)) return true;
  Lines lines(head);
  int number = 0;
  const std::string_view first = FirstContentLine(&number, &lines);
  if (first.empty() || first.find('\0') != std::string_view::npos) return false;
  std::vector<std::string_view> f;
  SplitCommas(first, &f);
  int known = 0;
  for (auto x : f) known += IsSmiHeaderName(x);
  // A header naming at least two of the reader's columns, or a headerless row (which the parser
  // then refuses with a message saying why).
  return (f.size() >= 2 && known >= 2) || LooksLikeHeaderlessSmiRow(f);
}

GpuTelemetry ParseGpuTelemetry(std::string_view text, const std::string& where) {
  if (text.empty()) throw InputError(where + ": empty file (expected nvidia-smi --query-gpu CSV or dcgmi dmon output)");
  if (IsDcgmiText(text)) return ParseDcgmi(text, where);
  if (LooksLikeDcgmExporter(text)) return ParseDcgmExporter(text, where);
  Lines lines(text);
  int number = 0;
  const std::string_view first = FirstContentLine(&number, &lines);
  if (first.empty())
    throw InputError(where + ": only blank lines (expected nvidia-smi --query-gpu CSV or dcgmi dmon output)");
  if (first.find('\0') != std::string_view::npos) FailTelemetry(where, number, "NUL byte: not a text capture");
  std::vector<std::string_view> f;
  SplitCommas(first, &f);
  if (LooksLikeHeaderlessSmiRow(f))
    FailTelemetry(where, number,
                  "nvidia-smi CSV without its header line (--format=csv,noheader): the column order is unknown; "
                  "capture with --format=csv (nounits is fine)");
  int known = 0;
  for (auto x : f) known += IsSmiHeaderName(x);
  if (known == 0)
    FailTelemetry(where, number,
                  fmt::format("'{}' is neither an nvidia-smi --query-gpu CSV header nor a dcgmi dmon '#Entity' header",
                              Shown(TrimBlanks(first))));
  return ParseNvidiaSmi(text, lines, first, where);
}

// Plain or gzip (util/file.h), bounded: a day of 8 GPUs at -l 1 is about 70 MB of CSV.
GpuTelemetry ReadGpuTelemetry(const std::string& path) {
  return ParseGpuTelemetry(ReadMaybeGzipFile(path, size_t{1} << 30), path);
}

std::string ClockReasonNames(uint64_t reasons) {
  if (reasons == 0) return "none";
  std::string out;
  uint64_t known = 0;
  for (const auto& b : kClockReasonBits) {
    known |= b.bit;
    if (reasons & b.bit) {
      if (!out.empty()) out += '|';
      out += b.name;
    }
  }
  for (int i = 0; i < 64; ++i) {
    const uint64_t bit = uint64_t{1} << i;
    if ((reasons & bit) && !(known & bit)) {
      if (!out.empty()) out += '|';
      out += fmt::format("{:#x}", bit);
    }
  }
  return out;
}

}  // namespace paratune
