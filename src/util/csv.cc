#include "util/csv.h"

#include "util/error.h"

namespace paratune {

std::vector<CsvRow> ParseCsv(std::string_view text, const std::string& where) {
  // A UTF-8 byte-order mark (Excel's "CSV UTF-8" writes one) is not part of the first header.
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  std::vector<CsvRow> rows;
  CsvRow row;
  std::string field;
  int line = 1;
  row.line = 1;
  size_t i = 0;
  const size_t n = text.size();
  bool row_has_content = false;
  auto end_field = [&] {
    row.fields.push_back(std::move(field));
    field.clear();
  };
  auto end_row = [&] {
    if (row_has_content || !row.fields.empty()) {
      end_field();
      if (!rows.empty() && row.fields.size() != rows.front().fields.size())
        throw InputError(where + ":" + std::to_string(row.line) + ": expected " +
                         std::to_string(rows.front().fields.size()) + " fields, found " +
                         std::to_string(row.fields.size()));
      rows.push_back(std::move(row));
    }
    row = CsvRow{};
    row_has_content = false;
  };
  while (i < n) {
    const char c = text[i];
    if (c == '"') {
      if (!field.empty()) throw InputError(where + ":" + std::to_string(line) + ": quote inside an unquoted field");
      const int start_line = line;
      ++i;
      bool closed = false;
      while (i < n) {
        if (text[i] == '"') {
          if (i + 1 < n && text[i + 1] == '"') {
            field += '"';
            i += 2;
            continue;
          }
          closed = true;
          ++i;
          break;
        }
        if (text[i] == '\n') ++line;
        field += text[i++];
      }
      if (!closed) throw InputError(where + ":" + std::to_string(start_line) + ": unterminated quoted field");
      row_has_content = true;
      if (i < n && text[i] != ',' && text[i] != '\n' && text[i] != '\r')
        throw InputError(where + ":" + std::to_string(line) + ": text after a closing quote");
      continue;
    }
    if (c == ',') {
      if (row.fields.empty() && !row_has_content) row.line = line;
      end_field();
      row_has_content = true;
      ++i;
      continue;
    }
    if (c == '\r' && i + 1 < n && text[i + 1] == '\n') {
      ++i;
      continue;
    }
    if (c == '\n') {
      end_row();
      ++line;
      row.line = line;
      ++i;
      continue;
    }
    if (c == '\0') throw InputError(where + ":" + std::to_string(line) + ": NUL byte in CSV");
    field += c;
    row_has_content = true;
    ++i;
  }
  end_row();
  return rows;
}

}  // namespace paratune
