// The Alibaba GPU cluster trace v2023 (alibaba/clusterdata, cluster-trace-gpu-v2023/csv/
// openb_pod_list_*.csv; Weng et al., "Beware of Fragmentation: Scheduling GPU-Sharing Workloads
// with Fragmentation Gradient Descent", USENIX ATC'23): one row per pod, columns
// name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,
// scheduled_time (times in seconds from the trace's start; the trace's README.md describes them).
// docs/cluster-traces.md gives the mapping.
#include <algorithm>
#include <deque>

#include <fmt/format.h>

#include "scheduling/job_history_reader.h"
#include "scheduling/job_rows.h"
#include "util/error.h"
#include "util/text.h"

namespace paratune {
namespace {

// The one list of the columns (their order in the file is free).
enum AlibabaColumn {
  kName,
  kCpuMilli,
  kMemoryMib,
  kNumGpu,
  kGpuMilli,
  kGpuSpec,
  kQos,
  kPodPhase,
  kCreationTime,
  kDeletionTime,
  kScheduledTime,
  kAlibabaColumnCount
};
const std::vector<std::string_view> kAlibabaColumns = {"name",          "cpu_milli",     "memory_mib",    "num_gpu",
                                                       "gpu_milli",     "gpu_spec",      "qos",           "pod_phase",
                                                       "creation_time", "deletion_time", "scheduled_time"};

// qos -> class: LS (latency-sensitive) and Guaranteed pods are production, BE (best-effort) and
// Burstable pods experimental. The trace README names the column after Kubernetes' pod QoS
// classes, under which BestEffort pods are evicted first and Guaranteed ones last
// (kubernetes.io, "Pod Quality of Service Classes"); the split into two classes is paratune's
// reading (docs/cluster-traces.md). The one list of the names.
struct QosClass {
  const char* qos;
  JobClass job_class;
};
constexpr QosClass kQosClasses[] = {{"LS", JobClass::kProduction},
                                    {"Guaranteed", JobClass::kProduction},
                                    {"BE", JobClass::kExperimental},
                                    {"Burstable", JobClass::kExperimental}};

// pod_phase: the pods that ran (Running at the trace's end, Succeeded, Failed) and the one that
// never did (Pending).
constexpr const char* kRanPhases[] = {"Running", "Succeeded", "Failed"};

// Throws when the pod list has no times (a snapshot's workload) or lacks a column a trace needs.
void RequireAlibabaColumns(const std::vector<int>& col, const std::string& where, int header_line) {
  if (col[kCreationTime] < 0 && col[kDeletionTime] < 0 && col[kScheduledTime] < 0)
    throw InputError(fmt::format(
        "{}:{}: this Alibaba v2023 pod list has no times (creation_time, scheduled_time, deletion_time): it is a "
        "workload for a fragmentation snapshot (like openb_pod_list_multigpu50.csv), not a trace to replay",
        where, header_line));
  for (size_t c = 0; c < kAlibabaColumns.size(); ++c)
    if (col[c] < 0 && c != kCpuMilli && c != kMemoryMib)
      throw InputError(fmt::format("{}:{}: missing column '{}' (an Alibaba v2023 pod list has {})", where, header_line,
                                   kAlibabaColumns[c],
                                   "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,"
                                   "pod_phase,creation_time,deletion_time,scheduled_time"));
}

// Why a pod is not replayed: no GPUs (or num_gpu unreadable), or it never ran (pod_phase Pending
// or unknown, no scheduled or deletion time); empty for a pod that ran.
std::string NotRunReason(const job_rows::Integer& gpus, std::string_view phase, std::string_view scheduled_text,
                         std::string_view deletion_text) {
  if (!gpus.error.empty()) return gpus.error;
  if (gpus.value == 0) return "no GPUs: CPU-only pod";
  if (EqualsAsciiNoCase(phase, "Pending")) return "never ran: pod_phase Pending";
  if (std::none_of(std::begin(kRanPhases), std::end(kRanPhases),
                   [&](const char* p) { return EqualsAsciiNoCase(phase, p); }))
    return fmt::format("unknown pod_phase {} (expected Running, Succeeded, Failed or Pending)", Quote(phase));
  if (scheduled_text.empty()) return "never ran: no scheduled_time";
  if (deletion_text.empty()) return "never ran: no deletion_time";
  return "";
}

// The job of a pod that passed its checks, with the trace's defaults (gpu_spec empty or "nan":
// any GPU type).
Job PodJob(int line, std::string_view name, double submit_s, double run_s, JobClass job_class, std::string_view spec,
           const JobTraceDefaults& defaults) {
  Job job;
  job.line = line;
  job.name = name.empty() ? fmt::format("pod-{}", line) : std::string(name);
  job.submit_s = submit_s;
  job.run_s = run_s;
  job.job_class = job_class;
  job_rows::ApplyDefaults(job, defaults);
  if (!spec.empty() && !EqualsAsciiNoCase(spec, "nan")) job.gpu_type = std::string(spec);
  return job;
}

}  // namespace

JobTrace ReadAlibabaJobs(std::string_view text, const std::string& where, const JobTraceDefaults& defaults) {
  static_assert(kAlibabaColumnCount == 11);
  job_rows::RowReader rows(text, where, kAlibabaColumns, "Alibaba v2023");
  const std::vector<int>& col = rows.columns();
  const int header_line = rows.header_line();
  RequireAlibabaColumns(col, where, header_line);

  job_rows::JobTraceBuilder builder(where, JobTraceFormat::kAlibabaV2023, defaults);
  builder.Reserve(text.size() / 64);
  while (rows.Next()) {
    const int line = rows.line();
    const std::vector<std::string_view>& fields = rows.fields();
    const auto skip = [&](std::string reason) { builder.Skip(line, std::move(reason)); };

    const job_rows::Integer gpus = job_rows::IntegerField(fields[col[kNumGpu]], "num_gpu");
    const std::string_view scheduled_text = fields[col[kScheduledTime]];
    const std::string_view deletion_text = fields[col[kDeletionTime]];
    if (std::string reason = NotRunReason(gpus, fields[col[kPodPhase]], scheduled_text, deletion_text);
        !reason.empty()) {
      skip(std::move(reason));
      continue;
    }
    const job_rows::Integer milli = job_rows::IntegerField(fields[col[kGpuMilli]], "gpu_milli");
    const job_rows::Number created = job_rows::NumberField(fields[col[kCreationTime]], "creation_time");
    const job_rows::Number scheduled = job_rows::NumberField(scheduled_text, "scheduled_time");
    const job_rows::Number deleted = job_rows::NumberField(deletion_text, "deletion_time");
    const std::string* error = !milli.error.empty()       ? &milli.error
                               : !created.error.empty()   ? &created.error
                               : !scheduled.error.empty() ? &scheduled.error
                               : !deleted.error.empty()   ? &deleted.error
                                                          : nullptr;
    if (error) {
      skip(*error);
      continue;
    }
    // A GPU pod asks for 1..1000 thousandths of each GPU; below 1000 it shares one GPU, which
    // paratune does not model: the pod takes the whole GPU.
    if (milli.value < 1 || milli.value > 1000) {
      skip(fmt::format("gpu_milli {} is outside 1..1000", milli.value));
      continue;
    }
    const std::string_view qos = fields[col[kQos]];
    const QosClass* qc = std::find_if(std::begin(kQosClasses), std::end(kQosClasses),
                                      [&](const QosClass& q) { return EqualsAsciiNoCase(qos, q.qos); });
    if (qc == std::end(kQosClasses)) {
      skip(fmt::format("unknown qos {} (expected LS, Guaranteed, BE or Burstable)", Quote(qos)));
      continue;
    }
    if (scheduled.value < created.value) {
      skip(fmt::format("scheduled_time {} is before creation_time {}", scheduled.value, created.value));
      continue;
    }
    Job job = PodJob(line, fields[col[kName]], created.value, deleted.value - scheduled.value, qc->job_class,
                     fields[col[kGpuSpec]], defaults);
    job.measured_wait_s = scheduled.value - created.value;
    builder.Add(std::move(job), gpus.value);
  }
  return builder.Finish();
}

}  // namespace paratune
