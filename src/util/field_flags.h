// The library names input fields in backquotes (`tp`, `global_batch`); the CLI and the Python
// module show them as the flags that set them (--tp, --global-batch). This is the one table from
// field to flag, and InputErrorText is the one line both show for an InputError.
#pragma once

#include <string>

namespace paratune {

// `message` with every `field` replaced by its flag, or by the bare field name when no flag sets
// it (a field read from a file keeps its name).
std::string WithFlagNames(const std::string& message);

// `s` on one line: newlines and carriage returns as \n and \r (error messages echo user input).
std::string OneLine(const std::string& s);

// What the CLI prints after "paratune: error: " for an InputError, and the message of the Python
// module's paratune.InputError: OneLine(WithFlagNames(what)).
std::string InputErrorText(const std::string& what);

}  // namespace paratune
