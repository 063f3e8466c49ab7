// StepCosts: what each pipeline stage of a layout costs, before any schedule is chosen: per
// micro-batch its forward, backward and weight-gradient times (with the in-stage TP, CP and EP
// communication that stays exposed), its parameters, model states and per-micro-batch
// activations; per step its data-parallel gradient reduction, parameter gathers and optimizer;
// and the pipeline transfer between stages. The step composer (step/compose.h) runs a schedule
// over these costs. docs/cost-model.md derives every term.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cost/layer_cost.h"
#include "cost/link_use.h"
#include "cost/memory.h"
#include "cost/stage_passes.h"
#include "hardware/cluster.h"
#include "layout/layout.h"
#include "model/model_spec.h"

namespace paratune {

struct StageCost : StagePasses {
  double recompute_s = 0;        // the part of compute_s that recomputes forward work
  double nccl_contention_s = 0;  // the part of compute_s lost to the SMs of the ZeRO-2/3 collectives under it
  double tp_exposed_s = 0;       // exposed in-stage communication by kind, forward + backward
  double cp_exposed_s = 0;
  double ep_exposed_s = 0;
  // Activation offloading (Layout::offload_layers): the layers offloaded, the bytes one
  // micro-batch copies to the host (and back), and the copy time not hidden behind the passes,
  // forward + backward (within forward_s and backward_s).
  int offloaded_layers = 0;
  double offload_bytes = 0;
  double offload_exposed_s = 0;
  double time_s() const { return compute_s + tp_exposed_s + cp_exposed_s + ep_exposed_s + offload_exposed_s; }
  // How long the passes' own collectives (TP, CP, EP, hidden or not) hold each port of the GPU
  // (cost/link_use.h) per micro-batch through all of the rank's chunks, in the forward and in
  // the backward (recomputation included). Never more than the pass itself.
  PortTimes forward_ports_s;
  PortTimes backward_ports_s;

  double dense_params = 0;  // parameters held (before ZeRO sharding), dense and expert weights
  double expert_params = 0;
  double params() const { return dense_params + expert_params; }
  double activation_bytes = 0;              // what one micro-batch in flight keeps on this rank
  double working_bytes = 0;                 // full recomputation: one layer's activations while it reruns
  double weight_grad_activation_bytes = 0;  // per micro-batch with its B done and W pending
  // The GEMM weights of its layers as Transformer Engine registers them: the elements of their
  // distinct shapes and of the largest (weight-gradient placeholders, per-tensor ZeRO-3 buffers).
  double distinct_weight_elems = 0;
  double largest_weight_elems = 0;
  // One micro-batch through each of the rank's vp chunks (virtual stage order): the passes the
  // simulator runs; the chunks sum to forward_s, backward_s and weight_grad_s.
  struct ChunkCost {
    double forward_s = 0;
    double backward_s = 0;
    double weight_grad_s = 0;
  };
  std::vector<ChunkCost> chunks;
  MemoryBreakdown memory;  // everything but the in-flight activations and their slack

  // Data parallelism, whole step, over the stage's parameters; dense weights reduce over DP x CP,
  // expert weights over expert-DP. Bucketed as Megatron-LM's DDP or per block (FSDP).
  double grad_reduce_dense_s = 0;  // all-reduce (ZeRO-0) or reduce-scatter (ZeRO >= 1)
  double grad_reduce_expert_s = 0;
  double param_gather_dense_s = 0;  // all-gather of the updated (ZeRO-1/2) or needed (ZeRO-3) params
  double param_gather_expert_s = 0;
  double grad_reduce_s() const { return grad_reduce_dense_s + grad_reduce_expert_s; }
  double param_gather_s() const { return param_gather_dense_s + param_gather_expert_s; }
  double optimizer_s = 0;
};

// One group of the layout: its size and whether it leaves the NVLink domain.
struct GroupCost {
  int size = 1;
  bool crosses_domain = false;
};

struct StepCosts {
  std::vector<StageCost> stages;
  int64_t micro_batches = 0;
  int critical_stage = 0;  // the stage with the longest time per micro-batch
  LayerCost dense;         // per layer, for the communication table
  LayerCost moe;
  double p2p_bytes = 0;  // one PP send of a micro-batch's activations (scatter-gathered over TP)
  double p2p_s = 0;
  GroupCost pp_group, tp_group, cp_group, ep_group, dense_dp_group, expert_dp_group;
  GroupLinks pp_links, dense_dp_links, expert_dp_links;  // where those collectives run
  // ZeRO-3 all-gathers of a stage's parameters per micro-batch: before its forward and its
  // backward, and once more before the recomputed forward under per-tensor gathering.
  int zero3_gathers_forward = 0;
  int zero3_gathers_backward = 0;
  double total_params = 0;
  double active_params = 0;
  std::vector<std::string> warnings;  // those that do not depend on the schedule
};

// Bytes per parameter of the data-parallel gradient reduction: the gradient buffer's dtype, FP32
// (Megatron's default main-grad dtype with BF16) or 16-bit with --grad-reduce-in-bf16.
double GradCommBytesPerParam(const Layout& l);

// The dense and MoE layer costs of a layout (cost/layer_cost.h), which a search may compute once
// for every layout that shares them: they depend on tp, cp, ep, etp, the micro-batch, the
// recomputation and the switches, not on pp, vp, the split, dp or the ZeRO stage.
struct LayerCosts {
  LayerCost dense, moe;
};
LayerCosts ComputeLayerCosts(const ModelSpec& m, const ClusterSpec& c, const Training& t, const Layout& l);

// For a layout that passed CheckLayout (layout.dp filled in). `layers`: its LayerCosts when the
// caller has them (the planner's cache), else computed here. The three steps below, in order.
StepCosts ComputeStepCosts(const ModelSpec& m, const ClusterSpec& c, const Training& t, const Layout& l,
                           const StateBytesPerParam& state_bytes, const LayerCosts* layers = nullptr);

// What the ZeRO stage does not change: the passes, chunks, port times, activations, parameters
// held and the groups. Memory, the data-parallel terms, the optimizer and the critical stage are
// left at zero for ApplyZeroStage, so a search can share these across the ZeRO stages.
StepCosts ComputeZeroFreeStepCosts(const ModelSpec& m, const ClusterSpec& c, const Training& t, const Layout& l,
                                   const LayerCosts* layers = nullptr);
// Adds what l.zero changes, once, to costs from ComputeZeroFreeStepCosts for the same layout but
// its ZeRO stage: each stage's memory (but the activations in flight), its data-parallel gradient
// reduction and parameter gathers, its optimizer step, the passes stretched by NCCL's SMs under
// ZeRO-2/3, and the critical stage.
void ApplyZeroStage(StepCosts& sc, const ModelSpec& m, const ClusterSpec& c, const Training& t, const Layout& l,
                    const StateBytesPerParam& state_bytes);
// The warnings that depend on neither the schedule nor the ZeRO stage.
void AddStepWarnings(StepCosts& sc, const ModelSpec& m, const ClusterSpec& c, const Training& t, const Layout& l);

}  // namespace paratune
