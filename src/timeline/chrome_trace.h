// Chrome-trace JSON (chrome://tracing, ui.perfetto.dev) of a Timeline: one complete ("X") event
// per timeline event (named after the event, or its phase and micro-batch: "F3"), ts/dur in
// microseconds, pid = rank named "stage N", tid = stream named
// after Timeline::stream_names, args carrying phase, micro-batch and virtual stage.
// Format: "Trace Event Format", Google, docs.google.com/document/d/1CvAClvFfyA5R-PhYUmn5OOQtYMH4h6I0nSsKchNAySU.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "timeline/timeline.h"

namespace paratune {

nlohmann::json ChromeTraceJson(const Timeline& t);

// Writes ChromeTraceJson(t) to `path` atomically; throws InputError if it cannot.
void WriteChromeTrace(const Timeline& t, const std::string& path);

}  // namespace paratune
