#include <CLI/CLI.hpp>

#include "cli/scenario_flags.h"

#include "layout/stack_catalog.h"
#include "scenario/default_scenario.h"

namespace paratune::cli {

namespace {

// The model (catalog, config.json or inline), the cluster and the training shape.
void AddModelClusterFlags(CLI::App* c, ScenarioFlags& f, ScenarioUse use) {
  const Training t = DefaultTraining();
  CLI::Option* model = c->add_option("--model", f.model,
                                     use == ScenarioUse::kPredictIfModel
                                         ? "catalog id or config.json: predict this model beside the measurement"
                                         : "catalog id or path to a Hugging Face config.json");
  if (use != ScenarioUse::kPredictIfModel) model->default_str(kDefaultModel);
  c->add_option("--layers", f.dims.layers, "inline model: layers (with --hidden --ffn --heads --vocab)");
  c->add_option("--hidden", f.dims.hidden, "inline model: hidden size");
  c->add_option("--ffn", f.dims.ffn, "inline model: MLP (or expert) intermediate size");
  c->add_option("--heads", f.dims.heads, "inline model: attention heads");
  c->add_option("--kv-heads", f.dims.kv_heads, "inline model: key/value heads (default: heads)");
  c->add_option("--vocab", f.dims.vocab, "inline model: vocabulary size");
  c->add_option("--experts", f.dims.experts, "inline model: routed experts per MoE layer");
  c->add_option("--topk", f.dims.topk, "inline model: experts per token");
  c->add_flag("--plain-mlp", f.plain_mlp, "inline model: GELU MLP (2 GEMMs) instead of SwiGLU");
  c->add_option("--gpu", f.gpu, "GPU type from the hardware catalog (paratune gpus)")->default_str(kDefaultGpu);
  c->add_option("--hardware", f.hardware_file, "TOML file adding or overriding GPU, fabric or calibration entries");
  c->add_option("--fabric", f.fabric,
                "fabric from the hardware catalog or --hardware ([fabric.NAME]; default: the GPU's reference system)");
  c->add_option("--nodes", f.nodes, "nodes (GPUs per node from the catalog)")
      ->default_str(std::to_string(kDefaultNodes));
  c->add_option("--gpus", f.gpus, "total GPUs (instead of --nodes)");
  c->add_option("--seq", f.seq, "sequence length, tokens")->default_str(std::to_string(t.seq));
  c->add_option("--global-batch", f.global_batch, "sequences per optimizer step")
      ->default_str(std::to_string(t.global_batch));
  c->add_option("--precision", f.precision, kPrecisionNames.List() + " matrix multiplies (also mxfp8, nvfp4, mxfp4)")
      ->default_str(PrecisionName(t.precision));
}

// The layout's dimensions, recomputation and schedule: defaults shown where one layout is
// estimated, "searched" in plan.
void AddLayoutFlags(CLI::App* c, ScenarioFlags& f, ScenarioUse use) {
  const Layout d = DefaultLayout();
  const bool one_layout = use != ScenarioUse::kSearch;
  auto dim = [&](const char* flag, int& value, const std::string& help) {
    CLI::Option* o = c->add_option(flag, value, help + (one_layout ? "" : " (searched unless given)"));
    if (one_layout) o->capture_default_str();
  };
  dim("--tp", f.layout.tp, "tensor parallel size");
  dim("--pp", f.layout.pp, "pipeline parallel size");
  dim("--vp", f.layout.vp, "virtual pipeline stages per rank (interleaved 1F1B)");
  c->add_option("--pp-layout", f.layout.pp_layout,
                "layers per pipeline chunk, comma-separated, pp*vp entries in chunk order (uneven stages)")
      ->delimiter(',');
  dim("--cp", f.layout.cp, "context parallel size");
  dim("--ep", f.layout.ep, "expert parallel size");
  c->add_option(
      "--etp", f.layout.etp,
      std::string("expert tensor parallel size (default: tp") + (one_layout ? ")" : "; searched unless given)"));
  c->add_flag("!--no-sp", f.layout.sp, "disable sequence parallelism (on by default when tp > 1)");
  dim("--zero", f.layout.zero, "ZeRO stage 0-3 (1 = distributed optimizer, 3 = FSDP)");
  CLI::Option* rc = c->add_option("--recompute", f.recompute,
                                  kRecomputeNames.List() + (one_layout ? "" : " (searched unless given)"));
  if (one_layout) rc->default_str(RecomputeName(d.recompute));
  c->add_option("--recompute-modules", f.recompute_modules,
                "selective recomputation of these modules (Megatron --recompute-modules; implies --recompute "
                "selective): " +
                    kRecomputeModuleNames.List(", ") + ", comma-separated (default: core_attn)");
  c->add_flag("--fp8-activation-cache", f.layout.fp8_activation_cache,
              "experts' SwiGLU inputs cached in FP8 (DeepSeek-V3 Sec. 3.3.2), with FP8/FP4 precision");
  c->add_flag("--fp8-attention", f.layout.fp8_attention,
              "attention's matrix multiplies in FP8 with FP8/FP4 precision (Transformer Engine "
              "fp8_dot_product_attention)");
  c->add_option("--schedule", f.schedule,
                "pipeline schedule: " + kScheduleNames.List() + " (default: interleaved when vp > 1, else 1f1b)");
  dim("--mbs", f.layout.mbs, "micro-batch size, sequences");
}

// The overlap switches, sharding and optimizer-state options, offloading, attention.
void AddSwitchFlags(CLI::App* c, ScenarioFlags& f) {
  c->add_flag("--overlap-grad-reduce,!--no-overlap-grad-reduce", f.layout.overlap_grad_reduce,
              "overlap DP gradient reduction with backward (default on)");
  c->add_flag("--overlap-param-gather,!--no-overlap-param-gather", f.layout.overlap_param_gather,
              "overlap ZeRO parameter all-gather with forward (default on)");
  c->add_flag("!--grad-reduce-in-bf16", f.layout.grad_reduce_in_fp32,
              "16-bit gradient buffer and DP reduction (Megatron --grad-reduce-in-bf16; default FP32)");
  c->add_flag("--overlap-tp-comm,!--no-overlap-tp-comm", f.layout.overlap_tp_comm,
              "overlap TP collectives with GEMMs (default off)");
  c->add_flag("--overlap-pp-comm,!--no-overlap-pp-comm", f.layout.overlap_pp_comm,
              "overlap PP send/receive with compute (default on)");
  c->add_flag("--overlap-ep-comm,!--no-overlap-ep-comm", f.layout.overlap_ep_comm,
              "hide the MoE all-to-all behind another micro-batch's compute (Megatron "
              "--overlap-moe-expert-parallel-comm, DualPipe; default off)");
  c->add_option("--expert-imbalance", f.layout.expert_imbalance,
                "MoE routing imbalance: tokens of the busiest expert over the mean (default 1 = balanced)");
  c->add_flag("--zero3-per-tensor", f.layout.zero3_per_tensor,
              "ZeRO-3 gathers each parameter tensor separately (DeepSpeed stage 3) instead of per block (FSDP)");
  c->add_flag("--fp32-shards", f.layout.fp32_shards,
              "ZeRO-2/3 states as PyTorch FSDP/FSDP2 mixed precision keeps them: FP32 parameter and gradient "
              "shards, 16-bit copies only gathered (16 bytes per parameter, not 18)");
  c->add_option("--optimizer-states", f.optimizer_states,
                "Adam's states: " + kOptimizerStatesNames.List() +
                    " (fp32: FP32 master, momentum, variance, 12 bytes per parameter, default; fp32-remainders: "
                    "the master as 16-bit remainders, 10 bytes, Megatron --use-precision-aware-optimizer; bf16: BF16 "
                    "moments and no master, 4 bytes, NeMo 1 distributed_fused_adam with optim.dtype bf16)");
  c->add_option("--cp-comm", f.cp_comm,
                "context-parallel exchange: " + kCpCommNames.List() +
                    " (p2p: ring of K/V blocks under the attention, default; a2a: all-to-all over heads, "
                    "Megatron --cp-comm-type a2a)");
  c->add_option("--offload-layers", f.layout.offload_layers,
                "activations of the first N transformer layers copied to host memory and back (Megatron-Core "
                "cpu_offloading_num_layers, NeMo activation_offload_layers; pp 1, no recompute; default 0)")
      ->check(CLI::Range(0, 1 << 20));
  c->add_flag("!--no-flash-attention", f.layout.flash_attention, "store attention scores (no FlashAttention)");
  c->add_option("--attention-kernel", f.attention_kernel,
                "attention kernel: fused (cuDNN / FlashAttention-3, as Transformer Engine picks; default), fa2 "
                "(the flash-attn 2 package: 0.54 of the fused rate on Hopper and Blackwell) or sdpa (PyTorch's "
                "dispatch: fa2 on Ampere and Hopper, cuDNN on Blackwell)");
}

// The software stack and the features it sets.
void AddStackFlags(CLI::App* c, ScenarioFlags& f) {
  c->add_option("--stack", f.stack,
                "software stack, NAME[@RELEASE][+compile]: " + StackNamesList() +
                    "; sets the features below and the attention kernel, cross-entropy fusion and FSDP shards it "
                    "runs with (docs/stacks.md; default: megatron-lm)");
  c->add_option("--kernels", f.kernels, "element-wise kernels: " + kKernelsNames.List() + " (default: the stack's)");
  c->add_option("--cuda-graphs", f.cuda_graphs, "CUDA graphs: " + kCudaGraphsNames.List() + " (default: the stack's)");
  c->add_option("--moe-dispatcher", f.moe_dispatcher,
                "MoE token dispatcher: " + kMoeDispatcherNames.List() + " (default: the stack's)");
  c->add_flag("--grouped-gemm,!--no-grouped-gemm", f.grouped_gemm,
              "experts in one grouped GEMM call (default: the stack's)");
  c->add_flag("--fused-permute,!--no-fused-permute", f.fused_permute,
              "fused MoE token permutation (default: the stack's)");
  c->add_flag("--fused-router,!--no-fused-router", f.fused_router, "fused MoE router (default: the stack's)");
  c->add_flag("--fused-grouped-mlp,!--no-fused-grouped-mlp", f.fused_grouped_mlp,
              "experts' FC1, SwiGLU and FC2-input quantization in one kernel (Transformer Engine's CuTe DSL fused "
              "grouped MLP, NVTE_CUTEDSL_FUSED_GROUPED_MLP=1; default: the stack's)");
  c->add_flag("--fused-cross-entropy", f.layout.fused_cross_entropy,
              "cross-entropy fused with the softmax (Megatron --cross-entropy-loss-fusion): no FP32 logits copy");
  c->add_flag("!--no-cached-wgrad-placeholders", f.layout.cached_wgrad_placeholders,
              "Transformer Engine before 2.3: weight-gradient placeholders allocated per backward, not cached");
  c->add_flag("--allow-cross-domain-tp", f.allow_cross_domain_tp, "allow tp beyond the NVLink domain");
}

}  // namespace

void AddScenarioFlags(CLI::App* c, ScenarioFlags& f, ScenarioUse use) {
  AddModelClusterFlags(c, f, use);
  AddLayoutFlags(c, f, use);
  AddSwitchFlags(c, f);
  AddStackFlags(c, f);
  c->add_flag("--json", f.json, "print JSON (schemas in docs/json.md)");
}

ScenarioRequest GivenRequest(const ScenarioFlags& f, const CLI::App& cmd) {
  ScenarioRequest r = f;
  for (const CLI::Option* o : cmd.get_options())
    if (o->count() > 0)
      for (const std::string& name : o->get_lnames()) r.given.insert("--" + name);
  return r;
}

Scenario ResolveScenario(const ScenarioFlags& f, const CLI::App& cmd) {
  return paratune::ResolveScenario(GivenRequest(f, cmd));
}

}  // namespace paratune::cli
