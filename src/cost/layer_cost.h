// LayerCost: the time of one transformer layer (dense or MoE) for one micro-batch on one GPU under
// a layout: GEMMs from their shapes, attention, memory-bound kernels, and the tensor-, context-
// and expert-parallel communication with what of it stays exposed. docs/cost-model.md derives
// every term.
#pragma once

#include "hardware/cluster.h"
#include "layout/layout.h"
#include "model/model_spec.h"

namespace paratune {

struct LayerCost {
  double fwd_compute_s = 0;
  double bwd_compute_s = 0;
  double wgrad_s = 0;          // the weight-gradient GEMMs of bwd_compute_s (W of zero-bubble schedules)
  double attention_fwd_s = 0;  // part of fwd_compute_s, for selective recompute and CP overlap
  double attention_bwd_s = 0;  // part of bwd_compute_s
  // What selective recomputation reruns of this layer's forward (Layout::recompute_modules):
  // its attention core by default.
  double recompute_fwd_s = 0;
  bool recompute_moe_block = false;  // the whole MoE block, its dispatch and combine included
  double gemm_fwd_s = 0;             // for TP overlap
  double tp_fwd_s = 0, tp_bwd_s = 0;
  double cp_fwd_s = 0, cp_bwd_s = 0;
  double ep_fwd_s = 0, ep_bwd_s = 0;
  double tp_exposed_fwd_s = 0, tp_exposed_bwd_s = 0;
  double ep_exposed_fwd_s = 0, ep_exposed_bwd_s = 0;
  double cp_exposed_fwd_s = 0, cp_exposed_bwd_s = 0;
  // Per-call figures for the communication table.
  double tp_bytes = 0, tp_call_s = 0;
  int tp_calls_fwd = 0, tp_calls_bwd = 0;
  double cp_bytes = 0, cp_call_s = 0;
  int cp_calls_fwd = 0, cp_calls_bwd = 0;
  double ep_bytes = 0, ep_call_s = 0;
  double expert_tokens = 0;  // routed token copies on this GPU per micro-batch
  // The host's time to issue the pass's kernels, and what of it the GPU waits for (within
  // fwd_compute_s and bwd_compute_s; cost/host_launch.h).
  double host_fwd_s = 0, host_bwd_s = 0;
  double host_exposed_fwd_s = 0, host_exposed_bwd_s = 0;

  double exposed_fwd_s() const { return tp_exposed_fwd_s + cp_exposed_fwd_s + ep_exposed_fwd_s; }
  double exposed_bwd_s() const { return tp_exposed_bwd_s + cp_exposed_bwd_s + ep_exposed_bwd_s; }
};

// The ranks a token's top-k experts span on average, with k distinct experts drawn uniformly
// from E spread evenly over ep ranks (force-balanced routing, as the published benchmarks run):
// ep * (1 - C(E - E/ep, k) / C(E, k)); topk where experts do not divide over ep.
double DistinctRanksPerToken(int64_t experts, int64_t topk, int ep);

// HBM bytes the token dispatcher's permutations move per routed copy in a forward (16-bit
// hidden states), from Megatron-Core's dispatchers (megatron/core/transformer/moe/
// token_dispatcher.py, NVIDIA/Megatron-LM d98e8a64): MoEAlltoAllTokenDispatcher permutes
// before its all-to-all, sorts the received copies by local expert when there are several
// (sort_chunks_by_idxs), unsorts and unpermutes on the way back: 14h + 2h/K (6h + 2h/K with
// one local expert); MoEFlexTokenDispatcher (DeepEP, HybridEP) permutes the tokens it received
// (once per rank) to their experts and back: 6h + 2h*D/K. The backward moves twice as much.
double PermuteBytesPerCopy(const ModelSpec& m, const Layout& l);

// Tokens one GPU runs through its GEMMs per micro-batch: mbs * seq / cp (sequence parallelism
// gathers the TP-sharded sequence back before each GEMM).
double TokensPerMicroBatch(const Training& t, const Layout& l);

LayerCost ComputeLayerCost(const ModelSpec& m, bool moe_layer, const ClusterSpec& c, const Training& t,
                           const Layout& l);

}  // namespace paratune
