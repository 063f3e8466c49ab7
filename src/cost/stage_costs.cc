#include "cost/stage_costs.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>
#include <vector>
#include <fmt/format.h>

#include "cost/activations.h"
#include "cost/collectives.h"
#include "cost/compute.h"

namespace paratune {
namespace {

// Adam step per locally updated parameter, by where its states live (Layout::optimizer_states):
// FP32 states: read the fp32 grad (4), read+write the fp32 master (8), m (8) and v (8), write
// the bf16 param (2), plus the grad-norm read (4): 34 bytes. With the master kept as 16-bit
// remainders, the master's read+write (8) and the bf16 write (2) become a read+write of the
// bf16 param and of its remainder (8): 32. BF16 states, no master: the bf16 grad read twice (for
// the norm and the step, 4), read+write the bf16 param (4), m (4) and v (4): 16.
double OptimizerStepBytesPerParam(OptimizerStates o) {
  switch (o) {
    case OptimizerStates::kFp32Remainders:
      return 32;
    case OptimizerStates::kBf16:
      return 16;
    case OptimizerStates::kFp32:
      break;
  }
  return 34;
}
// FP16 training scales the loss: before the step, the FP32 main gradients are unscaled and
// checked for inf/NaN in one read-write pass (Megatron-LM MixedPrecisionOptimizer
// _unscale_main_grads_and_check_for_nan, torch._amp_foreach_non_finite_check_and_unscale_).
constexpr double kLossScaleBytesPerParam = 8;
// Gradients are reduced in their buffer's dtype: FP32 (Megatron's default main_grad dtype with
// bf16 training), or 16-bit with --grad-reduce-in-bf16 (Layout::grad_reduce_in_fp32).
constexpr double kGradCommBytesFp32 = 4;
constexpr double kGradCommBytes16 = 2;
// Parameters are gathered in 16-bit.
constexpr double kParamCommBytes = 2;
// M_W / M_B of Qi et al. 2024 (arXiv 2401.10241, Table 1): 32sbh / 34sbh (scores not counted).
constexpr double kWeightGradActivationShare = 32.0 / 34.0;

// First layer of each pipeline chunk k = c*pp + s, plus the end: even split or pp_layout.
std::vector<int64_t> ChunkFirstLayers(const ModelSpec& m, const Layout& l) {
  const size_t chunks = static_cast<size_t>(l.pp) * l.vp;
  std::vector<int64_t> first(chunks + 1, 0);
  for (size_t k = 0; k < chunks; ++k)
    first[k + 1] = first[k] + (l.pp_layout.empty() ? m.layers / static_cast<int64_t>(chunks) : l.pp_layout[k]);
  return first;
}

// Parameter tensors of one layer as frameworks register them (weights, biases, norms): what a
// per-tensor ZeRO-3 gathers one at a time. Llama: 2 norms, q, k, v, o, gate, up, down = 9;
// GPT (Megatron, fused QKV): 2 LayerNorms x 2, QKV, proj, fc1, fc2 with biases = 12.
double TensorsPerLayer(const ModelSpec& m) {
  const double norms = m.norm == NormKind::kLayerNorm ? 4 : 2;
  double weights = m.attention == AttentionKind::kMla ? 5 : (m.linear_bias ? 2 : 4);
  weights += m.mlp == MlpKind::kGated ? 3 : 2;
  const double biases = m.linear_bias ? (m.mlp == MlpKind::kGated ? 5 : 4) : 0;
  return norms + weights + biases;
}

struct PassTimes {
  double forward_s = 0, backward_s = 0, weight_s = 0, compute_s = 0, recompute_s = 0, tp_s = 0, cp_s = 0, ep_s = 0;
};

// The GEMM weights of one layer on one GPU as Transformer Engine registers them, rows x cols
// (Megatron-Core's TE layer specs: fused QKV or MLA's down/up projections, the output
// projection, the MLP's fc1 (gate and up fused) and fc2, a MoE layer's shared-expert MLP).
// Routed experts run as grouped GEMMs, whose placeholders TE caches only from 2.10: left out.
std::vector<std::pair<double, double>> LayerWeightShapes(const ModelSpec& m, bool moe_layer, int tp) {
  const double h = static_cast<double>(m.hidden), t = tp, a = static_cast<double>(m.heads);
  std::vector<std::pair<double, double>> w;
  if (m.attention == AttentionKind::kMla) {
    const double qk = static_cast<double>(m.qk_head_dim()), rq = static_cast<double>(m.q_lora_rank);
    const double rkv = static_cast<double>(m.kv_lora_rank);
    if (m.q_lora_rank > 0) {
      w.push_back({rq, h});
      w.push_back({a * qk / t, rq});
    } else {
      w.push_back({a * qk / t, h});
    }
    w.push_back({rkv + static_cast<double>(m.qk_rope_head_dim), h});
    w.push_back({a * static_cast<double>(m.qk_nope_head_dim + m.v_head_dim) / t, rkv});
  } else {
    w.push_back({static_cast<double>((m.heads + 2 * m.kv_heads) * m.head_dim) / t, h});
  }
  w.push_back({h, a * static_cast<double>(m.v_dim()) / t});
  const double f =
      moe_layer ? static_cast<double>(m.shared_experts * m.shared_ffn_hidden) : static_cast<double>(m.ffn_hidden);
  if (f > 0) {
    w.push_back({(m.mlp == MlpKind::kGated ? 2 : 1) * f / t, h});
    w.push_back({h, f / t});
  }
  return w;
}

GroupCost Group(const ClusterSpec& c, int size, int stride) {
  return {size, PlaceGroup(c, {size, stride}).crosses_domain};
}

// Parameters of one layer on one GPU: a dense layer's, a MoE layer's outside its routed experts
// (attention, shared experts, router, norms) and its routed experts held by this rank.
struct LayerParams {
  double dense = 0, moe_nonexpert = 0, moe_expert = 0;
};
LayerParams LayerParamsOf(const ModelSpec& m, const Layout& l) {
  const int tp = l.tp, etp = l.expert_tp();
  LayerParams p;
  p.dense = static_cast<double>(AttentionParamsPerLayer(m) + DenseMlpParamsPerLayer(m)) / tp;
  p.moe_nonexpert = static_cast<double>(AttentionParamsPerLayer(m) + SharedExpertParamsPerLayer(m)) / tp +
                    static_cast<double>(RouterParamsPerLayer(m) + NormParams(m));
  p.moe_expert = static_cast<double>(m.experts) / l.ep * static_cast<double>(RoutedExpertParams(m)) / etp;
  return p;
}

// The ZeRO groups: dense weights shard over DP x CP, expert weights over expert data parallel
// (tp*cp*dp / (ep*etp)); Megatron-Core parallel_state.
double DenseShards(const Layout& l) { return static_cast<double>(l.dp) * l.cp; }
double ExpertShards(const Layout& l) {
  return static_cast<double>(l.tp) * l.cp * l.dp / (static_cast<double>(l.ep) * l.expert_tp());
}

}  // namespace

double GradCommBytesPerParam(const Layout& l) { return l.grad_reduce_in_fp32 ? kGradCommBytesFp32 : kGradCommBytes16; }

LayerCosts ComputeLayerCosts(const ModelSpec& m, const ClusterSpec& c, const Training& t, const Layout& l) {
  LayerCosts lc;
  lc.dense = ComputeLayerCost(m, false, c, t, l);
  if (m.is_moe()) lc.moe = ComputeLayerCost(m, true, c, t, l);
  return lc;
}

namespace {

// What the stage terms of ComputeZeroFreeStepCosts share: its inputs, the two kinds of layer's
// costs, and the figures derived from them once.
struct StageInputs {
  const ModelSpec& m;
  const ClusterSpec& c;
  const Training& t;
  const Layout& l;
  const GpuSpec& g;
  const LayerCost& dense;
  const LayerCost& moe;
  double T;  // tokens per micro-batch on one GPU
  bool sp;
  int tp;
  double logits_cols;                                 // vocabulary columns per GPU
  GroupLinks tp_links, cp_port_links, ep_port_links;  // the in-pass collectives' groups
  double dense_act, moe_act, dense_work, moe_work;    // activation and working bytes per layer
  LayerParams per_layer;
};

ActivationOptions ActivationOptionsOf(const Training& t, const Layout& l) {
  ActivationOptions act;
  act.tp = l.tp;
  act.etp = l.expert_tp();
  act.cp = l.cp;
  act.sp = l.sequence_parallel();
  act.recompute = l.recompute;
  act.flash_attention = l.flash_attention;
  act.recompute_modules = l.recompute_modules;
  act.fp8_activation_cache = l.fp8_activation_cache;
  act.precision = t.precision;
  return act;
}

// Pass times of nd dense and nm MoE layers, with the embedding and the logits and loss when
// they are part of it.
PassTimes Passes(const StageInputs& x, double nd, double nm, bool embedding, bool logits) {
  const ModelSpec& m = x.m;
  const GpuSpec& g = x.g;
  const Training& t = x.t;
  const double T = x.T;
  const int tp = x.tp;
  auto sum = [&](double LayerCost::*f) { return nd * (x.dense.*f) + nm * (x.moe.*f); };
  double fwd = sum(&LayerCost::fwd_compute_s);
  double bwd = sum(&LayerCost::bwd_compute_s);
  const double exposed_fwd =
      sum(&LayerCost::tp_exposed_fwd_s) + sum(&LayerCost::cp_exposed_fwd_s) + sum(&LayerCost::ep_exposed_fwd_s);
  double tp_exp = sum(&LayerCost::tp_exposed_fwd_s) + sum(&LayerCost::tp_exposed_bwd_s);
  double cp_exp = sum(&LayerCost::cp_exposed_fwd_s) + sum(&LayerCost::cp_exposed_bwd_s);
  double ep_exp = sum(&LayerCost::ep_exposed_fwd_s) + sum(&LayerCost::ep_exposed_bwd_s);
  double recompute = 0;
  if (x.l.recompute == Recompute::kFull) {
    recompute = fwd;
    tp_exp += sum(&LayerCost::tp_exposed_fwd_s);
    cp_exp += sum(&LayerCost::cp_exposed_fwd_s);
    ep_exp += sum(&LayerCost::ep_exposed_fwd_s);
  } else if (x.l.recompute == Recompute::kSelective) {
    recompute = sum(&LayerCost::recompute_fwd_s);  // the modules' forward work (layer_cost.cc)
  }
  if (embedding) {
    // Token lookup writes T*h 16-bit values (gather); its backward scatters the gradient.
    fwd += MemoryBoundTime(g, T * m.hidden * 2 / (x.sp ? tp : 1));
    bwd += MemoryBoundTime(g, T * m.hidden * 4 / (x.sp ? tp : 1));
  }
  if (logits) {
    const double h = static_cast<double>(m.hidden);
    fwd += GemmTime(g, t.precision, T, x.logits_cols, h);
    bwd += GemmTime(g, t.precision, T, h, x.logits_cols) + GemmTime(g, t.precision, h, x.logits_cols, T);
    // Vocab-parallel cross-entropy in FP32: read logits, write softmax, read for the grad.
    fwd += MemoryBoundTime(g, T * x.logits_cols * (2 + 4 + 4), 4);
    bwd += MemoryBoundTime(g, T * x.logits_cols * (4 + 2), 2);
    if (tp > 1) {
      const double ag = AllGatherTime(T * h * 2, tp, x.tp_links);
      tp_exp += 2 * (x.sp ? ag : 0) + 2 * AllReduceTime(T * 4, tp, x.tp_links);
    }
  }
  PassTimes p;
  p.forward_s = fwd + exposed_fwd;
  p.backward_s = bwd + recompute + (tp_exp + cp_exp + ep_exp) - exposed_fwd;
  p.compute_s = fwd + bwd + recompute;
  p.recompute_s = recompute;
  p.tp_s = tp_exp;
  p.cp_s = cp_exp;
  p.ep_s = ep_exp;
  p.weight_s = sum(&LayerCost::wgrad_s) +
               (logits ? GemmTime(g, t.precision, static_cast<double>(m.hidden), x.logits_cols, T) : 0);
  return p;
}

// In-pass collectives per layer on the ports they hold (link occupancy).
PortTimes LayerPorts(const StageInputs& x, const LayerCost& lc, bool forward) {
  PortTimes p;
  AddPortTime(p, x.tp_links, forward ? lc.tp_fwd_s : lc.tp_bwd_s);
  AddPortTime(p, x.cp_port_links, forward ? lc.cp_fwd_s : lc.cp_bwd_s);
  AddPortTime(p, x.ep_port_links, forward ? lc.ep_fwd_s : lc.ep_bwd_s);
  return p;
}

// The distinct GEMM weight shapes of a stage's layers and the largest, by the kinds of layer it
// holds (index: 1 dense, 2 MoE, 3 both): the same for every stage of a kind, so worked out once.
struct KindShapes {
  double distinct_elems = 0, largest_elems = 0;
};
std::array<KindShapes, 4> ShapesByKind(const ModelSpec& m, int tp) {
  std::array<KindShapes, 4> kind_shapes{};
  const std::vector<std::pair<double, double>> of_kind[2] = {LayerWeightShapes(m, false, tp),
                                                             LayerWeightShapes(m, true, tp)};
  std::vector<std::pair<double, double>> shapes;
  for (int kinds = 1; kinds < 4; ++kinds) {
    shapes.clear();
    for (int k = 0; k < 2; ++k)
      if (kinds & (1 << k)) shapes.insert(shapes.end(), of_kind[k].begin(), of_kind[k].end());
    std::sort(shapes.begin(), shapes.end());
    shapes.erase(std::unique(shapes.begin(), shapes.end()), shapes.end());
    for (const auto& [rows, cols] : shapes) {
      kind_shapes[kinds].distinct_elems += rows * cols;
      kind_shapes[kinds].largest_elems = std::max(kind_shapes[kinds].largest_elems, rows * cols);
    }
  }
  return kind_shapes;
}

// Stage s's passes, and each chunk's: its own layers, the embedding in the first chunk of rank
// 0, the logits and loss in the last chunk of the last rank (Megatron-LM's placement,
// transformer_block.py get_num_layers_to_build), so that uneven chunks simulate as they run;
// with the ports its in-pass collectives hold. Rank s holds chunks c*pp + s (Megatron
// interleaving) of the layers chunk_first bounds.
void SetStagePasses(StageCost& st, const StageInputs& x, const std::vector<int64_t>& chunk_first) {
  const ModelSpec& m = x.m;
  const Layout& l = x.l;
  const int pp = l.pp, vp = l.vp, s = st.index, tp = x.tp;
  for (int ch = 0; ch < vp; ++ch) {
    const size_t k = static_cast<size_t>(ch) * pp + s;
    for (int64_t layer = chunk_first[k]; layer < chunk_first[k + 1]; ++layer)
      (m.is_moe_layer(layer) ? st.moe_layers : st.dense_layers)++;
  }
  st.has_embedding = s == 0;
  st.has_logits = s == pp - 1;
  const double nd = st.dense_layers, nm = st.moe_layers;
  const PassTimes whole = Passes(x, nd, nm, st.has_embedding, st.has_logits);
  st.forward_s = whole.forward_s;
  st.backward_s = whole.backward_s;
  st.compute_s = whole.compute_s;
  st.recompute_s = whole.recompute_s;
  st.tp_exposed_s = whole.tp_s;
  st.cp_exposed_s = whole.cp_s;
  st.ep_exposed_s = whole.ep_s;
  st.weight_grad_s = whole.weight_s;
  st.forward_ports_s = LayerPorts(x, x.dense, true) * nd;
  st.forward_ports_s += LayerPorts(x, x.moe, true) * nm;
  st.backward_ports_s = LayerPorts(x, x.dense, false) * nd;
  st.backward_ports_s += LayerPorts(x, x.moe, false) * nm;
  if (l.recompute == Recompute::kFull) st.backward_ports_s += st.forward_ports_s;
  if (st.has_logits && tp > 1)
    AddPortTime(st.backward_ports_s, x.tp_links,
                2 * (x.sp ? AllGatherTime(x.T * m.hidden * 2, tp, x.tp_links) : 0) +
                    2 * AllReduceTime(x.T * 4, tp, x.tp_links));
  for (int ch = 0; ch < vp; ++ch) {
    const size_t k = static_cast<size_t>(ch) * pp + s;
    double cd = 0, cm = 0;
    for (int64_t layer = chunk_first[k]; layer < chunk_first[k + 1]; ++layer) (m.is_moe_layer(layer) ? cm : cd) += 1;
    const PassTimes c = vp == 1 ? whole : Passes(x, cd, cm, st.has_embedding && ch == 0, st.has_logits && ch == vp - 1);
    st.chunks.push_back({c.forward_s, c.backward_s, c.weight_s});
  }
}

// Activation offloading (Layout::offload_layers): Transformer Engine's
// AsyncDoubleBufferGroupOffloadHandler (transformer_engine/pytorch/cpu_offload.py, run by
// Megatron-Core's cpu_offloading_num_layers) copies each of the first N layers' saved
// tensors to the host on a side stream once the layer's forward ends and frees them when the
// next layer's forward ends (it waits for the copy there); in the backward it reloads layer
// i while layer i + 1 runs its backward. So the HBM keeps the other layers' activations
// and one offloaded layer's in flight, and each copy hides behind one layer's pass: exposed
// max(0, copy - pass) per offloaded layer and direction, at the host link's rate
// (Fabric::host_link_bytes_per_s; docs/cost-model.md, "Activation offloading").
void OffloadActivations(StageCost& st, const StageInputs& x) {
  const ModelSpec& m = x.m;
  double od = 0, om = 0;
  for (int64_t layer = 0; layer < x.l.offload_layers && layer < m.layers; ++layer)
    (m.is_moe_layer(layer) ? om : od) += 1;
  const double rate = x.c.fabric.host_link_bytes_per_s;
  const auto layer_fwd = [](const LayerCost& lc) { return lc.fwd_compute_s + lc.exposed_fwd_s(); };
  const auto layer_bwd = [](const LayerCost& lc) { return lc.bwd_compute_s + lc.exposed_bwd_s(); };
  // Exposed copy time of the offloaded layers in one direction, hidden behind `pass` of a layer.
  const auto exposed = [&](double (*pass)(const LayerCost&)) {
    return od * std::max(0.0, x.dense_act / rate - pass(x.dense)) + om * std::max(0.0, x.moe_act / rate - pass(x.moe));
  };
  const double fwd_exposed = exposed(layer_fwd), bwd_exposed = exposed(layer_bwd);
  st.offloaded_layers = static_cast<int>(od + om);
  st.offload_bytes = od * x.dense_act + om * x.moe_act;
  st.offload_exposed_s = fwd_exposed + bwd_exposed;
  st.forward_s += fwd_exposed;
  st.backward_s += bwd_exposed;
  for (StageCost::ChunkCost& ch : st.chunks) {  // pp 1: one chunk
    ch.forward_s += fwd_exposed;
    ch.backward_s += bwd_exposed;
  }
  st.activation_bytes -= st.offload_bytes;
  // The one offloaded layer in flight: the largest kind offloaded.
  st.working_bytes = std::max({st.working_bytes, od > 0 ? x.dense_act : 0.0, om > 0 ? x.moe_act : 0.0});
}

// Parameters held by the stage and its GEMM weight shapes.
void SetStageParams(StageCost& st, const StageInputs& x, const std::array<KindShapes, 4>& kind_shapes) {
  const ModelSpec& m = x.m;
  const double nd = st.dense_layers, nm = st.moe_layers;
  double dparams = nd * x.per_layer.dense + nm * x.per_layer.moe_nonexpert;
  const double table = static_cast<double>(m.vocab) * m.hidden / x.tp;
  if (st.has_embedding) dparams += table + static_cast<double>(m.learned_positions * m.hidden);
  if (st.has_logits) {
    dparams += static_cast<double>(NormParams(m));
    // Untied: the output head. Tied with pp > 1: Megatron keeps a copy of the embedding on
    // the last stage and all-reduces its gradient with the first.
    if (!m.tied_embeddings || x.l.pp > 1) dparams += table;
  }
  st.dense_params = dparams;
  st.expert_params = nm * x.per_layer.moe_expert;
  const KindShapes& stage_shapes = kind_shapes[(nd > 0 ? 1 : 0) | (nm > 0 ? 2 : 0)];
  st.distinct_weight_elems = stage_shapes.distinct_elems;
  st.largest_weight_elems = stage_shapes.largest_elems;
}

// The step's communication groups and the pipeline's point-to-point transfer.
void SetGroups(StepCosts& sc, const ClusterSpec& c, const Layout& l, double T, const ModelSpec& m) {
  const int tp = l.tp, etp = l.expert_tp();
  const double dense_shards = DenseShards(l), expert_shards = ExpertShards(l);
  const int pp_stride = tp * l.cp * l.dp;
  sc.p2p_bytes = T * static_cast<double>(m.hidden) * 2 / tp;  // scatter-gather over TP
  const GroupLinks pp_links = PlaceSendRecv(c, pp_stride);
  sc.p2p_s = l.pp > 1 ? SendRecvTime(sc.p2p_bytes, pp_links) : 0;
  const GroupLinks dense_dp_links = PlaceGroup(c, {static_cast<int>(dense_shards), tp});
  const GroupLinks expert_dp_links = PlaceGroup(c, {static_cast<int>(expert_shards), l.ep * etp});
  sc.pp_group = {l.pp, pp_links.crosses_domain};
  sc.pp_links = pp_links;
  sc.dense_dp_links = dense_dp_links;
  sc.expert_dp_links = expert_dp_links;
  sc.tp_group = Group(c, tp, 1);
  sc.cp_group = Group(c, l.cp, tp);
  sc.ep_group = Group(c, l.ep, etp);
  sc.dense_dp_group = {static_cast<int>(dense_shards), dense_dp_links.crosses_domain};
  sc.expert_dp_group = {static_cast<int>(expert_shards), expert_dp_links.crosses_domain};
}

}  // namespace

StepCosts ComputeZeroFreeStepCosts(const ModelSpec& m, const ClusterSpec& c, const Training& t, const Layout& l,
                                   const LayerCosts* layers) {
  const double T = TokensPerMicroBatch(t, l);
  StepCosts sc;
  sc.micro_batches = l.micro_batches(t);
  const ParamCounts pc = CountParams(m);
  sc.total_params = static_cast<double>(pc.total());
  sc.active_params = static_cast<double>(pc.active(m));
  const LayerCosts computed = layers ? LayerCosts{} : ComputeLayerCosts(m, c, t, l);
  const LayerCosts& lcs = layers ? *layers : computed;
  sc.dense = lcs.dense;
  sc.moe = lcs.moe;
  SetGroups(sc, c, l, T, m);

  const ActivationOptions act = ActivationOptionsOf(t, l);
  const double seq = static_cast<double>(t.seq);
  const StageInputs x{m,
                      c,
                      t,
                      l,
                      c.gpu,
                      sc.dense,
                      sc.moe,
                      T,
                      l.sequence_parallel(),
                      l.tp,
                      static_cast<double>(m.vocab) / l.tp,
                      PlaceGroup(c, {l.tp, 1}),
                      PlaceGroup(c, {l.cp, l.tp}),
                      PlaceGroup(c, {l.ep, l.expert_tp()}),
                      LayerActivationBytes(m, false, l.mbs, seq, act),
                      m.is_moe() ? LayerActivationBytes(m, true, l.mbs, seq, act) : 0,
                      LayerWorkingBytes(m, false, l.mbs, seq, act),
                      m.is_moe() ? LayerWorkingBytes(m, true, l.mbs, seq, act) : 0,
                      LayerParamsOf(m, l)};
  const std::array<KindShapes, 4> kind_shapes = ShapesByKind(m, l.tp);
  const std::vector<int64_t> chunk_first = ChunkFirstLayers(m, l);
  sc.stages.resize(static_cast<size_t>(l.pp));
  for (int s = 0; s < l.pp; ++s) {
    StageCost& st = sc.stages[static_cast<size_t>(s)];
    st.index = s;
    SetStagePasses(st, x, chunk_first);
    const double nd = st.dense_layers, nm = st.moe_layers;
    st.activation_bytes = nd * x.dense_act + nm * x.moe_act;
    if (l.recompute == Recompute::kFull) st.working_bytes = nm > 0 ? std::max(x.dense_work, x.moe_work) : x.dense_work;
    if (l.offload_layers > 0 && l.pp == 1 && c.fabric.host_link_bytes_per_s > 0) OffloadActivations(st, x);
    // A micro-batch whose B has run but whose W waits (zero-bubble schedules) still keeps the
    // weight-gradient GEMMs' inputs and output gradients: Qi et al. 2024 (arXiv 2401.10241,
    // Table 1) give M_W = 32sbh per layer against M_B = 34sbh + 5as^2b, so 16/17 of what the
    // micro-batch kept (of the recomputed tensors under full recomputation).
    st.weight_grad_activation_bytes =
        kWeightGradActivationShare *
        (l.recompute == Recompute::kFull ? nd * x.dense_work + nm * x.moe_work : st.activation_bytes);
    SetStageParams(st, x, kind_shapes);
  }
  return sc;
}

namespace {

// What the ZeRO-dependent terms of every stage read of the layout (ApplyZeroStage).
struct ZeroInputs {
  StateBytesPerParam state_bytes;       // held per parameter, under this ZeRO stage and the switches
  double grad_comm_bytes = 0;           // per parameter reduced
  double gathered_bytes_per_param = 0;  // ZeRO-3: a gathered parameter and its unsharded gradient
  LayerParams per_layer;                // parameters of one layer on one GPU
  double dense_shards = 0, expert_shards = 0;
  double table = 0;        // one embedding or output table on one GPU
  double logits_cols = 0;  // vocabulary columns per GPU (unpadded)
  double tokens = 0;       // per micro-batch on one GPU
};

ZeroInputs ZeroInputsOf(const ModelSpec& m, const Training& t, const Layout& l,
                        const StateBytesPerParam& state_bytes_fp32_grads) {
  ZeroInputs z;
  // 16-bit gradient buffers (--grad-reduce-in-bf16): 2 bytes per parameter held and reduced.
  StateBytesPerParam& state_bytes = z.state_bytes;
  state_bytes = state_bytes_fp32_grads;
  if (!l.grad_reduce_in_fp32) state_bytes.grad = std::min(state_bytes.grad, kGradCommBytes16);
  // Adam's states other than Megatron's FP32 master, momentum and variance.
  if (l.optimizer_states != OptimizerStates::kFp32)
    state_bytes.optimizer = OptimizerStateBytesPerParam(l.optimizer_states);
  z.grad_comm_bytes = GradCommBytesPerParam(l);
  // What ZeRO-3 has in flight per gathered parameter: its 16-bit copy and its unsharded gradient,
  // in the buffer's dtype or, with PyTorch FSDP's FP32 shards, in the dtype it is reduced in.
  z.gathered_bytes_per_param = state_bytes.param + (l.fp32_shards ? z.grad_comm_bytes : state_bytes.grad);
  if (l.fp32_shards && l.zero >= 2) {
    // PyTorch FSDP (Layout::fp32_shards): the gradient shard is FP32 whatever the reduction's
    // dtype, and under ZeRO-3 no 16-bit parameter shard is kept (the FP32 master in
    // `optimizer` is the parameter).
    state_bytes.grad = state_bytes_fp32_grads.grad;
    if (l.zero >= 3) state_bytes.param = 0;
  }
  z.per_layer = LayerParamsOf(m, l);
  z.dense_shards = DenseShards(l);
  z.expert_shards = ExpertShards(l);
  z.table = static_cast<double>(m.vocab) * m.hidden / l.tp;
  z.logits_cols = static_cast<double>(m.vocab) / l.tp;
  z.tokens = TokensPerMicroBatch(t, l);
  return z;
}

// A stage's memory under l.zero, but for the activations in flight (they depend on the schedule).
// The stage's model states under its ZeRO stage: parameters, gradients and optimizer states
// (the padded vocabulary's rows included), FP8 weight copies, ZeRO-3's gathered buffers.
void StageModelStates(StageCost& st, const ModelSpec& m, const Training& t, const Layout& l, const ZeroInputs& z) {
  const double dparams = st.dense_params, eparams = st.expert_params, table = z.table;
  const double dense_shards = z.dense_shards, expert_shards = z.expert_shards;
  const double dense_layer_params = z.per_layer.dense, moe_layer_nonexpert = z.per_layer.moe_nonexpert;
  const double moe_layer_expert = z.per_layer.moe_expert;
  const double logits_cols = z.logits_cols;
  const StateBytesPerParam& state_bytes = z.state_bytes;
  const int tp = l.tp, pp = l.pp;

  const ModelStateBytes ds = ModelStates(dparams, l.zero, dense_shards, state_bytes);
  const ModelStateBytes es = ModelStates(eparams, l.zero, expert_shards, state_bytes);
  MemoryBreakdown& mem = st.memory;
  mem.params = ds.params + es.params;
  mem.grads = ds.grads + es.grads;
  mem.optimizer = ds.optimizer + es.optimizer;
  if (IsQuantized(t.precision)) {
    // Transformer Engine caches row- and column-wise FP8 copies of GEMM weights (1 byte each).
    const double gemm_params = dparams - (st.has_embedding ? table : 0) + eparams;
    mem.fp8_weights = 2 * gemm_params / (l.zero >= 3 ? dense_shards : 1);
  }
  if (l.zero >= 3) {
    // FSDP: two layers' gathered parameters and unsharded gradients in flight (prefetch).
    // Per-tensor ZeRO-3 (DeepSpeed stage 3) gathers one parameter tensor at a time and
    // prefetches the next (deepspeed.readthedocs.io, ZeRO config: stage3_prefetch_bucket_size,
    // stage3_max_live_parameters): two of the largest tensor, taken as the largest GEMM weight.
    double unit = std::max(dense_layer_params, moe_layer_nonexpert + moe_layer_expert);
    if (l.zero3_per_tensor) unit = st.largest_weight_elems;
    mem.zero3_buffers = 2 * unit * z.gathered_bytes_per_param;
  }
  // Megatron pads the vocabulary (PaddedVocab): the tables held are that many rows.
  const double padded_cols = static_cast<double>(PaddedVocab(m.vocab, tp)) / tp;
  const double tables = (st.has_embedding ? 1 : 0) + (st.has_logits && (!m.tied_embeddings || pp > 1) ? 1 : 0);
  const double padding_params = tables * (padded_cols - logits_cols) * static_cast<double>(m.hidden);
  const ModelStateBytes padding = ModelStates(padding_params, l.zero, dense_shards, state_bytes);
  mem.params += padding.params;
  mem.grads += padding.grads;
  mem.optimizer += padding.optimizer;
}

// The stage's work spaces: weight-gradient placeholders, the loss of one micro-batch, the CUDA
// context and NCCL's per-group buffers.
void StageWorkspaces(StageCost& st, const ModelSpec& m, const Layout& l, const ZeroInputs& z) {
  const int tp = l.tp;
  const double T = z.tokens;
  // Megatron pads the vocabulary (PaddedVocab): the tables held are that many rows.
  const double padded_cols = static_cast<double>(PaddedVocab(m.vocab, tp)) / tp;
  MemoryBreakdown& mem = st.memory;
  // Weight-gradient placeholders (wgrad_buffers). With Megatron's fused accumulation into the
  // FP32 main gradients (not under ZeRO-3/FSDP, which has no main_grad), each weight's backward
  // still returns a weight-shaped 16-bit tensor. TE >= 2.3 caches one per shape (module/base.py
  // get_dummy_wgrad): the distinct shapes of the stage's layers stay allocated. Older TE
  // allocates one per backward: the largest, transient, at the stage's backward peak.
  const bool fused_accumulation = l.zero < 3;
  const double wgrad_elem = 2;  // the parameter dtype, 16-bit
  double largest_wgrad = 0;
  if (fused_accumulation) {
    largest_wgrad = wgrad_elem * st.largest_weight_elems;
    if (l.cached_wgrad_placeholders) mem.wgrad_buffers += wgrad_elem * st.distinct_weight_elems;
  }
  if (st.has_logits) {
    // The loss of one micro-batch (Megatron-LM vocab-parallel cross-entropy,
    // megatron/core/tensor_parallel/cross_entropy.py): the 16-bit logits and their FP32 copy,
    // which becomes the saved softmax, in the forward; a fused cross-entropy keeps only the
    // 16-bit logits and writes the gradient into them. In the backward the 16-bit logits
    // gradient meets the output layer's weight-gradient placeholder (Megatron's
    // ColumnParallelLinear allocates one per backward under fused accumulation,
    // megatron/core/tensor_parallel/layers.py). The larger of the two moments.
    const double logits = T * padded_cols;
    const double forward = logits * (l.fused_cross_entropy ? 2 : 2 + 4);
    const double backward =
        logits * 2 + (fused_accumulation ? wgrad_elem * padded_cols * static_cast<double>(m.hidden) : 0);
    mem.logits = std::max(forward, backward);
  }
  // The transient placeholder of older TE comes after the loss work space is freed: it adds
  // only where it is larger.
  if (fused_accumulation && !l.cached_wgrad_placeholders) mem.wgrad_buffers = std::max(0.0, largest_wgrad - mem.logits);
  int groups = 0;
  for (int n : {tp, l.cp, l.dp, l.pp, l.ep, static_cast<int>(z.expert_shards)}) groups += n > 1;
  mem.runtime = kCudaContextBytes + kNcclBytesPerGroup * groups;
}

void StageMemory(StageCost& st, const ModelSpec& m, const Training& t, const Layout& l, const ZeroInputs& z) {
  StageModelStates(st, m, t, l, z);
  StageWorkspaces(st, m, l, z);
}

// A stage's data-parallel gradient reduction, parameter gathers and optimizer step under l.zero.
void StageDataParallel(StageCost& st, const StepCosts& sc, const ModelSpec& m, const GpuSpec& g, const Training& t,
                       const Layout& l, const ZeroInputs& z) {
  const double dparams = st.dense_params, eparams = st.expert_params;
  const double dense_shards = z.dense_shards, expert_shards = z.expert_shards, grad_comm_bytes = z.grad_comm_bytes;
  const GroupLinks &dense_dp_links = sc.dense_dp_links, &expert_dp_links = sc.expert_dp_links;
  const double nd = st.dense_layers, nm = st.moe_layers;

  // Data parallel. Collectives run per bucket: Megatron-LM's DDP buckets max(40M, 1M x dp)
  // parameters (megatron/core/distributed/distributed_data_parallel.py); ZeRO-3/FSDP gathers
  // one transformer block at a time (DeepSpeed stage 3: one tensor at a time). Each bucket pays
  // the latency term once.
  const int nd_ranks = static_cast<int>(dense_shards), ne_ranks = static_cast<int>(expert_shards);
  const double stage_layers = nd + nm;
  const auto buckets = [&](double params, int ranks) {
    if (l.zero == 3) return std::max(1.0, stage_layers * (l.zero3_per_tensor ? TensorsPerLayer(m) : 1));
    return std::max(1.0, std::ceil(params / std::max(40e6, 1e6 * ranks)));
  };
  const auto bucketed = [&](double (*op)(double, int, const GroupLinks&), double bytes, int ranks,
                            const GroupLinks& links, double params) {
    const double nb = buckets(params, ranks);
    return nb * op(bytes / nb, ranks, links);
  };
  if (l.zero == 0) {
    st.grad_reduce_dense_s = bucketed(AllReduceTime, dparams * grad_comm_bytes, nd_ranks, dense_dp_links, dparams);
    st.grad_reduce_expert_s = bucketed(AllReduceTime, eparams * grad_comm_bytes, ne_ranks, expert_dp_links, eparams);
  } else {
    st.grad_reduce_dense_s = bucketed(ReduceScatterTime, dparams * grad_comm_bytes, nd_ranks, dense_dp_links, dparams);
    st.grad_reduce_expert_s =
        bucketed(ReduceScatterTime, eparams * grad_comm_bytes, ne_ranks, expert_dp_links, eparams);
    st.param_gather_dense_s = bucketed(AllGatherTime, dparams * kParamCommBytes, nd_ranks, dense_dp_links, dparams);
    st.param_gather_expert_s = bucketed(AllGatherTime, eparams * kParamCommBytes, ne_ranks, expert_dp_links, eparams);
  }
  const double updated = l.zero >= 1 ? dparams / dense_shards + eparams / expert_shards : dparams + eparams;
  const double opt_bytes =
      OptimizerStepBytesPerParam(l.optimizer_states) + (t.precision == Precision::kFp16 ? kLossScaleBytesPerParam : 0);
  st.optimizer_s = MemoryBoundTime(g, updated * opt_bytes, t.precision == Precision::kFp16 ? 5 : 4);
}

// NCCL's kernels hold SMs (one thread block per channel) while the ZeRO-2/3 collectives run
// under every pass: the gathers before each forward and backward, the reduce-scatter of each
// micro-batch's gradients in its backward. The pass's kernels get the other SMs meanwhile:
// with work W and C seconds of collectives under it, it takes min(W + s C, W / (1 - s)),
// s = Calibration::nccl_sm_share (docs/cost-model.md, "NCCL's SMs"; Lee et al. 2025,
// arXiv 2507.03114, measure 18.9% mean slowdown of overlapped compute).
void StretchForNcclSms(StepCosts& sc, const GpuSpec& g, const Layout& l) {
  if (l.zero < 2) return;
  const double share = std::clamp(g.calibration.nccl_sm_share, 0.0, 0.9);
  for (StageCost& st : sc.stages) {
    const double vpd = static_cast<double>(st.chunks.empty() ? 1 : st.chunks.size());
    const double forward_comm = sc.zero3_gathers_forward * st.param_gather_s() / vpd;
    const double backward_comm = sc.zero3_gathers_backward * st.param_gather_s() / vpd + st.grad_reduce_s() / vpd;
    const auto stretch = [&](double work, double comm) {
      return work <= 0 ? 0.0 : std::min(work + share * comm, work / (1 - share)) - work;
    };
    for (StageCost::ChunkCost& ch : st.chunks) {
      const double f = stretch(ch.forward_s, forward_comm), b = stretch(ch.backward_s, backward_comm);
      // The weight-gradient part of the backward stretches in proportion.
      const double w_added = ch.backward_s > 0 ? ch.weight_grad_s * b / ch.backward_s : 0;
      ch.weight_grad_s += w_added;
      ch.forward_s += f;
      ch.backward_s += b;
      st.forward_s += f;
      st.backward_s += b;
      st.weight_grad_s += w_added;
      st.compute_s += f + b;
      st.nccl_contention_s += f + b;
    }
  }
}

}  // namespace

void ApplyZeroStage(StepCosts& sc, const ModelSpec& m, const ClusterSpec& c, const Training& t, const Layout& l,
                    const StateBytesPerParam& state_bytes) {
  const GpuSpec& g = c.gpu;
  const ZeroInputs z = ZeroInputsOf(m, t, l, state_bytes);
  for (StageCost& st : sc.stages) {
    StageMemory(st, m, t, l, z);
    StageDataParallel(st, sc, m, g, t, l, z);
  }
  if (l.zero == 3) {
    // FSDP gathers the parameters before every forward and backward of every micro-batch.
    // Per-tensor ZeRO-3 (DeepSpeed) fetches again in the recomputed forward: its pre-forward
    // hook runs once more under activation checkpointing, whereas FSDP recomputes inside the
    // block's backward, whose parameters are already gathered.
    sc.zero3_gathers_forward = 1;
    sc.zero3_gathers_backward = 1 + (l.zero3_per_tensor && l.recompute == Recompute::kFull ? 1 : 0);
  }
  StretchForNcclSms(sc, g, l);
  sc.critical_stage = static_cast<int>(
      std::max_element(sc.stages.begin(), sc.stages.end(),
                       [](const StageCost& a, const StageCost& b) { return a.time_s() < b.time_s(); }) -
      sc.stages.begin());
}

void AddStepWarnings(StepCosts& sc, const ModelSpec& m, const ClusterSpec& c, const Training& t, const Layout& l) {
  const GpuSpec& g = c.gpu;
  const int tp = l.tp, etp = l.expert_tp();
  const double T = TokensPerMicroBatch(t, l);
  const Fabric& f = c.fabric;
  if (tp > f.nvlink_domain)
    sc.warnings.push_back(
        fmt::format("tp={} crosses the NVLink domain ({} GPUs): tensor-parallel collectives run "
                    "over the scale-out network",
                    tp, f.nvlink_domain));
  if (m.is_moe() && l.ep > 1 && sc.ep_group.crosses_domain)
    sc.warnings.push_back(
        fmt::format("ep={} x etp={} spans {} GPUs, beyond one NVLink domain ({}): the expert "
                    "all-to-all crosses nodes",
                    l.ep, etp, l.ep * etp, f.nvlink_domain));
  {
    const double ffn = m.dense_layers() > 0 ? static_cast<double>(m.ffn_hidden) : static_cast<double>(m.moe_ffn_hidden);
    const double util = GemmShapeUtilization(g, T, static_cast<double>(m.hidden), ffn / tp);
    if (T < 1024 || util < 0.8)
      sc.warnings.push_back(
          fmt::format("micro-batch too small for efficient GEMMs: {:.0f} tokens per GPU per "
                      "micro-batch; the MLP GEMM reaches {:.0f}% of its achievable rate",
                      T, 100 * util));
    if (m.is_moe()) {
      const double per_expert = T * static_cast<double>(m.topk) * etp / tp / (static_cast<double>(m.experts) / l.ep);
      if (per_expert < 512)
        sc.warnings.push_back(
            fmt::format("about {:.0f} tokens per expert per micro-batch: the grouped expert GEMMs "
                        "are skinny; raise mbs or ep",
                        per_expert));
    }
  }
}

StepCosts ComputeStepCosts(const ModelSpec& m, const ClusterSpec& c, const Training& t, const Layout& l,
                           const StateBytesPerParam& state_bytes, const LayerCosts* layers) {
  StepCosts sc = ComputeZeroFreeStepCosts(m, c, t, l, layers);
  ApplyZeroStage(sc, m, c, t, l, state_bytes);
  AddStepWarnings(sc, m, c, t, l);
  return sc;
}

}  // namespace paratune
