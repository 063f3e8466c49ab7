// Database: a connection to the run registry's store, SQLite (a file) or PostgreSQL (a server),
// behind one small interface so that the registry's SQL, its migrations and its tests are the
// same for both back ends. Statements are parameterised only: `?` placeholders bound to values
// (the PostgreSQL back end rewrites them to $1, $2, ...); no value is ever spliced into SQL.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace paratune {

// NULL, a 64-bit integer, a double or a text. Integers and doubles come back as the column's
// declared type on both back ends (BIGINT, DOUBLE PRECISION), texts as written.
using DbValue = std::variant<std::monostate, int64_t, double, std::string>;
using DbRow = std::vector<DbValue>;

// Accessors that throw std::logic_error on a type mismatch (a programming error, not bad input).
bool IsNull(const DbValue& v);
int64_t AsInt(const DbValue& v);
double AsDouble(const DbValue& v);  // an integer column reads as a double too
const std::string& AsText(const DbValue& v);

class Database {
 public:
  virtual ~Database() = default;
  // Runs one statement with `?` placeholders bound to `params` in order.
  virtual void Exec(std::string_view sql, const std::vector<DbValue>& params = {}) = 0;
  // Runs one statement and returns its rows.
  virtual std::vector<DbRow> Query(std::string_view sql, const std::vector<DbValue>& params = {}) = 0;
  // Runs `fn` inside one write transaction and commits; any exception rolls it back and is
  // rethrown. SQLite takes the write lock at BEGIN (BEGIN IMMEDIATE) so that concurrent writers
  // queue on the busy timeout instead of failing at commit; PostgreSQL uses READ COMMITTED
  // transactions and retries `fn` on a serialization failure or deadlock. Not reentrant.
  virtual void Transaction(const std::function<void()>& fn) = 0;
  // "sqlite" or "postgresql".
  virtual std::string_view Kind() const = 0;
  // Where the store is, for messages: the path, or the URL with any password replaced by "***".
  virtual const std::string& Where() const = 0;
};

// Opens the store at `location`: a postgresql:// or postgres:// URL (libpq's URI syntax, or a
// "postgresql:" prefix before a libpq key=value string) opens PostgreSQL; another URL scheme
// (mysql://...) is refused; anything else is a SQLite file path, created with its directory when
// absent if `access` is kCreate. A read (kExisting) never creates a store: a missing SQLite file
// is an error. Throws InputError (one line, the location redacted) when it cannot be opened.
// Migrations are the registry's business (runs/migrations.h), not the connection's.
enum class StoreAccess { kCreate, kExisting };
std::unique_ptr<Database> OpenDatabase(const std::string& location, StoreAccess access = StoreAccess::kCreate);

// The store used when no --db is given: $PARATUNE_DB, else $XDG_DATA_HOME/paratune/runs.db,
// else $HOME/.local/share/paratune/runs.db (XDG Base Directory Specification 0.8).
std::string DefaultDatabaseLocation();

// `location` with the password of a URL (user:PASSWORD@host) or of a key=value string
// (password=...) replaced by "***"; other text unchanged.
std::string RedactLocation(std::string_view location);

bool IsPostgresLocation(std::string_view location);

}  // namespace paratune
