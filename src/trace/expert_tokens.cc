#include "trace/expert_tokens.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <limits>
#include <unordered_map>

#include "util/csv.h"
#include "util/error.h"
#include "util/file.h"
#include "util/text.h"

namespace paratune {
namespace {

// Bounds that keep a hostile file from allocating without limit: no published MoE has more than
// a few hundred routed experts per layer (DeepSeek-V3: 256, arXiv 2412.19437 Sec. 4.2) or a few
// hundred layers; these leave a wide margin. The table is (iteration, layer) x expert doubles, at
// most kMaxCells of them (128 MiB; 100 iterations x 61 layers x 256 experts is 1.6 M).
constexpr int64_t kMaxExperts = 4096;
constexpr int64_t kMaxLayers = 1 << 16;
constexpr size_t kMaxCells = size_t{1} << 24;
// More tokens than any step routes (10^15 = a thousand trillion): beyond it the number is noise.
constexpr double kMaxTokens = 1e15;

// The columns, each with the header names accepted for it (case-insensitive, spaces trimmed).
enum Column { kIteration, kLayer, kExpert, kTokens, kColumns };
struct ColumnNames {
  const char* field;  // the name used in messages
  std::array<const char*, 4> names;
};
constexpr std::array<ColumnNames, kColumns> kColumnNames{{
    {"iteration", {"iteration", "step", "iter", nullptr}},
    {"layer", {"layer", "layer_id", "layer_idx", nullptr}},
    {"expert", {"expert", "expert_id", "expert_idx", nullptr}},
    {"tokens", {"tokens", "count", "num_tokens", "token_count"}},
}};

std::string Normalise(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && (s[b] == ' ' || s[b] == '\t' || s[b] == '"')) ++b;
  while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t' || s[e - 1] == '"' || s[e - 1] == '\r')) --e;
  return AsciiLower(s.substr(b, e - b));
}

int ExpertColumnOf(const std::string& name) {
  for (int c = 0; c < kColumns; ++c)
    for (const char* n : kColumnNames[c].names)
      if (n && name == n) return c;
  return -1;
}

std::string TrimCell(const std::string& s) { return std::string(TrimBlanks(s)); }

std::string FieldError(const std::string& where, int line, int column, const std::string& what) {
  return where + ":" + std::to_string(line) + ": field `" + kColumnNames[column].field + "`: " + what;
}

int64_t ParseExpertIndex(const std::string& raw, const std::string& where, int line, int column, int64_t max) {
  const std::string s = TrimCell(raw);
  int64_t v = 0;
  const NumberParse st = ParseInteger(s, &v);
  if (st == NumberParse::kOutOfRange) throw InputError(FieldError(where, line, column, "'" + s + "' is out of range"));
  if (st != NumberParse::kOk) throw InputError(FieldError(where, line, column, "'" + s + "' is not an integer"));
  if (v < 0 || v > max)
    throw InputError(FieldError(where, line, column, "'" + s + "' must be between 0 and " + std::to_string(max)));
  return v;
}

double ParseTokens(const std::string& raw, const std::string& where, int line) {
  const std::string s = TrimCell(raw);
  double v = 0;
  const NumberParse st = ParseNumber(s, &v);
  if (st == NumberParse::kNotANumber || st == NumberParse::kNotFinite)
    throw InputError(FieldError(where, line, kTokens, "'" + s + "' is not a number"));
  if (st == NumberParse::kOutOfRange || v < 0 || v > kMaxTokens)
    throw InputError(FieldError(where, line, kTokens, "'" + s + "' must be between 0 and 1e15"));
  return v;
}

// The index of each column in the header; throws InputError for a column named twice or missing.
std::array<int, kColumns> ExpertColumnIndex(const CsvRow& header, const std::string& where) {
  std::array<int, kColumns> index;
  index.fill(-1);
  for (size_t i = 0; i < header.fields.size(); ++i) {
    const int c = ExpertColumnOf(Normalise(header.fields[i]));
    if (c < 0) continue;
    if (index[c] >= 0)
      throw InputError(where + ":" + std::to_string(header.line) + ": header names the " + kColumnNames[c].field +
                       " column twice");
    index[c] = static_cast<int>(i);
  }
  for (int c = 0; c < kColumns; ++c)
    if (index[c] < 0)
      throw InputError(where + ":" + std::to_string(header.line) + ": header has no " + kColumnNames[c].field +
                       " column (accepted: iteration|step, layer, expert, tokens|count)");
  return index;
}

// Gives every (iteration, layer) row all experts (a missing count is 0); throws InputError when
// the file holds too many counts or a row routed no token.
void FinishExpertTokens(size_t experts, ExpertTokens* out) {
  const std::string& where = out->path;
  if (out->rows.size() * experts > kMaxCells)
    throw InputError(where + ": " + std::to_string(out->rows.size()) + " (iteration, layer) groups x " +
                     std::to_string(experts) + " experts is more than the 16 M counts a file may hold");
  for (ExpertTokenCounts& g : out->rows) g.tokens.resize(experts, 0.0);
  // A layer that routed no token at all says nothing about balance (issue 32: an all-zero file
  // read as perfectly balanced).
  for (const ExpertTokenCounts& g : out->rows)
    if (std::all_of(g.tokens.begin(), g.tokens.end(), [](double t) { return t == 0; }))
      throw InputError(where + ":" + std::to_string(g.line) + ": layer " + std::to_string(g.layer) + " at iteration " +
                       std::to_string(g.iteration) + " routed no token to any expert (all counts 0)");
}

}  // namespace

