// The PostgreSQL back end of Database, through libpq (Debian 12 libpq-dev): one connection, text
// parameters bound with PQexecParams, results read back by column type.
#pragma once

#include <memory>
#include <string>

#include "runs/database.h"

namespace paratune {

// `location` is a postgresql:// or postgres:// URI, or "postgresql:" followed by a libpq
// key=value string. Throws InputError naming the redacted location and libpq's one-line reason.
std::unique_ptr<Database> OpenPostgresDatabase(const std::string& location);

}  // namespace paratune
