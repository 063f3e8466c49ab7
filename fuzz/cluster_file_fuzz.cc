// libFuzzer target: a cluster file (a cluster TOML, the Alibaba v2023 node list or a Slurm
// topology.conf, read on GB300 nodes as --gpu GB300 gives) must either be read into a consistent
// topology or throw InputError, on any bytes. A read topology numbers its
// nodes in order with every node's type, domain and leaf in range, domains and leaves never mixing
// types, its GPU count the sum over the types, and a usable fabric on every priced type.
// The same bytes as a slurm.conf (`--slurm-conf`) are read or refused with InputError; a read one
// has non-negative weights, windows and limits, and the jobs it maps keep finite priorities and
// positive time limits. As a QOS table (`--slurm-qos`) they are read or refused: a read table has
// unique, non-empty lower-case names, no empty name in a Preempt list, and exempt times that are
// NaN (none) or not negative.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "scheduling/slurm_conf.h"
#include "scheduling/topology.h"
#include "util/error.h"
#include "util/text.h"

namespace {

void CheckSlurmConf(std::string_view text) {
  paratune::SlurmConfig c;
  try {
    c = paratune::ParseSlurmConf(text, "fuzz.conf");
  } catch (const paratune::InputError&) {
    return;
  }
  for (double w : {c.weight_age, c.weight_fairshare, c.weight_job_size, c.weight_partition, c.weight_qos})
    if (!(w >= 0)) std::abort();
  if (!(c.max_age_s >= 0) || !(c.bf_window_s >= 0) || !(c.bf_interval_s >= 0) || c.bf_max_job_test < 0 ||
      c.default_queue_depth < 0 || !(c.preempt_exempt_time_s >= 0))
    std::abort();
  paratune::JobTrace trace;
  for (int i = 0; i < 3; ++i) {
    paratune::Job j;
    j.gpus = 8 << i;
    j.submit_s = 100.0 * i;
    j.run_s = 3600;
    j.priority = i == 0 ? 0 : 1000.0 * i;
    j.measured_wait_s = 60.0 * i;
    j.queue = i == 2 ? "prod" : "batch";
    trace.jobs.push_back(j);
  }
  paratune::ApplySlurmConfig(c, 64, &trace);
  for (const paratune::Job& j : trace.jobs)
    if (std::isnan(j.priority) || !(std::isnan(j.time_limit_s) || j.time_limit_s >= 0)) std::abort();
}

void CheckSlurmQos(std::string_view text) {
  std::vector<paratune::SlurmQos> table;
  try {
    table = paratune::ParseSlurmQos(text, "fuzz.qos");
  } catch (const paratune::InputError&) {
    return;
  }
  for (size_t i = 0; i < table.size(); ++i) {
    const paratune::SlurmQos& q = table[i];
    if (q.name.empty() || q.name != paratune::AsciiLower(q.name) || q.exempt_time_s < 0) std::abort();
    for (const std::string& p : q.preempt)
      if (p.empty() || p != paratune::AsciiLower(p)) std::abort();
    for (size_t k = 0; k < i; ++k)
      if (table[k].name == q.name) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const paratune::HardwareCatalog kCatalog = paratune::HardwareCatalog::BuiltIn();
  if (size > (1 << 20)) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  CheckSlurmConf(text);
  CheckSlurmQos(text);
  paratune::ClusterTopology t;
  try {
    t = paratune::ReadClusterFile(kCatalog, text, "fuzz.toml", "GB300");
  } catch (const paratune::InputError&) {
    return 0;
  }
  if (t.types.empty() || t.nodes.empty() || t.nodes.size() > static_cast<size_t>(paratune::kMaxClusterNodes))
    std::abort();
  int64_t gpus = 0, nodes = 0;
  for (const paratune::NodeType& ty : t.types) {
    if (ty.count <= 0 || ty.fabric.gpus_per_node <= 0 || ty.fabric.gpus_per_node > paratune::kMaxGpusPerNode)
      std::abort();
    if (ty.nodes_per_domain() <= 0 || ty.fabric.nodes_per_leaf < 0 || !(ty.fabric.spine_oversubscription >= 1))
      std::abort();
    if (ty.priced) {
      const paratune::Fabric& f = ty.fabric;
      if (f.nics_per_node != f.gpus_per_node || !(f.net_bytes_per_s() > 0)) std::abort();
      if (f.nvlink_domain <= 0 || (f.nvlink_domain < f.gpus_per_node && f.nvlink_domain != 1)) std::abort();
    }
    gpus += int64_t{ty.count} * ty.fabric.gpus_per_node;
    nodes += ty.count;
  }
  if (gpus != t.total_gpus || nodes != static_cast<int64_t>(t.nodes.size())) std::abort();
  if (!t.node_names.empty() && t.node_names.size() != t.nodes.size()) std::abort();
  for (size_t i = 0; i < t.nodes.size(); ++i) {
    const paratune::ClusterNode& n = t.nodes[i];
    if (n.type < 0 || n.type >= static_cast<int>(t.types.size())) std::abort();
    if (n.domain < 0 || n.domain >= t.domains || n.leaf < 0 || n.leaf >= t.leaves) std::abort();
    if (i > 0) {
      const paratune::ClusterNode& p = t.nodes[i - 1];
      if (n.type < p.type || n.domain < p.domain || n.leaf < p.leaf) std::abort();
      if ((n.domain == p.domain || n.leaf == p.leaf) && n.type != p.type) std::abort();
    }
  }
  return 0;
}
