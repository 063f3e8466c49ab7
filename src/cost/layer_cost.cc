#include "cost/layer_cost.h"

#include <algorithm>
#include <vector>

#include "cost/collectives.h"
#include "cost/compute.h"
#include "cost/flops.h"
#include "cost/host_launch.h"

namespace paratune {
namespace {

// Backward of FlashAttention does 5 matmuls to the forward's 2 (Dao 2023, FlashAttention-2,
// arXiv 2307.08691, Sec. 3.1-3.2): 2.5x the forward FLOPs.
constexpr double kAttentionBackwardFactor = 2.5;

// Which part of the layer a GEMM belongs to, for recomputation by module.
enum class Part { kAttention, kMlaUp, kMlp, kShared, kRouter, kExperts };

struct Shape {
  double M, N, K, count;
  // Column-parallel under sequence parallelism: its input is the TP all-gather of the
  // sequence shards, gathered again in backward for the weight gradient.
  bool gathered_input = false;
  Part part = Part::kAttention;
  // Its input arrives quantized from the kernel before (the fused grouped MLP's FC2): no cast.
  bool quantized_input = false;
};

}  // namespace

double DistinctRanksPerToken(int64_t experts, int64_t topk, int ep) {
  if (ep <= 1 || topk <= 0 || experts < topk || experts % ep != 0)
    return static_cast<double>(std::max<int64_t>(topk, 0));
  // A rank holds none of a token's k distinct experts with probability
  // C(E - E/ep, k) / C(E, k) = prod_i (E - E/ep - i) / (E - i).
  const double e = static_cast<double>(experts), local = e / ep;
  double none = 1;
  for (int64_t i = 0; i < topk; ++i)
    none *= std::max(0.0, (e - local - static_cast<double>(i)) / (e - static_cast<double>(i)));
  return ep * (1 - none);
}

double PermuteBytesPerCopy(const ModelSpec& m, const Layout& l) {
  const double h = static_cast<double>(m.hidden), k = static_cast<double>(std::max<int64_t>(m.topk, 1));
  const double local_experts = static_cast<double>(m.experts) / std::max(1, l.ep);
  if (l.stack.moe_dispatcher != MoeDispatcher::kAllToAll) {
    // Flex (DeepEP, HybridEP): the received tokens permuted to their local experts' copies
    // (read and write 2h per copy), unpermuted back to one row per received token (read 2h per
    // copy, write 2h per received token: D/K of a copy's).
    return 6 * h + 2 * h * DistinctRanksPerToken(m.experts, m.topk, l.ep) / k;
  }
  // Alltoall: permutation 1 before the all-to-all (read 2h, write 2h per copy), with several
  // local experts the sort by expert after it and the unsort before the combine (4h each), and
  // the unpermutation that sums a token's copies (read 2h per copy, write 2h per token).
  return 4 * h + (local_experts > 1 ? 8 * h : 0) + 2 * h + 2 * h / k;
}

double TokensPerMicroBatch(const Training& t, const Layout& l) {
  return static_cast<double>(l.mbs) * static_cast<double>(t.seq) / l.cp;
}

namespace {

// What the parts of one layer's cost share: the inputs of ComputeLayerCost and the figures
// derived from them once.
struct LayerInputs {
  const ModelSpec& m;
  bool moe;
  const ClusterSpec& c;
  const Training& t;
  const Layout& l;
  const GpuSpec& g;
  Precision p;
  double b, s, T, h, nq;  // micro-batch, sequence, tokens per micro-batch, hidden, query heads
  int tp, etp;
  bool sp;
  bool cp_a2a;  // all-to-all context parallelism (Layout::cp_comm): each rank attends over the
                // whole sequence for 1/cp of its heads
  bool gated;
  double act_bytes_per_ffn;  // the MLP activation's bytes per token and FFN column
  double norm_tokens;        // tokens a norm sees (TP-sharded under SP)
  double permute_bytes;      // the token dispatcher's bytes per routed copy (MoE layers)
  GroupLinks tp_links, cp_links, ep_links;
};

LayerInputs MakeLayerInputs(const ModelSpec& m, bool moe, const ClusterSpec& c, const Training& t, const Layout& l) {
  const double T = TokensPerMicroBatch(t, l);
  const bool sp = l.sequence_parallel();
  const bool gated = m.mlp == MlpKind::kGated;
  return LayerInputs{m,
                     moe,
                     c,
                     t,
                     l,
                     c.gpu,
                     t.precision,
                     static_cast<double>(l.mbs),
                     static_cast<double>(t.seq),
                     T,
                     static_cast<double>(m.hidden),
                     static_cast<double>(m.heads),
                     l.tp,
                     l.expert_tp(),
                     sp,
                     l.cp > 1 && l.cp_comm == CpComm::kA2a,
                     gated,
                     gated ? 6.0 : 4.0,
                     sp ? T / l.tp : T,
                     moe ? PermuteBytesPerCopy(m, l) : 0,
                     PlaceGroup(c, {l.tp, 1}),
                     PlaceGroup(c, {l.cp, l.tp}),
                     PlaceGroup(c, {l.ep, l.expert_tp()})};
}

// The layer's GEMMs on one GPU: the attention projections (MLA's or GQA's), then the dense MLP,
// or the router, shared experts and routed experts; `expert_tokens` is set to the routed copies.
std::vector<Shape> LayerGemms(const LayerInputs& x, double& expert_tokens) {
  const ModelSpec& m = x.m;
  const double T = x.T, h = x.h, nq = x.nq;
  const int tp = x.tp, etp = x.etp;
  std::vector<Shape> gemms;
  if (m.attention == AttentionKind::kMla) {
    const double qk = static_cast<double>(m.qk_head_dim());
    // Megatron-Core MLA: the down projections are replicated over TP, the up projections
    // and the output projection are split by heads.
    if (m.q_lora_rank > 0) {
      gemms.push_back({T, static_cast<double>(m.q_lora_rank), h, 1, true});
      gemms.push_back({T, nq * qk / tp, static_cast<double>(m.q_lora_rank), 1, false, Part::kMlaUp});
    } else {
      gemms.push_back({T, nq * qk / tp, h, 1, true});
    }
    gemms.push_back({T, static_cast<double>(m.kv_lora_rank + m.qk_rope_head_dim), h, 1, true});
    gemms.push_back({T, nq * static_cast<double>(m.qk_nope_head_dim + m.v_head_dim) / tp,
                     static_cast<double>(m.kv_lora_rank), 1, false, Part::kMlaUp});
    gemms.push_back({T, h, nq * static_cast<double>(m.v_head_dim) / tp, 1});
  } else {
    const double qkv = static_cast<double>((m.heads + 2 * m.kv_heads) * m.head_dim);
    gemms.push_back({T, qkv / tp, h, 1, true});
    gemms.push_back({T, h, nq * static_cast<double>(m.head_dim) / tp, 1});
  }
  auto mlp = [&](double M, double ffn, double split, double count, Part part, bool gathered = false) {
    gemms.push_back({M, (x.gated ? 2 : 1) * ffn / split, h, count, gathered, part});
    gemms.push_back({M, h, ffn / split, count, false, part});
  };
  if (x.moe) {
    gemms.push_back({x.sp ? T / tp : T, static_cast<double>(m.experts), h, 1, false, Part::kRouter});
    if (m.shared_experts > 0) mlp(T, static_cast<double>(m.shared_experts * m.shared_ffn_hidden), tp, 1, Part::kShared);
    // Token copies on this GPU, spread evenly over its local experts; with routing imbalance the
    // busiest GPU's experts get expert_imbalance times the mean (it sets the pace of the group).
    const double local_experts = static_cast<double>(m.experts) / x.l.ep;
    expert_tokens = T * static_cast<double>(m.topk) * etp / tp * x.l.expert_imbalance;
    mlp(expert_tokens / local_experts, static_cast<double>(m.moe_ffn_hidden), etp, local_experts, Part::kExperts);
    gemms.back().quantized_input = x.l.stack.fused_grouped_mlp;
  } else {
    mlp(T, static_cast<double>(m.ffn_hidden), tp, 1, Part::kMlp, true);
  }
  return gemms;
}

// The GEMMs' times: the forward by part and one by one, and under SP the gathered inputs'
// weight and input gradients (the backward's re-gather runs under the input-gradient GEMM, its
// reduce-scatter under the weight gradient).
struct GemmTimes {
  double part_fwd_s[6] = {0, 0, 0, 0, 0, 0};  // forward GEMM time by Part
  std::vector<double> fwd_s;                  // forward time of each GEMM, in the gemms' order
  double gathered_dgrad_s = 0, gathered_wgrad_s = 0;
  double part(Part x) const { return part_fwd_s[static_cast<int>(x)]; }
};

// Times the GEMMs, adding them to out's gemm_fwd_s, bwd_compute_s and wgrad_s.
GemmTimes TimeGemms(const LayerInputs& x, const std::vector<Shape>& gemms, LayerCost& out) {
  GemmTimes gt;
  gt.fwd_s.reserve(gemms.size());
  for (const Shape& y : gemms) {
    const double fwd = GemmTime(x.g, x.p, y.M, y.N, y.K, y.count);
    out.gemm_fwd_s += fwd;
    gt.part_fwd_s[static_cast<int>(y.part)] += fwd;
    gt.fwd_s.push_back(fwd);
    // Backward: input gradient [M,K] = dY[M,N] W^T, weight gradient [K,N] = X^T dY.
    const double dgrad = GemmTime(x.g, x.p, y.M, y.K, y.N, y.count), wgrad = GemmTime(x.g, x.p, y.K, y.N, y.M, y.count);
    out.bwd_compute_s += dgrad + wgrad;
    out.wgrad_s += wgrad;
    if (y.gathered_input) {
      gt.gathered_dgrad_s += dgrad;
      gt.gathered_wgrad_s += wgrad;
    }
  }
  return gt;
}

// The attention core, heads split by TP, queries by CP (load-balanced causal): sets
// out.attention_fwd_s and returns the backward's time.
double TimeAttentionCore(const LayerInputs& x, LayerCost& out) {
  const ModelSpec& m = x.m;
  const Layout& l = x.l;
  const GpuSpec& g = x.g;
  const double s = x.s;
  if (l.flash_attention) {
    // FlashAttention skips the masked half of the causal score matrix.
    const double att_flops = LayerForwardFlops(m, x.moe, x.T, s).attention / x.tp;
    // One kernel streams the keys of its sequence per CP rank (each ring step a block of s/cp);
    // all-to-all CP gives each rank the whole sequence for 1/cp of its heads.
    const double keys = x.cp_a2a ? s : s / l.cp, dqk = static_cast<double>(m.qk_head_dim());
    const bool fa2 = l.attention_kernel == AttentionKernel::kFlashAttention2 ||
                     (l.attention_kernel == AttentionKernel::kSdpa && g.generation != "blackwell");
    // One exponential per score: the forward's softmax, and the backward's recomputed
    // probabilities (FlashAttention-2 Alg. 2); a score costs 2 d_qk + 2 d_v forward FLOPs.
    const double exps = att_flops / (2 * dqk + 2 * static_cast<double>(m.v_dim()));
    const bool fp8_att = l.fp8_attention && IsQuantized(x.p);
    out.attention_fwd_s = AttentionTime(g, att_flops, keys, dqk, fa2, exps, fp8_att);
    return AttentionTime(g, kAttentionBackwardFactor * att_flops, keys, dqk, fa2, exps, fp8_att);
  }
  // Unfused attention (Megatron-LM before FlashAttention): two batched GEMMs per head over
  // the full s x s scores, the causal mask applied afterwards, so no causal saving
  // (Shoeybi et al. 2019, Sec. 3; Megatron-LM CoreAttention). Backward: two GEMMs each.
  // All-to-all CP: the whole sequence for 1/cp of the heads (the same work).
  const double heads = x.nq / x.tp * x.b / (x.cp_a2a ? l.cp : 1);
  const double sq = x.cp_a2a ? s : s / l.cp;
  const double dqk = static_cast<double>(m.qk_head_dim()), dv = static_cast<double>(m.v_dim());
  out.attention_fwd_s =
      GemmTime(g, Precision::kBf16, sq, s, dqk, heads) + GemmTime(g, Precision::kBf16, sq, dv, s, heads);
  return GemmTime(g, Precision::kBf16, sq, dqk, s, heads) + GemmTime(g, Precision::kBf16, s, dqk, sq, heads) +
         GemmTime(g, Precision::kBf16, sq, s, dv, heads) + GemmTime(g, Precision::kBf16, s, dv, sq, heads);
}

// The layer's memory-bound work in a forward: HBM bytes and kernel launches.
struct MemoryBoundWork {
  double bytes = 0, kernels = 0;
};

// Memory-bound kernels (bytes per token; docs/cost-model.md "Memory-bound work").
MemoryBoundWork LayerMemoryWork(const LayerInputs& x, const std::vector<Shape>& gemms, double expert_tokens) {
  const ModelSpec& m = x.m;
  const Layout& l = x.l;
  const double T = x.T, h = x.h, nq = x.nq, norm_tokens = x.norm_tokens;
  const int tp = x.tp, etp = x.etp;
  double bytes = norm_tokens * 20 * h;  // 2 norms (4h each) + 2 residual adds (6h each)
  if (m.dropout) bytes += norm_tokens * 10 * h;
  const double rope_width = m.attention == AttentionKind::kMla
                                ? nq * m.qk_rope_head_dim
                                : static_cast<double>((m.heads + m.kv_heads) * m.head_dim);
  bytes += T * 4 * rope_width / tp;
  if (x.moe) {
    const double shared = static_cast<double>(m.shared_experts * m.shared_ffn_hidden);
    bytes += T * x.act_bytes_per_ffn * shared / tp;
    // The fused grouped MLP applies the SwiGLU inside FC1's kernel: no activation pass.
    const double expert_act = l.stack.fused_grouped_mlp ? 0 : x.act_bytes_per_ffn * m.moe_ffn_hidden / etp;
    bytes += expert_tokens * (expert_act + x.permute_bytes);  // act + permute
  } else {
    bytes += T * x.act_bytes_per_ffn * m.ffn_hidden / tp;
  }
  // Unfused attention streams the scores: the fused scale-mask-softmax reads them and writes
  // the probabilities (4 bytes per score), dropout adds a mask and its output (3 bytes).
  if (!l.flash_attention) bytes += T * (m.dropout ? 7 : 4) * nq * x.s / tp;
  if (IsQuantized(x.p)) {
    // Casts of GEMM inputs to FP8/FP4: read 2 bytes, write row- and column-wise copies.
    double elems = 0;
    for (const Shape& y : gemms)
      if (!y.quantized_input) elems += y.M * y.K * y.count;
    bytes += 4 * elems;
  }
  double kernels = 12 + (x.moe ? 6 : 0);
  if (l.stack.kernels == Kernels::kEager) {
    // One kernel per PyTorch operator (layout/stack.h Kernels; docs/stacks.md "Element-wise"),
    // bytes per element beyond the fused kernel's read and write: RMSNorm computed in FP32 as
    // x.float() (2 in, 4 out), pow (4, 4), mean (4), x * rsqrt (4, 4), type_as (4, 2) and the
    // weight (2, 2): 36 bytes for the fused 4; rotary embedding through complex numbers on Q
    // and K, float (2, 4), the complex product (4, 4), type_as (4, 2): 20 for 4; silu(x1) * x3
    // as two kernels (2, 2 then 4, 2): 10 for 6. nn.LayerNorm and GELU are one kernel either way.
    if (m.norm == NormKind::kRmsNorm) bytes += norm_tokens * 2 * 32 * h;
    if (m.positions == PositionKind::kRotary) bytes += T * 16 * rope_width / tp;
    if (x.gated) {
      const double ffn = x.moe ? static_cast<double>(m.shared_experts * m.shared_ffn_hidden) / tp +
                                     expert_tokens / T * m.moe_ffn_hidden / etp
                               : static_cast<double>(m.ffn_hidden) / tp;
      bytes += T * 4 * ffn;
    }
    kernels += 30;
  }
  return {bytes, kernels};
}

// Selective recomputation reruns its modules' forward work in the backward (Layout::
// recompute_modules; docs/cost-model.md "Recomputation by module"): the attention core, the
// norms (their bytes), MLA's up-projections, the dense MLP or the shared experts (GEMMs and
// activation), the experts' activation, or the whole MoE block (router, experts, permutation
// and its dispatch and combine, added with the EP time). Adds to out.recompute_fwd_s.
void AddRecompute(const LayerInputs& x, const GemmTimes& gt, double mem_fwd, LayerCost& out) {
  const ModelSpec& m = x.m;
  const Layout& l = x.l;
  const GpuSpec& g = x.g;
  const double T = x.T, expert_tokens = out.expert_tokens;
  const auto act_time = [&](double tokens, double ffn) {
    return MemoryBoundTime(g, tokens * x.act_bytes_per_ffn * ffn, 1);
  };
  // torchtitan's selective recomputation is its per-op policy (torchtitan/distributed/
  // activation_checkpoint.py, _get_custom_policy, pytorch/torchtitan b5bcd76c): a block saves the
  // outputs of its matrix multiplies and SDPA but reruns every second matrix multiply and every
  // element-wise op. In a Llama block's order (wq, wk, wv, wo, w1, w3, w2) that is wk, wo and w3
  // (w2 for a two-GEMM MLP): the K share of our fused QKV GEMM, the output projection, half of
  // the gated up-projection, and the block's element-wise bytes. Dense GQA layers; otherwise
  // Megatron's meaning below.
  const std::vector<double>& gemm_fwd_s = gt.fwd_s;
  const bool op_sac = l.recompute == Recompute::kSelective && l.stack.framework == Framework::kTorchtitan && !x.moe &&
                      m.attention != AttentionKind::kMla && gemm_fwd_s.size() == 4;
  if (op_sac) {
    const double k_share = static_cast<double>(m.kv_heads) / static_cast<double>(m.heads + 2 * m.kv_heads);
    out.recompute_fwd_s =
        gemm_fwd_s[0] * k_share + gemm_fwd_s[1] + (x.gated ? gemm_fwd_s[2] / 2 : gemm_fwd_s[3]) + mem_fwd;
  } else if (l.recomputes(RecomputeModule::kCoreAttn)) {
    out.recompute_fwd_s += out.attention_fwd_s;
  }
  if (l.recomputes(RecomputeModule::kLayernorm))
    out.recompute_fwd_s += MemoryBoundTime(g, x.norm_tokens * 2 * 4 * x.h, 2);
  if (l.recomputes(RecomputeModule::kMlaUpProj)) out.recompute_fwd_s += gt.part(Part::kMlaUp);
  if (!x.moe && l.recomputes(RecomputeModule::kMlp))
    out.recompute_fwd_s += gt.part(Part::kMlp) + act_time(T, static_cast<double>(m.ffn_hidden) / x.tp);
  const double shared_ffn = static_cast<double>(m.shared_experts * m.shared_ffn_hidden) / x.tp;
  if (x.moe && l.recomputes(RecomputeModule::kMoe)) {
    out.recompute_fwd_s +=
        gt.part(Part::kRouter) + gt.part(Part::kShared) + gt.part(Part::kExperts) + act_time(T, shared_ffn) +
        MemoryBoundTime(g, expert_tokens * (x.act_bytes_per_ffn * m.moe_ffn_hidden / x.etp + x.permute_bytes), 2);
    out.recompute_moe_block = true;
  } else if (x.moe) {
    if (l.recomputes(RecomputeModule::kSharedExperts))
      out.recompute_fwd_s += gt.part(Part::kShared) + act_time(T, shared_ffn);
    if (l.recomputes(RecomputeModule::kMoeAct))
      out.recompute_fwd_s += act_time(expert_tokens, static_cast<double>(m.moe_ffn_hidden) / x.etp);
  }
}

// Tensor parallel: with SP, an all-gather before and a reduce-scatter after the attention
// and the MLP blocks, the reverse in backward (Korthikanti et al. 2022, Sec. 4.2.2, Fig. 5),
// where each column-parallel GEMM also gathers its input again for the weight gradient, the
// gathered input not being kept (Megatron-LM tensor_parallel/layers.py
// LinearWithGradAccumulationAndAsyncCommunication.backward; Transformer Engine's Linear and
// LayerNormLinear backward likewise); without SP, one all-reduce per block each way (Shoeybi
// et al. 2019, Sec. 3, Fig. 4). `att_bwd` and `mem_bwd` are the backward's non-GEMM compute.
void AddTensorParallel(const LayerInputs& x, const GemmTimes& gt, double att_bwd, double mem_bwd, LayerCost& out) {
  const int tp = x.tp;
  // One gather per block input: the attention's, and the dense MLP's (a MoE layer's MLP input
  // is gathered by its token dispatcher, which keeps nothing to gather again).
  const int regathers = x.moe ? 1 : 2;
  out.tp_bytes = x.T * x.h * 2;
  if (x.sp) {
    out.tp_call_s = AllGatherTime(out.tp_bytes, tp, x.tp_links);
    out.tp_calls_fwd = 4;
    out.tp_calls_bwd = 4 + regathers;
  } else {
    out.tp_call_s = AllReduceTime(out.tp_bytes, tp, x.tp_links);
    out.tp_calls_fwd = 2;
    out.tp_calls_bwd = 2;
  }
  out.tp_fwd_s = out.tp_calls_fwd * out.tp_call_s;
  out.tp_bwd_s = out.tp_calls_bwd * out.tp_call_s;
  // A collective that runs under a GEMM holds SMs meanwhile (its NCCL kernels), so the GEMM
  // it hides behind stretches as the passes under ZeRO-2/3 collectives do (stage_costs.cc,
  // "NCCL's SMs"): with GEMM work W and C seconds hidden under it, the exposed time is
  // (C - hidden) + min(s hidden, W s / (1 - s)), s = nccl_sm_share.
  const double share = std::clamp(x.g.calibration.nccl_sm_share, 0.0, 0.9);
  const auto overlapped = [&](double comm, double gemm) {
    const double hidden = std::max(0.0, std::min(comm, gemm));
    const double stretch = gemm <= 0 ? 0.0 : std::min(share * hidden, gemm * share / (1 - share));
    return (comm - hidden) + stretch;
  };
  if (x.l.overlap_tp_comm) {
    // Transformer Engine userbuffers overlap each collective with the adjacent GEMM.
    out.tp_exposed_fwd_s = overlapped(out.tp_fwd_s, out.gemm_fwd_s);
    out.tp_exposed_bwd_s = overlapped(out.tp_bwd_s, out.bwd_compute_s - att_bwd - mem_bwd);
    return;
  }
  out.tp_exposed_fwd_s = out.tp_fwd_s;
  // In backward, the collective on the input gradient of each column-parallel GEMM (QKV,
  // MLP up) runs asynchronously under that GEMM's weight-gradient computation
  // (Megatron-LM LinearWithGradAccumulationAndAsyncCommunication; Korthikanti et al.
  // 2022 Sec. 4.2.2): 2 of the 2 all-reduces without SP, the 2 reduce-scatters with SP;
  // with SP the input re-gathers run under the input-gradient GEMMs (the same backward
  // launches the gather, computes dgrad, then waits), the rest is blocking.
  const double async = 2 * out.tp_call_s;
  if (x.sp) {
    const double regather = regathers * out.tp_call_s;
    out.tp_exposed_bwd_s = (out.tp_bwd_s - async - regather) + overlapped(async, gt.gathered_wgrad_s) +
                           overlapped(regather, gt.gathered_dgrad_s);
  } else {
    out.tp_exposed_bwd_s = (out.tp_bwd_s - async) + overlapped(async, out.wgrad_s);
  }
}

// Context parallel, all-to-all or ring; `att_bwd` is the attention core's backward.
void AddContextParallel(const LayerInputs& x, double att_bwd, LayerCost& out) {
  const ModelSpec& m = x.m;
  const Layout& l = x.l;
  const double T = x.T, nq = x.nq;
  const int tp = x.tp;
  // The K and V width of a token per layer (MLA: the decompressed heads).
  const double kv_width = m.attention == AttentionKind::kMla ? nq * static_cast<double>(m.qk_head_dim() + m.v_head_dim)
                                                             : static_cast<double>(2 * m.kv_heads * m.head_dim);
  if (x.cp_a2a) {
    // All-to-all CP (Transformer Engine AttnFuncWithCPAndQKVOA2A, Megatron --cp-comm-type a2a):
    // the forward exchanges Q, K and V of the rank's T tokens and local heads before the
    // attention and its output after; the backward the output's gradient and then dQ, dK, dV
    // (TE >= 2.8 no longer re-sends the output with its gradient). Each call moves the 16-bit
    // buffer of the rank's tokens; none runs under compute (the attention waits for its input,
    // the next GEMM for the output).
    const double q_width = nq * static_cast<double>(m.qk_head_dim());
    const double o_width = nq * static_cast<double>(m.v_dim());
    const double qkv_s = AllToAllTime(T * (q_width + kv_width) / tp * 2, l.cp, x.cp_links);
    const double o_s = AllToAllTime(T * o_width / tp * 2, l.cp, x.cp_links);
    out.cp_bytes = T * (q_width + kv_width + o_width) / tp * 2 / 2;  // mean of the two calls
    out.cp_call_s = (qkv_s + o_s) / 2;
    out.cp_calls_fwd = 2;
    out.cp_calls_bwd = 2;
    out.cp_fwd_s = qkv_s + o_s;
    out.cp_bwd_s = qkv_s + o_s;
    out.cp_exposed_fwd_s = out.cp_fwd_s;
    out.cp_exposed_bwd_s = out.cp_bwd_s;
  } else if (l.cp > 1) {
    // Ring exchange of K and V blocks, cp-1 steps, overlapped with the attention of the block
    // in hand (Megatron-Core context_parallel, Liu et al. 2023 Ring Attention Sec. 3); backward
    // also returns dK and dV.
    const GroupLinks& links = x.cp_links;
    out.cp_bytes = T * kv_width / tp * 2;
    out.cp_call_s = links.crosses_domain ? out.cp_bytes / links.net_bytes_per_s + links.latency_s
                                         : out.cp_bytes / links.nvlink_bytes_per_s + links.latency_s;
    out.cp_calls_fwd = l.cp - 1;
    out.cp_calls_bwd = 2 * (l.cp - 1);
    out.cp_fwd_s = out.cp_calls_fwd * out.cp_call_s;
    out.cp_bwd_s = out.cp_calls_bwd * out.cp_call_s;
    // Per step of the ring: the next block's transfer runs under the attention of the block in
    // hand (1/cp of the layer's attention), so a step exposes what its transfer exceeds that
    // block's attention by; one step's slack cannot hide another step's transfer.
    const double steps = l.cp - 1;
    out.cp_exposed_fwd_s = steps * std::max(0.0, out.cp_call_s - out.attention_fwd_s / l.cp);
    out.cp_exposed_bwd_s = steps * std::max(0.0, 2 * out.cp_call_s - att_bwd / l.cp);
  }
}

// The share of a rank's micro-batch passes that Megatron-Core's combined 1F1B schedule runs
// alone, with no pass of another micro-batch to hide their EP all-to-all
// (megatron/core/pipeline_parallel/combined_1f1b.py): without pipelining the first micro-batch's
// forward and the last one's backward, 1 of M each way; interleaved, the warm-up forwards and
// cool-down backwards of the first stage, 2 (pp - 1) + (vp - 1) pp of its M vp chunk passes
// (megatron/core/pipeline_parallel/schedules.py, get_pp_rank_microbatches). Megatron-Core runs
// the overlap only so (megatron/core/transformer/transformer_config.py: a pipeline needs virtual
// stages); a pipeline without them stands for DualPipe (arXiv 2412.19437 Sec. 3.2.1), whose
// warm-up is not priced: 0.
double LonePassShare(const Training& t, const Layout& l) {
  const int vp = std::max(1, l.vp);
  if (l.pp > 1 && vp == 1) return 0;
  const double chunks = static_cast<double>(std::max<int64_t>(1, l.micro_batches(t))) * vp;
  const double lone = l.pp <= 1 ? 1.0 : 2.0 * (l.pp - 1) + (vp - 1.0) * l.pp;
  return std::min(1.0, lone / chunks);
}

// Expert parallel: all-to-all dispatch and combine of the routed token copies, twice each
// way (Megatron-Core MoE alltoall token dispatcher); exposed unless overlapped with another
// micro-batch's compute of the layer (Layout::overlap_ep_comm): then only what exceeds that
// compute is exposed, less the compute the TP and CP collectives already hide behind when
// they share the EP port (one port carries one transfer at a time). The passes the schedule
// runs alone (LonePassShare) expose theirs whole.
void AddExpertParallel(const LayerInputs& x, LayerCost& out) {
  const ModelSpec& m = x.m;
  const Layout& l = x.l;
  out.ep_bytes = out.expert_tokens * x.h * 2;
  // DeepEP and HybridEP send a token once to each rank that holds any of its experts
  // (deep_ep/buffer.py get_dispatch_layout: is_token_in_rank [tokens, ranks]); the receiving
  // rank copies it to its local experts. The alltoall dispatcher sends every routed copy.
  if (l.stack.moe_dispatcher != MoeDispatcher::kAllToAll)
    out.ep_bytes *= DistinctRanksPerToken(m.experts, m.topk, l.ep) / static_cast<double>(m.topk);
  out.ep_call_s = AllToAllTime(out.ep_bytes, l.ep, x.ep_links);
  out.ep_fwd_s = 2 * out.ep_call_s;
  out.ep_bwd_s = 2 * out.ep_call_s;
  out.ep_exposed_fwd_s = out.ep_fwd_s;
  out.ep_exposed_bwd_s = out.ep_bwd_s;
  if (!l.overlap_ep_comm) return;
  double busy = 0;  // compute the port's other collectives already hide behind
  if (x.tp > 1 && x.tp_links.crosses_domain == x.ep_links.crosses_domain)
    busy += out.tp_fwd_s + out.tp_bwd_s - out.tp_exposed_fwd_s - out.tp_exposed_bwd_s;
  if (l.cp > 1 && x.cp_links.crosses_domain == x.ep_links.crosses_domain)
    busy += out.cp_fwd_s + out.cp_bwd_s - out.cp_exposed_fwd_s - out.cp_exposed_bwd_s;
  const double hide = std::max(0.0, out.fwd_compute_s + out.bwd_compute_s - busy);
  const double comm = out.ep_fwd_s + out.ep_bwd_s;
  const double lone = LonePassShare(x.t, l);
  const double exposed = lone * comm + (1 - lone) * std::max(0.0, comm - hide);
  out.ep_exposed_fwd_s = exposed / 2;
  out.ep_exposed_bwd_s = exposed / 2;
}

// The host's side (cost/host_launch.h): where issuing a pass's kernels takes the host longer
// than the GPU takes to run them (compute and the communication it waits for), the GPU idles
// for the difference, counted in the pass's compute.
void AddHostLaunches(const LayerInputs& x, LayerCost& out) {
  const LayerLaunches launches = CountLayerLaunches(x.m, x.moe, x.t, x.l);
  const double host_op_s = x.g.calibration.host_op_s;
  out.host_fwd_s = launches.fwd_kernels * host_op_s;
  out.host_bwd_s = launches.bwd_kernels * host_op_s;
  out.host_exposed_fwd_s = std::max(0.0, out.host_fwd_s - (out.fwd_compute_s + out.exposed_fwd_s()));
  out.host_exposed_bwd_s = std::max(0.0, out.host_bwd_s - (out.bwd_compute_s + out.exposed_bwd_s()));
  out.fwd_compute_s += out.host_exposed_fwd_s;
  out.bwd_compute_s += out.host_exposed_bwd_s;
}

}  // namespace

LayerCost ComputeLayerCost(const ModelSpec& m, bool moe, const ClusterSpec& c, const Training& t, const Layout& l) {
  const LayerInputs x = MakeLayerInputs(m, moe, c, t, l);
  LayerCost out;
  const std::vector<Shape> gemms = LayerGemms(x, out.expert_tokens);
  const GemmTimes gt = TimeGemms(x, gemms, out);
  const double att_bwd = TimeAttentionCore(x, out);
  const MemoryBoundWork work = LayerMemoryWork(x, gemms, out.expert_tokens);
  const double mem_fwd = MemoryBoundTime(x.g, work.bytes, work.kernels);
  const double mem_bwd = MemoryBoundTime(x.g, 2 * work.bytes, 2 * work.kernels);
  out.fwd_compute_s = out.gemm_fwd_s + out.attention_fwd_s + mem_fwd;
  out.bwd_compute_s += att_bwd + mem_bwd;
  out.attention_bwd_s = att_bwd;
  AddRecompute(x, gt, mem_fwd, out);
  if (x.tp > 1) AddTensorParallel(x, gt, att_bwd, mem_bwd, out);
  AddContextParallel(x, att_bwd, out);
  if (moe && l.ep > 1) AddExpertParallel(x, out);
  if (out.recompute_moe_block) out.recompute_fwd_s += out.ep_exposed_fwd_s;
  AddHostLaunches(x, out);
  return out;
}

}  // namespace paratune
