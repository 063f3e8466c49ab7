// Reading and atomically writing whole files, with errors as InputError naming the path.
#pragma once

#include <string>

namespace paratune {

// The bytes of `path`; throws InputError("PATH: cannot read: REASON").
std::string ReadFile(const std::string& path);

// Writes `content` to a temporary file beside `path`, then renames it over `path`, so that a
// failure never leaves a half-written file. Throws InputError on failure.
void WriteFileAtomic(const std::string& path, const std::string& content);

}  // namespace paratune
