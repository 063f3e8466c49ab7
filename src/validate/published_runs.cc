#include "validate/published_runs.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <regex>

#include "layout/pipeline_split.h"
#include "model/catalog.h"
#include "util/csv.h"
#include "util/error.h"
#include "util/text.h"
#include "validate/stack_map.h"

namespace paratune {
namespace {

const char* const kColumns[] = {"id",
                                "source",
                                "model",
                                "arch",
                                "layers",
                                "hidden",
                                "ffn_hidden",
                                "heads",
                                "kv_heads",
                                "vocab",
                                "seq_len",
                                "num_experts",
                                "topk",
                                "gpu",
                                "num_gpus",
                                "gpus_per_node",
                                "tp",
                                "pp",
                                "vp",
                                "dp",
                                "cp",
                                "ep",
                                "sp",
                                "zero_stage_or_fsdp",
                                "micro_batch",
                                "global_batch",
                                "recompute",
                                "precision",
                                "target_tokens_per_s_per_gpu",
                                "confidence",
                                "flags"};

// The numeric columns: every non-empty cell of these must parse, in every row, whether or not
// the row can be modelled.
const char* const kIntColumns[] = {"layers",  "hidden",      "ffn_hidden", "heads",    "kv_heads",      "vocab",
                                   "seq_len", "num_experts", "topk",       "num_gpus", "gpus_per_node", "tp",
                                   "pp",      "vp",          "cp",         "ep",       "micro_batch",   "global_batch"};
const char* const kNumColumns[] = {"target_tokens_per_s_per_gpu"};

// Optional numeric columns: read (and checked like the others) where the file has them.
struct OptionalColumn {
  const char* name;
  double PublishedRun::*field;
  double scale;  // to SI: GiB to bytes
};
const OptionalColumn kOptionalColumns[] = {
    {"target_step_time_s", &PublishedRun::target_step_time_s, 1},
    {"measured_peak_mem_gib", &PublishedRun::measured_peak_memory_bytes, 1024.0 * 1024 * 1024},
    {"simumax_pred_mem_gib", &PublishedRun::simumax_peak_memory_bytes, 1024.0 * 1024 * 1024},
    {"simumax_pred_step_time_s", &PublishedRun::simumax_step_time_s, 1},
};

// A malformed cell: the file is broken (not just a row paratune cannot model).
struct CellError : InputError {
  using InputError::InputError;
};

// Typed access to the cells of one row; a malformed number is a CellError naming line and column.
class Cells {
 public:
  Cells(const std::map<std::string, size_t>& col, const CsvRow& row, const std::string& where)
      : col_(col), row_(row), where_(where) {}

  const std::string& Str(const char* name) const { return row_.fields[col_.at(name)]; }
  // An optional column (hf_model): its text, or empty when the file has no such column.
  bool Has(const char* name) const { return col_.contains(name); }
  std::string Optional(const char* name) const {
    auto it = col_.find(name);
    return it == col_.end() ? std::string() : row_.fields[it->second];
  }
  bool Empty(const char* name) const { return Str(name).empty(); }

  // A non-negative integer of at most kMaxInt: it fits every int it is stored in, and the
  // products the cost model forms from a row (GPUs per node, parallel degrees, batch x sequence)
  // stay within 64 bits.
  int64_t Int(const char* name) const {
    const std::string& s = Str(name);
    int64_t v = 0;
    if (ParseInteger(s, &v) != NumberParse::kOk || v < 0 || v > kMaxInt)
      throw CellError(where_ + ":" + std::to_string(row_.line) + ": column '" + name +
                      "' must be a non-negative integer of at most " + std::to_string(kMaxInt) + ", got " + Quote(s));
    return v;
  }
  // A finite non-negative number.
  double Num(const char* name) const {
    const std::string& s = Str(name);
    double v = 0;
    if (ParseNumber(s, &v) != NumberParse::kOk || v < 0)
      throw CellError(where_ + ":" + std::to_string(row_.line) + ": column '" + name +
                      "' must be a finite non-negative number, got " + Quote(s));
    return v;
  }
  static constexpr int64_t kMaxInt = int64_t{1} << 24;  // 16,777,216: far beyond any published run

