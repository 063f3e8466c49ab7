#include "runs/database.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <stdexcept>

#include "runs/postgres_database.h"
#include "runs/sqlite_database.h"
#include "util/error.h"

namespace paratune {

bool IsNull(const DbValue& v) { return std::holds_alternative<std::monostate>(v); }

int64_t AsInt(const DbValue& v) {
  if (const auto* i = std::get_if<int64_t>(&v)) return *i;
  throw std::logic_error("database value is not an integer");
}

double AsDouble(const DbValue& v) {
  if (const auto* d = std::get_if<double>(&v)) return *d;
  if (const auto* i = std::get_if<int64_t>(&v)) return static_cast<double>(*i);
  throw std::logic_error("database value is not a number");
}

const std::string& AsText(const DbValue& v) {
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  throw std::logic_error("database value is not a text");
}

bool IsPostgresLocation(std::string_view location) {
  return location.starts_with("postgresql://") || location.starts_with("postgres://") ||
         location.starts_with("postgresql:");
}

std::unique_ptr<Database> OpenDatabase(const std::string& location, StoreAccess access) {
  if (location.empty()) throw InputError("--db: empty location (a SQLite file path or a postgresql:// URL)");
  if (IsPostgresLocation(location)) return OpenPostgresDatabase(location);
  // scheme "://" (RFC 3986 section 3.1: a letter, then letters, digits, '+', '-', '.').
  const size_t sep = location.find("://");
  if (sep != std::string::npos && sep > 0 && std::isalpha(static_cast<unsigned char>(location[0])) &&
      std::all_of(location.begin(), location.begin() + static_cast<std::ptrdiff_t>(sep), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '.';
      }))
    throw InputError(RedactLocation(location) + ": unknown store scheme '" + location.substr(0, sep) +
                     "'; --db takes a SQLite file path or a postgresql:// URL");
  return OpenSqliteDatabase(location, access == StoreAccess::kCreate);
}

std::string DefaultDatabaseLocation() {
  if (const char* db = std::getenv("PARATUNE_DB"); db && *db) return db;
  // XDG Base Directory Specification 0.8: $XDG_DATA_HOME, default $HOME/.local/share; a
  // relative value is invalid and ignored.
  if (const char* xdg = std::getenv("XDG_DATA_HOME"); xdg && *xdg == '/') return std::string(xdg) + "/paratune/runs.db";
  if (const char* home = std::getenv("HOME"); home && *home)
    return std::string(home) + "/.local/share/paratune/runs.db";
  return "paratune-runs.db";
}

std::string RedactLocation(std::string_view location) {
  std::string out(location);
  if (!IsPostgresLocation(location)) return out;
  // URI form: scheme://[user[:password]@]host...; the userinfo ends at the last '@' before the
  // path, query or fragment (RFC 3986 section 3.2.1).
  if (const size_t scheme = out.find("://"); scheme != std::string::npos) {
    const size_t start = scheme + 3;
    const size_t end = out.find_first_of("/?#", start);
    const size_t at = out.rfind('@', end == std::string::npos ? std::string::npos : end);
    if (at != std::string::npos && at >= start) {
      const size_t colon = out.find(':', start);
      if (colon != std::string::npos && colon < at) out.replace(colon + 1, at - colon - 1, "***");
    }
  }
  // password=... as a URI query parameter or a key=value keyword (libpq section 34.1.1/34.1.2);
  // a quoted keyword value runs to the closing quote.
  for (size_t pos = 0; (pos = out.find("password=", pos)) != std::string::npos;) {
    const bool word_start =
        pos == 0 || out[pos - 1] == ' ' || out[pos - 1] == '?' || out[pos - 1] == '&' || out[pos - 1] == ':';
    size_t value = pos + 9;
    if (!word_start) {
      pos = value;
      continue;
    }
    size_t end = value;
    if (end < out.size() && out[end] == '\'') {
      ++end;
      while (end < out.size() && out[end] != '\'') end += out[end] == '\\' ? 2 : 1;
      end = std::min(out.size(), end + 1);
    } else {
      while (end < out.size() && out[end] != ' ' && out[end] != '&' && out[end] != '#') ++end;
    }
    out.replace(value, end - value, "***");
    pos = value + 3;
  }
  return out;
}

}  // namespace paratune
