// paratune's own job-trace CSV (docs/cluster-traces.md, "Native CSV"): submit_s, gpus and run_s
// or gpu_hours, with optional columns for what the Job carries (class, checkpointing, locality,
// GPU type, model and layout). Column order is free; an unknown or duplicated column rejects the
// file.
#include <deque>

#include <fmt/format.h>

#include "scheduling/job_history_reader.h"
#include "scheduling/job_rows.h"
#include "util/error.h"
#include "util/text.h"

namespace paratune {
namespace {

// The one list of the columns.
enum NativeColumn {
  kSubmit,
  kGpus,
  kRun,
  kGpuHours,
  kJobName,
  kClass,
  kCheckpointInterval,
  kRestartOverhead,
  kLocality,
  kGpuType,
  kJobModel,
  kTp,
  kPp,
  kNativeColumnCount
};
const std::vector<std::string_view> kNativeColumns = {
    "submit_s",           "gpus",     "run_s",    "gpu_hours", "name", "class", "checkpoint_interval_s",
    "restart_overhead_s", "locality", "gpu_type", "model",     "tp",   "pp"};

// The most a layout dimension may be (far beyond any GPU count a job has), so that tp x pp fits.
constexpr int64_t kMaxLayoutDim = int64_t{1} << 27;

// Throws when the header lacks submit_s or gpus, or has not exactly one of run_s and gpu_hours.
void RequireNativeColumns(const std::vector<int>& col, const std::string& where, int header_line) {
  for (int c : {kSubmit, kGpus})
    if (col[c] < 0)
      throw InputError(
          fmt::format("{}:{}: missing column '{}' (a native trace needs submit_s, gpus and run_s or gpu_hours)", where,
                      header_line, kNativeColumns[c]));
  if ((col[kRun] < 0) == (col[kGpuHours] < 0))
    throw InputError(fmt::format("{}:{}: a native trace has exactly one of the columns run_s and gpu_hours ({})", where,
                                 header_line, col[kRun] < 0 ? "it has neither" : "it has both"));
}

// Sets the job's class and locality from their cells (empty: the class stays, the locality is the
// default); the error, else empty.
std::string ParseClassAndLocality(Job& job, std::string_view job_class, std::string_view locality,
                                  const JobTraceDefaults& defaults) {
  try {
    if (!job_class.empty()) job.job_class = kJobClassNames.Parse(job_class, "field 'class'", "class");
    job.locality =
        locality.empty() ? defaults.locality : kLocalityNames.Parse(locality, "field 'locality'", "locality");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// Sets the job's run time (run_s when the trace has that column, else gpu_hours spread over its
// GPUs) and layout; the reason to skip the row when they cannot be a job's, else empty.
std::string SetRunAndLayout(Job& job, bool has_run_s, int64_t gpus, double run_s, double gpu_hours, int64_t tp,
                            int64_t pp) {
  if (has_run_s) {
    job.run_s = run_s;
  } else if (!(gpu_hours > 0)) {
    return fmt::format("gpu_hours {} is not positive", gpu_hours);
  } else if (gpus > 0) {
    job.run_s = gpu_hours * 3600.0 / static_cast<double>(gpus);  // the work spread over the job's GPUs
  }
  if (tp < 0 || pp < 0 || tp > kMaxLayoutDim || pp > kMaxLayoutDim)
    return fmt::format("tp {} or pp {} is outside 0..{}", tp, pp, kMaxLayoutDim);
  const int64_t group = std::max<int64_t>(tp, 1) * std::max<int64_t>(pp, 1);
  if (gpus > 0 && gpus % group != 0) return fmt::format("tp x pp = {} does not divide gpus {}", group, gpus);
  job.tp = static_cast<int>(tp);
  job.pp = static_cast<int>(pp);
  return "";
}

}  // namespace

JobTrace ReadNativeJobs(std::string_view text, const std::string& where, const JobTraceDefaults& defaults) {
  static_assert(kNativeColumnCount == 13);
  job_rows::RowReader rows(text, where, kNativeColumns, "native");
  const std::vector<int>& col = rows.columns();
  const int header_line = rows.header_line();
  RequireNativeColumns(col, where, header_line);

  job_rows::JobTraceBuilder builder(where, JobTraceFormat::kNative, defaults);
  builder.Reserve(text.size() / 32);
  while (rows.Next()) {
    const int line = rows.line();
    const std::vector<std::string_view>& fields = rows.fields();
    const auto cell = [&](int c) { return col[c] < 0 ? std::string_view() : fields[col[c]]; };
    std::string error;
    // A number column: the trace's value, or `fallback` when the cell is empty or absent.
    const auto number = [&](int c, double fallback) {
      if (!error.empty() || cell(c).empty()) return fallback;
      const job_rows::Number n = job_rows::NumberField(cell(c), kNativeColumns[c].data());
      error = n.error;
      return n.value;
    };
    const auto integer = [&](int c, int64_t fallback) {
      if (!error.empty() || cell(c).empty()) return fallback;
      const job_rows::Integer n = job_rows::IntegerField(cell(c), kNativeColumns[c].data());
      error = n.error;
      return n.value;
    };
    for (int c : {kSubmit, kGpus, kRun, kGpuHours})
      if (col[c] >= 0 && cell(c).empty() && error.empty())
        error = fmt::format("field '{}' is empty", kNativeColumns[c]);
    Job job;
    job.line = line;
    job.submit_s = number(kSubmit, 0);
    const int64_t gpus = integer(kGpus, 0);
    const double run_s = number(kRun, 0);
    const double gpu_hours = number(kGpuHours, 0);
    job.checkpoint_interval_s = number(kCheckpointInterval, defaults.checkpoint_interval_s);
    job.restart_overhead_s = number(kRestartOverhead, defaults.restart_overhead_s);
    const int64_t tp = integer(kTp, 0);
    const int64_t pp = integer(kPp, 0);
    if (error.empty()) error = ParseClassAndLocality(job, cell(kClass), cell(kLocality), defaults);
    if (!error.empty()) {
      builder.Skip(line, std::move(error));
      continue;
    }
    if (std::string reason = SetRunAndLayout(job, col[kRun] >= 0, gpus, run_s, gpu_hours, tp, pp); !reason.empty()) {
      builder.Skip(line, std::move(reason));
      continue;
    }
    const std::string_view name = cell(kJobName);
    job.name = name.empty() ? fmt::format("job-{}", line) : std::string(name);
    job.gpu_type = std::string(cell(kGpuType));
    job.model = cell(kJobModel).empty() ? defaults.model : std::string(cell(kJobModel));
    builder.Add(std::move(job), gpus);
  }
  return builder.Finish();
}

}  // namespace paratune
