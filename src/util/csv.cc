#include "util/csv.h"

#include "util/error.h"

namespace paratune {

namespace {

// One pass of ParseCsv over the text: fields and rows as they end, with the line each row
// starts on.
class CsvParser {
 public:
  CsvParser(std::string_view text, const std::string& where) : text_(text), where_(where) { row_.line = 1; }

  std::vector<CsvRow> Run() {
    const size_t n = text_.size();
    while (i_ < n) {
      const char c = text_[i_];
      if (c == '"') {
        ReadQuoted();
        continue;
      }
      if (c == ',') {
        if (row_.fields.empty() && !row_has_content_) row_.line = line_;
        EndField();
        row_has_content_ = true;
        ++i_;
        continue;
      }
      if (c == '\r' && i_ + 1 < n && text_[i_ + 1] == '\n') {
        ++i_;
        continue;
      }
      if (c == '\n') {
        EndRow();
        ++line_;
        row_.line = line_;
        ++i_;
        continue;
      }
      if (c == '\0') throw Error(line_, "NUL byte in CSV");
      field_ += c;
      row_has_content_ = true;
      ++i_;
    }
    EndRow();
    return std::move(rows_);
  }

 private:
  InputError Error(int line, const std::string& what) const {
    return InputError(where_ + ":" + std::to_string(line) + ": " + what);
  }

  void EndField() {
    row_.fields.push_back(std::move(field_));
    field_.clear();
  }

  // Ends the row (a blank line is none); every row has the header's field count.
  void EndRow() {
    if (row_has_content_ || !row_.fields.empty()) {
      EndField();
      if (!rows_.empty() && row_.fields.size() != rows_.front().fields.size())
        throw Error(row_.line, "expected " + std::to_string(rows_.front().fields.size()) + " fields, found " +
                                   std::to_string(row_.fields.size()));
      rows_.push_back(std::move(row_));
    }
    row_ = CsvRow{};
    row_has_content_ = false;
  }

  // A quoted field from its opening quote: "" is a quote, newlines are kept; after the closing
  // quote only a separator or the line's end may follow.
  void ReadQuoted() {
    const size_t n = text_.size();
    if (!field_.empty()) throw Error(line_, "quote inside an unquoted field");
    const int start_line = line_;
    ++i_;
    bool closed = false;
    while (i_ < n) {
      if (text_[i_] == '"') {
        if (i_ + 1 < n && text_[i_ + 1] == '"') {
          field_ += '"';
          i_ += 2;
          continue;
        }
        closed = true;
        ++i_;
        break;
      }
      if (text_[i_] == '\n') ++line_;
      field_ += text_[i_++];
    }
    if (!closed) throw Error(start_line, "unterminated quoted field");
    row_has_content_ = true;
    if (i_ < n && text_[i_] != ',' && text_[i_] != '\n' && text_[i_] != '\r')
      throw Error(line_, "text after a closing quote");
  }

  std::string_view text_;
  const std::string& where_;
  std::vector<CsvRow> rows_;
  CsvRow row_;
  std::string field_;
  int line_ = 1;
  size_t i_ = 0;
  bool row_has_content_ = false;
};

}  // namespace

std::vector<CsvRow> ParseCsv(std::string_view text, const std::string& where) {
  // A UTF-8 byte-order mark (Excel's "CSV UTF-8" writes one) is not part of the first header.
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  return CsvParser(text, where).Run();
}

}  // namespace paratune
