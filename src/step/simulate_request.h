// SimulateRequest and RunSimulate: `paratune simulate` and paratune.simulate(): one step of a
// scenario composed with the events recorded when a trace, a text Gantt chart or the timeline is
// asked for (the timeline with every micro-batch up to 1,024, the size the report's Gantt chart
// is built for), and SimulatedJson, the paratune.simulate/1 document with the timeline added
// when asked. One definition for the CLI and the Python module.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <string>

#include "scenario/resolve_scenario.h"
#include "step/compose.h"

namespace paratune {

struct SimulateRequest {
  bool record_events = false;  // keep every simulated event (a Chrome trace, the text Gantt chart)
  bool timeline = false;       // the events in the document (implies record_events)
};

StepResult RunSimulate(const Scenario& s, const SimulateRequest& r);

// `trace_path`: the Chrome-trace file written beside it, or "".
nlohmann::json SimulatedJson(const StepResult& step, const SimulateRequest& r, const std::string& trace_path);

}  // namespace paratune
