// EmitLayout: the framework settings of one given layout (not a plan's winner): the layout is
// checked against the rule table first, which fills in its data-parallel size, so a broken layout
// is an InputError listing every broken rule, as `paratune estimate` says it.
#pragma once

#include "emit/emit.h"
#include "scenario/resolve_scenario.h"

namespace paratune {

Emitted EmitLayout(Framework f, const Scenario& s);

}  // namespace paratune
