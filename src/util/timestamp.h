// Wall-clock timestamps as logs and telemetry print them, to seconds since the Unix epoch and
// back. Printed local times carry no zone; they are read as if UTC, which keeps every difference
// right and prints them back unchanged.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace paratune {

// Accepts "YYYY-MM-DD HH:MM:SS", with '/' instead of '-' (nvidia-smi: "2024/05/01 12:00:00.123"),
// 'T' instead of the space, and a fractional part after '.' or ',' (Python logging's ",123").
// Leading and trailing blanks are ignored; anything else after the seconds is not accepted.
// nullopt when the text is not such a timestamp or a field is out of range (month 13, second 61).
std::optional<double> ParseTimestamp(std::string_view text);

// "YYYY-MM-DD HH:MM:SS" (seconds truncated), the form diagnose's `where.time_ranges` use.
std::string FormatTimestamp(double epoch_s);

}  // namespace paratune
