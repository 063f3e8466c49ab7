#include "step/estimate.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "cost/activations.h"
#include "cost/collectives.h"
#include "cost/compute.h"
#include "cost/flops.h"
#include "pipeline/closed_form.h"
#include "pipeline/simulator.h"
#include "util/error.h"

namespace paratune {
namespace {

// Backward of FlashAttention does 5 matmuls to the forward's 2 (Dao 2023, FlashAttention-2,
// arXiv 2307.08691, Sec. 3.1-3.2): 2.5x the forward FLOPs.
constexpr double kAttentionBackwardFactor = 2.5;
// Adam step per locally updated parameter: read fp32 grad (4), read+write fp32 master (8), m (8)
// and v (8), write bf16 param (2), plus the grad-norm read (4): 34 bytes.
constexpr double kOptimizerBytesPerParam = 34;
// Gradients are reduced in FP32 (Megatron's default main_grad dtype with bf16 training).
constexpr double kGradCommBytes = 4;
// Parameters are gathered in 16-bit.
constexpr double kParamCommBytes = 2;

struct Shape {
  double M, N, K, count;
};

// Time and communication of one layer for one micro-batch on one GPU.
struct LayerCost {
  double fwd_compute_s = 0;
  double bwd_compute_s = 0;
  double wgrad_s = 0;  // the weight-gradient GEMMs of bwd_compute_s (W of zero-bubble schedules)
  double attention_fwd_s = 0;  // part of fwd_compute_s, for selective recompute and CP overlap
  double gemm_fwd_s = 0;       // for TP overlap
  double tp_fwd_s = 0, tp_bwd_s = 0;
  double cp_fwd_s = 0, cp_bwd_s = 0;
  double ep_fwd_s = 0, ep_bwd_s = 0;
  double tp_exposed_fwd_s = 0, tp_exposed_bwd_s = 0;
  double cp_exposed_fwd_s = 0, cp_exposed_bwd_s = 0;
  // Per-call figures for the communication table.
  double tp_bytes = 0, tp_call_s = 0;
  int tp_calls_fwd = 0, tp_calls_bwd = 0;
  double cp_bytes = 0, cp_call_s = 0;
  int cp_calls_fwd = 0, cp_calls_bwd = 0;
  double ep_bytes = 0, ep_call_s = 0;
};

class StepModel {
 public:
  StepModel(const ModelSpec& m, const ClusterSpec& c, const Training& t, const Layout& l,
            const EstimateOptions& o)
      : m_(m), c_(c), g_(c.gpu), t_(t), l_(l), o_(o) {
    b_ = l.mbs;
    s_ = static_cast<double>(t.seq);
    T_ = b_ * s_ / l.cp;  // tokens per GPU per micro-batch in the GEMMs (SP gathers them)
    tp_ = l.tp;
    etp_ = l.expert_tp();
    sp_ = l.sequence_parallel();
    tp_links_ = PlaceGroup(c_, {l.tp, 1});
    cp_links_ = PlaceGroup(c_, {l.cp, l.tp});
    ep_links_ = PlaceGroup(c_, {l.ep, etp_});
    act_.tp = l.tp;
    act_.etp = etp_;
    act_.cp = l.cp;
    act_.sp = sp_;
    act_.recompute = l.recompute;
    act_.flash_attention = l.flash_attention;
    act_.precision = t.precision;
  }

