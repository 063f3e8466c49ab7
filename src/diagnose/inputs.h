// DiagnoseInputs: everything one diagnosis looks at, each file's kind detected from its content
// (not its name) and read by its reader: profiler traces (analysed), the JSON `paratune analyze`
// writes, training logs, GPU telemetry, nccl-tests output, `nvidia-smi topo -m` matrices and
// per-expert token counts; and, when the run's model, cluster and layout are given, the cost
// model's expectation for it.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analysis/trace_analysis.h"
#include "step/estimate.h"
#include "trace/expert_tokens.h"
#include "trace/gpu_telemetry.h"
#include "trace/nccl_tests.h"
#include "trace/topology_matrix.h"
#include "trace/training_log.h"
#include "util/enum_names.h"
#include "util/progress.h"

namespace paratune {

enum class InputKind { kTrace, kAnalysisJson, kTrainingLog, kGpuTelemetry, kNcclTests, kTopology, kExpertTokens };
inline constexpr EnumNames<InputKind, 7> kInputKindNames{{{{InputKind::kTrace, "trace"},
                                                           {InputKind::kAnalysisJson, "analysis"},
                                                           {InputKind::kTrainingLog, "training_log"},
                                                           {InputKind::kGpuTelemetry, "gpu_telemetry"},
                                                           {InputKind::kNcclTests, "nccl_tests"},
                                                           {InputKind::kTopology, "topology"},
                                                           {InputKind::kExpertTokens, "expert_tokens"}}}};

struct InputFile {
  std::string path;
  InputKind kind = InputKind::kTrace;
};

// The run as planned: what the cost model expects it to reach.
struct PlannedRun {
  ModelSpec model;
  ClusterSpec cluster;
  Training training;
  Layout layout;
  EstimateOptions options;
  Estimate estimate;  // EstimateStep of the above
};

struct DiagnoseInputs {
  std::vector<InputFile> files;           // in the order given
  std::vector<RankTrace> traces;          // from kTrace files (one per rank)
  std::optional<TraceAnalysis> analysis;  // of `traces`, or read back from an analysis JSON
  std::vector<TrainingLog> logs;
  std::vector<GpuTelemetry> telemetry;
  std::vector<NcclTestsRun> nccl_tests;
  std::vector<TopologyMatrix> topologies;
  std::vector<ExpertTokens> expert_tokens;
  std::optional<PlannedRun> plan;
  // The cluster as given (--gpu, --nodes or --gpus, --hardware), also without a model: what the
  // link ceilings are judged against. Equal to plan->cluster when there is a plan.
  std::optional<ClusterSpec> cluster;
  // What the readers passed over (a log's cut last line, lines skipped with allow_partial), one
  // line each, for the CLI to print as notes.
  std::vector<std::string> notes;
};

// The kind of a file from its first bytes (gzip is looked through), or InputError naming the
// file and the kinds it could be.
InputKind DetectInputKind(const std::string& path);

struct LoadOptions {
  int threads = 0;               // trace reading and analysis
  Progress* progress = nullptr;  // told the trace files read so far
  // Analyse what can be read of a truncated trace and skip malformed log lines (errors otherwise).
  bool allow_partial = false;
};

// Detects and reads every file (a directory: its files, sorted). Throws InputError on a file no
// reader accepts, a reader's error, or one file given twice (directly, through a link or a
// directory).
DiagnoseInputs LoadDiagnoseInputs(const std::vector<std::string>& paths, const LoadOptions& options = {});

}  // namespace paratune
