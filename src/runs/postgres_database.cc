// Placeholder until the libpq back end lands (issue 14, branch i14-pg): PostgreSQL locations are
// refused with one line instead of a link error.
#include "runs/postgres_database.h"

#include "util/error.h"

namespace paratune {

std::unique_ptr<Database> OpenPostgresDatabase(const std::string& location) {
  throw InputError(RedactLocation(location) + ": this build has no PostgreSQL back end yet");
}

}  // namespace paratune
