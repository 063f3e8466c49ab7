// Percent-encoding of one URL path segment or query value (RFC 3986 section 2.1): the
// unreserved characters of section 2.3 (ALPHA, DIGIT, "-", ".", "_", "~") as they are, every
// other byte as %XX with upper-case hex digits. The dashboard's links to run names use it.
#pragma once

#include <string>
#include <string_view>

namespace paratune {

std::string PercentEncode(std::string_view s);

}  // namespace paratune
