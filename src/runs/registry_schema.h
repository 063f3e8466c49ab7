// The run registry's schema: THE list of its migrations (version 1 = the initial schema), in
// portable SQL for SQLite and PostgreSQL. Tables and columns: docs/runs.md "Schema".
#pragma once

#include <vector>

#include "runs/migrations.h"

namespace paratune {

const std::vector<Migration>& RegistryMigrations();

}  // namespace paratune