bool LooksLikeExpertTokens(std::string_view head) {
  const size_t nl = head.find('\n');
  const std::string_view first = head.substr(0, nl);
  std::array<bool, kColumns> seen{};
  size_t pos = 0;
  while (pos <= first.size()) {
    const size_t comma = std::min(first.find(',', pos), first.size());
    const int c = ExpertColumnOf(Normalise(first.substr(pos, comma - pos)));
    if (c >= 0) seen[c] = true;
    pos = comma + 1;
  }
  return std::all_of(seen.begin(), seen.end(), [](bool b) { return b; });
}

ExpertTokens ParseExpertTokens(std::string_view text, const std::string& where) {
  if (text.empty())
    throw InputError(where + ": empty file (expected a header naming iteration, layer, expert, tokens)");
  const std::vector<CsvRow> rows = ParseCsv(text, where);
  if (rows.empty()) throw InputError(where + ": no header (expected iteration, layer, expert, tokens)");
  const std::array<int, kColumns> index = ExpertColumnIndex(rows.front(), where);
  if (rows.size() == 1) throw InputError(where + ": header only, no counts");

  ExpertTokens out;
  out.path = where;
  // (iteration, layer) -> row index; experts seen per group, to refuse a repeated expert.
  struct KeyHash {
    size_t operator()(const std::pair<int64_t, int>& k) const {
      return std::hash<int64_t>()(k.first) * 1000003u ^ std::hash<int>()(k.second);
    }
  };
  std::unordered_map<std::pair<int64_t, int>, size_t, KeyHash> groups;
  std::vector<std::vector<bool>> seen;
  size_t experts = 0, cells = 0;
  for (size_t r = 1; r < rows.size(); ++r) {
    const CsvRow& row = rows[r];
    const int64_t iteration = ParseExpertIndex(row.fields[index[kIteration]], where, row.line, kIteration,
                                               std::numeric_limits<int64_t>::max());
    const int layer =
        static_cast<int>(ParseExpertIndex(row.fields[index[kLayer]], where, row.line, kLayer, kMaxLayers - 1));
    const size_t expert =
        static_cast<size_t>(ParseExpertIndex(row.fields[index[kExpert]], where, row.line, kExpert, kMaxExperts - 1));
    const double tokens = ParseTokens(row.fields[index[kTokens]], where, row.line);
    auto [it, added] = groups.try_emplace({iteration, layer}, out.rows.size());
    if (added) {
      out.rows.push_back({row.line, iteration, layer, {}});
      seen.emplace_back();
    }
    ExpertTokenCounts& g = out.rows[it->second];
    std::vector<bool>& s = seen[it->second];
    if (g.tokens.size() <= expert) {
      cells += expert + 1 - g.tokens.size();
      if (cells > kMaxCells)
        throw InputError(where + ":" + std::to_string(row.line) +
                         ": more than the 16 M (iteration, layer, expert) counts a file may hold");
      g.tokens.resize(expert + 1, 0.0);
      s.resize(expert + 1, false);
    }
    if (s[expert])
      throw InputError(FieldError(where, row.line, kExpert,
                                  "expert " + std::to_string(expert) + " of layer " + std::to_string(layer) +
                                      " at iteration " + std::to_string(iteration) + " given twice (first at line " +
                                      std::to_string(g.line) + " or after)"));
    s[expert] = true;
    g.tokens[expert] = tokens;
    experts = std::max(experts, expert + 1);
  }
  FinishExpertTokens(experts, &out);
  return out;
}

ExpertTokens ReadExpertTokens(const std::string& path) { return ParseExpertTokens(ReadFile(path), path); }

}  // namespace paratune
