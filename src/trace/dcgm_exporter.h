// The DCGM exporter's metrics as GpuTelemetry: NVIDIA's dcgm-exporter (github.com/NVIDIA/dcgm-exporter)
// serves DCGM fields in Prometheus's text format (`DCGM_FI_DEV_SM_CLOCK{gpu="0",UUID=...} 1980`);
// a capture is those pages over time, each sample with its timestamp: scraped through a Prometheus
// server's /federate endpoint (which adds them) or stamped while scraping (docs/diagnose-telemetry.md,
// "DCGM exporter"). The fields read, with their units: SM clock and its maximum (MHz), power and
// its management limit (W), temperature (C), utilisation (%), the clock-event (throttle) reasons
// bitmask, and the profiling ratios (graphics engine, SM active, SM occupancy, tensor pipes, DRAM).
#pragma once

#include <string>
#include <string_view>

#include "trace/gpu_telemetry.h"

namespace paratune {

// Whether the text opens like an exporter page: its first content line a `# HELP DCGM_FI_`,
// `# TYPE DCGM_FI_` or `DCGM_FI_` sample line.
bool LooksLikeDcgmExporter(std::string_view head);

// One TelemetrySample per timestamp and GPU (the `gpu` label), in time then GPU order. Throws
// InputError naming the file and line: a page outside the format, a DCGM sample without a `gpu`
// label or a timestamp, a value outside its field's range, or no DCGM sample at all.
GpuTelemetry ParseDcgmExporter(std::string_view text, const std::string& where);

}  // namespace paratune
