// Rule network_bottleneck (issue 11, rule 4; docs/diagnose-network.md): an nccl-tests run whose
// large-message bus bandwidth stays below 80% of the effective ceiling of the links it crosses
// (the tuning checklist's "all-reduce bus bandwidth near 80% of what the links can do"), and, in
// profiler traces, data- or expert-parallel communication that stays exposed although it can
// overlap with computation.
#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "diagnose/link_ceiling.h"
#include "diagnose/rules.h"

namespace paratune {
namespace {

// The checklist's bar: all-reduce bus bandwidth near 80% of what the links can do (issue 11).
// Applied to the effective ceiling (diagnose/link_ceiling.h), so a healthy ring at ~370 of
// H100's 450 GB/s line rate passes, and half of it fails.
constexpr double kMinCeilingFraction = 0.80;
// Exposed data/expert-parallel communication worth a finding: 10% of the traced GPU time (what
// overlap would give back; the critical-loss bar above), of which at most half is hidden.
constexpr double kMinExposedShare = 0.10;
constexpr double kMaxHiddenFraction = 0.50;

constexpr double kGB = 1e9;

std::string Source(const NcclTestsRun& run, int line) {
  return line > 0 ? run.path + ":" + std::to_string(line) : run.path;
}

// The row nearest the median of the large-message rows, for the evidence's line.
int LargeRowLine(const NcclTestsRun& run, double busbw) {
  int best = 0;
  double gap = INFINITY, size = -1;
  for (const auto& r : run.rows) {
    const double b = std::isnan(r.busbw_bytes_per_s) ? r.inplace_busbw_bytes_per_s : r.busbw_bytes_per_s;
    const double d = std::fabs(b - busbw);
    if (d < gap || (d == gap && r.size_bytes > size)) gap = d, size = r.size_bytes, best = r.line;
  }
  return best;
}

const char* Fix(const LinkCeiling& c) {
  if (c.link == CeilingLink::kNetwork)
    return "Check the network under the test: every NIC up at full rate (ibstat: State Active, Rate 400), "
           "no symbol/CRC errors growing (perfquery, ethtool -S), GPUDirect RDMA loaded (nvidia-peermem), "
           "NCCL_IB_HCA listing each node's rail NICs, and the leaf-spine uplink ratio (non-blocking for "
           "training); benchmark with NCCL_ALGO=Ring and try NCCL_PROTO=Simple for large messages. In "
           "the job keep tensor parallelism inside the node and put PP/DP across nodes.";
  return "Check the node's NVLink: nvidia-smi nvlink --status (every link up at full speed), "
         "nvidia-smi topo -m (NV# between every pair), the fabric manager running on NVSwitch systems, "
         "no NCCL_P2P_DISABLE/NCCL_NVLS_ENABLE=0/NCCL_ALGO left in the environment; rerun with "
         "NCCL_ALGO=Ring (and NVLS on Hopper and later) to compare.";
}

// The same collective measured inside one node, for the across-nodes comparison (the
// playbook's "near-linear inside a node, collapsing across nodes").
const NcclTestsRun* IntraNodeRun(const DiagnoseInputs& in, const NcclTestsRun& multi) {
  for (const NcclTestsRun& r : in.nccl_tests)
    if (&r != &multi && r.collective == multi.collective && r.nodes == 1 && !std::isnan(LargeMessageBusBandwidth(r)))
      return &r;
  return nullptr;
}

// The info finding of a run whose GPU the catalog does not know: no ceiling to judge it against.
void ReportNoCeiling(const NcclTestsRun& run, double busbw, Finding f, std::vector<Finding>* out) {
  const char* coll = NcclTestCollectiveName(run.collective);
  f.severity = Severity::kInfo;
  f.title =
      fmt::format("nccl-tests {}: large-message busbw {:.1f} GB/s; no ceiling to compare with", coll, busbw / kGB);
  f.message = fmt::format(
      "{}: the {} large-message bus bandwidth is {:.1f} GB/s over {} ranks; the file names no GPU the catalog "
      "knows{}, "
      "so there is no link ceiling to judge it against.",
      run.path, coll, busbw / kGB, run.ranks,
      run.devices.empty() ? " (no '# Rank' lines)" : " ('" + run.devices.front() + "')");
  f.fix = "Give the GPU with --gpu (and the layout flags), or keep the '#  Rank ... device ...' lines in the log.";
  out->push_back(std::move(f));
}

// The ceiling's evidence: the effective ceiling, the line rate, busbw against each, and NVLS.
void AddCeilingEvidence(const LinkCeiling& c, double of_ceiling, double of_line, Finding* f) {
  f->evidence.push_back({"effective ceiling", c.effective_bytes_per_s, "B/s", "hardware catalog: " + c.derivation});
  f->evidence.push_back(
      {"line rate", c.line_bytes_per_s, "B/s", "hardware catalog (" + c.gpu + ", " + c.gpu_source + ")"});
  f->evidence.push_back({"busbw / effective ceiling", of_ceiling, "fraction", "nccl-tests vs catalog"});
  f->evidence.push_back({"busbw / line rate", of_line, "fraction", "nccl-tests vs catalog"});
  if (c.nvls_bytes_per_s > 0)
    f->evidence.push_back(
        {"NVLink SHARP all-reduce ceiling", c.nvls_bytes_per_s, "B/s", "NVLS: ring ceiling x 480/370"});
}

// Across nodes, the sentence comparing busbw with the same collective inside one node (and its
// evidence); "" without such a run.
std::string AcrossNodesText(const DiagnoseInputs& in, const NcclTestsRun& run, const LinkCeiling& c, double busbw,
                            Finding* f) {
  std::string across;
  if (c.link == CeilingLink::kNetwork)
    if (const NcclTestsRun* one = IntraNodeRun(in, run)) {
      const double inside = LargeMessageBusBandwidth(*one);
      f->evidence.push_back(
          {"busbw of the same collective inside one node", inside, "B/s", Source(*one, LargeRowLine(*one, inside))});
      across = fmt::format(
          " Inside one node ({}) the same collective reaches {:.1f} GB/s: across nodes it keeps {:.0f}% of that.",
          one->path, inside / kGB, 100 * busbw / inside);
    }
  return across;
}

// The loss on the training step, when the plan says how much of it is exposed
// communication s: that time grows by ceiling / busbw, so throughput drops by
// 1 - 1 / (1 + s (ceiling / busbw - 1)). Without a plan the loss cannot be estimated and a
// busbw this far below the links is a clear misconfiguration: warning. Sets f's severity.
double PlannedNetworkLoss(const DiagnoseInputs& in, double of_ceiling, Finding* f) {
  double loss = 0;
  if (in.plan) {
    const double s = std::clamp(in.plan->estimate.comm_share, 0.0, 1.0);
    loss = 1 - 1 / (1 + s * (1 / std::max(of_ceiling, 1e-6) - 1));
    f->evidence.push_back({"planned exposed communication share", s, "fraction", "cost model"});
    f->severity = SeverityForLoss(loss);
  } else {
    f->severity = Severity::kWarning;
  }
  return loss;
}

// The finding of one nccl-tests run: its large-message busbw against the ceiling of its links.
void CheckNcclTestsRun(const DiagnoseInputs& in, const NcclTestsRun& run, const ClusterSpec* planned,
                       std::vector<Finding>* out) {
  const double busbw = LargeMessageBusBandwidth(run);
  if (std::isnan(busbw)) return;
  const char* coll = NcclTestCollectiveName(run.collective);
  const int line = LargeRowLine(run, busbw);
  Finding f;
  f.rule = "network_bottleneck";
  f.where.lines.push_back(Source(run, line));
  f.evidence.push_back({"large-message busbw (median of rows >= 256 MiB)", busbw, "B/s", Source(run, line)});
  if (!std::isnan(run.printed_avg_busbw_bytes_per_s))
    f.evidence.push_back({"printed average busbw (all sizes)", run.printed_avg_busbw_bytes_per_s, "B/s",
                          Source(run, run.avg_busbw_line)});
  const auto ceiling = NcclTestsCeiling(run, planned);
  if (!ceiling) return ReportNoCeiling(run, busbw, std::move(f), out);
  const LinkCeiling& c = *ceiling;
  const double of_ceiling = busbw / c.effective_bytes_per_s;
  const double of_line = busbw / c.line_bytes_per_s;
  const char* link = c.link == CeilingLink::kNetwork ? "network" : c.scale_up == LinkClass::kPcie ? "PCIe" : "NVLink";
  AddCeilingEvidence(c, of_ceiling, of_line, &f);
  const std::string numbers = fmt::format(
      "{:.1f} GB/s = {:.1f}% of the {:.1f} GB/s effective {} ceiling ({:.1f}% of the {:.1f} GB/s line rate; {})",
      busbw / kGB, 100 * of_ceiling, c.effective_bytes_per_s / kGB, link, 100 * of_line, c.line_bytes_per_s / kGB,
      c.derivation);
  const std::string across = AcrossNodesText(in, run, c, busbw, &f);
  const std::string nvls =
      c.nvls_bytes_per_s > 0
          ? fmt::format(" With NVLink SHARP (NCCL_NVLS_ENABLE=1, NCCL >= 2.17) all-reduce reaches ~{:.0f} GB/s.",
                        c.nvls_bytes_per_s / kGB)
          : std::string();
  if (of_ceiling >= kMinCeilingFraction) {
    f.severity = Severity::kInfo;
    f.title = fmt::format("nccl-tests {} on {} {} ranks: busbw {:.0f}% of the {} ceiling", coll, c.ranks, c.gpu,
                          100 * of_ceiling, link);
    f.message = fmt::format(
        "{}: the {} large-message bus bandwidth is {}: at least {:.0f}% of the ceiling, as the checklist asks.{}",
        run.path, coll, numbers, 100 * kMinCeilingFraction, nvls);
    f.fix = "Nothing to change.";
    out->push_back(std::move(f));
    return;
  }
  const double loss = PlannedNetworkLoss(in, of_ceiling, &f);
  f.loss_fraction = loss;
  f.title = fmt::format("nccl-tests {} on {} {} ranks: busbw {:.0f}% of the {} ceiling (below {:.0f}%)", coll, c.ranks,
                        c.gpu, 100 * of_ceiling, link, 100 * kMinCeilingFraction);
  f.message = fmt::format(
      "{}: the {} large-message bus bandwidth is {}, below the {:.0f}% the checklist asks for.{}{}{}", run.path, coll,
      numbers, 100 * kMinCeilingFraction, nvls, across,
      in.plan ? fmt::format(" With the planned {:.1f}% of exposed communication this costs {:.1f}% of throughput.",
                            100 * in.plan->estimate.comm_share, 100 * loss)
              : std::string(" Give the plan (--model, --gpu, layout flags) to estimate the throughput lost."));
  f.fix = Fix(c);
  out->push_back(std::move(f));
}

void CheckNcclTests(const DiagnoseInputs& in, std::vector<Finding>* out) {
  const ClusterSpec* planned = in.plan ? &in.plan->cluster : in.cluster ? &*in.cluster : nullptr;
  for (const NcclTestsRun& run : in.nccl_tests) CheckNcclTestsRun(in, run, planned, out);
}

// Data-parallel gradient and parameter collectives and expert-parallel all-to-all can run under
// the backward/forward compute (Megatron-LM --overlap-grad-reduce, --overlap-param-gather,
// --overlap-moe-expert-parallel-comm; FSDP prefetch). Tensor-parallel all-reduce sits on the
// critical path by design, so with a planned TP > 1 the all-reduce is left out; pipeline
// send/recv too.
bool Overlappable(Collective k, const DiagnoseInputs& in) {
  switch (k) {
    case Collective::kAllReduce:
      return !(in.plan && in.plan->layout.tp > 1);
    case Collective::kReduceScatter:
    case Collective::kAllGather:
      return !(in.plan && in.plan->layout.tp > 1 && in.plan->layout.sp);
    case Collective::kAllToAll:
      return true;
    default:
      return false;
  }
}

void CheckTraces(const DiagnoseInputs& in, std::vector<Finding>* out) {
  if (!in.analysis) return;
  for (const RankAnalysis& r : in.analysis->ranks) {
    const double window = r.temporal.window_s;
    if (!(window > 0)) continue;
    double exposed = 0, total = 0;
    std::vector<std::string> kinds;
    Finding f;
    for (const CollectiveStats& c : r.collectives) {
      if (!Overlappable(c.kind, in) || c.total_s <= 0) continue;
      exposed += c.exposed_s;
      total += c.total_s;
      kinds.push_back(
          fmt::format("{} {:.1f} ms exposed of {:.1f} ms", CollectiveName(c.kind), 1e3 * c.exposed_s, 1e3 * c.total_s));
      f.evidence.push_back({std::string("exposed ") + CollectiveName(c.kind), c.exposed_s, "s", r.path});
      if (c.busbw_bytes_per_s > 0)
        f.evidence.push_back({std::string(CollectiveName(c.kind)) + " busbw", c.busbw_bytes_per_s, "B/s", r.path});
    }
    const double share = exposed / window;
    const double hidden = total > 0 ? 1 - exposed / total : 1;
    if (share < kMinExposedShare || hidden > kMaxHiddenFraction) continue;
    f.rule = "network_bottleneck";
    f.loss_fraction = share;
    f.severity = SeverityForLoss(share);
    f.evidence.push_back({"exposed overlappable communication / traced GPU time", share, "fraction", r.path});
    f.evidence.push_back({"hidden share of that communication", hidden, "fraction", r.path});
    f.where.gpus.push_back(r.rank);
    std::string list;
    for (const auto& k : kinds) list += (list.empty() ? "" : "; ") + k;
    f.title = fmt::format("Rank {}: {:.0f}% of the GPU time is exposed data/expert-parallel communication", r.rank,
                          100 * share);
    f.message = fmt::format(
        "{}: {} ({:.1f}% of the {:.1f} ms traced) runs with no computation under it; only {:.0f}% of these collectives "
        "is hidden although gradient reduction, parameter gathering and expert all-to-all can overlap with compute.",
        r.path, list, 100 * share, 1e3 * window, 100 * hidden);
    f.fix =
        "Turn overlap on and check it works: Megatron-LM --overlap-grad-reduce --overlap-param-gather (with "
        "--use-distributed-optimizer), --overlap-moe-expert-parallel-comm for EP; PyTorch DDP bucket_cap_mb / FSDP "
        "forward/backward prefetch; CUDA_DEVICE_MAX_CONNECTIONS=1 only where TP overlap needs it. If the "
        "collectives are slow rather than unhidden, keep TP inside the node, put PP/DP across nodes, and "
        "benchmark the network with nccl-tests.";
    out->push_back(std::move(f));
  }
}

class NetworkBottleneckRule : public Rule {
 public:
  const char* Name() const override { return "network_bottleneck"; }
  const char* Summary() const override {
    return "nccl-tests bus bandwidth below 80% of the links' effective ceiling; exposed DP/EP communication that "
           "should overlap";
  }
  void Check(const DiagnoseInputs& in, std::vector<Finding>* out) const override {
    CheckNcclTests(in, out);
    CheckTraces(in, out);
  }
};

}  // namespace

std::unique_ptr<Rule> MakeNetworkBottleneckRule() { return std::make_unique<NetworkBottleneckRule>(); }

}  // namespace paratune
