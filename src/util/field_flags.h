// The library names input fields in backquotes (`tp`, `global_batch`); the CLI shows them as the
// flags that set them (--tp, --global-batch). This is the one table from field to flag.
#pragma once

#include <string>

namespace paratune::cli {

// `message` with every `field` replaced by its flag, or by the bare field name when no flag sets
// it (a field read from a file keeps its name).
std::string WithFlagNames(const std::string& message);

}  // namespace paratune::cli
