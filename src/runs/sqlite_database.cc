#include "runs/sqlite_database.h"

#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <limits>
#include <thread>

#include "util/error.h"
#include "util/file.h"

namespace paratune {
namespace {

// How long a writer waits for another's lock before giving up. Eight training jobs recording at
// once each hold the lock for milliseconds; a minute leaves room for a slow disk.
constexpr int kBusyTimeoutMs = 60'000;

class SqliteDatabase final : public Database {
 public:
  SqliteDatabase(std::string path, bool create) : where_(std::move(path)) {
    std::error_code ec;
    const bool exists = std::filesystem::exists(std::filesystem::symlink_status(where_, ec));
    if (exists) {
      RequireRegularFile(where_);  // a FIFO or a directory: refused, not opened
    } else if (!create) {
      throw InputError(where_ + ": no run registry here (runs record creates one)");
    } else {
      // ec holds symlink_status's "no such file" here: only a failed create may set it now.
      ec.clear();
      const std::filesystem::path parent = std::filesystem::path(where_).parent_path();
      if (!parent.empty()) std::filesystem::create_directories(parent, ec);
      if (ec) throw InputError(where_ + ": cannot create its directory: " + ec.message());
    }
    const int rc = sqlite3_open_v2(
        where_.c_str(), &db_, SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_NOMUTEX, nullptr);
    if (rc != SQLITE_OK) {
      const std::string why = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
      sqlite3_close(db_);
      db_ = nullptr;
      throw InputError(where_ + ": cannot open the run registry: " + why);
    }
    sqlite3_busy_timeout(db_, kBusyTimeoutMs);
    sqlite3_extended_result_codes(db_, 1);
    try {
      // A file that is not a database fails here, on the first read of its header.
      // WAL: readers do not block the writer nor it them (sqlite.org/wal.html); FULL
      // synchronous makes each commit durable across power loss in WAL mode
      // (sqlite.org/pragma.html#pragma_synchronous); foreign keys are off by default.
      SwitchToWal();
      Run("PRAGMA synchronous=FULL", {}, nullptr);
      Run("PRAGMA foreign_keys=ON", {}, nullptr);
    } catch (...) {
      sqlite3_close(db_);
      db_ = nullptr;
      throw;
    }
  }
  ~SqliteDatabase() override { sqlite3_close(db_); }

  void Exec(std::string_view sql, const std::vector<DbValue>& params) override { Run(sql, params, nullptr); }

  std::vector<DbRow> Query(std::string_view sql, const std::vector<DbValue>& params) override {
    std::vector<DbRow> rows;
    Run(sql, params, &rows);
    return rows;
  }

  void Transaction(const std::function<void()>& fn) override {
    // BEGIN IMMEDIATE takes the write lock now, waiting on the busy timeout, so two writers
    // never both read and then fail to upgrade (sqlite.org/lang_transaction.html).
    Run("BEGIN IMMEDIATE", {}, nullptr);
    try {
      fn();
      Run("COMMIT", {}, nullptr);
    } catch (...) {
      if (!sqlite3_get_autocommit(db_)) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
      throw;
    }
  }

  std::string_view Kind() const override { return "sqlite"; }
  const std::string& Where() const override { return where_; }

 private:
  [[noreturn]] void Fail(std::string_view sql) const {
    std::string what = sqlite3_errmsg(db_);
    throw InputError(where_ + ": " + what + " (in: " + std::string(sql.substr(0, 80)) + ")");
  }

  void Run(std::string_view sql, const std::vector<DbValue>& params, std::vector<DbRow>* rows) {
    if (sql.size() > static_cast<size_t>(std::numeric_limits<int>::max()))
      throw InputError(where_ + ": statement too long");
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr) != SQLITE_OK) Fail(sql);
    struct Finalize {
      sqlite3_stmt* s;
      ~Finalize() { sqlite3_finalize(s); }
    } finalize{stmt};
    if (stmt == nullptr) return;  // an empty statement
    if (static_cast<size_t>(sqlite3_bind_parameter_count(stmt)) != params.size())
      throw std::logic_error("statement has " + std::to_string(sqlite3_bind_parameter_count(stmt)) + " placeholders, " +
                             std::to_string(params.size()) + " values given");
    for (size_t i = 0; i < params.size(); ++i) {
      const int at = static_cast<int>(i + 1);
      int rc = SQLITE_OK;
      if (const auto* n = std::get_if<int64_t>(&params[i]))
        rc = sqlite3_bind_int64(stmt, at, *n);
      else if (const auto* d = std::get_if<double>(&params[i]))
        rc = sqlite3_bind_double(stmt, at, *d);
      else if (const auto* s = std::get_if<std::string>(&params[i]))
        rc = sqlite3_bind_text64(stmt, at, s->data(), s->size(), SQLITE_TRANSIENT, SQLITE_UTF8);
      else
        rc = sqlite3_bind_null(stmt, at);
      if (rc != SQLITE_OK) Fail(sql);
    }
    for (;;) {
      const int rc = sqlite3_step(stmt);
      if (rc == SQLITE_DONE) return;
      if (rc != SQLITE_ROW) Fail(sql);
      if (rows == nullptr) continue;
      DbRow row;
      const int n = sqlite3_column_count(stmt);
      row.reserve(n);
      for (int c = 0; c < n; ++c) {
        switch (sqlite3_column_type(stmt, c)) {
          case SQLITE_INTEGER:
            row.emplace_back(static_cast<int64_t>(sqlite3_column_int64(stmt, c)));
            break;
          case SQLITE_FLOAT:
            row.emplace_back(sqlite3_column_double(stmt, c));
            break;
          case SQLITE_NULL:
            row.emplace_back(std::monostate{});
            break;
          default: {
            const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt, c));
            row.emplace_back(std::string(text ? text : "", static_cast<size_t>(sqlite3_column_bytes(stmt, c))));
          }
        }
      }
      rows->push_back(std::move(row));
    }
  }

  // Switching a new file to WAL needs its exclusive lock, and SQLite answers SQLITE_BUSY at once,
  // without the busy handler, when another connection holds any lock on the file meanwhile (seen
  // with eight openers of one new file). The switch is retried here for the busy timeout; once the
  // file is in WAL mode the pragma takes no lock (sqlite.org/wal.html#activating_and_configuring_wal_mode).
  void SwitchToWal() {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kBusyTimeoutMs);
    for (int attempt = 0;; ++attempt) {
      const int rc = sqlite3_exec(db_, "PRAGMA journal_mode=WAL", nullptr, nullptr, nullptr);
      if (rc == SQLITE_OK) return;
      if ((rc & 0xff) != SQLITE_BUSY || std::chrono::steady_clock::now() > deadline) Fail("PRAGMA journal_mode=WAL");
      std::this_thread::sleep_for(std::chrono::milliseconds(std::min(1 + attempt, 20)));
    }
  }

  std::string where_;
  sqlite3* db_ = nullptr;
};

}  // namespace

std::unique_ptr<Database> OpenSqliteDatabase(const std::string& path, bool create) {
  if (path.empty()) throw InputError("--db: empty path");
  return std::make_unique<SqliteDatabase>(path, create);
}

}  // namespace paratune
