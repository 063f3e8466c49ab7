// GpuTelemetry: per-GPU samples over time from `nvidia-smi --query-gpu=... --format=csv [-l N]`,
// `dcgmi dmon -e 1001,1002,1003,1004,1005` or NVIDIA's DCGM exporter scraped to a file
// (trace/dcgm_exporter.h): utilisation, SM clock and its maximum, power and
// its limit, temperature, the clock-event (throttle) reason bitmask, and DCGM's activity ratios.
// Fields a capture lacks are NaN (or `reasons_known` false).
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace paratune {

enum class TelemetrySource { kNvidiaSmi, kDcgmiDmon, kDcgmExporter };

// NVML clock-event reason bits (nvml.h, nvmlClocksEventReason*; nvidia-smi
// clocks_event_reasons.active). The one list: names for output come from here.
// What a throttling bit is attributed to: the thermal_throttling and power_throttling rules each
// take the bits of their cause from this list (nvml.h's descriptions of each reason).
enum class ClockReasonCause { kNone, kPower, kThermal };
struct ClockReasonBit {
  uint64_t bit;
  const char* name;
  bool throttling;         // false for GPU idle (0x1) and the informational bits
  ClockReasonCause cause;  // kNone for the bits that are not throttling
};
// nvml.h describes 0x8 HW slowdown (clocks cut by a factor of 2 or more) as a sign of a too high
// temperature, an external power brake or a too high power draw; it is attributed to thermal
// here and 0x80 (the power brake) to power, so a power brake that raises both bits is reported by
// both rules.
inline constexpr ClockReasonBit kClockReasonBits[] = {
    {0x1, "gpu_idle", false, ClockReasonCause::kNone},
    {0x2, "applications_clocks_setting", false, ClockReasonCause::kNone},
    {0x4, "sw_power_cap", true, ClockReasonCause::kPower},
    {0x8, "hw_slowdown", true, ClockReasonCause::kThermal},
    {0x10, "sync_boost", false, ClockReasonCause::kNone},
    {0x20, "sw_thermal_slowdown", true, ClockReasonCause::kThermal},
    {0x40, "hw_thermal_slowdown", true, ClockReasonCause::kThermal},
    {0x80, "hw_power_brake_slowdown", true, ClockReasonCause::kPower},
    {0x100, "display_clock_setting", false, ClockReasonCause::kNone},
};

// The OR of the bits of kClockReasonBits attributed to `cause`.
constexpr uint64_t ClockReasonMask(ClockReasonCause cause) {
  uint64_t m = 0;
  for (const auto& b : kClockReasonBits)
    if (b.throttling && b.cause == cause) m |= b.bit;
  return m;
}

// The OR of every throttling bit (any cause).
constexpr uint64_t ThrottlingReasonMask() {
  uint64_t m = 0;
  for (const auto& b : kClockReasonBits)
    if (b.throttling) m |= b.bit;
  return m;
}

struct TelemetrySample {
  int line = 0;    // 1-based line in the file
  int sample = 0;  // index of the sample this row belongs to (all GPUs of one poll share it)
  int gpu = -1;    // GPU index
  double time_s = std::numeric_limits<double>::quiet_NaN();         // seconds since the epoch; dcgmi: sample * interval
  double util_fraction = std::numeric_limits<double>::quiet_NaN();  // utilization.gpu
  double sm_clock_hz = std::numeric_limits<double>::quiet_NaN();
  double max_sm_clock_hz = std::numeric_limits<double>::quiet_NaN();
  double power_w = std::numeric_limits<double>::quiet_NaN();
  double power_limit_w = std::numeric_limits<double>::quiet_NaN();
  double temperature_c = std::numeric_limits<double>::quiet_NaN();
  uint64_t reasons = 0;
  bool reasons_known = false;
  // dcgmi dmon profiling fields, ratios 0..1 (1001 GRACT, 1002 SMACT, 1003 SMOCC, 1004 TENSO, 1005 DRAMA)
  double gr_active = std::numeric_limits<double>::quiet_NaN();
  double sm_active = std::numeric_limits<double>::quiet_NaN();
  double sm_occupancy = std::numeric_limits<double>::quiet_NaN();
  double tensor_active = std::numeric_limits<double>::quiet_NaN();
  double dram_active = std::numeric_limits<double>::quiet_NaN();
};

struct GpuTelemetry {
  std::string path;
  TelemetrySource source = TelemetrySource::kNvidiaSmi;
  std::vector<TelemetrySample> samples;                          // file order
  int gpus = 0;                                                  // distinct GPU indices
  int sample_count = 0;                                          // distinct samples
  double interval_s = std::numeric_limits<double>::quiet_NaN();  // median time between samples
};

bool LooksLikeGpuTelemetry(std::string_view head);

// Sets gpus, sample_count and interval_s (the median step between consecutive samples' times,
// each sample's time that of its first row) once a reader has filled `samples`.
void SetTelemetrySampling(GpuTelemetry* t, int gpus, int samples);

// Parses nvidia-smi CSV (header with canonical names and units, "[N/A]" values, either
// clocks_throttle_reasons.active or clocks_event_reasons.active, reasons in hex) or dcgmi dmon
// text, or DCGM exporter text (trace/dcgm_exporter.h). Errors are InputError naming the file,
// line and field.
GpuTelemetry ParseGpuTelemetry(std::string_view text, const std::string& where);
GpuTelemetry ReadGpuTelemetry(const std::string& path);

// "sw_power_cap|hw_thermal_slowdown" for a bitmask (names from kClockReasonBits, in bit order;
// bits NVML does not define print as "0x200"), "none" for 0.
std::string ClockReasonNames(uint64_t reasons);

}  // namespace paratune
