// PLACEHOLDER on main until the helper branch with the real reader merges: on a merge conflict
// (add/add) keep the other side entirely.
#include "trace/gpu_telemetry.h"

#include "util/error.h"

namespace paratune {
bool LooksLikeGpuTelemetry(std::string_view) { return false; }
GpuTelemetry ParseGpuTelemetry(std::string_view, const std::string& where) { throw InputError(where + ": telemetry reader not built"); }
GpuTelemetry ReadGpuTelemetry(const std::string& path) { return ParseGpuTelemetry("", path); }
std::string ClockReasonNames(uint64_t) { return ""; }
}  // namespace paratune
