// A strict RFC 4180 CSV reader: comma-separated, double-quoted fields with "" escapes, LF or
// CRLF line ends, quoted fields may span lines. Errors are InputError naming file and line.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace paratune {

struct CsvRow {
  int line = 0;  // 1-based line where the row starts
  std::vector<std::string> fields;
};

// Parses `text`; `where` names the source in errors. Every row must have as many fields as the
// first (the header). Blank lines are skipped; a leading UTF-8 byte-order mark is dropped.
std::vector<CsvRow> ParseCsv(std::string_view text, const std::string& where);

}  // namespace paratune
