// The speed model of `paratune cluster`: a job's slowdown on a placement, from two compositions
// of its step (step/compose.h), one on the packed fabric of its node type and one on a fabric
// derived from the placement's shape. docs/cluster-speed.md derives it.
#include "scheduling/speed_model.h"

#include <algorithm>
#include <cstdint>
#include <fmt/format.h>
#include <string>
#include <vector>

#include "model/catalog.h"
#include "plan/planner.h"
#include "step/compose.h"
#include "util/error.h"

namespace paratune {

namespace {

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / std::max<int64_t>(1, b); }

// Tensor parallelism across NVLink domains is modelled, not refused: a split placement is what
// the speed model prices (layout/constraints.h "tp-in-nvlink-domain" would reject it).
EstimateOptions SplitOptions() {
  EstimateOptions o;
  o.rules.allow_cross_domain_tp = true;
  return o;
}

// The placed fabric: ranks fill "nodes" of the GPUs per node that every power-of-two rank
// group keeps together, inside "domains" of the GPUs per domain it keeps together, with the
// same scale-out bandwidth per GPU; across leaves, the job's nodes are split evenly over the
// leaves it spans, so that a group over all of them crosses the spine.
ClusterSpec PlacedCluster(const ClusterSpec& packed, const PlacementShape& shape, int leaves) {
  ClusterSpec placed = packed;
  Fabric& f = placed.fabric;
  const int per_node = std::clamp(shape.aligned_per_node, 1, packed.fabric.gpus_per_node);
  f.gpus_per_node = per_node;
  f.nics_per_node = per_node;
  if (packed.fabric.nvlink_domain >= packed.fabric.gpus_per_node)
    f.nvlink_domain = std::clamp(shape.aligned_per_domain, per_node, packed.fabric.nvlink_domain);
  else
    f.nvlink_domain = std::min(packed.fabric.nvlink_domain, per_node);  // no domain wider than one GPU
  if (leaves > 1) {
    const int64_t nodes = CeilDiv(shape.gpus, per_node);
    f.nodes_per_leaf = static_cast<int>(std::max<int64_t>(1, CeilDiv(nodes, leaves)));
  } else {
    f.nodes_per_leaf = 0;  // within one leaf switch: no spine
  }
  return placed;
}

std::string LayoutText(const Layout& l) {
  std::string s = fmt::format("tp {} pp {} dp {}", l.tp, l.pp, l.dp);
  if (l.cp > 1) s += fmt::format(" cp {}", l.cp);
  if (l.ep > 1) s += fmt::format(" ep {}", l.ep);
  return s;
}

const char* ScaleUpName(const Fabric& f) { return f.scale_up == LinkClass::kPcie ? "PCIe" : "NVLink"; }

// What changed for one rank group between the packed and the placed fabric, or "".
std::string GroupNote(const char* kind, int size, int stride, const ClusterSpec& packed, const ClusterSpec& placed,
                      int leaves) {
  if (size <= 1) return "";
  const GroupLinks a = PlaceGroup(packed, {size, stride});
  const GroupLinks b = PlaceGroup(placed, {size, stride});
  if (b.link == a.link && b.bus_bytes_per_s >= a.bus_bytes_per_s) return "";
  const int64_t span = int64_t{size} * stride;
  if (!a.crosses_domain && b.crosses_domain) {
    const int64_t parts = CeilDiv(span, std::max(1, placed.fabric.nvlink_domain));
    const bool domains = packed.fabric.multi_node_domain();
    return fmt::format("{} {} over {} {} (network instead of {})", kind, size, parts,
                       domains ? "NVLink domains" : "nodes", ScaleUpName(packed.fabric));
  }
  if (b.link == LinkClass::kSpine && a.link != LinkClass::kSpine)
    return fmt::format("{} {} across {} leaves (spine {:g}:1)", kind, size, leaves,
                       placed.fabric.spine_oversubscription);
  if (a.crosses_domain && b.crosses_domain && b.per_domain < a.per_domain)
    return fmt::format("{} {} with {} instead of {} GPUs per {} on the network", kind, size, b.per_domain, a.per_domain,
                       packed.fabric.multi_node_domain() ? "NVLink domain" : "node");
  return "";
}

// The same for a pipeline hop (ranks tp*cp*dp apart).
std::string HopNote(int pp, int stride, const ClusterSpec& packed, const ClusterSpec& placed, int leaves) {
  if (pp <= 1) return "";
  const GroupLinks a = PlaceSendRecv(packed, stride);
  const GroupLinks b = PlaceSendRecv(placed, stride);
  if (b.link == a.link) return "";
  if (!a.crosses_domain && b.crosses_domain)
    return fmt::format("pp hops over the network instead of {}", ScaleUpName(packed.fabric));
  if (b.link == LinkClass::kSpine)
    return fmt::format("pp hops across {} leaves (spine {:g}:1)", leaves, placed.fabric.spine_oversubscription);
  return "";
}

}  // namespace

SpeedModel::SpeedModel(const ClusterTopology& topology) : topology_(topology) {}

