// The names of the run registry's --json documents (docs/json.md, docs/runs.md): written by the
// registry (runs/runs_json.h) and drawn by the report (report/sections.cc), which sits below it
// and so finds them here.
#pragma once

namespace paratune {

inline constexpr const char* kRunsRecordSchema = "paratune.runs.record/1";
inline constexpr const char* kRunsListSchema = "paratune.runs.list/1";
inline constexpr const char* kRunsShowSchema = "paratune.runs.show/1";
inline constexpr const char* kRunsCompareSchema = "paratune.runs.compare/1";
inline constexpr const char* kRunsBaselinesSchema = "paratune.runs.baselines/1";

}  // namespace paratune
