// The Philly-derived trace of Pollux's artifact (petuum/adaptdl, branch osdi21-artifact,
// simulator/traces/philly.csv): one row per job of Microsoft's Philly traces (Jeon et al.,
// "Analysis of Large-Scale Multi-Tenant GPU Clusters for DNN Training Workloads", USENIX ATC'19),
// columns timestamp,duration,num_gpus,gpu_time,cluster. docs/cluster-traces.md gives the mapping.
#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>

#include <fmt/format.h>

#include "scheduling/job_history_reader.h"
#include "scheduling/job_rows.h"
#include "util/error.h"
#include "util/text.h"
#include "util/timestamp.h"

namespace paratune {
namespace {

// The one list of the columns (their order in the file is free).
enum PhillyColumn { kTimestamp, kDuration, kNumGpus, kGpuTime, kCluster, kPhillyColumnCount };
const std::vector<std::string_view> kPhillyColumns = {"timestamp", "duration", "num_gpus", "gpu_time", "cluster"};

// gpu_time is duration x num_gpus as the trace's script printed it: allowed to differ by half a
// second per GPU (duration rounded to the second) plus a relative 1e-9 (float printing).
bool GpuTimeAgrees(double duration_s, int64_t gpus, double gpu_time) {
  const double expected = duration_s * static_cast<double>(gpus);
  return std::fabs(expected - gpu_time) <= 0.5 * static_cast<double>(gpus) + 1e-9 * std::fabs(gpu_time);
}

// Throws when a column is missing from the header.
void RequirePhillyColumns(const std::vector<int>& col, const std::string& where, int header_line) {
  for (size_t c = 0; c < kPhillyColumns.size(); ++c)
    if (col[c] < 0)
      throw InputError(
          fmt::format("{}:{}: missing column '{}' (a Philly trace has timestamp,duration,num_gpus,gpu_time,cluster)",
                      where, header_line, kPhillyColumns[c]));
}

// The job of a row that passed its checks: submitted at submit_s (epoch seconds), running run_s,
// in virtual cluster `vc`, with the trace's defaults.
Job PhillyJob(int line, double submit_s, double run_s, std::string_view vc, const JobTraceDefaults& defaults) {
  Job job;
  job.line = line;
  job.name = "philly-" + std::to_string(line);
  job.submit_s = submit_s;
  job.run_s = run_s;
  job.job_class =
      std::find(defaults.production_vcs.begin(), defaults.production_vcs.end(), vc) != defaults.production_vcs.end()
          ? JobClass::kProduction
          : JobClass::kExperimental;
  job_rows::ApplyDefaults(job, defaults);
  return job;
}

}  // namespace

JobTrace ReadPhillyJobs(std::string_view text, const std::string& where, const JobTraceDefaults& defaults) {
  static_assert(kPhillyColumnCount == 5);
  job_rows::RowReader rows(text, where, kPhillyColumns, "Philly");
  const std::vector<int>& col = rows.columns();
  const int header_line = rows.header_line();
  RequirePhillyColumns(col, where, header_line);

  // First pass: each row's own checks; submit times are epoch seconds until the earliest is known.
  struct Pending {
    Job job;
    int64_t gpus;
  };
  std::vector<Pending> pending;
  job_rows::JobTraceBuilder builder(where, JobTraceFormat::kPhilly, defaults);
  // A row of the published file is about 40 bytes.
  const size_t expected_rows = std::min<size_t>(text.size() / 32, size_t{1} << 20);
  pending.reserve(expected_rows);
  builder.Reserve(expected_rows);
  double earliest = std::numeric_limits<double>::infinity();
  while (rows.Next()) {
    const int line = rows.line();
    const std::vector<std::string_view>& fields = rows.fields();
    const std::string_view ts_text = fields[col[kTimestamp]];
    const std::optional<double> ts = ParseTimestamp(ts_text);
    if (!ts) {
      builder.Skip(line, fmt::format("field 'timestamp' is not a time (YYYY-MM-DD HH:MM:SS): {}", Quote(ts_text)));
      continue;
    }
    earliest = std::min(earliest, *ts);
    const job_rows::Number duration = job_rows::NumberField(fields[col[kDuration]], "duration");
    const job_rows::Integer gpus = job_rows::IntegerField(fields[col[kNumGpus]], "num_gpus");
    const job_rows::Number gpu_time = job_rows::NumberField(fields[col[kGpuTime]], "gpu_time");
    const std::string* error = !duration.error.empty()   ? &duration.error
                               : !gpus.error.empty()     ? &gpus.error
                               : !gpu_time.error.empty() ? &gpu_time.error
                                                         : nullptr;
    if (error) {
      builder.Skip(line, *error);
      continue;
    }
    if (gpus.value > 0 && std::isfinite(duration.value) && std::isfinite(gpu_time.value) &&
        !GpuTimeAgrees(duration.value, gpus.value, gpu_time.value)) {
      builder.Skip(line, fmt::format("gpu_time {} is not duration x num_gpus ({} x {})", gpu_time.value, duration.value,
                                     gpus.value));
      continue;
    }
    pending.push_back(Pending{PhillyJob(line, *ts, duration.value, fields[col[kCluster]], defaults), gpus.value});
  }
  // Second pass: times from the earliest timestamp of the file (skipped rows included, so that a
  // job's submit time does not depend on which rows the cluster's size skips).
  for (Pending& p : pending) {
    p.job.submit_s -= earliest;
    builder.Add(std::move(p.job), p.gpus);
  }
  return builder.Finish();
}

}  // namespace paratune
