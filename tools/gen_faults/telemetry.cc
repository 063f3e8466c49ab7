// Fault cases of this area (tools/gen_faults/cases.h). Filled in with the rules they exercise.
#include "cases.h"

namespace paratune::faults {

void AddTelemetryCases(CaseWriter&) {}

}  // namespace paratune::faults
