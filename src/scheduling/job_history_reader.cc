// The format dispatch of the job-trace readers and what they share (job_rows.h): lines and
// fields split by hand, the column map, number parsing and the common row checks
// (docs/cluster-traces.md, "Rows that are skipped").
#include "scheduling/job_history_reader.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <system_error>

#include <fmt/format.h>

#include "scheduling/job_rows.h"
#include "util/error.h"
#include "util/text.h"

namespace paratune {
namespace job_rows {

namespace {

bool IsBlank(std::string_view s) { return TrimBlanks(s).empty(); }

}  // namespace

LineScanner::LineScanner(std::string_view text, const std::string& where) : text_(text), where_(where) {
  if (text_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;
}

bool LineScanner::Next(int* line, std::string_view* out) {
  while (pos_ < text_.size()) {
    const size_t end = std::min(text_.find('\n', pos_), text_.size());
    std::string_view s = text_.substr(pos_, end - pos_);
    pos_ = end + 1;
    ++line_;
    if (line_ >= std::numeric_limits<int>::max())
      throw InputError(fmt::format("{}: more than {} lines", where_, std::numeric_limits<int>::max() - 1));
    if (!s.empty() && s.back() == '\r') s.remove_suffix(1);
    if (IsBlank(s)) continue;
    // The header plus kMaxTraceJobs rows.
    if (++rows_ > static_cast<int64_t>(kMaxTraceJobs) + 1)
      throw InputError(
          fmt::format("{}:{}: more than {} rows (the most a trace may have)", where_, line_, kMaxTraceJobs));
    *line = static_cast<int>(line_);
    *out = s;
    return true;
  }
  return false;
}

void SplitFields(std::string_view line, const std::string& where, int line_number,
                 std::vector<std::string_view>* fields, std::deque<std::string>* storage) {
  fields->clear();
  size_t i = 0;
  while (true) {
    // Leading blanks of the field.
    size_t start = i;
    while (start < line.size() && (line[start] == ' ' || line[start] == '\t')) ++start;
    if (start < line.size() && line[start] == '"') {
      std::string value;
      size_t j = start + 1;
      bool closed = false;
      while (j < line.size()) {
        if (line[j] == '"') {
          if (j + 1 < line.size() && line[j + 1] == '"') {
            value += '"';
            j += 2;
            continue;
          }
          closed = true;
          ++j;
          break;
        }
        value += line[j++];
      }
      if (!closed) throw InputError(fmt::format("{}:{}: unterminated quoted field", where, line_number));
      while (j < line.size() && (line[j] == ' ' || line[j] == '\t')) ++j;
      if (j < line.size() && line[j] != ',')
        throw InputError(fmt::format("{}:{}: text after a closing quote", where, line_number));
      storage->push_back(std::move(value));
      fields->push_back(storage->back());
      if (j >= line.size()) return;
      i = j + 1;
      continue;
    }
    const size_t comma = line.find(',', i);
    const size_t end = comma == std::string_view::npos ? line.size() : comma;
    fields->push_back(TrimBlanks(line.substr(i, end - i)));
    if (comma == std::string_view::npos) return;
    i = comma + 1;
  }
}

std::vector<int> MapColumns(const std::vector<std::string_view>& header, const std::vector<std::string_view>& names,
                            const std::string& where, int line, const char* format) {
  std::vector<int> index(names.size(), -1);
  for (size_t f = 0; f < header.size(); ++f) {
    const auto it = std::find(names.begin(), names.end(), header[f]);
    if (it == names.end()) {
      std::string list;
      for (size_t k = 0; k < names.size(); ++k) list += (k ? ", " : "") + std::string(names[k]);
      throw InputError(fmt::format("{}:{}: unknown column {} (a {} trace's columns are {})", where, line,
                                   Quote(header[f]), format, list));
    }
    int& slot = index[it - names.begin()];
    if (slot >= 0) throw InputError(fmt::format("{}:{}: duplicated column {}", where, line, Quote(header[f])));
    slot = static_cast<int>(f);
  }
  return index;
}

RowReader::RowReader(std::string_view text, const std::string& where, const std::vector<std::string_view>& names,
                     const char* format)
    : lines_(text, where), where_(where) {
  std::string_view s;
  if (!lines_.Next(&header_line_, &s)) throw InputError(where + ": empty trace (no header line)");
  SplitFields(s, where, header_line_, &fields_, &storage_);
  columns_ = MapColumns(fields_, names, where, header_line_, format);
  width_ = fields_.size();
  line_ = header_line_;
}

bool RowReader::Next() {
  std::string_view s;
  if (!lines_.Next(&line_, &s)) return false;
  storage_.clear();
  SplitFields(s, where_, line_, &fields_, &storage_);
  if (fields_.size() != width_)
    throw InputError(fmt::format("{}:{}: expected {} fields, found {}", where_, line_, width_, fields_.size()));
  return true;
}

Number NumberField(std::string_view field, const char* column) {
  Number n;
  field = TrimBlanks(field);
  if (field.empty()) {
    n.error = fmt::format("field '{}' is empty", column);
    return n;
  }
  // pandas and spreadsheets may write "+5"
  switch (ParseNumber(field.front() == '+' ? field.substr(1) : field, &n.value)) {
    case NumberParse::kOk:
      break;
    case NumberParse::kNotFinite:  // the row checks name the non-finite time
      n.value = AsciiLower(field).find("inf") == std::string_view::npos ? NAN
                : field.front() == '-'                                  ? -HUGE_VAL
                                                                        : HUGE_VAL;
      break;
    case NumberParse::kOutOfRange:  // beyond a double: the row checks report it as not finite
      n.value = HUGE_VAL;
      break;
    case NumberParse::kNotANumber:
      n.error = fmt::format("field '{}' is not a number: {}", column, Quote(field));
  }
  return n;
}

void ApplyDefaults(Job& job, const JobTraceDefaults& defaults) {
  job.checkpoint_interval_s = defaults.checkpoint_interval_s;
  job.restart_overhead_s = defaults.restart_overhead_s;
  job.locality = defaults.locality;
  job.model = defaults.model;
}

Integer IntegerField(std::string_view field, const char* column) {
  Integer n;
  field = TrimBlanks(field);
  if (field.empty()) {
    n.error = fmt::format("field '{}' is empty", column);
    return n;
  }
  const NumberParse st = ParseInteger(field.front() == '+' ? field.substr(1) : field, &n.value);
  if (st == NumberParse::kOutOfRange)
    n.error = fmt::format("field '{}' is out of range: {}", column, Quote(field));
  else if (st != NumberParse::kOk)
    n.error = fmt::format("field '{}' is not an integer: {}", column, Quote(field));
  return n;
}

std::optional<std::string> CommonRowProblem(const Job& job, int64_t gpus, const JobTraceDefaults& defaults) {
  const auto time = [](double v, const char* what, bool positive) -> std::optional<std::string> {
    if (!std::isfinite(v)) return fmt::format("{} is not finite", what);
    if (v < 0) return fmt::format("negative {} ({} s)", what, v);
    if (positive && v == 0) return fmt::format("{} is zero", what);
    if (v > kMaxJobTraceSeconds) return fmt::format("{} {} s is beyond {:g} s", what, v, kMaxJobTraceSeconds);
    return std::nullopt;
  };
  if (gpus == 0) return std::string("zero GPUs");
  if (gpus < 0) return fmt::format("negative GPUs ({})", gpus);
  if (defaults.max_gpus > 0 && gpus > defaults.max_gpus)
    return fmt::format("asks for {} GPUs, more than the cluster's {}", gpus, defaults.max_gpus);
  if (gpus > kMaxJobGpus) return fmt::format("asks for {} GPUs, more than any cluster's {}", gpus, kMaxJobGpus);
  if (auto p = time(job.submit_s, "submit time", false)) return p;
  if (auto p = time(job.run_s, "run time", true)) return p;
  if (auto p = time(job.checkpoint_interval_s, "checkpoint interval", false)) return p;
  if (auto p = time(job.restart_overhead_s, "restart overhead", false)) return p;
  return std::nullopt;
}

JobTraceBuilder::JobTraceBuilder(const std::string& where, JobTraceFormat format, const JobTraceDefaults& defaults)
    : defaults_(defaults) {
  trace_.path = where;
  trace_.format = JobTraceFormatName(format);
}

void JobTraceBuilder::Add(Job job, int64_t gpus) {
  if (auto problem = CommonRowProblem(job, gpus, defaults_)) {
    Skip(job.line, std::move(*problem));
    return;
  }
  job.gpus = static_cast<int>(gpus);
  job.id = static_cast<int64_t>(trace_.jobs.size());
  trace_.jobs.push_back(std::move(job));
}

void JobTraceBuilder::Skip(int line, std::string reason) {
  // One printable line, whatever the trace's bytes.
  for (char& c : reason)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  if (reason.size() > 200) reason = reason.substr(0, 200) + "...";
  trace_.skipped.push_back(SkippedRow{line, std::move(reason)});
}

void JobTraceBuilder::Reserve(size_t jobs) { trace_.jobs.reserve(std::min<size_t>(jobs, size_t{1} << 20)); }

JobTrace JobTraceBuilder::Finish() {
  std::stable_sort(trace_.skipped.begin(), trace_.skipped.end(),
                   [](const SkippedRow& a, const SkippedRow& b) { return a.line < b.line; });
  return std::move(trace_);
}

}  // namespace job_rows

std::optional<JobTraceFormat> DetectJobTraceFormat(std::string_view header_line) {
  if (header_line.substr(0, 3) == "\xEF\xBB\xBF") header_line.remove_prefix(3);
  // kubectl -o json: a JSON object (its first line is "{").
  if (const std::string_view t = TrimBlanks(header_line); !t.empty() && t.front() == '{')
    return JobTraceFormat::kKubernetes;
  // sacct --parsable2: '|'-separated, JobID and Submit among the fields.
  if (header_line.find('|') != std::string_view::npos && header_line.find("JobID") != std::string_view::npos &&
      header_line.find("Submit") != std::string_view::npos)
    return JobTraceFormat::kSlurmSacct;
  std::vector<std::string_view> names;
  std::deque<std::string> storage;
  try {
    job_rows::SplitFields(header_line, "", 1, &names, &storage);
  } catch (const InputError&) {
    return std::nullopt;
  }
  const auto has = [&](std::string_view n) { return std::find(names.begin(), names.end(), n) != names.end(); };
  // The columns that only that format has (docs/cluster-traces.md, "Detection").
  if (has("timestamp") && has("num_gpus")) return JobTraceFormat::kPhilly;
  if (has("num_gpu") && has("gpu_milli")) return JobTraceFormat::kAlibabaV2023;
  if (has("submit_s") && has("gpus")) return JobTraceFormat::kNative;
  return std::nullopt;
}

JobTrace ReadJobTrace(std::string_view text, const std::string& where, std::optional<JobTraceFormat> format,
                      const JobTraceDefaults& defaults) {
  if (!format) {
    job_rows::LineScanner lines(text, where);
    int line = 0;
    std::string_view header;
    if (!lines.Next(&line, &header)) throw InputError(where + ": empty trace (no header line)");
    format = DetectJobTraceFormat(header);
    if (!format)
      throw InputError(fmt::format(
          "{}:{}: the header is not a job trace's: expected a Philly (timestamp,duration,num_gpus,gpu_time,cluster), "
          "Alibaba v2023 (name,...,num_gpu,gpu_milli,...), Slurm sacct --parsable2 (JobID|...|Submit|...), native "
          "(submit_s,gpus,run_s|gpu_hours,...) header, or kubectl -o json; "
          "--format is one of {}",
          where, line, kJobTraceFormatNames.List()));
  }
  switch (*format) {
    case JobTraceFormat::kPhilly:
      return ReadPhillyJobs(text, where, defaults);
    case JobTraceFormat::kAlibabaV2023:
      return ReadAlibabaJobs(text, where, defaults);
    case JobTraceFormat::kNative:
      return ReadNativeJobs(text, where, defaults);
    case JobTraceFormat::kSlurmSacct:
      return ReadSlurmJobs(text, where, defaults);
    case JobTraceFormat::kKubernetes:
      return ReadKubernetesJobs(text, where, defaults);
  }
  throw InputError(where + ": unknown trace format");
}

}  // namespace paratune
