// Which software stack ran a published row: its source (and, for Megatron-Bridge, the NeMo
// container release in table_or_section and the performance recipe of that release for the
// row's model, GPU and precision) mapped onto a stack and its features (layout/stack_catalog.h).
// This describes the input from the recipe files each source ran; nothing is fitted per row.
#pragma once

#include <string>

#include "validate/published_runs.h"

namespace paratune {

// Sets r.layout.stack (and the switches the stack decides) from the row's source, section and
// notes; appends what it assumed to r.assumptions.
void MapStack(const std::string& section, const std::string& notes, PublishedRun& r);

}  // namespace paratune
