// Layout: how one training step is split over the cluster (tensor, pipeline, virtual pipeline,
// context, expert and data parallelism; ZeRO stage; recomputation; micro-batch; overlap
// switches), plus the training shape it runs (sequence, global batch, precision).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hardware/gpu_spec.h"
#include "layout/stack.h"
#include "util/enum_names.h"

namespace paratune {

enum class Recompute { kNone, kSelective, kFull };
inline constexpr EnumNames<Recompute, 3> kRecomputeNames{
    {{{Recompute::kNone, "none"}, {Recompute::kSelective, "selective"}, {Recompute::kFull, "full"}}}, 3};
inline const char* RecomputeName(Recompute r) { return kRecomputeNames.Name(r); }
inline Recompute ParseRecompute(const std::string& s, const std::string& where) {
  return kRecomputeNames.Parse(s, where, "recompute mode");
}

// What selective recomputation reruns in the backward: Megatron-LM's --recompute-modules
// (megatron/training/arguments.py; megatron/core/transformer/transformer_config.py
// recompute_modules): core_attn (the attention core, Megatron's default), mlp (the dense MLP),
// moe_act (the experts' activation), layernorm (the norms; their outputs, the next GEMMs'
// inputs, are not kept), mla_up_proj (MLA's up-projections; the per-head q, k, v are not kept),
// moe (the whole MoE block), shared_experts. docs/cost-model.md, "Recomputation by module".
enum class RecomputeModule : uint8_t { kCoreAttn, kMlp, kMoeAct, kLayernorm, kMlaUpProj, kMoe, kSharedExperts };
inline constexpr EnumNames<RecomputeModule, 7> kRecomputeModuleNames{
    {{{RecomputeModule::kCoreAttn, "core_attn"},
      {RecomputeModule::kMlp, "mlp"},
      {RecomputeModule::kMoeAct, "moe_act"},
      {RecomputeModule::kLayernorm, "layernorm"},
      {RecomputeModule::kMlaUpProj, "mla_up_proj"},
      {RecomputeModule::kMoe, "moe"},
      {RecomputeModule::kSharedExperts, "shared_experts"}}},
    7};
inline constexpr uint8_t RecomputeModuleBit(RecomputeModule m) {
  return static_cast<uint8_t>(1u << static_cast<int>(m));
}
// Whether `r` with the module set `modules` (bits of RecomputeModuleBit; empty = Megatron's
// default, core_attn) reruns module `m`.
inline bool RecomputesModule(Recompute r, uint8_t modules, RecomputeModule m) {
  if (r != Recompute::kSelective) return false;
  return modules == 0 ? m == RecomputeModule::kCoreAttn : (modules & RecomputeModuleBit(m)) != 0;
}
// "layernorm,mla_up_proj" -> bits; throws InputError naming `where` for an unknown module.
uint8_t ParseRecomputeModules(const std::string& list, const std::string& where);
// Bits -> "layernorm,mla_up_proj" in kRecomputeModuleNames order ("" for none).
std::string RecomputeModulesText(uint8_t modules);

// The order in which each pipeline rank runs the forward, backward and weight-gradient passes of
// its micro-batches (pipeline/schedule.h builds it).
enum class ScheduleKind {
  kGpipe,        // all forwards, then all backwards (Huang et al. 2019, arXiv 1811.06965)
  k1F1B,         // PipeDream-Flush / Megatron 1F1B (Narayanan et al. 2021, arXiv 2104.04473 Sec. 2.2.1)
  kInterleaved,  // Megatron interleaved 1F1B with vp virtual stages per rank (ibid. Sec. 2.2.2)
  kZbH1,         // zero-bubble ZB-H1 (Qi et al. 2024, arXiv 2401.10241 Sec. 3.1): B and W split
};
inline constexpr EnumNames<ScheduleKind, 4> kScheduleNames{{{{ScheduleKind::kGpipe, "gpipe"},
                                                             {ScheduleKind::k1F1B, "1f1b"},
                                                             {ScheduleKind::kInterleaved, "interleaved"},
                                                             {ScheduleKind::kZbH1, "zb-h1"}}},
                                                           4};
inline const char* ScheduleName(ScheduleKind k) { return kScheduleNames.Name(k); }
inline ScheduleKind ParseSchedule(const std::string& s, const std::string& where) {
  return kScheduleNames.Parse(s, where, "schedule");
}

// The attention kernel: the generation's fused kernel (cuDNN fused attention or
// FlashAttention-3 on Hopper and Blackwell, what Transformer Engine picks), or the flash-attn 2
// package of PyTorch stacks (llm-foundry), which has no Hopper-native path (cost/compute.h).
//
// kSdpa: PyTorch's scaled_dot_product_attention as its dispatcher picks the backend. On Hopper
// that is its bundled FlashAttention-2 (cuDNN attention made opt-in in PyTorch 2.5.1,
// pytorch/pytorch#138522; measured 329 TFLOP/s against cuDNN's 631 on H100,
// pytorch/pytorch#142132), so it runs as kFlashAttention2; on Blackwell torchtitan selects
// cuDNN attention (pytorch/torchtitan#1209), the fused kernel; on Ampere FlashAttention-2 is
// the fused kernel.
enum class AttentionKernel { kFused, kFlashAttention2, kSdpa };
inline constexpr EnumNames<AttentionKernel, 3> kAttentionKernelNames{{{{AttentionKernel::kFused, "fused"},
                                                                       {AttentionKernel::kFlashAttention2, "fa2"},
                                                                       {AttentionKernel::kSdpa, "sdpa"}}},
                                                                     3};
inline const char* AttentionKernelName(AttentionKernel k) { return kAttentionKernelNames.Name(k); }
inline AttentionKernel ParseAttentionKernel(const std::string& s, const std::string& where) {
  return kAttentionKernelNames.Parse(s, where, "attention kernel");
}

// How context parallelism exchanges the sequence (Megatron-Core --cp-comm-type, Transformer
// Engine's attention with context parallelism): kP2p, the ring of K/V blocks overlapped with
// attention (Ring Attention); kA2a, all-to-all of Q, K, V over heads before the attention and of
// its output after (DeepSpeed-Ulysses, Jacobs et al. 2023, arXiv 2309.14509 Sec. 3), each rank
// attending over the whole sequence for heads / cp of its heads.
enum class CpComm { kP2p, kA2a };
inline constexpr EnumNames<CpComm, 2> kCpCommNames{{{{CpComm::kP2p, "p2p"}, {CpComm::kA2a, "a2a"}}}, 2};
inline const char* CpCommName(CpComm k) { return kCpCommNames.Name(k); }
inline CpComm ParseCpComm(const std::string& s, const std::string& where) {
  return kCpCommNames.Parse(s, where, "context-parallel communication");
}

// Adam's states and where the FP32 master weights live. kFp32: an FP32 master copy, momentum and
// variance, 12 bytes per parameter (Megatron-LM's distributed optimizer; ZeRO's K = 12).
// kFp32Remainders: the master copy kept as the 16 low bits the BF16 parameter lacks, 10 bytes
// (Megatron-Core's precision-aware optimizer, store_param_remainders, on by default with
// --use-precision-aware-optimizer; Apex DistributedFusedAdam store_param_remainders, which NeMo 1
// turns on for BF16 models with FP32 optimizer state). kBf16: BF16 momentum and variance and no
// master copy, the BF16 parameters updated in place, 4 bytes (NeMo 1's distributed_fused_adam
// with `optim.dtype: bf16`: megatron_base_model.py setup_optimization sets store_params = False
// when the optimizer dtype equals the model's, NVIDIA/NeMo PR #7909).
enum class OptimizerStates { kFp32, kFp32Remainders, kBf16 };
inline constexpr EnumNames<OptimizerStates, 3> kOptimizerStatesNames{
    {{{OptimizerStates::kFp32, "fp32"},
      {OptimizerStates::kFp32Remainders, "fp32-remainders"},
      {OptimizerStates::kBf16, "bf16"}}},
    3};
inline const char* OptimizerStatesName(OptimizerStates o) { return kOptimizerStatesNames.Name(o); }
inline OptimizerStates ParseOptimizerStates(const std::string& s, const std::string& where) {
  return kOptimizerStatesNames.Parse(s, where, "optimizer states");
}

// The training shape. Its defaults are the built-in scenario's (scenario/default_scenario.h).
struct Training {
  int64_t seq = 8192;          // tokens per sequence
  int64_t global_batch = 256;  // sequences per optimizer step
  Precision precision = Precision::kBf16;
};

struct Layout {
  int tp = 1;                     // tensor parallel
  int pp = 1;                     // pipeline parallel
  int vp = 1;                     // virtual stages per pipeline rank (interleaved 1F1B when > 1)
  int cp = 1;                     // context parallel
  CpComm cp_comm = CpComm::kP2p;  // how CP exchanges the sequence (with cp > 1)
  int ep = 1;                     // expert parallel
  int etp = 0;                    // expert tensor parallel; 0 = same as tp (Megatron's default)
  int dp = 0;                     // data parallel; derived as world / (tp*pp*cp)
  bool sp = true;                 // sequence parallel (only meaningful with tp > 1)
  int zero = 1;                   // 0: plain DP, 1: sharded optimizer (Megatron distributed optimizer),
                                  // 2: + sharded gradients, 3: + sharded parameters (FSDP)
  Recompute recompute = Recompute::kNone;
  // With selective recomputation: the modules it reruns (bits of RecomputeModuleBit); 0 =
  // Megatron's default, core_attn alone.
  uint8_t recompute_modules = 0;
  // Activations cached in FP8 beyond the GEMM inputs Transformer Engine already keeps in FP8:
  // the inputs of the experts' SwiGLU (DeepSeek-V3, arXiv 2412.19437 Sec. 3.3.2, "Low-Precision
  // Storage": cached in FP8 and the activation recomputed, with moe_act). Only under FP8/FP4.
  bool fp8_activation_cache = false;
  // Attention's matrix multiplies in FP8 under an FP8/FP4 recipe (Transformer Engine
  // fp8_dot_product_attention; Megatron-Bridge mixed_precision.fp8_dot_product_attention).
  bool fp8_attention = false;
  int mbs = 1;                       // micro-batch size, sequences
  bool overlap_grad_reduce = true;   // DP gradient reduction overlaps the last backward passes
  bool overlap_param_gather = true;  // ZeRO parameter all-gather overlaps forward
  // Gradient buffer and its data-parallel reduction in FP32: Megatron-LM's choice for BF16
  // (megatron/training/arguments.py validate_args turns accumulate_allreduce_grads_in_fp32 on
  // unless --grad-reduce-in-bf16). false: the buffer is in the parameters' 16-bit dtype
  // (megatron/core/distributed/distributed_data_parallel.py: grad_dtype = torch.float if
  // grad_reduce_in_fp32 else param.dtype), half the gradient memory and DP traffic.
  bool grad_reduce_in_fp32 = true;
  bool overlap_tp_comm = false;  // TP collectives overlapped with GEMMs (TE userbuffers)
  bool overlap_pp_comm = true;   // PP send/receive in the background
  // EP all-to-all hidden behind the compute of another micro-batch: Megatron-Core's combined
  // 1F1B (--overlap-moe-expert-parallel-comm, a forward's dispatch and combine under a
  // backward's compute and the reverse), DeepSeek-V3's DualPipe (arXiv 2412.19437 Sec. 3.2.1).
  bool overlap_ep_comm = false;
  // Routing imbalance: tokens of the busiest expert over the mean (1 = balanced, as published
  // runs force-balance routing). The busiest GPU's experts get that many times the mean, and the
  // all-to-all, which synchronises the EP group, waits for it.
  double expert_imbalance = 1.0;
  bool flash_attention = true;                                 // attention scores never stored (FlashAttention/cuDNN)
  AttentionKernel attention_kernel = AttentionKernel::kFused;  // with flash_attention: which kernel
  // Cross-entropy fused with the softmax (Megatron-LM --cross-entropy-loss-fusion, TE/Triton):
  // no FP32 copy of the logits (docs/cost-model.md section 4).
  bool fused_cross_entropy = false;
  // Transformer Engine >= 2.3 caches one weight-shaped 16-bit placeholder per GEMM weight shape
  // for fused weight-gradient accumulation (transformer_engine/pytorch/module/base.py
  // get_dummy_wgrad); older TE allocates it afresh in each backward.
  bool cached_wgrad_placeholders = true;
  // ZeRO-3 as DeepSpeed stage 3 runs it: one all-gather and one reduce-scatter per parameter
  // tensor; false = FSDP, one per transformer block.
  bool zero3_per_tensor = false;
  // ZeRO-2/3 states as PyTorch FSDP and FSDP2 keep them with mixed precision: the parameter and
  // gradient shards stay in the parameters' FP32 (the parameter shard is the optimizer's master
  // copy) and the 16-bit copies exist only unsharded, in flight. torch.distributed.fsdp
  // MixedPrecision (param_dtype casts the gathered parameters; after the reduce-scatter the
  // sharded gradient is cast back to the parameter dtype unless keep_low_precision_grads:
  // _runtime_utils.py _cast_grad_to_param_dtype); FSDP2 MixedPrecisionPolicy likewise. So 16
  // bytes per sharded parameter (4 + 4 + Adam's 8) where Megatron-FSDP and DeepSpeed keep a
  // 16-bit shard besides the FP32 master. false: those.
  bool fp32_shards = false;
  // Adam's states per parameter (see OptimizerStates).
  OptimizerStates optimizer_states = OptimizerStates::kFp32;
  // Transformer layers whose saved activations are copied to host memory after their forward
  // and back before their backward: Megatron-Core's --cpu-offloading
  // --cpu-offloading-num-layers N (TransformerConfig.cpu_offloading_num_layers, run by
  // Transformer Engine's get_cpu_offload_context), NeMo's activation_offload_layers. The first
  // N layers of the model; Megatron-Core accepts it only without pipeline parallelism and
  // without recomputation (megatron/core/transformer/transformer_config.py __post_init__).
  int offload_layers = 0;
  // Layers of each pipeline chunk, in chunk order c*pp + s (pp*vp entries); empty = even split.
  // In the spirit of Megatron-LM's --pipeline-model-parallel-layout and its
  // --decoder-first/last-pipeline-num-layers: uneven stages, e.g. a lighter first and last
  // stage that also carry the embedding and the loss.
  std::vector<int> pp_layout;
  // The pipeline schedule; unset: interleaved 1F1B when vp > 1, else 1F1B (Megatron-LM's choice).
  std::optional<ScheduleKind> schedule;
  // The software stack's kernels, launches and MoE token path (layout/stack.h; the stacks and
  // their defaults: layout/stack_catalog.h).
  StackFeatures stack;

  ScheduleKind pipeline_schedule() const {
    return schedule ? *schedule : (vp > 1 ? ScheduleKind::kInterleaved : ScheduleKind::k1F1B);
  }
  int expert_tp() const { return etp > 0 ? etp : tp; }
  bool recomputes(RecomputeModule m) const { return RecomputesModule(recompute, recompute_modules, m); }
  bool sequence_parallel() const { return sp && tp > 1; }
  // Micro-batches per step per pipeline: global_batch / (dp * mbs).
  int64_t micro_batches(const Training& t) const { return t.global_batch / (int64_t(dp) * mbs); }
};

}  // namespace paratune