 private:
  const std::map<std::string, size_t>& col_;
  const CsvRow& row_;
  const std::string& where_;
};

// Runs published before FlashAttention reached Megatron-LM (2023) stored and recomputed the
// attention scores with Megatron's fused softmax: a fact of the software those runs used.
bool PredatesFlashAttention(const std::string& source) {
  return source == "Narayanan2021" || source == "Korthikanti2022" || source == "MegatronLM-README-2020";
}

// The sharding texts of column zero_stage_or_fsdp, as the sources write them (README of the
// validation data, "Column notes"): one rule per family, matched in order, the whole text
// against an ECMAScript regular expression. `zero` is the layout's ZeRO stage (layout/layout.h:
// 1 = sharded optimizer states, the Megatron/NeMo distributed optimizer; 2 = + gradients,
// FSDP SHARD_GRAD_OP; 3 = + parameters, FSDP FULL_SHARD). `group`: the text's first capture is
// the sharding group size. `torch_fsdp`: PyTorch FSDP or FSDP2, whose mixed precision keeps FP32
// parameter and gradient shards (Layout::fp32_shards), unless the row is an NVIDIA recipe, whose
// "FSDP" is Megatron-FSDP (NeMo's use_megatron_fsdp / use_mcore_fsdp switch).
struct ShardingRule {
  const char* pattern;
  int zero;
  bool per_tensor;  // DeepSpeed stage 3: per-tensor gathers, not overlapped
  bool group;
  bool torch_fsdp;
};
const ShardingRule kShardingRules[] = {
    // Empty and "DDP" are Megatron-LM / NeMo runs: their DDP wrapper with the distributed
    // optimizer (NeMo's tables print "FSDP=0" for it).
    {"", 1, false, false, false},
    {R"(DDP( \(FSDP=0\))?)", 1, false, false, false},
    {R"(ZeRO-1( \(.*\))?)", 1, false, false, false},
    {R"(distributed optimizer( \(.*\))?)", 1, false, false, false},
    {R"(ZeRO-2( .*)?)", 2, false, false, false},
    {R"(ZeRO-3 \(DeepSpeed\)( .*)?)", 3, true, false, false},
    {R"(ZeRO-3( .*)?)", 3, false, false, false},
    // PyTorch FSDP: FULL_SHARD is its default sharding strategy (torch.distributed.fsdp
    // ShardingStrategy); "FSDP + <other parallelism>" shards the same way.
    {R"(FSDP( FULL_SHARD)?)", 3, false, false, true},
    {R"(FSDP SHARD_GRAD_OP)", 2, false, false, true},
    {R"(FSDP \+ .+)", 3, false, false, true},
    // FSDP2 (torchtitan data_parallel_shard_degree) and Megatron-FSDP (Megatron-LM
    // --use-megatron-fsdp, optim_grads_params by default) with the sharding group size.
    {R"(FSDP2 \(([0-9]+)\))", 3, false, true, true},
    {R"(Megatron-FSDP \(([0-9]+)\))", 3, false, true, false},
};

// NVIDIA's performance recipes: NeMo's published performance tables and dgxc-benchmarking.
bool NvidiaRecipe(const std::string& source) {
  return source == "NeMo-perf-summary" || source == "NVIDIA-dgxc-benchmarking";
}

const ShardingRule* MatchSharding(const std::string& z) {
  for (const ShardingRule& rule : kShardingRules)
    if (std::regex_match(z, std::regex(rule.pattern))) return &rule;
  return nullptr;
}

// The row's data-parallel size: its dp column, else GPUs / (tp pp cp); 0 when unknown.
int64_t DataParallel(const Cells& c, const PublishedRun& r) {
  if (!c.Empty("dp")) return c.Int("dp");
  const int64_t tp = c.Empty("tp") ? 1 : c.Int("tp"), pp = c.Empty("pp") ? 1 : c.Int("pp"),
                cp = c.Empty("cp") ? 1 : c.Int("cp");
  const int64_t mp = tp * pp * cp;
  return mp > 0 && r.num_gpus % mp == 0 ? r.num_gpus / mp : 0;
}

// A model from the row's dimension columns alone (no hf_model, or one the catalog lacks).
ModelSpec ModelFromColumns(const Cells& c, PublishedRun& r) {
  ModelSpec m;
  m.layers = c.Int("layers");
  m.hidden = c.Int("hidden");
  m.heads = c.Int("heads");
  m.kv_heads = c.Empty("kv_heads") ? m.heads : c.Int("kv_heads");
  if (m.heads <= 0 || m.hidden % m.heads != 0) throw std::string("hidden is not a multiple of heads");
  m.head_dim = m.hidden / m.heads;
  if (c.Empty("vocab")) {
    m.vocab = 51200;
    r.assumptions.push_back("vocab 51200 (Megatron's padded GPT-2 vocabulary)");
  } else {
    m.vocab = c.Int("vocab");
  }
  int64_t ffn = 0;
  if (c.Empty("ffn_hidden")) {
    ffn = 4 * m.hidden;
    r.assumptions.push_back("ffn 4h");
  } else {
    ffn = c.Int("ffn_hidden");
  }
  // An MLP of exactly 4h is the GPT/Nemotron/MPT two-GEMM MLP with LayerNorm and tied
  // embeddings; any other width is a gated (SwiGLU) Llama-style MLP with RMSNorm.
  const bool plain = ffn == 4 * m.hidden;
  m.mlp = plain ? MlpKind::kPlain : MlpKind::kGated;
  m.norm = plain ? NormKind::kLayerNorm : NormKind::kRmsNorm;
  m.tied_embeddings = plain;
  m.architecture = plain ? "GPT2LMHeadModel" : "LlamaForCausalLM";
  if (r.arch == "moe") {
    if (c.Empty("num_experts")) throw std::string("column 'num_experts' is empty");
    if (c.Empty("topk")) throw std::string("column 'topk' is empty");
    m.experts = c.Int("num_experts");
    m.topk = c.Int("topk");
    m.moe_ffn_hidden = ffn;
  } else {
    m.ffn_hidden = ffn;
  }
  return m;
}

// The catalog model of the row's hf_model (model/catalog.h, HfRepositories). The config gives
// what the columns cannot express (head_dim, MLA ranks, shared experts, dense-first layers, QK
// norms, tied embeddings, biases, positions). The row's dimension columns, where given, win: they
// describe the run, which may cut the model (`layers`, the README's example), pad its vocabulary
// (`vocab`) or use a benchmark variant of it (MosaicML's MPT-30B runs have 56 heads, the released
// config 64). Each difference is listed as an assumption, naming both values. A row whose `arch`
// contradicts the config (dense vs MoE) is not modelled.
ModelSpec ModelFromHf(const Cells& c, PublishedRun& r, const std::string& id) {
  ModelSpec m = LoadModel(id);
  if ((r.arch == "moe") != m.is_moe())
    throw std::string("column 'arch' (") + Shown(r.arch) + ") disagrees with " + id + " (" +
        (m.is_moe() ? "moe" : "dense") + ")";
  const bool derived_head_dim = m.attention == AttentionKind::kGqa && m.heads > 0 && m.head_dim * m.heads == m.hidden;
  auto take = [&](const char* col, int64_t& field) {
    if (c.Empty(col) || c.Int(col) == field) return;
    r.assumptions.push_back(std::string(col) + " " + c.Str(col) + " (the row's) instead of " + std::to_string(field) +
                            " (" + id + ")");
    field = c.Int(col);
  };
  take("layers", m.layers);  // a cut keeps the config's layer pattern from the first layer on
  // An optional `dense_layers` column: the leading dense-MLP layers of a cut MoE model, where the
  // cut kept fewer than the config (SimuMax's 4-layer DeepSeek-V3 runs: 1 dense + 3 MoE).
  if (m.is_moe() && !c.Optional("dense_layers").empty()) take("dense_layers", m.first_dense_layers);
  take("vocab", m.vocab);
  take("hidden", m.hidden);
  take("heads", m.heads);
  if (m.attention == AttentionKind::kGqa) take("kv_heads", m.kv_heads);
  // ffn_hidden is the expert width on MoE rows (README "Columns"), the MLP width otherwise.
  take("ffn_hidden", m.is_moe() ? m.moe_ffn_hidden : m.ffn_hidden);
  if (m.is_moe()) {
    take("num_experts", m.experts);
    take("topk", m.topk);
  }
  if (derived_head_dim) {
    // The config's head width was hidden / heads: it stays so.
    if (m.heads <= 0 || m.hidden % m.heads != 0) throw std::string("hidden is not a multiple of heads");
    m.head_dim = m.hidden / m.heads;
  }
  return m;
}

// What NVIDIA's NeMo 1 recipes configure per model that the published tables do not state:
// the optimizer, the gradients' dtype and the cross-entropy fusion. The optimizer is Apex's
// DistributedFusedAdam (`optim: {name: distributed_fused_adam}`) or Megatron-Core's distributed
// optimizer (`mcore_distributed_optim`). NeMo 1 keeps no master copy of DistributedFusedAdam's
// parameters (nemo/collections/nlp/models/language_modeling/megatron_base_model.py,
// setup_optimization; NVIDIA/NeMo PR #7909): with FP32 states and BF16 parameters it stores
// the 16 low bits the BF16 parameter lacks (store_param_remainders: Layout::optimizer_states
// kFp32Remainders, 10 bytes), with BF16 states (`dtype: bf16`) nothing more (kBf16, 4 bytes),
// and with `fp8_params` an FP32 master (store_params: 12 bytes; a BF16 master under BF16
// states, not modelled: kBf16 stands). Gradients are reduced in `grad_sync_dtype` (default:
// the optimizer's dtype, FP32). Not modelled: NeMo 1 keeps the embedding's gradient in FP32
// (`_with_fp32_optimizer`, 2 more bytes per embedding parameter). The first matching entry
// (table_or_section and model name) applies.
struct Nemo1Recipe {
  const char* section;       // a substring of table_or_section
  const char* model;         // a substring of the model name ("" = any)
  bool apex;                 // distributed_fused_adam (else mcore_distributed_optim)
  bool bf16_states;          // optim dtype: bf16
  bool fp8_params_when_fp8;  // the launcher passes +model.fp8_params=$FP8_ENABLED
  bool grads16;              // grad_sync_dtype: bf16
  bool fused_cross_entropy;  // cross_entropy_loss_fusion: true
  const char* config;        // the recipe file that says so
};
const Nemo1Recipe kNemo1Recipes[] = {
    // NeMo 24.07's tables (all FP8): NeMo-Framework-Launcher @24.07 launcher_scripts/conf/training.
    // Its per-model configs are BF16 (`fp8: False`); the one FP8 recipe, gpt3/175b_fp8.yaml,
    // reduces the gradients in BF16 (`grad_sync_dtype: bf16`) without fp8_params, which the FP8
    // rows of every model are taken to share.
    {"NeMo 24.07", "340B", true, true, false, true, false, "NeMo-Framework-Launcher 24.07 nemotron/nemotron_340b.yaml"},
    {"NeMo 24.07", "LLAMA3", true, false, false, true, true,
     "NeMo-Framework-Launcher 24.07 llama/llama3_{8b,70b}.yaml, gpt3/175b_fp8.yaml"},
    {"NeMo 24.07", "Nemotron", true, false, false, true, true,
     "NeMo-Framework-Launcher 24.07 nemotron/nemotron_{8b,22b}.yaml, gpt3/175b_fp8.yaml"},
    {"NeMo 24.07", "", true, false, false, true, false,
     "NeMo-Framework-Launcher 24.07 gpt3/{5b,20b,175b_fp8}.yaml, llama/llama2_*.yaml"},
    // dgxc-benchmarking @1b9bb6b (v25.03): NeMo 1 YAML recipes in the NeMo 24.09-24.12 containers.
    {"llama3.1/README_", "", true, false, true, true, true,
     "dgxc-benchmarking v25.03 llama3.1/llama3.1_{8b,70b,405b}.yaml, configure.sh"},
    {"nemo_megatron/README_175b", "", true, false, false, true, false,
     "dgxc-benchmarking v25.03 nemo_megatron/gpt3_175b_hydra.yaml"},
    {"nemotron/README_340b", "", true, true, true, true, true,
     "dgxc-benchmarking v25.03 nemotron/nemotron4-340b-synth.yaml"},
    {"nemotron/README_15b", "", false, false, true, false, true,
     "dgxc-benchmarking v25.03 nemotron/nemotron4-15b-synth.yaml"},
    {"grok1/README_", "", false, false, false, true, false, "dgxc-benchmarking v25.03 grok1/grok1_314b.yaml"},
};

// The row's NeMo 1 recipe, or null.
const Nemo1Recipe* FindNemo1Recipe(const std::string& section, const PublishedRun& r) {
  if (!NvidiaRecipe(r.source)) return nullptr;
  for (const Nemo1Recipe& o : kNemo1Recipes)
    if (section.find(o.section) != std::string::npos && (!*o.model || r.model_name.find(o.model) != std::string::npos))
      return &o;
  return nullptr;
}

void MapNemo1Recipe(const Nemo1Recipe& o, PublishedRun& r) {
  const bool fp8_params = o.fp8_params_when_fp8 && r.training.precision == Precision::kFp8;
  if (o.bf16_states) {
    r.layout.optimizer_states = OptimizerStates::kBf16;
  } else if (o.apex && !fp8_params) {
    r.layout.optimizer_states = OptimizerStates::kFp32Remainders;
  }
  r.layout.grad_reduce_in_fp32 = !o.grads16;
  r.layout.fused_cross_entropy = o.fused_cross_entropy;
  const char* states = r.layout.optimizer_states == OptimizerStates::kBf16
                           ? "BF16 optimizer states without a master copy"
                       : r.layout.optimizer_states == OptimizerStates::kFp32Remainders
                           ? "FP32 optimizer states with the master as 16-bit remainders"
                           : "FP32 optimizer states with an FP32 master";
  r.assumptions.push_back(std::string("NeMo 1 recipe (") + o.config +
                          "): " + (o.apex ? "distributed_fused_adam" : "mcore_distributed_optim") + ", " + states +
                          ", gradients reduced in " + (o.grads16 ? "BF16" : "FP32") +
                          (o.fused_cross_entropy ? ", cross-entropy fused (cross_entropy_loss_fusion)" : ""));
}

// NeMo 2's recommended configs (scripts/performance/recommended_model_configs/
// model_configs_<gpu>.csv, read by scripts/performance/helpers.py get_user_configs) set
// activation offloading per model where the layout's activations exceed the HBM:
// `activation_offload_layers` -> cpu_offloading_num_layers with cpu_offloading_weights = False
// (set_perf_optimization_configs). The published NeMo 2 rows these configs produced, matched
// by table, GPU, model and layout; every other NeMo 2 row of the development data has 0 there.
struct Nemo2Offload {
  const char* section;  // a substring of table_or_section
  const char* gpu;      // the catalog GPU
  const char* model;    // a substring of the model name
  Precision precision;
  int tp, pp;
  int offload_layers;
  const char* config;
};
const Nemo2Offload kNemo2Offloads[] = {
    {"NeMo 25.07", "GB200", "405B", Precision::kFp8, 2, 1, 95,
     "NeMo 25.07 model_configs_gb200.csv pre_train,llama31,405b,gb200,fp8"},
};

void MapNemo2Offload(const std::string& section, PublishedRun& r) {
  if (!NvidiaRecipe(r.source)) return;
  for (const Nemo2Offload& o : kNemo2Offloads)
    if (section.find(o.section) != std::string::npos && r.cluster.gpu.name == o.gpu &&
        r.model_name.find(o.model) != std::string::npos && r.training.precision == o.precision && r.layout.tp == o.tp &&
        r.layout.pp == o.pp) {
      r.layout.offload_layers = o.offload_layers;
      r.assumptions.push_back(std::string("NeMo 2 recommended config (") + o.config + "): activations of " +
                              std::to_string(o.offload_layers) +
                              " layers offloaded to the host (activation_offload_layers)");
      return;
    }
}

// Software facts a row's notes state (simumax_runs_dev.csv gives the stack: "TE 2.11.0", "TE
// release_v2.1"; its '_cef' cases run a fused cross-entropy). Transformer Engine caches its
// weight-gradient placeholders from 2.3 (Layout::cached_wgrad_placeholders); where no version is
// stated, the runs are taken to predate it (listed as an assumption).
// What a row's notes and launcher say of its software: the Transformer Engine version, the
// overlap switches, the attention kernel, all-to-all CP, SimuMax's Megatron launchers.
void MapNotes(const Cells& c, const std::string& notes, PublishedRun& r) {
  static const std::regex te(R"(\bTE (?:release_v)?(\d+)\.(\d+))");
  std::smatch v;
  if (std::regex_search(notes, v, te)) {
    int64_t major = 0, minor = 0;
    if (ParseInteger(v[1].str(), &major) != NumberParse::kOk || ParseInteger(v[2].str(), &minor) != NumberParse::kOk)
      throw "TE release " + Quote(v[0].str()) + " is out of range";
    r.layout.cached_wgrad_placeholders = major > 2 || (major == 2 && minor >= 3);
  } else {
    // The published runs up to mid-2025 (NeMo 24.07-25.04, dgxc 25.03, Megatron-LM's H100 table)
    // ran Transformer Engine before 2.3, or no TE at all.
    r.layout.cached_wgrad_placeholders = false;
    r.assumptions.push_back(
        "Transformer Engine version not stated: weight-gradient placeholders per backward (TE < 2.3)");
  }
  // "no TP/PP comm overlap" (the SimuMax runs' launchers): blocking pipeline sends, no TP overlap.
  if (notes.find("no TP/PP comm overlap") != std::string::npos) {
    r.layout.overlap_pp_comm = false;
    r.layout.overlap_tp_comm = false;
  }
  // "flash attention" with no Transformer Engine stated (llm-foundry's rows: PyTorch with the
  // flash-attn package): FlashAttention-2, not Transformer Engine's fused kernel.
  if (notes.find("flash attention") != std::string::npos && !std::regex_search(notes, te))
    r.layout.attention_kernel = AttentionKernel::kFlashAttention2;
  // "--cp-comm-type a2a" (SimuMax's B200 long-context rows: the release's "CP long-seq a2a"):
  // all-to-all context parallelism.
  if (notes.find("--cp-comm-type a2a") != std::string::npos) r.layout.cp_comm = CpComm::kA2a;
  // "tp-comm-overlap" (Megatron-LM's H100 weak-scaling table: "overlap-grad-reduce/param-gather
  // + tp-comm-overlap"): Transformer Engine userbuffers overlap the TP collectives with GEMMs.
  if (notes.find("tp-comm-overlap") != std::string::npos) r.layout.overlap_tp_comm = true;
  // SimuMax's Megatron launchers (simu_tools/megatron_scripts/scripts/run_pretrain_llama3.sh and
  // run_pretrain_deepseekv2.sh, named in the rows' config_source) pass --use-distributed-optimizer
  // without --overlap-grad-reduce or --overlap-param-gather, and Megatron-LM's default for both
  // is off: the gradient reduce-scatter follows the last backward and the parameter all-gather
  // the optimizer step, both exposed.
  const std::string launcher = c.Has("config_source") ? c.Str("config_source") : "";
  if (launcher.find("megatron_scripts/scripts/run_pretrain_") != std::string::npos) {
    r.layout.overlap_grad_reduce = false;
    r.layout.overlap_param_gather = false;
  }
}

// NVIDIA's performance recipes, as their configs set them (each cited below).
void MapNvidiaRecipe(const std::string& section, const std::string& notes, const Nemo1Recipe* nemo1, PublishedRun& r) {
  // NVIDIA's performance recipes reduce the gradients of FP8 runs in BF16, a 16-bit gradient
  // buffer: NeMo 2.x (scripts/performance/helpers.py set_precision_configs, and the per-model
  // scripts before it: `recipe.trainer.plugins.grad_reduce_in_fp32 = False` with
  // bf16_with_fp8_mixed()). The NeMo 1 recipes state their gradient dtype per model
  // (kNemo1Recipes).
  if (NvidiaRecipe(r.source) && !nemo1 && r.training.precision == Precision::kFp8) {
    r.layout.grad_reduce_in_fp32 = false;
    r.assumptions.push_back(
        "NVIDIA performance recipe with FP8: gradients reduced in BF16 (grad_reduce_in_fp32 = False)");
  }
  // The same recipes overlap the TP collectives of dense models with their GEMMs (Transformer
  // Engine userbuffers, which need sequence parallelism): NeMo 2.x
  // nemo/collections/llm/recipes/{gpt3_175b,llama3_70b,llama31_405b,nemotron3_8b,nemotron3_22b,
  // nemotron4_15b,nemotron4_340b}.py pretrain_performance_optimizations
  // (MegatronCommOverlapCallback(tp_comm_overlap=True, ...)), dgxc-benchmarking v25.03
  // (llama3.1/llama3.1_{70b,405b}.yaml: ub_tp_comm_overlap: true), and NeMo 24.07's launcher
  // configs (NeMo-Framework-Launcher launcher_scripts/conf/training/{gpt3/20b,gpt3/175b_mlperf,
  // llama/llama2_70b,llama/llama3_70b,nemotron/nemotron_8b,nemotron/nemotron_22b,
  // nemotron/nemotron_340b}.yaml: ub_tp_comm_overlap: True). The MoE recipes leave it off
  // (mixtral_8x22b.py sets no tp_comm_overlap, which the callback defaults to off;
  // mixtral/*.yaml and dgxc grok1/grok1_314b.yaml: ub_tp_comm_overlap: false).
  if (NvidiaRecipe(r.source) && r.model.experts <= 1 && r.layout.sequence_parallel()) {
    r.layout.overlap_tp_comm = true;
    r.assumptions.push_back(
        "NVIDIA performance recipe of a dense model: TP communication overlapped with GEMMs (tp_comm_overlap)");
  }
  // dgxc-benchmarking's Nemotron-4 340B recipe turns cuDNN fused attention off
  // (nemotron/configure.sh: `export NVTE_FUSED_ATTN=0` for 340b), so Transformer Engine runs the
  // flash-attn 2 package (NVTE_FLASH_ATTN on by default; the NeMo 24.09 container has no FA3).
  if (r.source == "NVIDIA-dgxc-benchmarking" && section.find("nemotron/README_340b.md") != std::string::npos) {
    r.layout.attention_kernel = AttentionKernel::kFlashAttention2;
    r.assumptions.push_back(
        "dgxc-benchmarking Nemotron-4 340B: NVTE_FUSED_ATTN=0, attention by the flash-attn 2 package");
  }
  r.layout.fused_cross_entropy =
      section.find("_cef") != std::string::npos && notes.find("cross-entropy loss fusion on") != std::string::npos;
  // NeMo 2's recipes fuse the cross-entropy with the softmax: GPTConfig's
  // cross_entropy_loss_fusion defaults to True (nemo/collections/llm/gpt/model/base.py, NeMo
  // 2.0 onwards), which the performance recipes keep: the NeMo 25.x tables.
  if (NvidiaRecipe(r.source) && section.find("NeMo 25.") != std::string::npos) {
    r.layout.fused_cross_entropy = true;
    r.assumptions.push_back(
        "NeMo 2 recipe: cross-entropy fused with the softmax (GPTConfig cross_entropy_loss_fusion = True)");
  }
}

void MapSoftware(const Cells& c, PublishedRun& r) {
  const std::string notes = c.Has("notes") ? c.Str("notes") : "";
  MapNotes(c, notes, r);
  const std::string section = c.Has("table_or_section") ? c.Str("table_or_section") : "";
  const Nemo1Recipe* nemo1 = FindNemo1Recipe(section, r);
  MapNvidiaRecipe(section, notes, nemo1, r);
  if (nemo1) MapNemo1Recipe(*nemo1, r);
  MapNemo2Offload(section, r);
  MapStack(section, notes, r);
}

// A row that leaves its batch unstated (Korthikanti et al.'s abstract: 530B on 2,240 A100s, no
// batch given) takes the batch of the same source's run of the same model on the same GPU (its
// Table 5: 280 A100s, 280 sequences of micro-batch 1, 3 virtual stages): the same sequences per
// GPU, and its micro-batch and virtual stages where the row leaves those empty too. Each borrowed
// value is listed as an assumption naming the row it comes from.
struct BorrowedBatch {
  int64_t global_batch = 0;
  int64_t micro_batch = 0;  // 0: the row's own (or its default)
  int64_t vp = 0;
};

BorrowedBatch BorrowBatch(const Cells& c, const Cells* donor, PublishedRun& r) {
  BorrowedBatch b;
  if (!donor) throw std::string("global batch not given");
  const int64_t gpus = donor->Int("num_gpus"), batch = donor->Int("global_batch");
  if (gpus == 0 || batch % gpus != 0 || r.num_gpus <= 0) throw std::string("global batch not given");
  const std::string& from = donor->Str("id");
  b.global_batch = batch / gpus * r.num_gpus;
  r.assumptions.push_back("global batch " + std::to_string(b.global_batch) + ": " + std::to_string(batch / gpus) +
                          " sequence(s) per GPU as row " + from + " of the same source and model");
  for (auto [col, field] :
       {std::pair{"micro_batch", &BorrowedBatch::micro_batch}, std::pair{"vp", &BorrowedBatch::vp}}) {
    if (!c.Empty(col) || donor->Empty(col)) continue;
    b.*field = donor->Int(col);
    r.assumptions.push_back(std::string(col) + " " + std::to_string(b.*field) + " as row " + from);
  }
  return b;
}

// The first other row of the same source, model and GPU whose global batch and GPU count are given.
const Cells* BatchDonor(const std::vector<Cells>& cells, size_t i) {
  const Cells& c = cells[i];
  if (!c.Empty("global_batch")) return nullptr;
  for (const Cells& d : cells)
    if (&d != &c && !d.Empty("global_batch") && !d.Empty("num_gpus") && d.Str("source") == c.Str("source") &&
        d.Str("model") == c.Str("model") && d.Str("gpu") == c.Str("gpu"))
      return &d;
  return nullptr;
}

// GPUs a source names by their product but ran at a lower power limit, which its own text states:
// the catalog entry of the limited part (data/gpus.toml) replaces the product's.
struct PowerLimitedGpu {
  const char* source;  // the row's source
  const char* gpu;     // the row's gpu column
  const char* entry;   // catalog entry of the limited part
  const char* why;
};
constexpr PowerLimitedGpu kPowerLimitedGpus[] = {
    {"torchao-mx-formats", "B200", "B200-750W",
     "torchao's MX training table ran 'power limited' B200s; the README before pytorch/ao 9e3758d15 says "
     "'8xB200 GPUs limited to 750W'"},
};

// Model: the catalog config the row's hf_model names, or the row's own dimensions.
void MapModel(const Cells& c, PublishedRun& r) {
  ModelSpec& m = r.model;
  const std::string id = r.hf_model.empty() ? "" : CatalogIdForHfRepository(r.hf_model);
  if (!id.empty()) {
    m = ModelFromHf(c, r, id);
  } else {
    // No hf_model, or a repository the catalog lacks: the row's own columns, said so.
    const std::string unknown =
        r.hf_model.empty() ? "" : "hf_model " + Quote(r.hf_model) + " is not in the model catalog (data/models) and ";
    for (const char* col : {"layers", "hidden", "heads"})
      if (c.Empty(col)) throw unknown + "column '" + col + "' is empty";
    if (!unknown.empty())
      r.assumptions.push_back("hf_model " + Shown(r.hf_model) +
                              " is not in the catalog; modelled from the row's columns");
    m = ModelFromColumns(c, r);
  }
  m.name = r.model_name;
  ValidateModel(m, "row " + r.id);
}

// Cluster: the catalog's GPU (a power-limited entry where the source ran one), the GPUs per node.
void MapCluster(const Cells& c, PublishedRun& r, const HardwareCatalog& hw) {
  std::string gpu = r.gpu_name;
  for (const PowerLimitedGpu& p : kPowerLimitedGpus)
    if (r.source == p.source && r.gpu_name == p.gpu) {
      gpu = p.entry;
      r.assumptions.push_back(std::string("GPU ") + p.entry + ": " + p.why);
    }
  try {
    r.cluster = hw.Cluster(gpu, 0);  // a catalog name or one of its aliases (data/gpus.toml)
  } catch (const InputError&) {
    throw std::string("GPU '") + r.gpu_name + "' is not in the hardware catalog";
  }
  if (!c.Empty("gpus_per_node")) {
    // The cluster divides by it: 0 has no meaning (and would divide by zero).
    if (c.Int("gpus_per_node") == 0) throw std::string("column 'gpus_per_node' is 0");
    r.cluster.fabric.gpus_per_node = static_cast<int>(c.Int("gpus_per_node"));
  }
  if (c.Empty("num_gpus")) throw std::string("column 'num_gpus' is empty");
  r.cluster.gpus = r.num_gpus;
}

// Training: sequence, global batch (borrowed from a donor row where the row lacks it), precision.
BorrowedBatch MapTraining(const Cells& c, const Cells* donor, PublishedRun& r) {
  if (c.Empty("seq_len")) throw std::string("column 'seq_len' is empty");
  r.training.seq = c.Int("seq_len");
  const BorrowedBatch borrowed = c.Empty("global_batch") ? BorrowBatch(c, donor, r) : BorrowedBatch{};
  r.training.global_batch = borrowed.global_batch ? borrowed.global_batch : c.Int("global_batch");
  const std::string& p = c.Str("precision");
  if (p == "bf16")
    r.training.precision = Precision::kBf16;
  else if (p == "fp16")
    r.training.precision = Precision::kFp16;
  else if (p == "fp8" || p == "mxfp8")
    r.training.precision = Precision::kFp8;
  else if (p == "nvfp4")
    r.training.precision = Precision::kFp4;
  else
    throw std::string("unknown precision '") + p + "'";
  return borrowed;
}

// The sharding text (zero_stage_or_fsdp) as a ZeRO stage and its switches.
void MapSharding(const Cells& c, PublishedRun& r) {
  Layout& l = r.layout;
  const std::string& z = c.Str("zero_stage_or_fsdp");
  const ShardingRule* rule = MatchSharding(z);
  if (!rule) {
    r.unmapped_sharding = true;
    throw "unknown sharding " + Quote(z);
  }
  l.zero = rule->zero;
  if (rule->per_tensor) {
    // DeepSpeed stage 3 (2021): parameters fetched tensor by tensor when a module needs them,
    // gradients reduce-scattered tensor by tensor, neither hidden behind compute.
    l.zero3_per_tensor = true;
    l.overlap_param_gather = false;
    l.overlap_grad_reduce = false;
    // Its gradients are 16-bit, kept and reduced so: 2 + 2 + 12 bytes per parameter
    // (Rajbhandari et al., arXiv 1910.02054 Sec. 3.1), the reduction in the model's dtype unless
    // communication_data_type says otherwise (deepspeed/runtime/config.py
    // get_communication_data_type: unset, "determined by other parameters", the fp16/bf16 one).
    l.grad_reduce_in_fp32 = false;
    r.assumptions.push_back("DeepSpeed ZeRO-3: 16-bit gradients, reduced in 16 bits (communication_data_type unset)");
  }
  if (rule->torch_fsdp && !NvidiaRecipe(r.source)) l.fp32_shards = true;
  if (rule->group) {
    // "FSDP2 (N)", "Megatron-FSDP (N)": N ranks share one copy of the sharded state. The layout
    // shards over the whole data-parallel group; a smaller group (hybrid sharding, replicas of
    // N-rank shards) is modelled as sharding over all of DP, and said so.
    std::smatch g;
    std::regex_match(z, g, std::regex(rule->pattern));
    int64_t n = 0;
    if (ParseInteger(g[1].str(), &n) != NumberParse::kOk) throw "sharding group of " + Quote(z) + " is out of range";
    const int64_t dp = DataParallel(c, r);
    if (n <= 0 || (dp > 0 && (n > dp || dp % n != 0)))
      throw std::string("sharding group ") + std::to_string(n) + " of '" + Shown(z) +
          "' does not divide the data-parallel size " + std::to_string(dp);
    if (dp > 0 && n < dp)
      r.assumptions.push_back("sharding group " + std::to_string(n) + " < dp " + std::to_string(dp) +
                              " (hybrid sharding) modelled as sharding over all of dp");
  }
}

// Where pp*vp does not divide the layers: Megatron-LM's --account-for-embedding-in-pipeline-
// split and --account-for-loss-in-pipeline-split (the embedding and the loss each take a layer's
// slot in the first and last chunk; the dataset flags such rows "layers+2_divides"), else the
// most balanced split a --pipeline-model-parallel-layout string can give.
void MapPipelineSplit(PublishedRun& r) {
  Layout& l = r.layout;
  const int64_t layers = r.model.layers;
  const long long chunks = static_cast<long long>(l.pp) * l.vp;
  if (chunks <= 0 || layers % chunks == 0) return;  // pp or vp 0: the layout rules reject it
  l.pp_layout = AccountForSplit(layers, l.pp, l.vp, true, true);
  if (!l.pp_layout.empty()) {
    r.assumptions.push_back("embedding and loss counted as pipeline layers (uneven stages)");
    return;
  }
  l.pp_layout = BalancedSplit(layers, l.pp, l.vp);
  if (l.pp_layout.empty()) throw std::string("fewer layers than pipeline chunks (pp*vp)");
  std::string counts;
  for (int n : l.pp_layout) {
    if (!counts.empty()) counts += ',';
    counts += std::to_string(n);
  }
  r.assumptions.push_back("layers split " + counts + " over the pp*vp chunks (the most balanced split)");
}

void MapRow(const Cells& c, const Cells* donor, PublishedRun& r, const HardwareCatalog& hw) {
  if (r.target_tokens_per_s_per_gpu <= 0) throw std::string("no target");
  MapModel(c, r);
  MapCluster(c, r, hw);
  const BorrowedBatch borrowed = MapTraining(c, donor, r);
  // Layout.
  Layout& l = r.layout;
  if (r.flags.find("parallel_degrees_missing") != std::string::npos && (c.Empty("tp") || c.Empty("pp")) &&
      c.Empty("dp"))
    throw std::string("parallel degrees not given");
  l.tp = c.Empty("tp") ? 1 : static_cast<int>(c.Int("tp"));
  l.pp = c.Empty("pp") ? 1 : static_cast<int>(c.Int("pp"));
  l.vp = borrowed.vp ? static_cast<int>(borrowed.vp) : c.Empty("vp") ? 1 : static_cast<int>(c.Int("vp"));
  l.cp = c.Empty("cp") ? 1 : static_cast<int>(c.Int("cp"));
  l.ep = c.Empty("ep") ? 1 : static_cast<int>(c.Int("ep"));
  l.sp = c.Str("sp") != "no";
  MapSharding(c, r);
  l.mbs = borrowed.micro_batch     ? static_cast<int>(borrowed.micro_batch)
          : c.Empty("micro_batch") ? 1
                                   : static_cast<int>(c.Int("micro_batch"));
  const std::string& rc = c.Str("recompute");
  if (rc.empty() || rc == "none")
    l.recompute = Recompute::kNone;
  else if (rc == "selective")
    l.recompute = Recompute::kSelective;
  else if (rc == "full")
    l.recompute = Recompute::kFull;
  else
    throw std::string("unknown recompute '") + rc + "'";
  l.flash_attention = !PredatesFlashAttention(r.source);
  MapSoftware(c, r);
  // Those Megatron-LM GPT runs also kept its default dropout of 0.1 (hidden and attention).
  r.model.dropout = PredatesFlashAttention(r.source);
  MapPipelineSplit(r);
}

}  // namespace

std::vector<std::pair<std::string, std::vector<std::string>>> UnmappedShardingTexts(
    const std::vector<PublishedRun>& runs) {
  std::vector<std::pair<std::string, std::vector<std::string>>> out;
  for (const PublishedRun& r : runs) {
    if (!r.unmapped_sharding) continue;
    auto it = std::find_if(out.begin(), out.end(), [&](const auto& e) { return e.first == r.sharding_raw; });
    if (it == out.end()) it = out.insert(out.end(), {r.sharding_raw, {}});
    it->second.push_back(r.id);
  }
  return out;
}

std::vector<PublishedRun> ReadPublishedRuns(std::string_view text, const std::string& where,
                                            const HardwareCatalog& hw) {
  const std::vector<CsvRow> rows = ParseCsv(text, where);
  if (rows.empty()) throw InputError(where + ": empty file (expected a header row)");
  std::map<std::string, size_t> col;
  for (size_t i = 0; i < rows[0].fields.size(); ++i) col[rows[0].fields[i]] = i;
  for (const char* name : kColumns)
    if (!col.contains(name)) throw InputError(where + ":1: missing column '" + std::string(name) + "'");
  if (rows.size() == 1) throw InputError(where + ": no data rows (only the header)");
  std::vector<Cells> cells;
  cells.reserve(rows.size() - 1);
  for (size_t i = 1; i < rows.size(); ++i) {
    const Cells& c = cells.emplace_back(col, rows[i], where);
    // Every numeric cell parses, or the file is an error (before any row's mapping may stop early).
    for (const char* name : kIntColumns)
      if (!c.Empty(name)) c.Int(name);
    for (const char* name : kNumColumns)
      if (!c.Empty(name)) c.Num(name);
  }
  std::vector<PublishedRun> out;
  for (size_t i = 0; i < cells.size(); ++i) {
    const Cells& c = cells[i];
    PublishedRun r;
    r.line = rows[i + 1].line;
    r.id = c.Str("id");
    r.source = c.Str("source");
    r.model_name = c.Str("model");
    r.arch = c.Str("arch");
    r.gpu_name = c.Str("gpu");
    r.precision_raw = c.Str("precision");
    r.confidence = c.Str("confidence");
    r.flags = c.Str("flags");
    r.hf_model = c.Optional("hf_model");
    r.sharding_raw = c.Str("zero_stage_or_fsdp");
    r.num_gpus = c.Empty("num_gpus") ? 0 : static_cast<int>(c.Int("num_gpus"));
    r.target_tokens_per_s_per_gpu = c.Empty("target_tokens_per_s_per_gpu") ? 0 : c.Num("target_tokens_per_s_per_gpu");
    for (const OptionalColumn& o : kOptionalColumns)
      if (col.contains(o.name) && !c.Empty(o.name)) r.*o.field = o.scale * c.Num(o.name);
    try {
      MapRow(c, BatchDonor(cells, i), r, hw);
      r.modelable = true;
    } catch (const std::string& why) {
      r.reason = why;
    } catch (const CellError&) {
      throw;
    } catch (const InputError& e) {
      r.reason = e.what();
    }
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace paratune
