// `paratune cluster`: replays a job trace (Philly-derived, Alibaba v2023 or native CSV) on a
// shared cluster of GPU nodes under one or more scheduling policies, with placements priced by
// the cost model when jobs carry models, and prints the policies side by side, or JSON (schema
// paratune.cluster/1), with optional series CSV, per-job CSV and Chrome trace of placements.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "cli/cluster_text.h"
#include "cli/commands.h"
#include "cli/deprecated_flag.h"
#include "cli/terminal_progress.h"
#include "cli/output_file.h"
#include "scheduling/cluster_request.h"
#include "scheduling/job_history_reader.h"
#include "util/error.h"
#include "util/json_document.h"

namespace paratune::cli {
namespace {

struct ClusterFlags {
  ClusterRequest request;  // the library's defaults (scheduling/cluster_request.h)
  int nodes = 0;
  bool json = false, quiet = false;
  std::string series_out, trace_out, jobs_out;
};

// The trace, the cluster, the policies and the outputs.
void AddClusterInputFlags(CLI::App* cmd, ClusterFlags& flags) {
  ClusterFlags* f = &flags;
  auto* job_history = cmd->add_option("--job-history", f->request.trace,
                                      "job trace: Philly-derived CSV, Alibaba v2023 pod list, Slurm sacct --parsable2 "
                                      "history, or native CSV")
                          ->required();
  cmd->add_option("--format", f->request.format, kJobTraceFormatNames.List() + " (default: detected from the header)");
  cmd->add_option("--nodes", f->nodes, "nodes of --gpu's reference system (HGX: 8 GPUs; NVL72: 4-GPU trays)")
      ->check(CLI::Range(1, kMaxClusterNodes));
  cmd->add_option("--gpu", f->request.gpu,
                  "GPU of the nodes (catalog name; `paratune gpus` lists them; default B300; required with a Slurm "
                  "topology.conf)");
  auto* topology = cmd->add_option("--topology", f->request.cluster_file,
                                   "cluster TOML ([[nodes]] per node type), Alibaba v2023 node list CSV or Slurm "
                                   "topology.conf (with --gpu)");
  cmd->add_option("--policy", f->request.policies,
                  "comma-separated policies: fifo, topo, topo-preempt, topo-defrag, slurm, kueue");
  cmd->add_flag("--json", f->json, "JSON output (schema paratune.cluster/1, docs/json.md)");
  cmd->add_option("--series", f->series_out, "write the time series (utilisation, queue, fragmentation) as CSV");
  cmd->add_option("--trace-out", f->trace_out, "write the placements over time as a Chrome trace (one track per node)");
  cmd->add_option("--jobs-out", f->jobs_out, "write one CSV row per job and policy (placement, slowdown, losses)");
  cmd->add_option("--model", f->request.model,
                  "catalog model for jobs the trace gives none (their placements are priced)");
  cmd->add_option("--production-vc", f->request.production_vcs,
                  "Philly: comma-separated virtual clusters whose jobs are production");
  cmd->add_option("--slurm-conf", f->request.slurm_conf,
                  "the cluster's slurm.conf: the jobs' queue order, classes and time limits, and the `slurm` "
                  "policy's scheduler, backfill, placement and preemption");
  cmd->add_option("--slurm-what-if", f->request.slurm_what_ifs,
                  "a slurm.conf line the `slurm` policy is also replayed with, side by side (repeatable), e.g. "
                  "'TopologyPlugin=topology/block'");
  cmd->add_option("--slurm-qos", f->request.slurm_qos,
                  "the QOS table (sacctmgr -P show qos format=Name,Preempt,PreemptMode,PreemptExemptTime) that "
                  "PreemptType=preempt/qos follows");
  cmd->add_option("--kueue-config", f->request.kueue_config,
                  "the cluster's Kueue ClusterQueues (kubectl get clusterqueues -o json): the `kueue` policy's quotas, "
                  "cohorts, borrowing and preemption");
  AddDeprecatedOption(cmd, "--trace", job_history);
  AddDeprecatedOption(cmd, "--cluster", topology);
}

// The jobs' defaults and the replay's options.
void AddClusterReplayFlags(CLI::App* cmd, ClusterFlags& flags) {
  ClusterFlags* f = &flags;
  cmd->add_option("--checkpoint-interval", f->request.checkpoint_interval_s,
                  "seconds between checkpoints, for jobs that give none")
      ->check(CLI::Range(0.0, 1e9));
  cmd->add_option("--restart-overhead", f->request.restart_overhead_s,
                  "seconds a restart costs, for jobs that give none")
      ->check(CLI::Range(0.0, 1e9));
  cmd->add_option("--locality", f->request.locality, "soft or hard, for jobs that give none");
  cmd->add_option("--min-run", f->request.options.min_run_s,
                  "seconds a job runs before it may be preempted (default 7200)")
      ->check(CLI::Range(0.0, 1e9));
  cmd->add_option("--locality-wait", f->request.options.locality_wait_s,
                  "seconds a soft-locality job waits for a packed placement (default 300)")
      ->check(CLI::Range(0.0, 1e9));
  cmd->add_option("--backfill-depth", f->request.options.backfill_depth, "jobs a backfill pass tries (default 500)")
      ->check(CLI::Range(0, 1000000));
  cmd->add_option("--series-interval", f->request.options.series_interval_s,
                  "seconds between series samples (default 3600)")
      ->check(CLI::Range(1.0, 1e9));
  cmd->add_flag("--quiet", f->quiet, "no progress line on the terminal");
}

}  // namespace

Command AddClusterCommand(CLI::App& root) {
  auto* cmd = root.add_subcommand("cluster", "replay a job trace on a shared GPU cluster under scheduling policies");
  auto f = std::make_shared<ClusterFlags>();
  AddClusterInputFlags(cmd, *f);
  AddClusterReplayFlags(cmd, *f);
  cmd->footer(
      "Exit status 0 when it ran, 2 on bad input. docs/cluster.md describes the policies and metrics, "
      "docs/cluster-traces.md the trace formats.");
  return {cmd, [cmd, f] {
            PrepareOutputs(*cmd,
                           {{"--series", &f->series_out}, {"--trace-out", &f->trace_out}, {"--jobs-out", &f->jobs_out}},
                           {f->request.trace, f->request.cluster_file, f->request.slurm_conf, f->request.slurm_qos,
                            f->request.kueue_config});
            ClusterRequest r = f->request;
            if (cmd->count("--nodes")) r.nodes = f->nodes;
            r.options.record_placements = !f->trace_out.empty();
            TerminalProgress progress(f->quiet);
            r.progress = progress.get();
            const ClusterReplay replay = RunCluster(r);
            const ClusterRun& run = replay.run;
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
