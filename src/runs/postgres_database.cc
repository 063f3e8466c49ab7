// The PostgreSQL back end (docs/runs-storage.md), through libpq's synchronous API (PostgreSQL 15
// manual, chapter 34 "libpq — C Library": PQconnectdbParams 34.1, PQexecParams 34.3.1,
// PQresultErrorField 34.3.2, PQsetNoticeProcessor 34.13).
#include "runs/postgres_database.h"

#include <libpq-fe.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "util/error.h"
#include "util/text.h"

namespace paratune {
namespace {

// Type OIDs of the built-in types (PostgreSQL source, src/include/catalog/pg_type.dat; stable
// across versions, they are part of the wire protocol's type identification).
constexpr Oid kBoolOid = 16, kInt8Oid = 20, kInt2Oid = 21, kInt4Oid = 23, kOidOid = 26, kFloat4Oid = 700,
              kFloat8Oid = 701, kNumericOid = 1700;

// Serialization failure and deadlock (PostgreSQL manual, appendix A "PostgreSQL Error Codes",
// class 40): the transaction may succeed when run again (manual 13.2 "Transaction Isolation").
constexpr std::string_view kSerializationFailure = "40001", kDeadlockDetected = "40P01";
constexpr int kTransactionTries = 20;

// An error from the server or libpq, with its SQLSTATE ("" when libpq itself failed) so that
// Transaction can tell a retryable conflict from a real error.
class PgError : public InputError {
 public:
  PgError(const std::string& message, std::string sqlstate) : InputError(message), sqlstate_(std::move(sqlstate)) {}
  const std::string& sqlstate() const { return sqlstate_; }

