#include "emit/emit_layout.h"

#include "layout/constraints.h"
#include "util/error.h"

namespace paratune {

Emitted EmitLayout(Framework f, const Scenario& s) {
  EmitInput in{s.model, s.cluster, s.training, s.layout};
  const auto violations = CheckLayout(in.model, in.cluster, in.training, in.layout, s.rules);
  if (!violations.empty()) throw InputError(DescribeViolations(violations));
  return EmitSettings(f, in);
}

}  // namespace paratune
