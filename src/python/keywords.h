// The Python module's keyword arguments: the CLI's flags with underscores (global_batch for
// --global-batch), read into the library's requests (scenario/scenario_request.h,
// plan/plan_search.h) and the training budget's text (step/training_budget.h). A keyword given
// as None counts as not given, so the defaults are the CLI's. A keyword no table names, or a
// value of the wrong type, is a Python TypeError.
#pragma once

#include <pybind11/pybind11.h>

#include <optional>
#include <string>
#include <vector>

#include "scheduling/cluster_request.h"
#include "diagnose/analyze_request.h"
#include "plan/plan_search.h"
#include "step/simulate_request.h"
#include "scenario/scenario_request.h"

namespace paratune::python {

struct Keywords {
  ScenarioRequest scenario;
  PlanSearch search;                          // plan() only
  std::optional<std::string> train_tokens;    // estimate() and plan(): --train-tokens
  std::optional<std::string> gpu_hour_price;  // --gpu-hour-price
  AnalyzeRequest analyze;                     // analyze() and diagnose(): how traces are read (and measured)
  std::optional<std::string> from_megatron;   // estimate(): --from-megatron
  bool ignore_unknown = false;                // --ignore-unknown
  SimulateRequest simulate;                   // simulate(): --timeline
  std::optional<std::string> trace;           // the Chrome trace written: simulate()'s and analyze()'s trace_out
  ClusterRequest cluster;                     // cluster.replay()
};

// The groups of keywords; a function takes the groups it names (kScenario | kBudget, ...).
enum Takes : unsigned {
  kScenario = 1,
  kBudget = 2,     // train_tokens, gpu_hour_price
  kSearch = 4,     // plan's bounds, top, objective, headroom, sweep
  kTraces = 8,     // analyze's rank, exact_ns, include_last_step, top, trace_out
  kMegatron = 16,  // estimate's from_megatron, ignore_unknown
  kReading = 32,   // analyze's and diagnose's allow_partial, threads
  kSimulate = 64,  // simulate's timeline, trace_out
  kCluster = 128,  // cluster.replay()'s job_history, topology, policies, job defaults, replay options
};

// Reads `kwargs`; `function` names the caller in a TypeError ("plan() got an unexpected keyword
// argument 'x'"); `takes` is an or of the groups it accepts.
Keywords ReadKeywords(const pybind11::dict& kwargs, const char* function, unsigned takes);

// The CLI flag of a keyword: "--" and the name with '-' for '_' ("trace_out" -> "--trace-out").
std::string FlagOf(const std::string& keyword);

// The names of the keywords of the groups in `takes`, in table order (for the tests that hold
// the stubs, the docstrings and the CLI's flags to the table).
std::vector<std::string> KeywordNames(unsigned takes);

}  // namespace paratune::python
