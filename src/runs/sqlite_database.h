// The SQLite back end of Database: one file in WAL mode (readers never wait for the writer),
// a busy timeout so that concurrent writers queue instead of failing, synchronous=FULL so that a
// committed run survives a crash of the process or the machine.
#pragma once

#include <memory>
#include <string>

#include "runs/database.h"

namespace paratune {

// Opens (creating it and its directory when absent) the SQLite file at `path`. Throws
// InputError naming the path and SQLite's reason.
std::unique_ptr<Database> OpenSqliteDatabase(const std::string& path);

}  // namespace paratune