  LayerCost Layer(bool moe) const {
    LayerCost c;
    const Precision p = t_.precision;
    const double h = static_cast<double>(m_.hidden);
    const double nq = static_cast<double>(m_.heads);
    std::vector<Shape> gemms;
    if (m_.attention == AttentionKind::kMla) {
      const double qk = static_cast<double>(m_.qk_head_dim());
      // Megatron-Core MLA: the down projections are replicated over TP, the up projections
      // and the output projection are split by heads.
      if (m_.q_lora_rank > 0) {
        gemms.push_back({T_, static_cast<double>(m_.q_lora_rank), h, 1});
        gemms.push_back({T_, nq * qk / tp_, static_cast<double>(m_.q_lora_rank), 1});
      } else {
        gemms.push_back({T_, nq * qk / tp_, h, 1});
      }
      gemms.push_back({T_, static_cast<double>(m_.kv_lora_rank + m_.qk_rope_head_dim), h, 1});
      gemms.push_back({T_, nq * static_cast<double>(m_.qk_nope_head_dim + m_.v_head_dim) / tp_,
                       static_cast<double>(m_.kv_lora_rank), 1});
      gemms.push_back({T_, h, nq * static_cast<double>(m_.v_head_dim) / tp_, 1});
    } else {
      const double qkv = static_cast<double>((m_.heads + 2 * m_.kv_heads) * m_.head_dim);
      gemms.push_back({T_, qkv / tp_, h, 1});
      gemms.push_back({T_, h, nq * static_cast<double>(m_.head_dim) / tp_, 1});
    }
    const bool gated = m_.mlp == MlpKind::kGated;
    auto mlp = [&](double M, double ffn, double split, double count) {
      gemms.push_back({M, (gated ? 2 : 1) * ffn / split, h, count});
      gemms.push_back({M, h, ffn / split, count});
    };
    double expert_tokens = 0;
    if (moe) {
      gemms.push_back({sp_ ? T_ / tp_ : T_, static_cast<double>(m_.experts), h, 1});  // router
      if (m_.shared_experts > 0)
        mlp(T_, static_cast<double>(m_.shared_experts * m_.shared_ffn_hidden), tp_, 1);
      // Token copies on this GPU, spread evenly over its local experts (balanced routing).
      const double local_experts = static_cast<double>(m_.experts) / l_.ep;
      expert_tokens = T_ * static_cast<double>(m_.topk) * etp_ / tp_;
      mlp(expert_tokens / local_experts, static_cast<double>(m_.moe_ffn_hidden), etp_, local_experts);
    } else {
      mlp(T_, static_cast<double>(m_.ffn_hidden), tp_, 1);
    }
    for (const Shape& s : gemms) {
      const double f = GemmTime(g_, p, s.M, s.N, s.K, s.count);
      c.gemm_fwd_s += f;
      // Backward: input gradient [M,K] = dY[M,N] W^T, weight gradient [K,N] = X^T dY.
      c.bwd_compute_s += GemmTime(g_, p, s.M, s.K, s.N, s.count) + GemmTime(g_, p, s.K, s.N, s.M, s.count);
      c.wgrad_s += GemmTime(g_, p, s.K, s.N, s.M, s.count);
    }
    // Attention core, heads split by TP, queries by CP (load-balanced causal).
    double att_bwd = 0;
    if (l_.flash_attention) {
      // FlashAttention skips the masked half of the causal score matrix.
      const double att_flops = LayerForwardFlops(m_, moe, T_, s_).attention / tp_;
      c.attention_fwd_s = AttentionTime(g_, att_flops);
      att_bwd = AttentionTime(g_, kAttentionBackwardFactor * att_flops);
    } else {
      // Unfused attention (Megatron-LM before FlashAttention): two batched GEMMs per head over
      // the full s x s scores, the causal mask applied afterwards, so no causal saving
      // (Shoeybi et al. 2019, Sec. 3; Megatron-LM CoreAttention). Backward: two GEMMs each.
      const double heads = nq / tp_ * b_;
      const double sq = s_ / l_.cp;
      const double dqk = static_cast<double>(m_.qk_head_dim()), dv = static_cast<double>(m_.v_dim());
      c.attention_fwd_s = GemmTime(g_, Precision::kBf16, sq, s_, dqk, heads) + GemmTime(g_, Precision::kBf16, sq, dv, s_, heads);
      att_bwd = GemmTime(g_, Precision::kBf16, sq, dqk, s_, heads) + GemmTime(g_, Precision::kBf16, s_, dqk, sq, heads) +
                GemmTime(g_, Precision::kBf16, sq, s_, dv, heads) + GemmTime(g_, Precision::kBf16, s_, dv, sq, heads);
    }
    // Memory-bound kernels (bytes per token; docs/cost-model.md "Memory-bound work").
    const double norm_tokens = sp_ ? T_ / tp_ : T_;
    double bytes = norm_tokens * 20 * h;  // 2 norms (4h each) + 2 residual adds (6h each)
    if (m_.dropout) bytes += norm_tokens * 10 * h;
    const double rope_width = m_.attention == AttentionKind::kMla
                                  ? nq * m_.qk_rope_head_dim
                                  : static_cast<double>((m_.heads + m_.kv_heads) * m_.head_dim);
    bytes += T_ * 4 * rope_width / tp_;
    const double act_bytes_per_ffn = gated ? 6 : 4;
    if (moe) {
      const double shared = static_cast<double>(m_.shared_experts * m_.shared_ffn_hidden);
      bytes += T_ * act_bytes_per_ffn * shared / tp_;
      bytes += expert_tokens * (act_bytes_per_ffn * m_.moe_ffn_hidden / etp_ + 10 * h);  // act + permute
    } else {
      bytes += T_ * act_bytes_per_ffn * m_.ffn_hidden / tp_;
    }
    // Unfused attention streams the scores: the fused scale-mask-softmax reads them and writes
    // the probabilities (4 bytes per score), dropout adds a mask and its output (3 bytes).
    if (!l_.flash_attention) bytes += T_ * (m_.dropout ? 7 : 4) * nq * s_ / tp_;
    if (p != Precision::kBf16) {
      // Casts of GEMM inputs to FP8/FP4: read 2 bytes, write row- and column-wise copies.
      double elems = 0;
      for (const Shape& s : gemms) elems += s.M * s.K * s.count;
      bytes += 4 * elems;
    }
    const double kernels = 12 + (moe ? 6 : 0);
    const double mem_fwd = MemoryBoundTime(g_, bytes, kernels);
    const double mem_bwd = MemoryBoundTime(g_, 2 * bytes, 2 * kernels);
    c.fwd_compute_s = c.gemm_fwd_s + c.attention_fwd_s + mem_fwd;
    c.bwd_compute_s += att_bwd + mem_bwd;

    // Tensor parallel: with SP, an all-gather before and a reduce-scatter after the attention
    // and the MLP blocks, the reverse in backward (Korthikanti et al. 2022, Sec. 4.2.2, Fig. 5);
    // without SP, one all-reduce per block each way (Shoeybi et al. 2019, Sec. 3, Fig. 4).
    if (tp_ > 1) {
      c.tp_bytes = T_ * h * 2;
      if (sp_) {
        c.tp_call_s = AllGatherTime(c.tp_bytes, tp_, tp_links_);
        c.tp_calls_fwd = 4;
        c.tp_calls_bwd = 4;
      } else {
        c.tp_call_s = AllReduceTime(c.tp_bytes, tp_, tp_links_);
        c.tp_calls_fwd = 2;
        c.tp_calls_bwd = 2;
      }
      c.tp_fwd_s = c.tp_calls_fwd * c.tp_call_s;
      c.tp_bwd_s = c.tp_calls_bwd * c.tp_call_s;
      if (l_.overlap_tp_comm) {
        // Transformer Engine userbuffers overlap each collective with the adjacent GEMM.
        c.tp_exposed_fwd_s = std::max(0.0, c.tp_fwd_s - c.gemm_fwd_s);
        c.tp_exposed_bwd_s = std::max(0.0, c.tp_bwd_s - (c.bwd_compute_s - att_bwd - mem_bwd));
      } else {
        c.tp_exposed_fwd_s = c.tp_fwd_s;
        // In backward, the collective on the input gradient of each column-parallel GEMM (QKV,
        // MLP up) runs asynchronously under that GEMM's weight-gradient computation
        // (Megatron-LM LinearWithGradAccumulationAndAsyncCommunication; Korthikanti et al.
        // 2022 Sec. 4.2.2): 2 of the 2 all-reduces without SP, the 2 reduce-scatters with SP.
        const double async = 2 * c.tp_call_s;
        c.tp_exposed_bwd_s = (c.tp_bwd_s - async) + std::max(0.0, async - c.wgrad_s);
      }
    }
    // Context parallel: ring exchange of K and V blocks, cp-1 steps, overlapped with the
    // attention of the block in hand (Megatron-Core context_parallel, Liu et al. 2023 Ring
    // Attention Sec. 3); backward also returns dK and dV.
    if (l_.cp > 1) {
      const double kv_width = m_.attention == AttentionKind::kMla
                                  ? nq * static_cast<double>(m_.qk_head_dim() + m_.v_head_dim)
                                  : static_cast<double>(2 * m_.kv_heads * m_.head_dim);
      c.cp_bytes = T_ * kv_width / tp_ * 2;
      c.cp_call_s = cp_links_.crosses_domain ? c.cp_bytes / cp_links_.net_bytes_per_s + cp_links_.latency_s
                                             : c.cp_bytes / cp_links_.nvlink_bytes_per_s + cp_links_.latency_s;
      c.cp_calls_fwd = l_.cp - 1;
      c.cp_calls_bwd = 2 * (l_.cp - 1);
      c.cp_fwd_s = c.cp_calls_fwd * c.cp_call_s;
      c.cp_bwd_s = c.cp_calls_bwd * c.cp_call_s;
      c.cp_exposed_fwd_s = std::max(0.0, c.cp_fwd_s - c.attention_fwd_s);
      c.cp_exposed_bwd_s = std::max(0.0, c.cp_bwd_s - att_bwd);
    }
    // Expert parallel: all-to-all dispatch and combine of the routed token copies, twice each
    // way (Megatron-Core MoE alltoall token dispatcher); not overlapped.
    if (moe && l_.ep > 1) {
      c.ep_bytes = expert_tokens * h * 2;
      c.ep_call_s = AllToAllTime(c.ep_bytes, l_.ep, ep_links_);
      c.ep_fwd_s = 2 * c.ep_call_s;
      c.ep_bwd_s = 2 * c.ep_call_s;
    }
    return c;
  }

