#include "layout/constraints.h"

#include <fmt/format.h>

#include <limits>

namespace paratune {
namespace {

using std::string;

int64_t MicroBatches(const ConstraintInput& in) {
  const Layout& l = in.layout;
  return l.dp > 0 && l.mbs > 0 ? in.training.global_batch / (static_cast<int64_t>(l.dp) * l.mbs) : 0;
}

// Sizes must be positive before anything can be divided by them, and bounded so that no count
// derived from them (micro-batches, tokens, in-flight activations) can overflow.
string PositiveSize(const ConstraintInput& in) {
  const Layout& l = in.layout;
  const Training& t = in.training;
  string msg;
  auto positive = [&](long long x, const char* field) {
    if (x <= 0) msg += fmt::format("{}`{}` must be positive, got {}", msg.empty() ? "" : "; ", field, x);
  };
  auto at_most = [&](long long x, long long max, const char* field) {
    if (x > max) msg += fmt::format("{}`{}` must be at most {}, got {}", msg.empty() ? "" : "; ", field, max, x);
  };
  at_most(t.global_batch, kMaxGlobalBatch, "global_batch");
  at_most(t.seq, kMaxSequence, "seq");
  positive(in.cluster.gpus, "gpus");
  positive(l.tp, "tp");
  positive(l.pp, "pp");
  positive(l.vp, "vp");
  positive(l.cp, "cp");
  positive(l.ep, "ep");
  if (l.etp < 0) positive(l.etp, "etp");
  positive(l.mbs, "mbs");
  positive(t.seq, "seq");
  positive(t.global_batch, "global_batch");
  return msg;
}

// Each token picks topk distinct experts, so one expert gets at most every token: max/mean tokens
// per expert lies in [1, experts / topk].
string ExpertImbalance(const ConstraintInput& in) {
  const double x = in.layout.expert_imbalance;
  const ModelSpec& m = in.model;
  const double max = m.is_moe() && m.topk > 0 ? static_cast<double>(m.experts) / m.topk : 1;
  if (!(x >= 1) || !(x <= max))
    return fmt::format(
        "`expert_imbalance` (max/mean tokens per expert) must be between 1 and {:g} (experts / topk), "
        "got {:g}",
        max, x);
  return "";
}

// PyTorch FSDP's FP32 shards are the optimizer's FP32 master copy (Layout::fp32_shards): Adam's
// states without one, or with the master as remainders of a 16-bit shard, contradict them.
string Fp32ShardsNeedFp32States(const ConstraintInput& in) {
  const Layout& l = in.layout;
  if (!l.fp32_shards || l.optimizer_states == OptimizerStates::kFp32) return "";
  return fmt::format(
      "`fp32_shards` keeps the FP32 master as the parameter shard; `optimizer_states` must be fp32, got {}",
      OptimizerStatesName(l.optimizer_states));
}

// All-to-all context parallelism splits each rank's query and key/value heads over the CP group
// (Transformer Engine AttnFuncWithCPAndQKVOA2A: heads divisible by the CP size).
string CpA2aDividesHeads(const ConstraintInput& in) {
  const Layout& l = in.layout;
  if (l.cp <= 1 || l.cp_comm != CpComm::kA2a) return "";
  const ModelSpec& m = in.model;
  const long long tp = l.tp, cp = l.cp;
  const long long q = m.heads / tp, kv = (m.attention == AttentionKind::kMla ? m.heads : m.kv_heads) / tp;
  if (q % cp == 0 && kv % cp == 0) return "";
  return fmt::format("cp ({}) with `cp_comm` a2a must divide the heads per TP rank ({} query, {} key/value)", cp, q,
                     kv);
}

// Activation offloading as Megatron-Core accepts it (transformer_config.py __post_init__:
// cpu_offloading_num_layers in [0, num_layers), no pipeline parallelism, no recomputation).
string OffloadLayers(const ConstraintInput& in) {
  const Layout& l = in.layout;
  if (l.offload_layers == 0) return "";
  if (l.offload_layers < 0 || l.offload_layers >= in.model.layers)
    return fmt::format("`offload_layers` must be between 0 and the model's layers - 1 ({}), got {}",
                       in.model.layers - 1, l.offload_layers);
  if (l.pp > 1)
    return fmt::format("`offload_layers` ({}) needs pp 1 (Megatron-Core offloads no pipelined model), got pp {}",
                       l.offload_layers, l.pp);
  if (l.recompute != Recompute::kNone)
    return fmt::format("`offload_layers` ({}) and `recompute` ({}) exclude each other in Megatron-Core",
                       l.offload_layers, RecomputeName(l.recompute));
  if (in.cluster.fabric.host_link_bytes_per_s <= 0)
    return fmt::format(
        "`offload_layers` ({}) needs the GPU-to-host rate of the fabric ({} gives no host_link_gb_per_s)",
        l.offload_layers, in.cluster.fabric.name);
  return "";
}

string ZeroStage(const ConstraintInput& in) {
  const int z = in.layout.zero;
  return z < 0 || z > 3 ? fmt::format("`zero` must be 0, 1, 2 or 3, got {}", z) : "";
}

string WorldDivisible(const ConstraintInput& in) {
  const Layout& l = in.layout;
  const long long model_par = static_cast<long long>(l.tp) * l.pp * l.cp;
  if (in.cluster.gpus % model_par == 0) return "";
  return fmt::format("world size {} is not divisible by tp*pp*cp = {}*{}*{} = {}", in.cluster.gpus, l.tp, l.pp, l.cp,
                     model_par);
}

string TpDividesHeads(const ConstraintInput& in) {
  const int64_t h = in.model.heads;
  const int tp = in.layout.tp;
  return h % tp ? fmt::format("attention heads ({}) are not divisible by tp ({})", h, tp) : "";
}

string TpDividesKvHeads(const ConstraintInput& in) {
  const ModelSpec& m = in.model;
  const int tp = in.layout.tp;
  if (m.attention != AttentionKind::kGqa || m.kv_heads % tp == 0) return "";
  return fmt::format("KV heads ({}) are not divisible by tp ({})", m.kv_heads, tp);
}

// Megatron-Core's ColumnParallelLinear splits the MLP's columns evenly over TP
// (megatron/core/tensor_parallel/layers.py, divide(output_size, world_size)).
string TpDividesFfn(const ConstraintInput& in) {
  const ModelSpec& m = in.model;
  const int tp = in.layout.tp;
  if (m.dense_layers() == 0 || m.ffn_hidden % tp == 0) return "";
  return fmt::format("MLP width ({}) is not divisible by tp ({})", m.ffn_hidden, tp);
}

// The same for the experts under expert tensor parallelism.
string EtpDividesExpertFfn(const ConstraintInput& in) {
  const ModelSpec& m = in.model;
  const int etp = in.layout.expert_tp();
  if (!m.is_moe() || m.moe_ffn_hidden % etp == 0) return "";
  return fmt::format("expert MLP width ({}) is not divisible by expert tp ({})", m.moe_ffn_hidden, etp);
}

string PpLayoutSize(const ConstraintInput& in) {
  const Layout& l = in.layout;
  if (l.pp_layout.empty() || static_cast<long long>(l.pp_layout.size()) == static_cast<long long>(l.pp) * l.vp)
    return "";
  return fmt::format("`pp_layout` has {} entries; pp*vp = {}*{} = {} chunks need one each", l.pp_layout.size(), l.pp,
                     l.vp, static_cast<long long>(l.pp) * l.vp);
}

// Every chunk holds at least one layer, and the chunks hold the model's layers.
string PpLayoutEntries(const ConstraintInput& in) {
  const Layout& l = in.layout;
  long long sum = 0;
  for (size_t i = 0; i < l.pp_layout.size(); ++i) {
    if (l.pp_layout[i] < 1)
      return fmt::format("`pp_layout` entry {} is {}: every pipeline chunk needs at least one layer", i + 1,
                         l.pp_layout[i]);
    sum += l.pp_layout[i];
  }
  if (l.pp_layout.empty() || sum == in.model.layers) return "";
  return fmt::format("`pp_layout` counts must add up to the {} layers, got {}", in.model.layers, sum);
}

string PpDividesLayers(const ConstraintInput& in) {
  const Layout& l = in.layout;
  const long long chunks = static_cast<long long>(l.pp) * l.vp;
  if (!l.pp_layout.empty() || in.model.layers % chunks == 0) return "";
  return fmt::format("layers ({}) are not divisible by pp*vp = {}*{} = {} (give `pp_layout` for uneven stages)",
                     in.model.layers, l.pp, l.vp, chunks);
}

string VpNeedsPp(const ConstraintInput& in) {
  const Layout& l = in.layout;
  return l.vp > 1 && l.pp < 2 ? fmt::format("`vp` {} needs pp > 1 (interleaving splits pipeline stages)", l.vp) : "";
}

string ScheduleFitsVp(const ConstraintInput& in) {
  const Layout& l = in.layout;
  const ScheduleKind k = l.pipeline_schedule();
  if (k == ScheduleKind::kInterleaved && l.vp < 2)
    return fmt::format("the interleaved schedule needs vp >= 2 virtual stages per rank, got vp {}", l.vp);
  if (k != ScheduleKind::kInterleaved && l.vp != 1)
    return fmt::format("the {} schedule has one stage per rank; vp {} needs the interleaved schedule", ScheduleName(k),
                       l.vp);
  return "";
}

// Megatron-LM's interleaved schedule walks micro-batches in groups of pp per virtual stage and
// raises "number of microbatches is not divisible by pipeline-model-parallel-size when using
// interleaved schedule" otherwise (megatron/core/pipeline_parallel/schedules.py,
// forward_backward_pipelining_with_interleaving); with a ragged last group the order can deadlock.
string InterleavedNeedsFullGroups(const ConstraintInput& in) {
  const Layout& l = in.layout;
  if (l.pipeline_schedule() != ScheduleKind::kInterleaved || l.dp <= 0) return "";
  const int64_t m = MicroBatches(in);
  if (m > 0 && m % l.pp == 0) return "";
  return fmt::format(
      "the interleaved schedule needs the micro-batch count (global batch / (dp*mbs) = {}) to be a "
      "multiple of pp ({})",
      m, l.pp);
}

string EpNeedsMoe(const ConstraintInput& in) {
  const Layout& l = in.layout;
  return l.ep > 1 && !in.model.is_moe() ? fmt::format("`ep` {} given but {} has no experts", l.ep, in.model.name) : "";
}

string EpDividesExperts(const ConstraintInput& in) {
  const ModelSpec& m = in.model;
  const int ep = in.layout.ep;
  return m.is_moe() && m.experts % ep ? fmt::format("experts ({}) are not divisible by ep ({})", m.experts, ep) : "";
}

// Expert parallel groups (ep x etp ranks) tile the tp*cp*dp ranks of a pipeline stage
// (Megatron-Core parallel_state.initialize_model_parallel).
string EpFitsWorld(const ConstraintInput& in) {
  const Layout& l = in.layout;
  if (!in.model.is_moe() || l.dp <= 0) return "";
  const long long expert_group = static_cast<long long>(l.ep) * l.expert_tp();
  const long long dense_group = static_cast<long long>(l.tp) * l.cp * l.dp;
  if (dense_group % expert_group == 0) return "";
  return fmt::format("ep*etp = {}*{} = {} does not divide tp*cp*dp = {}", l.ep, l.expert_tp(), expert_group,
                     dense_group);
}

string BatchDivisible(const ConstraintInput& in) {
  const Layout& l = in.layout;
  if (l.dp <= 0) return "";
  const long long per_step = static_cast<long long>(l.dp) * l.mbs;
  if (in.training.global_batch % per_step == 0) return "";
  return fmt::format("global batch ({}) is not divisible by dp*mbs = {}*{} = {}", in.training.global_batch, l.dp, l.mbs,
                     per_step);
}

// Tensor parallelism stays inside an NVLink domain (Narayanan et al. 2021, Sec. 3.2).
string TpInNvlinkDomain(const ConstraintInput& in) {
  const Layout& l = in.layout;
  const Fabric& f = in.cluster.fabric;
  if (l.tp <= f.nvlink_domain || in.options.allow_cross_domain_tp) return "";
  return fmt::format(
      "tp ({}) exceeds the NVLink domain of {} ({} GPUs); allow cross-domain tp "
      "(`allow_cross_domain_tp`) to model it anyway",
      l.tp, in.cluster.gpu.name, f.nvlink_domain);
}

string EtpInNvlinkDomain(const ConstraintInput& in) {
  const Layout& l = in.layout;
  const Fabric& f = in.cluster.fabric;
  if (!in.model.is_moe() || l.expert_tp() <= f.nvlink_domain || in.options.allow_cross_domain_tp) return "";
  return fmt::format(
      "expert tp ({}) exceeds the NVLink domain of {} ({} GPUs); allow cross-domain tp "
      "(`allow_cross_domain_tp`) to model it anyway",
      l.expert_tp(), in.cluster.gpu.name, f.nvlink_domain);
}

// Load-balanced context parallelism splits each sequence in 2*cp chunks (Megatron-Core
// context_parallel, get_batch_on_this_cp_rank).
string CpDividesSeq(const ConstraintInput& in) {
  const int cp = in.layout.cp;
  const int64_t s = in.training.seq;
  if (cp <= 1 || s % (2LL * cp) == 0) return "";
  return fmt::format(
      "sequence ({}) is not divisible by 2*cp = {} (load-balanced context parallelism splits it in "
      "2*cp chunks)",
      s, 2LL * cp);
}

string TpDividesSeq(const ConstraintInput& in) {
  const Layout& l = in.layout;
  if (!l.sequence_parallel() || (in.training.seq / l.cp) % l.tp == 0) return "";
  return fmt::format("sequence per CP rank ({}) is not divisible by tp ({}) as sequence parallelism needs",
                     in.training.seq / l.cp, l.tp);
}

string PrecisionSupported(const ConstraintInput& in) {
  const Precision p = in.training.precision;
  if (in.cluster.gpu.peak_flops(p) > 0) return "";
  return fmt::format("{} has no {} tensor cores", in.cluster.gpu.name, PrecisionName(p));
}

constexpr uint32_t kDp = kDimTp | kDimPp | kDimCp;  // what fixes dp

}  // namespace

const std::vector<LayoutConstraint>& LayoutConstraints() {
  static const std::vector<LayoutConstraint> rules = {
      {"positive-size", kDimAll, PositiveSize},
      {"zero-stage", kDimZero, ZeroStage},
      {"world-divisible", kDp, WorldDivisible},
      {"tp-in-nvlink-domain", kDimTp, TpInNvlinkDomain},
      {"etp-in-nvlink-domain", kDimTp | kDimEtp, EtpInNvlinkDomain},
      {"tp-divides-heads", kDimTp, TpDividesHeads},
      {"tp-divides-kv-heads", kDimTp, TpDividesKvHeads},
      {"tp-divides-ffn", kDimTp, TpDividesFfn},
      {"etp-divides-expert-ffn", kDimTp | kDimEtp, EtpDividesExpertFfn},
      {"pp-layout-size", kDimPp | kDimVp | kDimSplit, PpLayoutSize},
      {"pp-layout-entries", kDimSplit, PpLayoutEntries},
      {"pp-divides-layers", kDimPp | kDimVp | kDimSplit, PpDividesLayers},
      {"vp-needs-pp", kDimPp | kDimVp, VpNeedsPp},
      {"schedule-fits-vp", kDimVp | kDimSchedule, ScheduleFitsVp},
      {"interleaved-needs-full-groups", kDp | kDimVp | kDimMbs | kDimSchedule, InterleavedNeedsFullGroups},
      {"ep-needs-moe", kDimEp, EpNeedsMoe},
      {"ep-divides-experts", kDimEp, EpDividesExperts},
      {"expert-imbalance-range", kDimSwitches, ExpertImbalance},
      {"fp32-shards-need-fp32-states", kDimSwitches, Fp32ShardsNeedFp32States},
      {"offload-layers", kDimPp | kDimRecompute | kDimSwitches, OffloadLayers},
      {"cp-a2a-divides-heads", kDimTp | kDimCp | kDimSwitches, CpA2aDividesHeads},
      {"ep-fits-world", kDp | kDimEp | kDimEtp, EpFitsWorld},
      {"batch-divisible", kDp | kDimMbs, BatchDivisible},
      {"cp-divides-seq", kDimCp, CpDividesSeq},
      {"tp-divides-seq", kDimTp | kDimCp | kDimSwitches, TpDividesSeq},
      {"precision-supported", kDimPrecision, PrecisionSupported},
  };
  return rules;
}

std::vector<const LayoutConstraint*> ConstraintsReading(uint32_t dim, uint32_t fixed) {
  std::vector<const LayoutConstraint*> v;
  for (const LayoutConstraint& r : LayoutConstraints())
    if ((r.reads & dim) && (r.reads & ~fixed) == 0 && r.check != PositiveSize) v.push_back(&r);
  return v;
}

void DeriveDp(const ClusterSpec& c, Layout& l) {
  const long long model_par = static_cast<long long>(l.tp) * l.pp * l.cp;
  l.dp = model_par > 0 && c.gpus > 0 && c.gpus % model_par == 0 ? static_cast<int>(c.gpus / model_par) : 0;
}

std::vector<ConstraintViolation> CheckLayout(const ModelSpec& m, const ClusterSpec& c, const Training& t, Layout& l,
                                             const ConstraintOptions& o) {
  std::vector<ConstraintViolation> v;
  const ConstraintInput in{m, c, t, l, o};
  l.dp = 0;
  const std::vector<LayoutConstraint>& rules = LayoutConstraints();
  if (std::string msg = rules.front().check(in); !msg.empty()) {
    v.push_back({rules.front().id, std::move(msg)});
    if (std::string z = ZeroStage(in); !z.empty()) v.push_back({"zero-stage", std::move(z)});
    return v;
  }
  DeriveDp(c, l);
  for (size_t i = 1; i < rules.size(); ++i)
    if (std::string msg = rules[i].check(in); !msg.empty()) v.push_back({rules[i].id, std::move(msg)});
  return v;
}

std::string DescribeViolations(const std::vector<ConstraintViolation>& v) {
  std::string s = "invalid layout: ";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "; " : "") + v[i].message;
  return s;
}

}  // namespace paratune
