// Rule topology_missing_nvlink (issue 11, rule 8; docs/diagnose-network.md): in an
// `nvidia-smi topo -m` matrix, a GPU pair without NVLink where NVLink is expected, a GPU with
// fewer bonded NVLinks than its peers, and GPUs whose nearest NIC is across the CPU.
#include <algorithm>
#include <map>
#include <fmt/format.h>

#include "diagnose/rules.h"

namespace paratune {
namespace {

constexpr const char* kRule = "topology_missing_nvlink";

struct Pair {
  int a, b;
};

std::string MatrixLine(const TopologyMatrix& m, int device) {
  return m.path + ":" + std::to_string(m.row_lines[device]);
}

// NVLink is expected between every pair when some GPU reaches every other GPU over NVLink, or
// (from 4 GPUs on) all others but one: an NVSwitch board or a full mesh, on which one GPU that
// lost its links leaves the others at g-2. A DGX-1 hybrid cube mesh (each GPU reaches 4 of 7) and
// PCIe servers with NVLink bridges between pairs do not qualify. Or when the plan's fabric puts
// the node inside one NVLink domain.
bool NvlinkExpected(const TopologyMatrix& m, const DiagnoseInputs& in) {
  const int g = m.gpu_count;
  int most = 0;
  for (int i = 0; i < g; ++i) {
    int nv = 0;
    for (int j = 0; j < g; ++j) nv += m.links[i][j].kind == TopoLinkKind::kNvlink;
    most = std::max(most, nv);
  }
  if (most == g - 1 || (g >= 4 && most >= g - 2)) return true;
  if (in.plan) {
    const Fabric& f = in.plan->cluster.fabric;
    return f.scale_up == LinkClass::kNvlink && f.nvlink_domain >= std::min(g, f.gpus_per_node);
  }
  return false;
}

// The info finding of a board on which NVLink is not expected between every pair.
void ReportNoNvlinkExpected(const TopologyMatrix& m, const std::map<int, int>& counts, const std::vector<Pair>& missing,
                            int pairs, std::vector<Finding>* out) {
  const int g = m.gpu_count;
  Finding f;
  f.rule = kRule;
  f.severity = Severity::kInfo;
  f.title = counts.empty() ? fmt::format("{} GPUs without NVLink (PCIe only)", g)
                           : fmt::format("{} GPUs, NVLink on {} of {} pairs (a partial mesh by design)", g,
                                         pairs - missing.size(), pairs);
  f.message = fmt::format(
      "{}: no GPU reaches (all but one of) the other GPUs over NVLink, so this is not an NVSwitch or fully meshed "
      "board; "
      "tensor parallelism across GPUs without NVLink runs at PCIe speed.",
      m.path);
  f.fix =
      "Keep tensor parallelism within NVLink-connected GPUs, or give the GPU and fabric (--gpu) if NVLink is "
      "expected.";
  f.evidence.push_back({"GPU pairs with NVLink", static_cast<double>(pairs - missing.size()), "", m.path});
  out->push_back(std::move(f));
}

// The critical finding of the GPU pairs without NVLink where the other pairs have NV<modal>.
void ReportMissingNvlink(const TopologyMatrix& m, const std::vector<Pair>& missing, int pairs, int modal,
                         std::vector<Finding>* out) {
  const int g = m.gpu_count;
  Finding f;
  f.rule = kRule;
  f.severity = Severity::kCritical;  // a hardware fault or a down link (docs/diagnose.md conventions)
  std::string list;
  std::vector<int> isolated;
  for (int i = 0; i < g; ++i) {
    int miss = 0;
    for (const auto& p : missing) miss += p.a == i || p.b == i;
    if (miss == g - 1) isolated.push_back(i);
  }
  for (const auto& p : missing) {
    f.where.gpu_pairs.push_back({p.a, p.b});
    const std::string kind = TopoLinkText(m.links[p.a][p.b]);
    if (list.size() < 400)
      list += fmt::format("{}{}-{} {}", list.empty() ? "" : ", ", m.devices[p.a], m.devices[p.b], kind);
    f.evidence.push_back({fmt::format("{}-{} link", m.devices[p.a], m.devices[p.b]),
                          static_cast<double>(TopoLinkDistance(m.links[p.a][p.b].kind)),
                          kind + " (distance: 1 NV# .. 6 SYS)", MatrixLine(m, p.a)});
    f.where.lines.push_back(MatrixLine(m, p.a));
  }
  f.where.gpus = isolated;
  std::sort(f.where.lines.begin(), f.where.lines.end());
  f.where.lines.erase(std::unique(f.where.lines.begin(), f.where.lines.end()), f.where.lines.end());
  f.title = fmt::format("{} of {} GPU pairs without NVLink ({})", missing.size(), pairs, list);
  f.message = fmt::format(
      "{}: {} GPU pair{} cross{} PCIe or the CPU instead of NVLink {}; NCCL rings and "
      "tensor-parallel traffic through {} run at PCIe speed, a fraction of NVLink's.",
      m.path, missing.size(), missing.size() == 1 ? "" : "s", missing.size() == 1 ? "es" : "",
      modal > 0 ? fmt::format("where the other pairs have NV{}", modal)
                : std::string("although the plan's fabric is an NVLink domain"),
      missing.size() == 1 ? "that pair" : "these pairs");
  f.fix =
      "Check the NVLinks of these GPUs: nvidia-smi nvlink --status -i <gpu> and nvidia-smi nvlink -e (errors), the "
      "fabric manager (systemctl status nvidia-fabricmanager) on NVSwitch systems, reseat or replace the GPU or "
      "baseboard; until then exclude the node or keep TP groups on GPUs that have NVLink.";
  f.evidence.push_back({"GPU pairs with NVLink", static_cast<double>(pairs - missing.size()), "", m.path});
  out->push_back(std::move(f));
}

// A GPU with fewer bonded links than its peers: most of its NVLink pairs are below the mode
// (a lane down shows as NV17 to every peer of an NV18 board).
std::vector<int> ShortNvlinkGpus(const TopologyMatrix& m, int modal) {
  const int g = m.gpu_count;
  std::vector<int> short_gpus;
  for (int i = 0; i < g; ++i) {
    int nv = 0, narrow = 0;
    for (int j = 0; j < g; ++j)
      if (m.links[i][j].kind == TopoLinkKind::kNvlink) ++nv, narrow += m.links[i][j].nvlinks < modal;
    if (nv > 0 && 2 * narrow > nv) short_gpus.push_back(i);
  }
  return short_gpus;
}

// The NVLink pairs below the mode between two GPUs that are not short of links.
std::vector<Pair> NarrowNvlinkPairs(const TopologyMatrix& m, int modal, const std::vector<int>& short_gpus) {
  const int g = m.gpu_count;
  std::vector<Pair> narrow_pairs;
  for (int i = 0; i < g; ++i)
    for (int j = i + 1; j < g; ++j)
      if (m.links[i][j].kind == TopoLinkKind::kNvlink && m.links[i][j].nvlinks < modal &&
          std::find(short_gpus.begin(), short_gpus.end(), i) == short_gpus.end() &&
          std::find(short_gpus.begin(), short_gpus.end(), j) == short_gpus.end())
        narrow_pairs.push_back({i, j});
  return narrow_pairs;
}

// The critical finding of the GPUs and pairs with fewer NVLinks than the NV<modal> of the others.
void ReportNarrowNvlink(const TopologyMatrix& m, int modal, const std::vector<int>& short_gpus,
                        const std::vector<Pair>& narrow_pairs, std::vector<Finding>* out) {
  const int g = m.gpu_count;
  Finding f;
  f.rule = kRule;
  f.severity = Severity::kCritical;
  f.where.gpus = short_gpus;
  std::string list;
  for (int i : short_gpus) {
    int fewest = modal;
    for (int j = 0; j < g; ++j)
      if (m.links[i][j].kind == TopoLinkKind::kNvlink) fewest = std::min(fewest, m.links[i][j].nvlinks);
    list += fmt::format("{}{} NV{}", list.empty() ? "" : ", ", m.devices[i], fewest);
    f.evidence.push_back(
        {m.devices[i] + " NVLinks to its peers (fewest)", static_cast<double>(fewest), "links", MatrixLine(m, i)});
    f.where.lines.push_back(MatrixLine(m, i));
  }
  for (const auto& p : narrow_pairs) {
    f.where.gpu_pairs.push_back({p.a, p.b});
    list += fmt::format("{}{}-{} NV{}", list.empty() ? "" : ", ", m.devices[p.a], m.devices[p.b],
                        m.links[p.a][p.b].nvlinks);
    f.evidence.push_back({fmt::format("{}-{} NVLinks", m.devices[p.a], m.devices[p.b]),
                          static_cast<double>(m.links[p.a][p.b].nvlinks), "links", MatrixLine(m, p.a)});
    f.where.lines.push_back(MatrixLine(m, p.a));
  }
  f.evidence.push_back({"NVLinks per pair elsewhere", static_cast<double>(modal), "links", m.path});
  f.title = fmt::format("Fewer NVLinks than the NV{} of the other pairs: {}", modal, list);
  f.message = fmt::format(
      "{}: {} where the rest of the board has NV{}: a link is down or degraded, and every collective "
      "through {} runs at the reduced width.",
      m.path, list, modal, short_gpus.size() + narrow_pairs.size() == 1 ? "it" : "them");
  f.fix =
      "nvidia-smi nvlink --status -i <gpu> shows the inactive link; check nvidia-smi nvlink -e for replay/CRC "
      "errors, "
      "reset the GPU or have the baseboard serviced.";
  out->push_back(std::move(f));
}

void CheckNvlink(const TopologyMatrix& m, const DiagnoseInputs& in, std::vector<Finding>* out) {
  const int g = m.gpu_count;
  if (g < 2) return;
  std::vector<Pair> missing;
  std::map<int, int> counts;  // NV# -> pairs
  for (int i = 0; i < g; ++i)
    for (int j = i + 1; j < g; ++j) {
      if (m.links[i][j].kind == TopoLinkKind::kNvlink)
        ++counts[m.links[i][j].nvlinks];
      else
        missing.push_back({i, j});
    }
  const int pairs = g * (g - 1) / 2;
  const bool expected = NvlinkExpected(m, in);
  if (!expected) {
    ReportNoNvlinkExpected(m, counts, missing, pairs, out);
    return;
  }
  // The modal bond width over the NVLink pairs (ties: the wider): what every pair should show.
  int modal = 0, modal_pairs = 0;
  for (const auto& [links, n] : counts)
    if (n >= modal_pairs) modal = links, modal_pairs = n;
  if (!missing.empty()) ReportMissingNvlink(m, missing, pairs, modal, out);
  const std::vector<int> short_gpus = ShortNvlinkGpus(m, modal);
  const std::vector<Pair> narrow_pairs = NarrowNvlinkPairs(m, modal, short_gpus);
  if (!short_gpus.empty() || !narrow_pairs.empty()) ReportNarrowNvlink(m, modal, short_gpus, narrow_pairs, out);
  if (missing.empty() && short_gpus.empty() && narrow_pairs.empty()) {
    Finding f;
    f.rule = kRule;
    f.severity = Severity::kInfo;
    f.title = fmt::format("Full NVLink: all {} pairs of the {} GPUs NV{}", pairs, g, modal);
    f.message = fmt::format("{}: every GPU pair is connected by {} bonded NVLinks.", m.path, modal);
    f.fix = "Nothing to change.";
    f.evidence.push_back({"GPU pairs with NVLink", static_cast<double>(pairs), "", m.path});
    f.evidence.push_back({"NVLinks per pair", static_cast<double>(modal), "links", m.path});
    out->push_back(std::move(f));
  }
}

// Each GPU's nearest NIC should sit behind the same PCIe switch (PIX, PXB) for GPUDirect RDMA;
// PHB (through the CPU), NODE (across host bridges) and SYS (across the socket) make every
// inter-node transfer cross the CPU. Judged where the matrix lists at least one NIC per GPU
// (rail-optimised), or where no NIC is near any GPU; with fewer NICs than GPUs, NCCL forwards
// over NVLink to the GPU next to a NIC (PXN) and GPUs without their own NIC are by design.
void CheckNics(const TopologyMatrix& m, std::vector<Finding>* out) {
  const int g = m.gpu_count, d = static_cast<int>(m.devices.size());
  if (d == g) return;
  auto near = [](TopoLinkKind k) { return k == TopoLinkKind::kPix || k == TopoLinkKind::kPxb; };
  int gpu_nics = 0;
  for (int n = g; n < d; ++n) {
    bool any = false;
    for (int i = 0; i < g; ++i) any = any || near(m.links[i][n].kind);
    gpu_nics += any;
  }
  std::vector<int> far;
  std::vector<int> nearest(g, -1);
  for (int i = 0; i < g; ++i) {
    for (int n = g; n < d; ++n)
      if (nearest[i] < 0 || TopoLinkDistance(m.links[i][n].kind) < TopoLinkDistance(m.links[i][nearest[i]].kind))
        nearest[i] = n;
    if (!near(m.links[i][nearest[i]].kind)) far.push_back(i);
  }
  if (far.empty() || !(d - g >= g || gpu_nics == 0)) return;
  Finding f;
  f.rule = kRule;
  f.severity = Severity::kWarning;  // a misconfiguration whose loss the matrix cannot size
  f.where.gpus = far;
  std::string list;
  for (int i : far) {
    const int n = nearest[i];
    const std::string nic = m.devices[n] + (n - g < static_cast<int>(m.nic_names.size()) && !m.nic_names[n - g].empty()
                                                ? " (" + m.nic_names[n - g] + ")"
                                                : "");
    const std::string kind = TopoLinkText(m.links[i][n]);
    if (list.size() < 400) list += fmt::format("{}{} -> {} {}", list.empty() ? "" : ", ", m.devices[i], nic, kind);
    f.evidence.push_back({m.devices[i] + " nearest NIC " + nic,
                          static_cast<double>(TopoLinkDistance(m.links[i][n].kind)),
                          kind + " (distance: 2 PIX .. 6 SYS)", MatrixLine(m, i)});
    f.where.lines.push_back(MatrixLine(m, i));
  }
  f.title = fmt::format("{} GPU{} with no NIC behind the same PCIe switch ({})", far.size(), far.size() == 1 ? "" : "s",
                        list);
  f.message = fmt::format(
      "{}: the nearest NIC of {} is reached through the CPU (PHB), across PCIe host bridges (NODE) or across the "
      "socket "
      "(SYS), not behind the GPU's PCIe switch (PIX/PXB); GPUDirect RDMA then crosses the host and inter-node "
      "bandwidth drops (an NCCL maintainer: a NIC attached to the CPU gives ~16 of 24 GB/s, "
      "github.com/NVIDIA/nccl/issues/412).",
      m.path, far.size() == 1 ? "this GPU" : "these GPUs");
  f.fix =
      "Put each GPU's NIC in a slot on its PCIe switch (rail-optimised: one NIC per GPU), check NCCL_IB_HCA lists the "
      "NICs next to the GPUs, and bind each rank to its GPU's NUMA node (numactl / --cpu-bind, the CPU Affinity "
      "column).";
  out->push_back(std::move(f));
}

class TopologyMissingNvlinkRule : public Rule {
 public:
  const char* Name() const override { return kRule; }
  const char* Summary() const override {
    return "nvidia-smi topo -m: GPU pairs without NVLink, GPUs with fewer NVLinks than their peers, NICs across the "
           "CPU";
  }
  void Check(const DiagnoseInputs& in, std::vector<Finding>* out) const override {
    for (const TopologyMatrix& m : in.topologies) {
      CheckNvlink(m, in, out);
      CheckNics(m, out);
    }
  }
};

}  // namespace

std::unique_ptr<Rule> MakeTopologyMissingNvlinkRule() { return std::make_unique<TopologyMissingNvlinkRule>(); }

}  // namespace paratune