  const ModelSpec& m_;
  const ClusterSpec& c_;
  const GpuSpec& g_;
  const Training& t_;
  const Layout& l_;
  const EstimateOptions& o_;
  double b_, s_, T_;
  int tp_, etp_;
  bool sp_;
  GroupLinks tp_links_, cp_links_, ep_links_;
  ActivationOptions act_;
};

// First layer of each pipeline chunk k = c*pp + s, plus the end: even split or --pp-layout.
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

void AddComm(std::vector<CommItem>& v, const char* kind, const char* op, int n, bool crosses,
             double bytes, double calls, double call_s, double exposed_s) {
  if (calls <= 0 || bytes <= 0) return;
  v.push_back({kind, op, n, crosses, bytes, calls, call_s, calls * call_s, exposed_s});
}

std::string GB(double bytes) { return fmt::format("{:.1f} GB", bytes / 1e9); }

}  // namespace

Estimate EstimateStep(const ModelSpec& m, const ClusterSpec& c, const Training& t, Layout l,
                      const EstimateOptions& o) {
  const auto violations = CheckLayout(m, c, t, l, o.rules);
  if (!violations.empty()) throw InputError(DescribeViolations(violations));
  return EstimateCheckedStep(m, c, t, l, o);
}

Estimate EstimateCheckedStep(const ModelSpec& m, const ClusterSpec& c, const Training& t, const Layout& l,
                             const EstimateOptions& o) {

  const GpuSpec& g = c.gpu;
  StepModel sm(m, c, t, l, o);
  const int64_t mb = l.micro_batches(t);
  const double md = static_cast<double>(mb);
  const int pp = l.pp, vp = l.vp, tp = l.tp, etp = l.expert_tp();
  const double T = sm.T_;

  Estimate e;
  e.model = m.name;
  e.gpu = g.name;
  e.gpus = c.gpus;
  e.nodes = c.nodes();
  e.layout = l;
  e.training = t;
  e.micro_batches = mb;
  const ParamCounts pc = CountParams(m);
  e.total_params = static_cast<double>(pc.total());
  e.active_params = static_cast<double>(pc.active(m));

  const LayerCost dense = sm.Layer(false);
  const LayerCost moe = m.is_moe() ? sm.Layer(true) : LayerCost{};

  // Parameters per layer on one GPU, split into the ZeRO group of dense weights (DP x CP) and of
  // expert weights (expert data parallel = tp*cp*dp / (ep*etp)); Megatron-Core parallel_state.
  const double dense_layer_params =
      static_cast<double>(AttentionParamsPerLayer(m) + DenseMlpParamsPerLayer(m)) / tp;
  const double moe_layer_nonexpert =
      static_cast<double>(AttentionParamsPerLayer(m) + SharedExpertParamsPerLayer(m)) / tp +
      static_cast<double>(RouterParamsPerLayer(m) + NormParams(m));
  const double moe_layer_expert =
      static_cast<double>(m.experts) / l.ep * static_cast<double>(RoutedExpertParams(m)) / etp;
  const double dense_shards = static_cast<double>(l.dp) * l.cp;
  const double expert_shards = static_cast<double>(tp) * l.cp * l.dp / (static_cast<double>(l.ep) * etp);

  // Pipeline stages: rank s holds chunks c*pp + s (Megatron interleaving) of L/(pp*vp) layers,
  // or of the counts --pp-layout gives per chunk.
  const std::vector<int64_t> chunk_first = ChunkFirstLayers(m, l);
  const int pp_stride = tp * l.cp * l.dp;
  const double p2p_bytes = T * static_cast<double>(m.hidden) * 2 / tp;  // scatter-gather over TP
  const double p2p_s = pp > 1 ? SendRecvTime(p2p_bytes, PlaceSendRecv(c, pp_stride)) : 0;

  ActivationOptions act = sm.act_;
  const double dense_act = LayerActivationBytes(m, false, l.mbs, sm.s_, act);
  const double moe_act = m.is_moe() ? LayerActivationBytes(m, true, l.mbs, sm.s_, act) : 0;
  const double dense_work = LayerWorkingBytes(m, false, l.mbs, sm.s_, act);
  const double moe_work = m.is_moe() ? LayerWorkingBytes(m, true, l.mbs, sm.s_, act) : 0;

  const GroupLinks dense_dp_links = PlaceGroup(c, {static_cast<int>(dense_shards), tp});
  const GroupLinks expert_dp_links =
      PlaceGroup(c, {static_cast<int>(expert_shards), l.ep * etp});
  const double logits_cols = static_cast<double>(m.vocab) / tp;

  std::vector<double> stage_time(pp), stage_tp(pp), stage_cp(pp), stage_ep(pp), stage_rc(pp);
  std::vector<double> stage_act(pp);  // activation bytes of one whole-rank micro-batch
  std::vector<double> stage_dense_params(pp), stage_expert_params(pp);
  e.stages.resize(pp);
  for (int s = 0; s < pp; ++s) {
    StageEstimate& st = e.stages[s];
    st.index = s;
    for (int ch = 0; ch < vp; ++ch) {
      const size_t k = static_cast<size_t>(ch) * pp + s;
      for (int64_t layer = chunk_first[k]; layer < chunk_first[k + 1]; ++layer)
        (m.is_moe_layer(layer) ? st.moe_layers : st.dense_layers)++;
    }
    st.has_embedding = s == 0;
    st.has_logits = s == pp - 1;
    const double nd = st.dense_layers, nm = st.moe_layers;
    auto sum = [&](double LayerCost::*f) { return nd * (dense.*f) + nm * (moe.*f); };
    double fwd = sum(&LayerCost::fwd_compute_s);
    double bwd = sum(&LayerCost::bwd_compute_s);
    double tp_exp = sum(&LayerCost::tp_exposed_fwd_s) + sum(&LayerCost::tp_exposed_bwd_s);
    double cp_exp = sum(&LayerCost::cp_exposed_fwd_s) + sum(&LayerCost::cp_exposed_bwd_s);
    double ep_exp = sum(&LayerCost::ep_fwd_s) + sum(&LayerCost::ep_bwd_s);
    double recompute = 0;
    if (l.recompute == Recompute::kFull) {
      recompute = fwd;
      tp_exp += sum(&LayerCost::tp_exposed_fwd_s);
      cp_exp += sum(&LayerCost::cp_exposed_fwd_s);
      ep_exp += sum(&LayerCost::ep_fwd_s);
    } else if (l.recompute == Recompute::kSelective) {
      recompute = sum(&LayerCost::attention_fwd_s);
    }
    if (st.has_embedding) {
      // Token lookup writes T*h 16-bit values (gather); its backward scatters the gradient.
      fwd += MemoryBoundTime(g, T * m.hidden * 2 / (sm.sp_ ? tp : 1));
      bwd += MemoryBoundTime(g, T * m.hidden * 4 / (sm.sp_ ? tp : 1));
    }
    if (st.has_logits) {
      const double h = static_cast<double>(m.hidden);
      fwd += GemmTime(g, t.precision, T, logits_cols, h);
      bwd += GemmTime(g, t.precision, T, h, logits_cols) + GemmTime(g, t.precision, h, logits_cols, T);
      // Vocab-parallel cross-entropy in FP32: read logits, write softmax, read for the grad.
      fwd += MemoryBoundTime(g, T * logits_cols * (2 + 4 + 4), 4);
      bwd += MemoryBoundTime(g, T * logits_cols * (4 + 2), 2);
      if (tp > 1) {
        const double ag = AllGatherTime(T * h * 2, tp, sm.tp_links_);
        tp_exp += 2 * (sm.sp_ ? ag : 0) + 2 * AllReduceTime(T * 4, tp, sm.tp_links_);
      }
    }
    st.forward_s = fwd + (sum(&LayerCost::tp_exposed_fwd_s) + sum(&LayerCost::cp_exposed_fwd_s) +
                          sum(&LayerCost::ep_fwd_s));
    st.backward_s = bwd + recompute + (tp_exp + cp_exp + ep_exp) -
                    (sum(&LayerCost::tp_exposed_fwd_s) + sum(&LayerCost::cp_exposed_fwd_s) +
                     sum(&LayerCost::ep_fwd_s));
    st.compute_s = fwd + bwd + recompute;
    stage_time[s] = st.compute_s + tp_exp + cp_exp + ep_exp;
    stage_tp[s] = tp_exp;
    stage_cp[s] = cp_exp;
    stage_ep[s] = ep_exp;
    stage_rc[s] = recompute;
    st.weight_grad_s = sum(&LayerCost::wgrad_s) +
                       (st.has_logits ? GemmTime(g, t.precision, static_cast<double>(m.hidden), logits_cols, T) : 0);
    stage_act[s] = nd * dense_act + nm * moe_act;

    // Parameters held by this stage.
    double dparams = nd * dense_layer_params + nm * moe_layer_nonexpert;
    const double table = static_cast<double>(m.vocab) * m.hidden / tp;
    if (st.has_embedding) dparams += table + static_cast<double>(m.learned_positions * m.hidden);
    if (st.has_logits) {
      dparams += static_cast<double>(NormParams(m));
      // Untied: the output head. Tied with pp > 1: Megatron keeps a copy of the embedding on
      // the last stage and all-reduces its gradient with the first.
      if (!m.tied_embeddings || pp > 1) dparams += table;
    }
    const double eparams = nm * moe_layer_expert;
    stage_dense_params[s] = dparams;
    stage_expert_params[s] = eparams;
    st.params = dparams + eparams;

    // Memory.
    const ModelStateBytes ds = ModelStates(dparams, l.zero, dense_shards, o.state_bytes);
    const ModelStateBytes es = ModelStates(eparams, l.zero, expert_shards, o.state_bytes);
    MemoryBreakdown& mem = st.memory;
    mem.params = ds.params + es.params;
    mem.grads = ds.grads + es.grads;
    mem.optimizer = ds.optimizer + es.optimizer;
    if (t.precision != Precision::kBf16) {
      // Transformer Engine caches row- and column-wise FP8 copies of GEMM weights (1 byte each).
      const double gemm_params = dparams - (st.has_embedding ? table : 0) + eparams;
      mem.fp8_weights = 2 * gemm_params / (l.zero >= 3 ? dense_shards : 1);
    }
    if (l.zero >= 3) {
      // Two layers' gathered parameters and unsharded gradients in flight (prefetch).
      const double layer = std::max(dense_layer_params, moe_layer_nonexpert + moe_layer_expert);
      mem.zero3_buffers = 2 * layer * (o.state_bytes.param + o.state_bytes.grad);
    }
    // Micro-batches in flight (Narayanan et al. 2021 Sec. 2.2; Megatron-LM
    // theoretical_memory_usage.py): 1F1B stage s keeps pp - s; interleaved stage 0 keeps
    // pp + (pp-1)/vp, i.e. the factor 1 + (pp-1)/(pp*vp) on L layers.
    double inflight = pp == 1 ? 1.0 : (pp - s) + (vp > 1 ? static_cast<double>(pp - 1 - s) / vp : 0.0);
    inflight = std::min(inflight, md);
    st.inflight_microbatches = inflight;
    mem.activations = inflight * (nd * dense_act + nm * moe_act);
    if (l.recompute == Recompute::kFull) mem.activations += nm > 0 ? std::max(dense_work, moe_work) : dense_work;
    if (st.has_logits) mem.logits = T * logits_cols * (2 + 4);
    int groups = 0;
    for (int n : {tp, l.cp, l.dp, pp, l.ep, static_cast<int>(expert_shards)}) groups += n > 1;
    mem.runtime = kCudaContextBytes + kNcclBytesPerGroup * groups;
    mem.fragmentation = kFragmentationFraction * (mem.activations + mem.logits);
  }

  // Pipeline schedule: the event simulation (pipeline/simulator.h) of Megatron's 1F1B, or
  // interleaved 1F1B for vp > 1, with each rank's time split evenly over its vp chunks; PP
  // transfers stay in pp_s below. Balanced ranks reproduce the closed form of pipeline_bubble.h
  // exactly (simulator_test). The closed form remains for interleaving with a micro-batch count
  // that is not a multiple of pp, which Megatron's interleaved order does not run.
  const int crit = static_cast<int>(std::max_element(stage_time.begin(), stage_time.end()) - stage_time.begin());
  double bubble = ClosedFormPipeline(stage_time, mb, vp).bubble_s;
  e.p2p_time_s = p2p_s;
  if (pp > 1 && (vp == 1 || mb % pp == 0)) {
    PipelineInput in;
    in.record_timeline = false;
    in.chunks.resize(static_cast<size_t>(pp) * vp);
    for (int s = 0; s < pp; ++s)
      for (int ch = 0; ch < vp; ++ch)
        in.chunks[static_cast<size_t>(s) * vp + ch] = {e.stages[s].forward_s / vp, e.stages[s].backward_s / vp, 0};
    const SimulationResult sim =
        SimulatePipeline(BuildSchedule(vp == 1 ? ScheduleKind::k1F1B : ScheduleKind::kInterleaved, pp, vp, mb), in);
    bubble = std::max(0.0, sim.pipeline_time_s - md * stage_time[crit]);
    // Activations in flight as the schedule holds them (peak forwards not yet backwarded).
    for (int s = 0; s < pp; ++s) {
      StageEstimate& st = e.stages[s];
      const double inflight = sim.stages[s].peak_inflight_microbatches;
      st.memory.activations += (inflight - st.inflight_microbatches) * stage_act[s];
      st.memory.fragmentation = kFragmentationFraction * (st.memory.activations + st.memory.logits);
      st.inflight_microbatches = inflight;
    }
  }
  double pp_exposed = 0;
  if (pp > 1) {
    // Sends in the fill and drain sit on the critical path; with overlap off, every one does.
    const double hops = l.overlap_pp_comm ? 2.0 * (pp - 1) : 2.0 * (md * vp + pp - 1);
    pp_exposed = hops * p2p_s;
    AddComm(e.comms, "pp", "send-recv", 2, pp_stride >= c.fabric.nvlink_domain, p2p_bytes,
            2.0 * md * vp, p2p_s, pp_exposed);
  }

  // Data parallel, per stage after its last backward; stage s finishes its last backward
  // about s backward-passes before stage 0, which is slack for its reduction and optimizer.
  double tail = 0, dp_exposed_tail = 0, opt_tail = 0;
  const auto st_layers = [&](int s) { return e.stages[s].dense_layers + e.stages[s].moe_layers; };
  for (int s = 0; s < pp; ++s) {
    const double dparams = stage_dense_params[s], eparams = stage_expert_params[s];
    const int nd_ranks = static_cast<int>(dense_shards), ne_ranks = static_cast<int>(expert_shards);
    // Dense weights reduce over DP x CP; expert weights over expert-DP (their own group).
    // Collectives run per bucket: Megatron-LM's DDP buckets max(40M, 1M x dp) parameters
    // (megatron/core/distributed/distributed_data_parallel.py); ZeRO-3/FSDP gathers one
    // transformer block at a time. Each bucket pays the latency term once.
    const auto buckets = [&](double params, int ranks) {
      if (l.zero == 3)
        return std::max(1.0, static_cast<double>(st_layers(s)) * (l.zero3_per_tensor ? TensorsPerLayer(m) : 1));
      return std::max(1.0, std::ceil(params / std::max(40e6, 1e6 * ranks)));
    };
    const auto bucketed = [&](double (*op)(double, int, const GroupLinks&), double bytes, int ranks,
                              const GroupLinks& links, double params) {
      const double nb = buckets(params, ranks);
      return nb * op(bytes / nb, ranks, links);
    };
    double ar_d = 0, ar_e = 0, rs_d = 0, rs_e = 0, ag_d = 0, ag_e = 0, z3 = 0;
    if (l.zero == 0) {
      ar_d = bucketed(AllReduceTime, dparams * kGradCommBytes, nd_ranks, dense_dp_links, dparams);
      ar_e = bucketed(AllReduceTime, eparams * kGradCommBytes, ne_ranks, expert_dp_links, eparams);
    } else {
      rs_d = bucketed(ReduceScatterTime, dparams * kGradCommBytes, nd_ranks, dense_dp_links, dparams);
      rs_e = bucketed(ReduceScatterTime, eparams * kGradCommBytes, ne_ranks, expert_dp_links, eparams);
      ag_d = bucketed(AllGatherTime, dparams * kParamCommBytes, nd_ranks, dense_dp_links, dparams);
      ag_e = bucketed(AllGatherTime, eparams * kParamCommBytes, ne_ranks, expert_dp_links, eparams);
    }
    const double ar = ar_d + ar_e, rs = rs_d + rs_e, ag = ag_d + ag_e;
    const double window = l.overlap_grad_reduce ? e.stages[s].backward_s : 0;
    double exposed = std::max(0.0, ar + rs - window);
    if (l.zero == 3) {
      // FSDP gathers the parameters before every forward and backward of every micro-batch,
      // prefetching the next layer during this one's compute.
      // Per-tensor ZeRO-3 (DeepSpeed) fetches again in the recomputed forward: its pre-forward
      // hook runs once more under activation checkpointing, whereas FSDP recomputes inside the
      // block's backward, whose parameters are already gathered.
      const double gathers = 2 + (l.zero3_per_tensor && l.recompute == Recompute::kFull ? 1 : 0);
      z3 = gathers * md * ag;
      const double hide = l.overlap_param_gather ? md * e.stages[s].compute_s : 0;
      exposed += std::max(0.0, z3 - hide);
    } else if (l.zero >= 1) {
      // The updated parameters are gathered before the next forward (overlapped with it).
      exposed += std::max(0.0, ag - (l.overlap_param_gather ? e.stages[s].forward_s : 0));
    }
    const double updated = l.zero >= 1 ? dparams / dense_shards + eparams / expert_shards : dparams + eparams;
    const double opt = MemoryBoundTime(g, updated * kOptimizerBytesPerParam, 4);
    e.stages[s].optimizer_s = opt;
    e.stages[s].grad_reduce_s = ar + rs;
    const double slack = static_cast<double>(s) * e.stages[s].backward_s / vp;
    const double stage_tail = exposed + opt - std::min(slack, exposed);
    if (stage_tail > tail || s == 0) {
      tail = stage_tail;
      dp_exposed_tail = exposed - std::min(slack, exposed);
      opt_tail = opt;
    }
    if (s == crit) {
      // Rows of the communication table; the exposed time is shared in proportion to time.
      const double reduce = ar + rs, reduce_exposed = std::max(0.0, reduce - window);
      const double gather_calls = l.zero == 3 ? 2 * md + 1 : 1;
      const double gather_exposed = exposed - reduce_exposed;
      auto share = [](double part, double whole, double x) { return whole > 0 ? x * part / whole : 0; };
      const char* reduce_op = l.zero == 0 ? "all-reduce" : "reduce-scatter";
      AddComm(e.comms, "dp", reduce_op, nd_ranks, dense_dp_links.crosses_domain, dparams * kGradCommBytes, 1,
              ar_d + rs_d, share(ar_d + rs_d, reduce, reduce_exposed));
      AddComm(e.comms, "edp", reduce_op, ne_ranks, expert_dp_links.crosses_domain, eparams * kGradCommBytes, 1,
              ar_e + rs_e, share(ar_e + rs_e, reduce, reduce_exposed));
      if (l.zero >= 1) {
        AddComm(e.comms, "dp", "all-gather", nd_ranks, dense_dp_links.crosses_domain, dparams * kParamCommBytes,
                gather_calls, ag_d, share(ag_d, ag, gather_exposed));
        AddComm(e.comms, "edp", "all-gather", ne_ranks, expert_dp_links.crosses_domain, eparams * kParamCommBytes,
                gather_calls, ag_e, share(ag_e, ag, gather_exposed));
      }
    }
  }

  // Communication table for the in-stage collectives of the critical stage.
  {
    const StageEstimate& st = e.stages[crit];
    const double nd = st.dense_layers, nm = st.moe_layers;
    const double per_layer_calls_f = dense.tp_calls_fwd, per_layer_calls_b = dense.tp_calls_bwd;
    const double rc = l.recompute == Recompute::kFull ? 1 : 0;
    if (tp > 1) {
      const double calls = md * (nd + nm) * (per_layer_calls_f * (1 + rc) + per_layer_calls_b);
      AddComm(e.comms, "tp", sm.sp_ ? "all-gather/reduce-scatter" : "all-reduce", tp,
              sm.tp_links_.crosses_domain, dense.tp_bytes, calls, dense.tp_call_s, md * stage_tp[crit]);
    }
    if (l.cp > 1) {
      const double calls = md * (nd + nm) * (dense.cp_calls_fwd * (1 + rc) + dense.cp_calls_bwd);
      AddComm(e.comms, "cp", "send-recv", l.cp, sm.cp_links_.crosses_domain, dense.cp_bytes, calls,
              dense.cp_call_s, md * stage_cp[crit]);
    }
    if (nm > 0 && l.ep > 1) {
      const double calls = md * nm * (2 * (1 + rc) + 2);
      AddComm(e.comms, "ep", "all-to-all", l.ep, sm.ep_links_.crosses_domain, moe.ep_bytes, calls,
              moe.ep_call_s, md * stage_ep[crit]);
    }
  }

  // Time breakdown on the critical stage.
  TimeBreakdown& tb = e.time;
  tb.compute_s = md * e.stages[crit].compute_s;
  tb.recompute_s = md * stage_rc[crit];
  tb.tp_s = md * stage_tp[crit];
  tb.cp_s = md * stage_cp[crit];
  tb.ep_s = md * stage_ep[crit];
  tb.pp_s = pp_exposed;
  tb.bubble_s = bubble;
  tb.dp_s = dp_exposed_tail;
  tb.optimizer_s = opt_tail;
  tb.other_s = 0;

  e.step_time_s = tb.total();
  const double tokens = static_cast<double>(t.global_batch) * static_cast<double>(t.seq);
  e.tokens_per_s = tokens / e.step_time_s;
  e.tokens_per_s_per_gpu = e.tokens_per_s / c.gpus;
  e.model_flops_per_step = ModelFlopsPerStep(m, t);
  e.hardware_flops_per_step = HardwareFlopsPerStep(m, t, l.recompute);
  e.model_tflops_per_gpu = e.model_flops_per_step / e.step_time_s / c.gpus / 1e12;
  const double peak = g.peak_flops(t.precision);
  e.mfu = e.model_flops_per_step / (e.step_time_s * c.gpus * peak);
  e.hfu = e.hardware_flops_per_step / (e.step_time_s * c.gpus * peak);
  e.mfu_vs_bf16 = e.model_flops_per_step / (e.step_time_s * c.gpus * g.bf16_flops);
  e.comm_share = tb.exposed_comm_s() / e.step_time_s;
  e.bubble_rate = tb.bubble_s / e.step_time_s;

  e.capacity_bytes = g.hbm_bytes;
  for (const StageEstimate& st : e.stages)
    if (st.memory.total() > e.peak_memory_bytes) {
      e.peak_memory_bytes = st.memory.total();
      e.peak_stage = st.index;
    }
  e.fits = e.peak_memory_bytes <= e.capacity_bytes;

  // Warnings.
  if (tp > c.fabric.nvlink_domain)
    e.warnings.push_back(fmt::format(
        "tp={} crosses the NVLink domain ({} GPUs): tensor-parallel collectives run over the "
        "scale-out network", tp, c.fabric.nvlink_domain));
  if (m.is_moe() && l.ep > 1 && sm.ep_links_.crosses_domain)
    e.warnings.push_back(fmt::format(
        "ep={} x etp={} spans {} GPUs, beyond one NVLink domain ({}): the expert all-to-all "
        "crosses nodes", l.ep, etp, l.ep * etp, c.fabric.nvlink_domain));
  {
    const double ffn = m.dense_layers() > 0 ? static_cast<double>(m.ffn_hidden) : static_cast<double>(m.moe_ffn_hidden);
    const double util = GemmShapeUtilization(g, T, static_cast<double>(m.hidden), ffn / tp);
    if (T < 1024 || util < 0.8)
      e.warnings.push_back(fmt::format(
          "micro-batch too small for efficient GEMMs: {:.0f} tokens per GPU per micro-batch; the "
          "MLP GEMM reaches {:.0f}% of its achievable rate", T, 100 * util));
    if (m.is_moe()) {
      const double per_expert = T * static_cast<double>(m.topk) * etp / tp / (static_cast<double>(m.experts) / l.ep);
      if (per_expert < 512)
        e.warnings.push_back(fmt::format(
            "about {:.0f} tokens per expert per micro-batch: the grouped expert GEMMs are "
            "skinny; raise mbs or ep", per_expert));
    }
  }
  if (!e.fits)
    e.warnings.push_back(fmt::format("memory: stage {} needs {} per GPU, more than the {} of {}",
                                     e.peak_stage, GB(e.peak_memory_bytes), GB(e.capacity_bytes), g.name));
  if (e.bubble_rate > 0.2)
    e.warnings.push_back(fmt::format(
        "pipeline bubble is {:.0f}% of the step: raise the micro-batch count (global batch / "
        "(dp*mbs) = {}) or vp", 100 * e.bubble_rate, mb));
  return e;
}

}  // namespace paratune
