// What the three job-trace readers share (job_history_reader.cc): a line scanner that splits by hand
// (no regex, no copy of the text), a field splitter for one CSV line, the header-to-column map
// that rejects unknown and duplicated columns, number parsers that say why a field is not a
// number, and the builder that applies the common row checks, gives ids in reading order and
// collects the skipped rows. Internal to the scheduling room: the readers' interface is
// job_history_reader.h; docs/cluster-traces.md lists the checks.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "scheduling/job.h"
#include "scheduling/job_history_reader.h"

namespace paratune::job_rows {

// The non-blank lines of a text, 1-based line numbers (blank lines count), without the line end
// (LF or CRLF). A UTF-8 byte-order mark before the first line is dropped. Throws InputError when
// the text has more than kMaxTraceJobs data lines or more lines than an int counts.
class LineScanner {
 public:
  LineScanner(std::string_view text, const std::string& where);
  // The next non-blank line; false at the end.
  bool Next(int* line, std::string_view* text);

 private:
  std::string_view text_;
  const std::string& where_;
  size_t pos_ = 0;
  int64_t line_ = 0;
  int64_t rows_ = 0;
};

// Splits one line at commas. A field may be double-quoted ("a,b", "" for a quote) within the
// line; quoted fields are unescaped into `storage` (cleared by the caller per row). Fields are
// trimmed of blanks. Throws InputError naming where:line for an unterminated quote or text after
// a closing quote.
void SplitFields(std::string_view line, const std::string& where, int line_number,
                 std::vector<std::string_view>* fields, std::deque<std::string>* storage);

// Maps a header to columns: `names` is the format's column list (the one place each format
// names its columns); the result gives, for each name, its field index or -1. Throws InputError
// "where:line: unknown column 'x' (FORMAT columns are a, b, c)" or "duplicated column 'x'".
std::vector<int> MapColumns(const std::vector<std::string_view>& header, const std::vector<std::string_view>& names,
                            const std::string& where, int line, const char* format);

// The rows of one trace: the header line mapped to the format's columns (MapColumns), then
// each row split (SplitFields) and checked to have the header's field count (InputError
// "where:line: expected N fields, found M" otherwise). Throws InputError for a text without a
// header line.
class RowReader {
 public:
  RowReader(std::string_view text, const std::string& where, const std::vector<std::string_view>& names,
            const char* format);
  // For each of the format's columns, its field index or -1.
  const std::vector<int>& columns() const { return columns_; }
  int header_line() const { return header_line_; }
  // The next row; false at the end.
  bool Next();
  int line() const { return line_; }
  const std::vector<std::string_view>& fields() const { return fields_; }

 private:
  LineScanner lines_;
  const std::string& where_;
  std::vector<std::string_view> fields_;
  std::deque<std::string> storage_;
  std::vector<int> columns_;
  int header_line_ = 0, line_ = 0;
  size_t width_ = 0;
};

// Numbers of a field (util/text.h's ParseNumber and ParseInteger, blanks around trimmed): the
// value, or the reason the row is skipped ("field 'duration' is not a number: 'abc'"). A double
// may be non-finite here (inf, nan, or beyond a double's range as +inf): the row checks report it.
struct Number {
  double value = 0;
  std::string error;  // empty: value is good
};
Number NumberField(std::string_view field, const char* column);
struct Integer {
  int64_t value = 0;
  std::string error;
};
Integer IntegerField(std::string_view field, const char* column);

// Sets what the trace does not say (checkpoint interval, restart overhead, locality, model) from
// the defaults: the readers whose formats carry none of these.
void ApplyDefaults(Job& job, const JobTraceDefaults& defaults);

// Builds a JobTrace: Add() runs the common row checks and appends the job with the next id, or
// records it as skipped; Skip() records a row skipped for a reason of the format. Finish() sorts
// the skipped rows by line (a reader may skip in two passes).
class JobTraceBuilder {
 public:
  JobTraceBuilder(const std::string& where, JobTraceFormat format, const JobTraceDefaults& defaults);
  // `gpus` is the trace's number (checked before it is narrowed to Job::gpus).
  void Add(Job job, int64_t gpus);
  void Skip(int line, std::string reason);
  // Room for about `jobs` jobs (a guess from the text's size; at most 2^20 ahead of need).
  void Reserve(size_t jobs);
  JobTrace Finish();

 private:
  const JobTraceDefaults& defaults_;
  JobTrace trace_;
};

// The reason a job cannot be replayed (common checks, docs/cluster-traces.md), or nullopt.
std::optional<std::string> CommonRowProblem(const Job& job, int64_t gpus, const JobTraceDefaults& defaults);

}  // namespace paratune::job_rows
