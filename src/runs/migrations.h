// Migrations: the registry schema's versioned, forward-only history. Each migration is a list of
// statements that brings the schema from version N-1 to N; OpenRegistry applies those the store
// has not seen, in order, each inside one transaction with its version recorded in
// schema_version, so a store is always at a version it has fully reached. A store newer than the
// program (a version it does not know) is refused rather than guessed at.
#pragma once

#include <string>
#include <vector>

#include "runs/database.h"

namespace paratune {

struct Migration {
  int version = 0;          // 1, 2, ... consecutive
  std::string description;  // one line, recorded in schema_version
  // Statements, portable SQL unless a back end needs its own text: `sqlite` and `postgresql`
  // replace `statements` for that back end when non-empty.
  std::vector<std::string> statements;
  std::vector<std::string> sqlite, postgresql;
};

// Applies the migrations newer than the store's version. Safe against several processes opening
// the same store at once: each migration re-reads the version inside its transaction (which
// holds the write lock: BEGIN IMMEDIATE, or a transaction-scoped advisory lock on PostgreSQL)
// and skips what another process applied meanwhile. Returns the version reached. Throws
// InputError when the store's version is newer than the last migration.
int ApplyMigrations(Database& db, const std::vector<Migration>& migrations);

// The store's schema version; 0 for an empty store.
int SchemaVersion(Database& db);

}  // namespace paratune
