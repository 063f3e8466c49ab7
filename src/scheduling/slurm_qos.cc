#include "scheduling/slurm_qos.h"

#include <algorithm>

#include <fmt/format.h>

#include "scheduling/slurm_conf.h"
#include "util/error.h"
#include "util/text.h"

namespace paratune {

namespace {

// sacctmgr -P separates fields with '|'; -p also ends each line with one (`parsable`: the header
// does too).
std::vector<std::string_view> Fields(std::string_view line, bool parsable) {
  std::vector<std::string_view> out;
  for (size_t from = 0;;) {
    const size_t bar = line.find('|', from);
    out.push_back(TrimBlanks(line.substr(from, bar == std::string_view::npos ? std::string_view::npos : bar - from)));
    if (bar == std::string_view::npos) break;
    from = bar + 1;
  }
  if (parsable && out.size() > 1 && out.back().empty()) out.pop_back();
  return out;
}

// The table's columns the replay reads, by their sacctmgr names.
enum Column { kName, kPreempt, kPreemptMode, kPreemptExemptTime, kColumns };
constexpr const char* kColumnNames[kColumns] = {"Name", "Preempt", "PreemptMode", "PreemptExemptTime"};

struct Row {
  const std::string* where;
  int line;
};

SlurmQos ReadRow(const Row& at, const std::vector<std::string_view>& f, const int (&col)[kColumns]) {
  SlurmQos q;
  q.name = AsciiLower(f[col[kName]]);
  if (q.name.empty()) throw InputError(fmt::format("{}:{}: Name is empty", *at.where, at.line));
  const std::string_view preempt = f[col[kPreempt]];
  for (size_t from = 0; from <= preempt.size();) {
    const size_t comma = std::min(preempt.find(',', from), preempt.size());
    const std::string_view name = TrimBlanks(preempt.substr(from, comma - from));
    if (!name.empty()) q.preempt.push_back(AsciiLower(name));
    from = comma + 1;
  }
  if (col[kPreemptMode] >= 0) {
    const std::string_view m = f[col[kPreemptMode]];
    if (EqualsAsciiNoCase(m, "off"))
      q.mode = SlurmPreemptMode::kOff;
    else if (EqualsAsciiNoCase(m, "cancel"))
      q.mode = SlurmPreemptMode::kCancel;
    else if (EqualsAsciiNoCase(m, "requeue"))
      q.mode = SlurmPreemptMode::kRequeue;
    else if (!m.empty() && !EqualsAsciiNoCase(m, "cluster"))
      throw InputError(
          fmt::format("{}:{}: PreemptMode={} of QOS {}: the replay follows cluster, off, cancel or requeue", *at.where,
                      at.line, Shown(m), Quote(q.name)));
  }
  if (col[kPreemptExemptTime] >= 0 && !f[col[kPreemptExemptTime]].empty()) {
    q.exempt_time_s = SlurmTimeSeconds(f[col[kPreemptExemptTime]]);
    if (std::isnan(q.exempt_time_s))
      throw InputError(fmt::format("{}:{}: PreemptExemptTime={} of QOS {} is not a Slurm time", *at.where, at.line,
                                   Shown(f[col[kPreemptExemptTime]]), Quote(q.name)));
  }
  return q;
}

}  // namespace

std::vector<SlurmQos> ParseSlurmQos(std::string_view text, const std::string& where) {
  std::vector<SlurmQos> out;
  int col[kColumns];
  std::fill(std::begin(col), std::end(col), -1);
  size_t width = 0;
  bool parsable = false;
  int line_no = 0;
  for (size_t from = 0; from < text.size();) {
    const size_t nl = std::min(text.find('\n', from), text.size());
    const std::string_view line = TrimBlanks(text.substr(from, nl - from));
    from = nl + 1;
    ++line_no;
    if (line.empty()) continue;
    if (width == 0) parsable = line.back() == '|';
    const std::vector<std::string_view> f = Fields(line, parsable);
    if (width == 0) {  // the header
      for (size_t i = 0; i < f.size(); ++i)
        for (int c = 0; c < kColumns; ++c)
          if (EqualsAsciiNoCase(f[i], kColumnNames[c])) col[c] = static_cast<int>(i);
      if (col[kName] < 0 || col[kPreempt] < 0)
        throw InputError(
            fmt::format("{}:{}: not a QOS table: the header names no {} column (sacctmgr -P show qos "
                        "format=Name,Preempt,PreemptMode,PreemptExemptTime)",
                        where, line_no, col[kName] < 0 ? "Name" : "Preempt"));
      width = f.size();
      continue;
    }
    if (f.size() != width)
      throw InputError(fmt::format("{}:{}: {} fields where the header has {}", where, line_no, f.size(), width));
    SlurmQos q = ReadRow(Row{&where, line_no}, f, col);
    if (std::any_of(out.begin(), out.end(), [&](const SlurmQos& o) { return o.name == q.name; }))
      throw InputError(fmt::format("{}:{}: QOS {} is named twice", where, line_no, Quote(q.name)));
    out.push_back(std::move(q));
  }
  if (width == 0) throw InputError(where + ": empty: no QOS table (sacctmgr -P show qos)");
  return out;
}

std::vector<SlurmQos> ReadSlurmQos(const std::string& path) { return ParseSlurmQos(ReadSlurmConfText(path), path); }

}  // namespace paratune
