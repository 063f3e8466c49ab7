// Estimate: the answer for one training step of a model on a cluster under a layout: time
// (compute, exposed communication by kind, pipeline bubble, optimizer), memory per pipeline
// stage, throughput, MFU/HFU and warnings. The step composer (step/compose.h) builds it from the
// stage costs (cost/stage_costs.h) and one simulation of the layout's pipeline schedule, so
// every command gives one step time per layout. docs/cost-model.md derives every term.
#pragma once

#include <string>
#include <vector>

#include "cost/memory.h"
#include "cost/stage_passes.h"
#include "hardware/cluster.h"
#include "layout/layout.h"
#include "layout/constraints.h"
#include "model/model_spec.h"
#include "schema/step_time.h"

namespace paratune {

// One kind of collective of the step, summed over the step.
struct CommItem {
  std::string kind;  // "tp", "cp", "ep", "pp", "dp" (dense weights), "edp" (expert weights)
  std::string op;    // "all-reduce", "all-gather", "reduce-scatter", "all-to-all", "send-recv"
  int group_size = 1;
  bool crosses_domain = false;
  double bytes_per_call = 0;
  double calls_per_step = 0;  // on the critical pipeline stage
  double time_per_call_s = 0;
  double total_s = 0;
  double exposed_s = 0;  // what stays on the critical path after overlap
};

// How long one link of a GPU is busy with collectives in the step (cost/link_use.h ports), on
// the pipeline stage where it is busiest. Busy time counts each transfer at the link's full
// rate; it never exceeds the step (docs/cost-model.md, "Link occupancy").
struct LinkLoad {
  std::string link;  // PortName: "scale_up", "scale_out", "spine"
  int stage = 0;
  double busy_s = 0;       // forward_s + backward_s + pp_s + dp_s
  double utilisation = 0;  // busy_s / step_time_s
  double forward_s = 0;    // in-stage collectives (TP, CP, EP) of the forward passes
  double backward_s = 0;   // ... of the backward passes (recomputation included)
  double pp_s = 0;         // pipeline sends
  double dp_s = 0;         // data-parallel reductions and ZeRO gathers
};

// A link busier than this share of the step is reported as the step's bottleneck.
inline constexpr double kLinkBottleneckUtilisation = 0.9;

// One pipeline stage in the estimate: its passes as the cost model gave them (StagePasses) and
// what the step adds: the micro-batches the schedule keeps in flight, the stage's step-level
// figures, and its memory with those activations.
struct StageEstimate : StagePasses {
  double inflight_microbatches = 0;
  double params = 0;          // parameters held (before ZeRO sharding)
  double grad_reduce_s = 0;   // DP gradient all-reduce or reduce-scatter of the stage, whole
  double param_gather_s = 0;  // ZeRO all-gather of the stage's parameters, one pass
  double optimizer_s = 0;     // optimizer step of the stage
  MemoryBreakdown memory;
};

struct Estimate {
  std::string model;
  std::string gpu;
  int gpus = 0;
  int nodes = 0;
  Layout layout;
  Training training;
  std::string schedule;  // the pipeline schedule simulated (ScheduleName)
  int64_t micro_batches = 0;
  double p2p_time_s = 0;   // one PP send/recv of a micro-batch's activations between adjacent stages
  int critical_stage = 0;  // the stage whose time the breakdown follows (longest per micro-batch)
  int end_stage = 0;  // the stage that ends the step (the simulated critical path's end): its DP tail and optimizer are
                      // the breakdown's

  double step_time_s = 0;
  double tokens_per_s = 0;
  double tokens_per_s_per_gpu = 0;
  double model_flops_per_step = 0;
  double hardware_flops_per_step = 0;
  double model_tflops_per_gpu = 0;  // achieved model TFLOP/s per GPU
  double mfu = 0;                   // vs the dense peak of the training precision (step/mfu.h)
  double hfu = 0;                   // the same with recomputation FLOPs
  double mfu_vs_bf16 = 0;           // vs the dense BF16 peak: one denominator for every precision
  double comm_share = 0;            // exposed communication / step time
  double bubble_rate = 0;           // bubble / step time

  TimeBreakdown time;
  std::vector<CommItem> comms;
  std::vector<LinkLoad> links;  // one per link the step uses, in Port order
  std::vector<StageEstimate> stages;
  int peak_stage = 0;
  double peak_memory_bytes = 0;     // the largest stage total: what must fit in capacity_bytes
  double peak_allocated_bytes = 0;  // the largest stage's allocated bytes (torch.cuda.max_memory_allocated)
  double capacity_bytes = 0;
  bool fits = false;

  double total_params = 0;
  double active_params = 0;
  std::vector<std::string> warnings;
};

struct EstimateOptions {
  ConstraintOptions rules;
  StateBytesPerParam state_bytes;
};

// The step of a layout (step/compose.h has the simulation beside it). Throws InputError listing
// every broken layout rule.
Estimate EstimateStep(const ModelSpec& model, const ClusterSpec& cluster, const Training& training, Layout layout,
                      const EstimateOptions& options = {});

// The same for a layout that already passed CheckLayout (which also filled in its dp), so a
// search that checks each candidate itself does not check it twice.
Estimate EstimateCheckedStep(const ModelSpec& model, const ClusterSpec& cluster, const Training& training,
                             const Layout& layout, const EstimateOptions& options = {});

}  // namespace paratune