const ModelSpec* SpeedModel::Model(const std::string& name, std::string& error) {
  auto it = models_.find(name);
  if (it == models_.end()) {
    std::optional<ModelSpec> m;
    try {
      m = LoadModel(name);
    } catch (const InputError& e) {
      // LoadModel lists the whole catalog after "; catalog:": the job's record keeps the reason.
      std::string why = e.what();
      why = why.substr(0, std::min<size_t>(why.find("; catalog:"), 300));
      model_errors_[name] = "model not priced: " + why;
    }
    it = models_.emplace(name, std::move(m)).first;
  }
  if (!it->second) {
    error = model_errors_[name];
    return nullptr;
  }
  return &*it->second;
}

const SpeedModel::Packed& SpeedModel::PackedCase(const Job& job, int type, int gpus) {
  const auto key = std::tuple{job.model, job.tp, job.pp, type, gpus};
  auto it = packed_.find(key);
  if (it != packed_.end()) return it->second;
  Packed p;
  std::string error;
  const ModelSpec* model = Model(job.model, error);
  const NodeType& ty = topology_.types[type];
  if (!model) {
    p.note = error;
  } else {
    p.model = *model;
    p.training.seq = kSpeedModelSeq;
    p.training.global_batch = int64_t{kSpeedModelSequencesPerGpu} * gpus;
    const ClusterSpec packed{ty.gpu_spec, ty.fabric, gpus};
    try {
      if (job.tp > 0 && job.pp > 0) {
        // The job's own layout; the rest of it Megatron-LM's defaults (layout/layout.h).
        p.layout.tp = job.tp;
        p.layout.pp = job.pp;
      } else {
        // The planner's best layout for this GPU count on a packed placement (plan/planner.h);
        // a pinned tp or pp stays pinned.
        PlanRequest r;
        r.model = *model;
        r.cluster = packed;
        r.training = p.training;
        r.top = 1;
        if (job.tp > 0) r.tp = job.tp;
        if (job.pp > 0) r.pp = job.pp;
        const PlanResult plan = Plan(r);
        p.layout = plan.ranked.front().layout;
      }
      const StepResult step = ComposeStep(p.model, packed, p.training, p.layout, SplitOptions());
      p.layout = step.estimate.layout;
      p.step_time_s = step.estimate.step_time_s;
      p.mfu = step.estimate.mfu;
      p.ok = p.step_time_s > 0;
      if (!p.ok) p.note = "model not priced: the packed step time is not positive";
    } catch (const InputError& e) {
      p.note = fmt::format("model not priced: {} on {} GPUs of {}: {}", job.model, gpus, ty.name, e.what());
    }
  }
  return packed_.emplace(key, std::move(p)).first->second;
}

const Pricing& SpeedModel::Price(const Job& job, const PlacementShape& shape) {
  static const Pricing kUnmodelled{};
  if (job.model.empty() || shape.type < 0 || shape.type >= static_cast<int>(topology_.types.size()) || shape.gpus <= 0)
    return kUnmodelled;
  const NodeType& ty = topology_.types[shape.type];
  if (!ty.priced) return kUnmodelled;
  const int leaves = std::max(1, shape.leaves);
  Key k{job.model, job.tp,    job.pp, shape.type, shape.gpus, shape.aligned_per_node, shape.aligned_per_domain,
        leaves,    leaves > 1};
  auto it = cache_.find(k);
  if (it != cache_.end()) return it->second;

  Pricing out;
  const Packed& p = PackedCase(job, shape.type, shape.gpus);
  if (!p.ok) {
    out.note = p.note;
    return cache_.emplace(std::move(k), std::move(out)).first->second;
  }
  const ClusterSpec packed{ty.gpu_spec, ty.fabric, shape.gpus};
  const ClusterSpec placed = PlacedCluster(packed, shape, leaves);
  out.layout = LayoutText(p.layout);
  try {
    const StepResult step = ComposeStep(p.model, placed, p.training, p.layout, SplitOptions());
    out.modelled = true;
    out.slowdown = std::max(1.0, step.estimate.step_time_s / p.step_time_s);
    out.mfu = p.mfu / out.slowdown;
    const Layout& l = p.layout;
    std::vector<std::string> notes;
    for (std::string n :
         {GroupNote("tp", l.tp, 1, packed, placed, leaves), GroupNote("cp", l.cp, l.tp, packed, placed, leaves),
          GroupNote("ep", l.ep, l.expert_tp(), packed, placed, leaves),
          GroupNote("dp", l.dp * l.cp, l.tp, packed, placed, leaves),
          HopNote(l.pp, l.tp * l.cp * l.dp, packed, placed, leaves)})
      if (!n.empty()) notes.push_back(std::move(n));
    for (const std::string& n : notes) out.note += (out.note.empty() ? "" : "; ") + n;
    // Slower links whose traffic stays behind compute (an overlapped DP reduction) cost nothing.
    if (!out.note.empty() && out.slowdown == 1.0) out.note += " (hidden behind compute: no slower)";
  } catch (const InputError& e) {
    out = Pricing{};
    out.note = fmt::format("model not priced on this placement: {}", e.what());
  }
  return cache_.emplace(std::move(k), std::move(out)).first->second;
}

}  // namespace paratune
