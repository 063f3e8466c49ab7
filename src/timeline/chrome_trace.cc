#include "timeline/chrome_trace.h"

#include <algorithm>

#include "util/file.h"

namespace paratune {

nlohmann::json ChromeTraceJson(const Timeline& t) {
  using nlohmann::json;
  json events = json::array();
  int ranks = t.ranks;
  for (const TimelineEvent& e : t.events) ranks = std::max(ranks, e.rank + 1);
  for (int r = 0; r < ranks; ++r) {
    events.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", r}, {"args", {{"name", "stage " + std::to_string(r)}}}});
    events.push_back({{"name", "process_sort_index"}, {"ph", "M"}, {"pid", r}, {"args", {{"sort_index", r}}}});
    for (size_t s = 0; s < t.stream_names.size(); ++s)
      events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", r}, {"tid", s}, {"args", {{"name", t.stream_names[s]}}}});
  }
  for (const TimelineEvent& e : t.events) {
    json args = {{"phase", PhaseName(e.phase)}};
    if (e.micro_batch >= 0) args["micro_batch"] = e.micro_batch;
    if (e.virtual_stage >= 0) args["virtual_stage"] = e.virtual_stage;
    std::string name = e.name;
    if (name.empty()) {
      name = PhaseName(e.phase);
      if (e.micro_batch >= 0) name += std::to_string(e.micro_batch);  // "F3", "send12"
    }
    events.push_back({{"name", std::move(name)},
                      {"cat", PhaseName(e.phase)},
                      {"ph", "X"},
                      {"pid", e.rank},
                      {"tid", e.stream},
                      {"ts", e.start_s * 1e6},
                      {"dur", e.duration_s * 1e6},
                      {"args", std::move(args)}});
  }
  return {{"traceEvents", std::move(events)}, {"displayTimeUnit", "ms"}};
}

void WriteChromeTrace(const Timeline& t, const std::string& path) {
  WriteFileAtomic(path, ChromeTraceJson(t).dump() + "\n");
}

}  // namespace paratune
