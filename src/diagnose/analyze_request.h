// AnalyzeRequest: what `paratune analyze` and paratune.analyze() are asked (the trace files, how
// to read and measure them, and the scenario flags given beside them), and RunAnalyze, which does
// it: reads the traces (trace/trace_set.h), measures them (analysis/trace_analysis.h), sets the
// cost model's prediction beside them when a model is given (compare/prediction.h) and keeps the
// cluster for the link ceilings when a GPU is given (diagnose/link_ceiling.h). AnalyzedJson is
// the paratune.analyze/1 document (docs/json.md). One definition for the CLI and the Python module.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <optional>
#include <string>
#include <vector>

#include "analysis/trace_analysis.h"
#include "analysis/trace_diff.h"
#include "compare/prediction.h"
#include "hardware/cluster.h"
#include "scenario/scenario_request.h"
#include "trace/trace_set.h"
#include "util/process_group.h"

namespace paratune {

struct AnalyzeRequest {
  std::vector<std::string> inputs;  // trace files or directories
  std::optional<int> rank;          // the rank shown in detail (must be in the traces); none: the lowest
  bool exact_ns = false;            // ns timestamps kept (HTA rounds to whole µs)
  bool include_last_step = false;   // HTA drops the last ProfilerStep
  bool allow_partial = false;       // a truncated trace read as far as it goes
  int top = 10;                     // kernels listed per kernel type
  int threads = 0;                  // 0: one per core
  std::string kernel_sequences;     // HTA's frequent kernel sequences of the operators named like this
  int min_sequence_length = 3;      // GPU events a sequence has at least (1 to 1000)
  // HTA's critical path of each rank (analysis/critical_path.h) in the window of the events whose
  // name contains this ("" : the whole trace); instances "N" or "A-B" of it (from 0); events whose
  // name contains one of data_load_events are data loading.
  std::optional<std::string> critical_path;
  std::string critical_path_instances = "0";
  std::vector<std::string> data_load_events;
  bool keep_critical_path = false;  // keep the path's events and edges for an overlay (--trace-out)
  ScenarioRequest scenario;         // --model/--hidden given: the prediction; --gpu given: ceilings
  // A trace diff (analysis/trace_diff.h), asked for by any of the first three: the control run's
  // traces (the analysed ones are the test), or, without them, two selections of the analysed
  // traces. The selections are "CONTROL:TEST" specs (ParseDiffPair).
  std::vector<std::string> diff_against;
  std::optional<std::string> diff_steps, diff_ranks;
  std::string diff_device = "all";  // kDiffDeviceNames
  bool diff_short_names = false;
  Progress* progress = nullptr;  // told the files read
  // The processes a launcher started (util/process_group.h): with two or more, each reads and
  // measures its share of the files (analysis/distributed_analysis.h) and AnalyzedTraces::ranks
  // stays empty; a trace diff then needs one process. nullptr: this process reads everything.
  ProcessGroup* group = nullptr;
};

struct AnalyzedTraces {
  std::vector<RankTrace> ranks;  // the events read (the reduced trace is drawn from them); empty across processes
  TraceAnalysis analysis;
  double read_s = 0;  // wall time reading the files
  std::optional<PredictionComparison> prediction;
  std::string prediction_label;  // "model on N x GPU, tp .. mbs .." when predicted
  std::optional<ClusterSpec> ceiling_cluster;
  std::optional<TraceDiff> diff;
};

// Throws InputError for bad input (a file, a rank not in the traces, a bad scenario flag).
AnalyzedTraces RunAnalyze(const AnalyzeRequest& r);

nlohmann::json AnalyzedJson(const AnalyzedTraces& a);

}  // namespace paratune