 private:
  std::string sqlstate_;
};

// libpq's messages may span lines ("connection to server ... failed: ...\n\tIs the server
// running ...?\n"): one line, runs of whitespace as one space, no trailing space.
std::string OneLine(std::string_view text) {
  std::string out;
  bool space = false;
  for (char c : text) {
    if (c == '\n' || c == '\r' || c == '\t' || c == ' ') {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string PercentDecode(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && HexValue(s[i + 1]) >= 0 && HexValue(s[i + 2]) >= 0) {
      out += static_cast<char>(HexValue(s[i + 1]) * 16 + HexValue(s[i + 2]));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

// The passwords written in `location` (URI user:PASSWORD@, a password= query parameter or
// key=value pair), raw and percent-decoded, so that a libpq message that quotes a piece of the
// connection string (e.g. 'invalid percent-encoded token: "...") cannot leak one.
std::vector<std::string> PasswordsIn(std::string_view location) {
  std::vector<std::string> out;
  auto add = [&](std::string_view p) {
    if (p.empty()) return;
    out.emplace_back(p);
    std::string decoded = PercentDecode(p);
    if (decoded != p && !decoded.empty()) out.push_back(std::move(decoded));
  };
  const size_t scheme = location.find("://");
  if (scheme != std::string_view::npos) {
    const std::string_view rest = location.substr(scheme + 3);
    const size_t at = rest.rfind('@', rest.find_first_of("/?"));
    if (at != std::string_view::npos) {
      const std::string_view userinfo = rest.substr(0, at);
      const size_t colon = userinfo.find(':');
      if (colon != std::string_view::npos) add(userinfo.substr(colon + 1));
    }
  }
  for (size_t pos = location.find("password"); pos != std::string_view::npos;
       pos = location.find("password", pos + 1)) {
    size_t i = pos + 8;
    while (i < location.size() && location[i] == ' ') ++i;
    if (i >= location.size() || location[i] != '=') continue;
    ++i;
    while (i < location.size() && location[i] == ' ') ++i;
    size_t end = i;
    if (end < location.size() && location[end] == '\'') {  // key='quoted value'
      ++i;
      end = i;
      while (end < location.size() && location[end] != '\'') end += location[end] == '\\' ? 2 : 1;
      end = std::min(end, location.size());
    } else {
      while (end < location.size() && location[end] != ' ' && location[end] != '&') ++end;
    }
    add(location.substr(i, end - i));
  }
  return out;
}

std::string Scrub(std::string text, const std::vector<std::string>& secrets) {
  for (const std::string& s : secrets) {
    for (size_t pos = text.find(s); pos != std::string::npos; pos = text.find(s, pos + 3))
      text.replace(pos, s.size(), "***");
  }
  return text;
}

// The index of the quote closing the string literal or quoted identifier that opens at sql[i]
// ('...', E'...' with backslash escapes, "..."; a doubled quote inside), or past the end.
size_t SqlQuotedEnd(std::string_view sql, size_t i) {
  const size_t n = sql.size();
  const char c = sql[i];
  // E'...' allows \' inside; the E was copied already as an identifier character.
  const bool escapes = c == '\'' && i > 0 && (sql[i - 1] == 'E' || sql[i - 1] == 'e') &&
                       (i < 2 || !(std::isalnum(static_cast<unsigned char>(sql[i - 2])) || sql[i - 2] == '_'));
  size_t j = i + 1;
  while (j < n) {
    if (escapes && sql[j] == '\\') {
      j += 2;
    } else if (sql[j] == c) {
      if (j + 1 < n && sql[j + 1] == c) {
        j += 2;  // '' or "" inside
      } else {
        break;
      }
    } else {
      ++j;
    }
  }
  return j;
}

// The end of the block comment (nested) that opens at sql[i].
size_t SqlBlockCommentEnd(std::string_view sql, size_t i) {
  const size_t n = sql.size();
  size_t j = i + 2;
  int depth = 1;
  while (j < n && depth > 0) {
    if (sql[j] == '/' && j + 1 < n && sql[j + 1] == '*') {
      ++depth;
      j += 2;
    } else if (sql[j] == '*' && j + 1 < n && sql[j + 1] == '/') {
      --depth;
      j += 2;
    } else {
      ++j;
    }
  }
  return j;
}

// The end of the dollar-quoted string that opens at sql[i] (past the end without its closing
// tag), or i + 1 when the '$' opens none.
size_t SqlDollarQuoteEnd(std::string_view sql, size_t i) {
  const size_t n = sql.size();
  // $tag$ (tag: letters, digits, underscores, not starting with a digit) or $$; $1 is a
  // positional parameter and is copied as it is.
  size_t j = i + 1;
  while (j < n && (std::isalnum(static_cast<unsigned char>(sql[j])) || sql[j] == '_')) ++j;
  const bool tag_ok = j < n && sql[j] == '$' && !(j > i + 1 && std::isdigit(static_cast<unsigned char>(sql[i + 1])));
  if (!tag_ok) return i + 1;
  const std::string_view tag = sql.substr(i, j - i + 1);
  const size_t close = sql.find(tag, j + 1);
  return close == std::string_view::npos ? n : close + tag.size();
}

// `?` placeholders to $1, $2, ... outside string literals ('...', E'...' with backslash escapes),
// quoted identifiers ("..."), dollar-quoted strings ($tag$...$tag$) and comments (-- and /* */,
// nested), following the lexical rules of the PostgreSQL manual, 4.1 "Lexical Structure".
// Returns the rewritten text and sets `count` to the number of placeholders.
std::string RewritePlaceholders(std::string_view sql, int& count) {
  std::string out;
  out.reserve(sql.size() + 16);
  count = 0;
  const size_t n = sql.size();
  size_t i = 0;
  auto copy_until = [&](size_t end) {
    end = std::min(end, n);
    out.append(sql.substr(i, end - i));
    i = end;
  };
  while (i < n) {
    const char c = sql[i];
    if (c == '?') {
      out += '$';
      out += std::to_string(++count);
      ++i;
    } else if (c == '\'' || c == '"') {
      copy_until(SqlQuotedEnd(sql, i) + 1);
    } else if (c == '-' && i + 1 < n && sql[i + 1] == '-') {
      const size_t eol = sql.find('\n', i);
      copy_until(eol == std::string_view::npos ? n : eol);
    } else if (c == '/' && i + 1 < n && sql[i + 1] == '*') {
      copy_until(SqlBlockCommentEnd(sql, i));
    } else if (c == '$' && !(i > 0 && (std::isalnum(static_cast<unsigned char>(sql[i - 1])) || sql[i - 1] == '_'))) {
      copy_until(SqlDollarQuoteEnd(sql, i));
    } else {
      out += c;
      ++i;
    }
  }
  return out;
}

// A parameter as text in PostgreSQL's input syntax, with its type OID (0: let the server infer it
// from the context, as for an untyped literal).
struct TextParam {
  std::string text;
  Oid type = 0;
  bool null = false;
};

TextParam ToText(const DbValue& v) {
  TextParam p;
  if (std::holds_alternative<std::monostate>(v)) {
    p.null = true;
  } else if (const int64_t* i = std::get_if<int64_t>(&v)) {
    char buf[24];
    p.text.assign(buf, std::to_chars(buf, buf + sizeof buf, *i).ptr);
    p.type = kInt8Oid;
  } else if (const double* d = std::get_if<double>(&v)) {
    if (std::isnan(*d)) {
      p.text = "NaN";  // float8in's spellings (manual 8.1.3 "Floating-Point Types")
    } else if (std::isinf(*d)) {
      p.text = *d > 0 ? "Infinity" : "-Infinity";
    } else {
      char buf[32];  // shortest text that reads back as the same double (C++17 [charconv])
      p.text.assign(buf, std::to_chars(buf, buf + sizeof buf, *d).ptr);
    }
    p.type = kFloat8Oid;
  } else {
    p.text = std::get<std::string>(v);
  }
  return p;
}

class PostgresDatabase final : public Database {
 public:
  PostgresDatabase(PGconn* conn, std::string where) : conn_(conn), where_(std::move(where)) {}
  ~PostgresDatabase() override { PQfinish(conn_); }
  PostgresDatabase(const PostgresDatabase&) = delete;
  PostgresDatabase& operator=(const PostgresDatabase&) = delete;

  void Exec(std::string_view sql, const std::vector<DbValue>& params) override { PQclear(Run(sql, params)); }

  std::vector<DbRow> Query(std::string_view sql, const std::vector<DbValue>& params) override {
    PGresult* res = Run(sql, params);
    std::vector<DbRow> rows;
    const int nrows = PQntuples(res), ncols = PQnfields(res);
    rows.reserve(static_cast<size_t>(nrows));
    try {
      for (int r = 0; r < nrows; ++r) {
        DbRow row;
        row.reserve(static_cast<size_t>(ncols));
        for (int c = 0; c < ncols; ++c) row.push_back(Value(res, r, c));
        rows.push_back(std::move(row));
      }
    } catch (...) {
      PQclear(res);
      throw;
    }
    PQclear(res);
    return rows;
  }

  void Transaction(const std::function<void()>& fn) override {
    if (in_transaction_) throw std::logic_error("Database::Transaction is not reentrant");
    std::minstd_rand jitter(std::random_device{}());
    for (int attempt = 1;; ++attempt) {
      Exec("BEGIN", {});
      in_transaction_ = true;
      try {
        fn();
        Exec("COMMIT", {});  // a serialization failure can surface here too
        in_transaction_ = false;
        return;
      } catch (const PgError& e) {
        Rollback();
        const bool retry = e.sqlstate() == kSerializationFailure || e.sqlstate() == kDeadlockDetected;
        if (!retry || attempt >= kTransactionTries) throw;
        // Exponential backoff, 5 ms doubling up to 640 ms, each wait drawn from [half, whole] so
        // that the conflicting writers do not meet again in step (the survivor of a deadlock
        // needs a moment to take the locks the victim released).
        const int64_t wait_us = int64_t{5000} << std::min(attempt - 1, 7);
        std::this_thread::sleep_for(
            std::chrono::microseconds(wait_us / 2 + static_cast<int64_t>(jitter() % (wait_us / 2 + 1))));
      } catch (...) {
        Rollback();
        throw;
      }
    }
  }

  std::string_view Kind() const override { return "postgresql"; }
  const std::string& Where() const override { return where_; }

 private:
  // Ends a failed transaction; a second failure (the connection is gone) is not the error to
  // report, the first one is.
  void Rollback() noexcept {
    in_transaction_ = false;
    PQclear(PQexec(conn_, "ROLLBACK"));
  }

  PGresult* Run(std::string_view sql, const std::vector<DbValue>& params) {
    int count = 0;
    const std::string text = RewritePlaceholders(sql, count);
    if (static_cast<size_t>(count) != params.size()) {
      throw std::logic_error("SQL has " + std::to_string(count) + " placeholders but " + std::to_string(params.size()) +
                             " values were bound: " + std::string(sql));
    }
    std::vector<TextParam> texts;
    texts.reserve(params.size());
    for (const DbValue& v : params) texts.push_back(ToText(v));
    std::vector<const char*> values;
    std::vector<Oid> types;
    for (const TextParam& p : texts) {
      values.push_back(p.null ? nullptr : p.text.c_str());
      types.push_back(p.type);
    }
    PGresult* res = PQexecParams(conn_, text.c_str(), count, types.data(), values.data(), nullptr, nullptr, 0);
    const ExecStatusType status = res ? PQresultStatus(res) : PGRES_FATAL_ERROR;
    if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) return res;
    std::string message, sqlstate;
    if (res) {
      const char* primary = PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY);
      const char* state = PQresultErrorField(res, PG_DIAG_SQLSTATE);
      message = primary ? primary : PQresultErrorMessage(res);
      if (state) sqlstate = state;
      PQclear(res);
    }
    if (message.empty()) message = PQerrorMessage(conn_);
    if (message.empty()) message = "unknown libpq error";
    std::string line = where_ + ": " + OneLine(message);
    if (!sqlstate.empty()) line += " (SQLSTATE " + sqlstate + ")";
    throw PgError(line, sqlstate);
  }

  DbValue Value(PGresult* res, int r, int c) const {
    if (PQgetisnull(res, r, c)) return std::monostate{};
    const char* s = PQgetvalue(res, r, c);
    const size_t len = static_cast<size_t>(PQgetlength(res, r, c));
    switch (PQftype(res, c)) {
      case kBoolOid:  // 1/0 as SQLite's comparisons give, so both back ends read the same
        return static_cast<int64_t>(s[0] == 't' ? 1 : 0);
      case kInt2Oid:
      case kInt4Oid:
      case kInt8Oid:
      case kOidOid: {
        int64_t v = 0;
        if (ParseInteger(std::string_view(s, len), &v) != NumberParse::kOk)
          throw PgError(where_ + ": unreadable integer '" + std::string(s, len) + "' from the server", "");
        return v;
      }
      case kNumericOid: {
        // NUMERIC written without a point or exponent is an integer: sum() and the like over
        // BIGINT columns return NUMERIC (manual 9.21 "Aggregate Functions"), and SQLite returns
        // an integer there, so it reads as int64 when it fits; otherwise as a double below.
        int64_t i = 0;
        if (ParseInteger(std::string_view(s, len), &i) == NumberParse::kOk) return i;
        [[fallthrough]];
      }
      case kFloat4Oid:
      case kFloat8Oid: {
        double v = 0;
        std::string_view t(s, len);
        if (t == "NaN") return std::nan("");
        if (t == "Infinity") return HUGE_VAL;
        if (t == "-Infinity") return -HUGE_VAL;
        // out of range: a NUMERIC beyond a double's range; read as +-inf or 0 would be a silent
        // substitution
        if (ParseNumber(t, &v) != NumberParse::kOk)
          throw PgError(where_ + ": number '" + std::string(s, len) + "' from the server does not fit a double", "");
        return v;
      }
      default:
        return std::string(s, len);
    }
  }

  PGconn* conn_;
  std::string where_;
  bool in_transaction_ = false;
};

}  // namespace

std::unique_ptr<Database> OpenPostgresDatabase(const std::string& location) {
  const std::string where = RedactLocation(location);
  // A URI goes to libpq as it is; "postgresql:" before a key=value string is ours, not libpq's.
  std::string conninfo = location;
  if (conninfo.rfind("postgresql://", 0) != 0 && conninfo.rfind("postgres://", 0) != 0 &&
      conninfo.rfind("postgresql:", 0) == 0) {
    conninfo = conninfo.substr(std::strlen("postgresql:"));
  }
  // connect_timeout first so that one in the location, expanded from dbname later, wins (manual
  // 34.1: with expand_dbname, later settings override earlier ones); 10 s so that an unreachable
  // server is an error, not a hang. client_encoding UTF8: texts are UTF-8 on both back ends.
  const char* keys[] = {"connect_timeout", "client_encoding", "application_name", "dbname", nullptr};
  const char* values[] = {"10", "UTF8", "paratune", conninfo.c_str(), nullptr};
  PGconn* conn = PQconnectdbParams(keys, values, /*expand_dbname=*/1);
  if (conn == nullptr) throw InputError("cannot open PostgreSQL store " + where + ": out of memory");
  if (PQstatus(conn) != CONNECTION_OK) {
    std::string reason = Scrub(OneLine(PQerrorMessage(conn)), PasswordsIn(location));
    PQfinish(conn);
    if (reason.empty()) reason = "connection failed";
    throw InputError("cannot open PostgreSQL store " + where + ": " + reason);
  }
  // The server's notices (e.g. "relation ... already exists, skipping") are not ours to print.
  PQsetNoticeProcessor(
      conn, [](void*, const char*) {}, nullptr);
  return std::make_unique<PostgresDatabase>(conn, where);
}

}  // namespace paratune
