#include "runs/migrations.h"

#include <ctime>
#include <stdexcept>
#include <string>

#include "util/error.h"

namespace paratune {
namespace {

constexpr const char* kVersionTable =
    "CREATE TABLE IF NOT EXISTS schema_version (version BIGINT PRIMARY KEY, description TEXT NOT NULL, "
    "applied_utc TEXT NOT NULL)";

// A fixed key for pg_advisory_xact_lock: migrations of one store take turns.
constexpr int64_t kMigrationLockKey = 0x7061726174756e65;  // "paratune"

std::string UtcNow() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

int ReadVersion(Database& db) {
  const auto rows = db.Query("SELECT MAX(version) FROM schema_version");
  return rows.empty() || IsNull(rows[0][0]) ? 0 : static_cast<int>(AsInt(rows[0][0]));
}

}  // namespace

int SchemaVersion(Database& db) {
  db.Exec(kVersionTable);
  return ReadVersion(db);
}

int ApplyMigrations(Database& db, const std::vector<Migration>& migrations) {
  for (size_t i = 0; i < migrations.size(); ++i)
    if (migrations[i].version != static_cast<int>(i + 1))
      throw std::logic_error("migration " + std::to_string(i) + " has version " +
                             std::to_string(migrations[i].version));
  const int known = static_cast<int>(migrations.size());
  int version = 0;
  // The version table is created inside a transaction too, so two processes creating it at once
  // take turns (PostgreSQL's CREATE TABLE IF NOT EXISTS is not safe against a concurrent create).
  db.Transaction([&] {
    if (db.Kind() == "postgresql") db.Exec("SELECT pg_advisory_xact_lock(?)", {kMigrationLockKey});
    db.Exec(kVersionTable);
    version = ReadVersion(db);
  });
  if (version > known)
    throw InputError(db.Where() + ": the run registry has schema version " + std::to_string(version) +
                     ", newer than this paratune knows (" + std::to_string(known) + "); upgrade paratune");
  for (const Migration& m : migrations) {
    if (m.version <= version) continue;
    db.Transaction([&] {
      if (db.Kind() == "postgresql") db.Exec("SELECT pg_advisory_xact_lock(?)", {kMigrationLockKey});
      if (ReadVersion(db) >= m.version) return;  // another process applied it meanwhile
      const auto& own = db.Kind() == "postgresql" ? m.postgresql : m.sqlite;
      for (const std::string& sql : own.empty() ? m.statements : own) db.Exec(sql);
      db.Exec("INSERT INTO schema_version (version, description, applied_utc) VALUES (?, ?, ?)",
              {int64_t{m.version}, m.description, UtcNow()});
    });
    version = m.version;
  }
  return version;
}

}  // namespace paratune
