// InputError: what the library throws when user input (a file, a flag, a layout) is unusable.
// The message is one line naming the file, field or flag and what is wrong; the CLI prints it
// and exits with status 2. Programming errors are not InputError.
#pragma once

#include <stdexcept>
#include <string>

namespace paratune {

class InputError : public std::runtime_error {
 public:
  explicit InputError(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace paratune
