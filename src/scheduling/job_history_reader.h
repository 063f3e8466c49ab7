// The job-trace readers of `paratune cluster`: the Philly-derived trace of Pollux's artifact
// (philly.csv), the Alibaba GPU cluster trace v2023 (openb_pod_list_*.csv), Slurm's accounting
// history (`sacct --parsable2`), Kubernetes' (`kubectl get workloads|pods -A -o json`) and paratune's native CSV,
// each in its own file, the format detected from the header (a JSON document's first line: '{').
// docs/cluster-traces.md gives the columns and the mapping. A row whose values cannot be a job (negative time, zero
// GPUs, more GPUs than the cluster, a field that is not a number) is skipped and reported with its line; a file whose
// header is not one of the formats, or has an unknown column, is rejected (InputError, one line naming the file and
// line).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "scheduling/job.h"
#include "util/enum_names.h"

namespace paratune {

enum class JobTraceFormat { kPhilly, kAlibabaV2023, kNative, kSlurmSacct, kKubernetes };
inline constexpr EnumNames<JobTraceFormat, 5> kJobTraceFormatNames{{{{JobTraceFormat::kPhilly, "philly"},
                                                                     {JobTraceFormat::kAlibabaV2023, "alibaba-v2023"},
                                                                     {JobTraceFormat::kNative, "native"},
                                                                     {JobTraceFormat::kSlurmSacct, "slurm-sacct"},
                                                                     {JobTraceFormat::kKubernetes, "kubernetes"}}},
                                                                   5};
inline const char* JobTraceFormatName(JobTraceFormat f) { return kJobTraceFormatNames.Name(f); }

// What the trace does not say, applied to every job that does not say it.
struct JobTraceDefaults {
  // Neither public trace records checkpoints or restarts; the defaults are the worked case of
  // J. T. Daly, "A higher order estimate of the optimum checkpoint interval for restart dumps",
  // FGCS 22(3), 2006, Fig. 4: mean time to interrupt M = 6 h, checkpoint write delta = 5 min,
  // restart R = 10 min. Young's first-order optimum sqrt(2 delta M) (J. W. Young, CACM 17(9),
  // 1974) is then sqrt(2 x 300 x 21600) = 3600 s (Daly's higher order: 57 min). M of hours is
  // what large training jobs see (Llama 3: 466 interruptions in 54 days on 16K GPUs, one per
  // 2.8 h; Dubey et al. 2024, section 3.3.4). docs/cluster-traces.md, "Defaults".
  double checkpoint_interval_s = 3600;
  double restart_overhead_s = 600;
  Locality locality = Locality::kSoft;
  std::string model;                        // --model: a catalog model for jobs that name none
  std::vector<std::string> production_vcs;  // Philly: virtual clusters whose jobs are production
  int max_gpus = 0;                         // the cluster's GPUs: a job asking for more is skipped; 0: no check
};

// The format from the first line (the header); nullopt when it is none of them.
std::optional<JobTraceFormat> DetectJobTraceFormat(std::string_view header_line);

// Reads a whole trace. `format` empty: detected. Throws InputError when the header is not a
// trace's, a column is unknown or duplicated, or the file has more than kMaxTraceJobs rows.
JobTrace ReadJobTrace(std::string_view text, const std::string& where, std::optional<JobTraceFormat> format,
                      const JobTraceDefaults& defaults);

// One reader per format (job_history_reader.cc dispatches to them).
JobTrace ReadPhillyJobs(std::string_view text, const std::string& where, const JobTraceDefaults& defaults);
JobTrace ReadAlibabaJobs(std::string_view text, const std::string& where, const JobTraceDefaults& defaults);
JobTrace ReadNativeJobs(std::string_view text, const std::string& where, const JobTraceDefaults& defaults);
// Slurm's `sacct --parsable2` history (slurm_jobs.cc).
JobTrace ReadSlurmJobs(std::string_view text, const std::string& where, const JobTraceDefaults& defaults);
// Kueue Workloads or Pods as `kubectl get ... -A -o json` writes them (kubernetes_jobs.cc).
JobTrace ReadKubernetesJobs(std::string_view text, const std::string& where, const JobTraceDefaults& defaults);

inline constexpr size_t kMaxTraceJobs = 10'000'000;
// A submit time, run time, checkpoint interval or restart overhead beyond this (about 317 years)
// skips the row: it keeps every sum of times in the replay finite and exact to the second.
inline constexpr double kMaxJobTraceSeconds = 1e10;
// A job asking for more GPUs than any cluster can hold (kMaxClusterNodes x kMaxGpusPerNode of
// scheduling/topology.h) is skipped even when no max_gpus is given, so that Job::gpus never overflows.
inline constexpr int64_t kMaxJobGpus = int64_t{1} << 27;

}  // namespace paratune
