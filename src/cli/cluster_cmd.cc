// `paratune cluster`: replays a job trace (Philly-derived, Alibaba v2023 or native CSV) on a
// shared cluster of GPU nodes under one or more scheduling policies, with placements priced by
// the cost model when jobs carry models, and prints the policies side by side, or JSON (schema
// paratune.cluster/1), with optional series CSV, per-job CSV and Chrome trace of placements.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/cluster_report.h"
#include "cli/commands.h"
#include "cli/terminal_progress.h"
#include "cli/output_file.h"
#include "cluster/cluster_json.h"
#include "cluster/policy.h"
#include "cluster/speed_model.h"
#include "cluster/trace_reader.h"
#include "model/catalog.h"
#include "scenario/default_scenario.h"
#include "util/error.h"
#include "util/file.h"
#include "util/json_document.h"

namespace paratune::cli {
namespace {

struct ClusterFlags {
  std::string trace, format, cluster_file, gpu = kDefaultGpu, policies = "fifo,topo,topo-preempt";
  int nodes = 0;
  bool json = false, quiet = false;
  std::string series_out, trace_out, jobs_out;
  std::string model, production_vcs, locality;
  double checkpoint_interval_s = -1, restart_overhead_s = -1;
  ReplayOptions options;
};

std::vector<std::string> SplitList(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

}  // namespace

Command AddClusterCommand(CLI::App& root) {
  auto* cmd = root.add_subcommand("cluster", "replay a job trace on a shared GPU cluster under scheduling policies");
  auto f = std::make_shared<ClusterFlags>();
  cmd->add_option("--trace", f->trace, "job trace: Philly-derived CSV, Alibaba v2023 pod list, or native CSV")->required();
  cmd->add_option("--format", f->format, "philly, alibaba-v2023 or native (default: detected from the header)");
  cmd->add_option("--nodes", f->nodes, "nodes of --gpu's reference system (HGX: 8 GPUs; NVL72: 4-GPU trays)")
      ->check(CLI::Range(1, kMaxClusterNodes));
  cmd->add_option("--gpu", f->gpu, "GPU of the nodes (catalog name; `paratune gpus` lists them)");
  cmd->add_option("--cluster", f->cluster_file, "cluster TOML ([[nodes]] per node type) or Alibaba v2023 node list CSV");
  cmd->add_option("--policy", f->policies, "comma-separated policies: fifo, topo, topo-preempt, topo-defrag");
  cmd->add_flag("--json", f->json, "JSON output (schema paratune.cluster/1, docs/json.md)");
  cmd->add_option("--series", f->series_out, "write the time series (utilisation, queue, fragmentation) as CSV");
  cmd->add_option("--trace-out", f->trace_out, "write the placements over time as a Chrome trace (one track per node)");
  cmd->add_option("--jobs-out", f->jobs_out, "write one CSV row per job and policy (placement, slowdown, losses)");
  cmd->add_option("--model", f->model, "catalog model for jobs the trace gives none (their placements are priced)");
  cmd->add_option("--production-vc", f->production_vcs, "Philly: comma-separated virtual clusters whose jobs are production");
  cmd->add_option("--checkpoint-interval", f->checkpoint_interval_s, "seconds between checkpoints, for jobs that give none")
      ->check(CLI::Range(0.0, 1e9));
  cmd->add_option("--restart-overhead", f->restart_overhead_s, "seconds a restart costs, for jobs that give none")
      ->check(CLI::Range(0.0, 1e9));
  cmd->add_option("--locality", f->locality, "soft or hard, for jobs that give none");
  cmd->add_option("--min-run", f->options.min_run_s, "seconds a job runs before it may be preempted (default 7200)")
      ->check(CLI::Range(0.0, 1e9));
  cmd->add_option("--locality-wait", f->options.locality_wait_s,
                  "seconds a soft-locality job waits for a packed placement (default 300)")
      ->check(CLI::Range(0.0, 1e9));
  cmd->add_option("--backfill-depth", f->options.backfill_depth, "jobs a backfill pass tries (default 500)")
      ->check(CLI::Range(0, 1000000));
  cmd->add_option("--series-interval", f->options.series_interval_s, "seconds between series samples (default 3600)")
      ->check(CLI::Range(1.0, 1e9));
  cmd->add_flag("--quiet", f->quiet, "no progress line on the terminal");
  cmd->footer("Exit status 0 when it ran, 2 on bad input. docs/cluster.md describes the policies and metrics, "
              "docs/cluster-traces.md the trace formats.");
  return {cmd, [cmd, f] {
            PrepareOutputs(*cmd, {{"--series", &f->series_out}, {"--trace-out", &f->trace_out}, {"--jobs-out", &f->jobs_out}},
                           {f->trace, f->cluster_file});
            if (cmd->count("--nodes") && !f->cluster_file.empty())
              throw InputError("cluster: give --nodes (with --gpu) or --cluster, not both");
            if (!cmd->count("--nodes") && f->cluster_file.empty())
              throw InputError("cluster: give the cluster: --nodes N [--gpu NAME] or --cluster FILE");
            const HardwareCatalog catalog = HardwareCatalog::BuiltIn();
            const ClusterTopology topology =
                f->cluster_file.empty() ? TopologyFromFlags(catalog, f->gpu, f->nodes)
                                        : ReadClusterFile(catalog, ReadFile(f->cluster_file), f->cluster_file);
            std::vector<const PolicyInfo*> policies;
            for (const auto& name : SplitList(f->policies)) {
              const PolicyInfo* p = &FindPolicy(name);
              if (std::find(policies.begin(), policies.end(), p) != policies.end())
                throw InputError("--policy: '" + name + "' is named twice (each policy is replayed once)");
              policies.push_back(p);
            }
            if (policies.empty()) throw InputError("--policy: no policy given");
            TraceDefaults d;
            if (f->checkpoint_interval_s >= 0) d.checkpoint_interval_s = f->checkpoint_interval_s;
            if (f->restart_overhead_s >= 0) d.restart_overhead_s = f->restart_overhead_s;
            if (!f->locality.empty()) d.locality = kLocalityNames.Parse(f->locality, "--locality", "locality");
            if (!f->model.empty()) (void)LoadModel(f->model);  // an unknown model is bad input, not "unpriced"
            d.model = f->model;
            d.production_vcs = SplitList(f->production_vcs);
            d.max_gpus = topology.total_gpus;
            std::optional<TraceFormat> format;
            if (!f->format.empty()) format = kTraceFormatNames.Parse(f->format, "--format", "trace format");
            JobTrace trace = ReadJobTrace(ReadMaybeGzipFile(f->trace, size_t{1} << 30), f->trace, format, d);
            trace = FilterPlaceable(topology, std::move(trace), f->options);
            ClusterRun run;
            run.topology = &topology;
            run.trace = &trace;
            run.options = f->options;
            run.options.record_placements = !f->trace_out.empty();
            SpeedModel speed(topology);
            TerminalProgress progress(f->quiet);
            for (const PolicyInfo* info : policies) {
              auto policy = info->make();
              ReplayResult r = Replay(topology, trace, *policy, &speed, run.options, progress.get());
              r.metrics.policy = info->name;
              run.policies.push_back({info->name, std::move(r)});
            }
            progress.Done();
            if (!f->series_out.empty()) WriteOutput(f->series_out, SeriesCsv(run));
            if (!f->jobs_out.empty()) WriteOutput(f->jobs_out, JobsCsv(run));
            if (!f->trace_out.empty()) WriteOutput(f->trace_out, PlacementTraceText(run));
            if (f->json) {
              fmt::print("{}\n", DocumentText(ClusterJson(run)));
              return 0;
            }
            fmt::print("{}", FormatClusterSummary(run));
            return 0;
          }};
}

}  // namespace paratune::cli
