#include "scheduling/cluster_request.h"

#include <algorithm>
#include <sstream>
#include <vector>

#include "scheduling/policy.h"
#include "scheduling/kueue_config.h"
#include "scheduling/slurm_conf.h"
#include "scheduling/speed_model.h"
#include "scheduling/job_history_reader.h"
#include "model/catalog.h"
#include "util/error.h"
#include "util/file.h"

namespace paratune {
namespace {

std::vector<std::string> SplitList(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

std::vector<const PolicyInfo*> Policies(const std::string& list) {
  std::vector<const PolicyInfo*> policies;
  for (const auto& name : SplitList(list)) {
    const PolicyInfo* p = &FindPolicy(name);
    if (std::find(policies.begin(), policies.end(), p) != policies.end())
      throw InputError("--policy: '" + name + "' is named twice (each policy is replayed once)");
    policies.push_back(p);
  }
  if (policies.empty()) throw InputError("--policy: no policy given");
  return policies;
}

JobTraceDefaults Defaults(const ClusterRequest& r, const ClusterTopology& topology) {
  JobTraceDefaults d;
  if (r.checkpoint_interval_s >= 0) d.checkpoint_interval_s = r.checkpoint_interval_s;
  if (r.restart_overhead_s >= 0) d.restart_overhead_s = r.restart_overhead_s;
  if (!r.locality.empty()) d.locality = kLocalityNames.Parse(r.locality, "--locality", "locality");
  if (!r.model.empty()) (void)LoadModel(r.model);  // an unknown model is bad input, not "unpriced"
  d.model = r.model;
  d.production_vcs = SplitList(r.production_vcs);
  d.max_gpus = topology.total_gpus;
  return d;
}

// The slurm.conf and its what-ifs, each a configuration of the `slurm` policy (the what-if's
// line appended to the file's text). A what-if may change the scheduler, its parameters, the
// placement and preemption, not what ApplySlurmConfig derives the jobs from.
std::vector<std::pair<std::string, SlurmConfig>> SlurmConfigs(const ClusterRequest& r) {
  std::vector<std::pair<std::string, SlurmConfig>> out;
  const std::string text = r.slurm_conf.empty() ? std::string() : ReadSlurmConfText(r.slurm_conf);
  const std::string where = r.slurm_conf.empty() ? std::string("slurm.conf(5) defaults") : r.slurm_conf;
  const std::vector<SlurmQos> qos = r.slurm_qos.empty() ? std::vector<SlurmQos>{} : ReadSlurmQos(r.slurm_qos);
  out.emplace_back("slurm", ParseSlurmConf(text, where));
  out.front().second.qos = qos;
  const SlurmConfig base = out.front().second;  // a copy: out grows below
  for (const std::string& line : r.slurm_what_ifs) {
    SlurmConfig c = ParseSlurmConf(text + "\n" + line, where + " + --slurm-what-if");
    const bool same_jobs = c.multifactor == base.multifactor && c.weight_age == base.weight_age &&
                           c.weight_job_size == base.weight_job_size && c.weight_partition == base.weight_partition &&
                           c.max_age_s == base.max_age_s && c.favor_small == base.favor_small &&
                           c.partitions.size() == base.partitions.size();
    if (!same_jobs)
      throw InputError("--slurm-what-if '" + line +
                       "': changes the jobs' priorities or partitions; a what-if may change the scheduler, "
                       "SchedulerParameters, TopologyPlugin, SelectType and Preempt* only");
    c.qos = qos;
    out.emplace_back("slurm[" + line + "]", std::move(c));
  }
  return out;
}

}  // namespace

ClusterReplay RunCluster(const ClusterRequest& r) {
  if (r.nodes && !r.cluster_file.empty())
    throw InputError("cluster: give --nodes (with --gpu) or --topology, not both");
  if (!r.nodes && r.cluster_file.empty())
    throw InputError("cluster: give the cluster: --nodes N [--gpu NAME] or --topology FILE");
  const HardwareCatalog catalog = HardwareCatalog::BuiltIn();
  ClusterReplay out;
  out.topology = std::make_unique<ClusterTopology>(
      r.cluster_file.empty() ? TopologyFromFlags(catalog, r.gpu.empty() ? kDefaultGpu : r.gpu, *r.nodes)
                             : ReadClusterFile(catalog, ReadFile(r.cluster_file), r.cluster_file, r.gpu));
  const ClusterTopology& topology = *out.topology;
  const std::vector<const PolicyInfo*> policies = Policies(r.policies);
  const JobTraceDefaults d = Defaults(r, topology);
  std::optional<JobTraceFormat> format;
  if (!r.format.empty()) format = kJobTraceFormatNames.Parse(r.format, "--format", "trace format");
  JobTrace trace = ReadJobTrace(ReadMaybeGzipFile(r.trace, size_t{1} << 30), r.trace, format, d);
  const auto slurm = SlurmConfigs(r);
  if (!r.slurm_conf.empty()) ApplySlurmConfig(slurm.front().second, topology.total_gpus, &trace);
  out.trace = std::make_unique<JobTrace>(FilterPlaceable(topology, std::move(trace), r.options));
  ClusterRun& run = out.run;
  run.topology = out.topology.get();
  run.trace = out.trace.get();
  run.options = r.options;
  const KueueConfig kueue = r.kueue_config.empty() ? KueueConfig{} : ReadKueueConfig(r.kueue_config);
  SpeedModel speed(topology);
  for (const PolicyInfo* info : policies) {
    const bool is_slurm = std::string(info->name) == "slurm";
    for (size_t k = 0; k < (is_slurm ? slurm.size() : 1); ++k) {
      ReplayOptions options = run.options;
      options.kueue = &kueue;
      std::string name = info->name;
      if (is_slurm) {
        options.slurm = &slurm[k].second;
        options.min_run_s = slurm[k].second.preempt_exempt_time_s;
        name = slurm[k].first;
      }
      auto policy = info->make();
      ReplayResult result = Replay(topology, *out.trace, *policy, &speed, options, r.progress);
      result.metrics.policy = name;
      run.policies.push_back({name, std::move(result)});
    }
  }
  return out;
}

}  // namespace paratune
