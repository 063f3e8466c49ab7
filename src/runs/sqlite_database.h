// The SQLite back end of Database: one file in WAL mode (readers never wait for the writer),
// a busy timeout so that concurrent writers queue instead of failing, synchronous=FULL so that a
// committed run survives a crash of the process or the machine.
#pragma once

#include <memory>
#include <string>

#include "runs/database.h"

namespace paratune {

// Opens the SQLite file at `path`, creating it and its directory when absent if `create`;
// otherwise a missing file is an error ("no run registry here"). A path that exists but is not
// a regular file (a FIFO, a directory) is refused. Throws InputError naming the path and the
// reason.
std::unique_ptr<Database> OpenSqliteDatabase(const std::string& path, bool create = true);

}  // namespace paratune
