// Slurm's accounting history: `sacct --parsable2` output (one '|'-separated line per job and job
// step, a header of the field names; `man sacct`, --parsable2 and --format), for example
//   sacct -a -X -P -S 2026-01-01 -E now -o JobID,JobName,User,Account,Partition,QOS,Priority,
//         Submit,Eligible,Start,End,Elapsed,State,AllocTRES,ReqTRES,NodeList,NNodes,Timelimit
// Job steps (JobID "123.batch", "123.0") fold into their job: the job's own row carries its
// allocation. Array tasks ("123_4") are jobs of their own. Rows of runs that were requeued
// (sacct -D) are skipped: the job's last row is the run the replay schedules. GPUs are the
// gres/gpu count of AllocTRES (else ReqTRES). Times are Slurm's "YYYY-MM-DDTHH:MM:SS" (no zone:
// read as if UTC, so differences are right), rebased so the earliest submission is 0.
// docs/cluster-traces.md, "Slurm".
#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "scheduling/job_history_reader.h"
#include "scheduling/job_rows.h"
#include "scheduling/slurm_conf.h"
#include "util/error.h"
#include "util/text.h"
#include "util/timestamp.h"

namespace paratune {
namespace {

// The one list of the fields read; other sacct fields in the header are ignored.
enum SacctField {
  kSacctJobId,
  kSacctJobName,
  kSacctPartition,
  kSacctQos,
  kSacctPriority,
  kSacctSubmit,
  kSacctEligible,
  kSacctStart,
  kSacctEnd,
  kSacctElapsed,
  kSacctState,
  kSacctAllocTres,
  kSacctReqTres,
  kSacctTimelimit,
  kSacctFieldCount
};
constexpr const char* kSacctFields[] = {"JobID", "JobName", "Partition", "QOS",   "Priority",  "Submit",  "Eligible",
                                        "Start", "End",     "Elapsed",   "State", "AllocTRES", "ReqTRES", "Timelimit"};

static_assert(std::size(kSacctFields) == kSacctFieldCount);

void SplitBars(std::string_view line, std::vector<std::string_view>* out) {
  out->clear();
  for (size_t from = 0;;) {
    const size_t bar = line.find('|', from);
    out->push_back(line.substr(from, bar == std::string_view::npos ? std::string_view::npos : bar - from));
    if (bar == std::string_view::npos) break;
    from = bar + 1;
  }
}

// The header's field index of each field read (-1: absent); throws without the ones a replay needs.
std::vector<int> SacctColumns(const std::vector<std::string_view>& header, const std::string& where, int line) {
  std::vector<int> col(kSacctFieldCount, -1);
  for (size_t i = 0; i < header.size(); ++i)
    for (int f = 0; f < kSacctFieldCount; ++f)
      if (header[i] == kSacctFields[f]) {
        if (col[f] >= 0) throw InputError(fmt::format("{}:{}: duplicated field '{}'", where, line, kSacctFields[f]));
        col[f] = static_cast<int>(i);
      }
  const bool ok = col[kSacctJobId] >= 0 && col[kSacctSubmit] >= 0 && col[kSacctStart] >= 0 && col[kSacctState] >= 0 &&
                  (col[kSacctEnd] >= 0 || col[kSacctElapsed] >= 0) &&
                  (col[kSacctAllocTres] >= 0 || col[kSacctReqTres] >= 0);
  if (!ok)
    throw InputError(fmt::format(
        "{}:{}: a Slurm history needs the fields JobID, Submit, Start, End (or Elapsed), State and AllocTRES (or "
        "ReqTRES): sacct -P -o JobID,JobName,Partition,QOS,Submit,Start,End,Elapsed,State,AllocTRES,ReqTRES",
        where, line));
  return col;
}

// The GPUs of a TRES list ("cpu=64,gres/gpu=8,mem=500G,node=1"): the gres/gpu count, else the sum
// of the typed counts (gres/gpu:h100=8); 0 without GPUs; -1 when a count is not a number.
int64_t TresGpus(std::string_view tres) {
  int64_t any = -2, typed = 0;
  for (size_t from = 0; from <= tres.size();) {
    const size_t comma = std::min(tres.find(',', from), tres.size());
    const std::string_view item = tres.substr(from, comma - from);
    from = comma + 1;
    if (item.rfind("gres/gpu", 0) != 0) continue;
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos) return -1;
    const std::string_view key = item.substr(0, eq), value = item.substr(eq + 1);
    int64_t n = 0;
    if (ParseInteger(value, &n) != NumberParse::kOk || n < 0) return -1;
    if (key == "gres/gpu")
      any = n;
    else if (key.rfind("gres/gpu:", 0) == 0)
      typed += n;
  }
  return any >= 0 ? any : typed;
}

// A row's job, or why it is not one (then `reason` is set).
struct SacctRow {
  Job job;
  int64_t gpus = 0;
  double submit = 0;
  std::string reason;
};

// A row that is not a job, with why.
SacctRow Skipped(std::string reason) {
  SacctRow r;
  r.reason = std::move(reason);
  return r;
}

SacctRow ReadRow(const std::vector<std::string_view>& f, const std::vector<int>& col, int line,
                 const JobTraceDefaults& defaults) {
  SacctRow r;
  const auto field = [&](SacctField k) { return col[k] >= 0 ? f[col[k]] : std::string_view(); };
  const std::string_view state = field(kSacctState).substr(0, field(kSacctState).find(' '));
  if (state == "REQUEUED") return Skipped("an earlier run, requeued: the job's later row is its run");
  const std::optional<double> submit = ParseTimestamp(field(kSacctSubmit)), start = ParseTimestamp(field(kSacctStart));
  if (!submit) return Skipped(fmt::format("Submit {} is not a time", Quote(field(kSacctSubmit))));
  if (!start) return Skipped(fmt::format("never ran: State {}, Start {}", Quote(state), Quote(field(kSacctStart))));
  double run_s = NAN;
  if (const std::optional<double> end = ParseTimestamp(field(kSacctEnd)))
    run_s = *end - *start;
  else if (state == "RUNNING")
    return Skipped("still running: no End");
  else
    run_s = SlurmTimeSeconds(field(kSacctElapsed));
  if (!std::isfinite(run_s)) return Skipped("neither End nor Elapsed is a time");
  int64_t gpus = TresGpus(field(kSacctAllocTres));
  if (gpus <= 0 && col[kSacctReqTres] >= 0) gpus = std::max(gpus, TresGpus(field(kSacctReqTres)));
  if (gpus < 0) return Skipped("a gres/gpu count of its TRES is not a whole number");
  if (gpus == 0) return Skipped("no GPUs: no gres/gpu in its TRES");
  int64_t priority = 0;
  if (!field(kSacctPriority).empty() && ParseInteger(field(kSacctPriority), &priority) != NumberParse::kOk)
    return Skipped(fmt::format("Priority {} is not a whole number", Quote(field(kSacctPriority))));
  r.job.priority = static_cast<double>(priority);
  r.job.line = line;
  r.job.name = std::string(field(kSacctJobId));
  r.job.run_s = run_s;
  job_rows::ApplyDefaults(r.job, defaults);
  r.job.queue = std::string(field(kSacctPartition));
  r.job.qos = std::string(field(kSacctQos));
  // Timelimit: what Slurm's backfill reservations assume; "UNLIMITED" or "Partition_Limit" leave
  // the partition's MaxTime (a slurm.conf) or the run time.
  if (const double limit = SlurmTimeSeconds(field(kSacctTimelimit)); std::isfinite(limit) && limit > 0)
    r.job.time_limit_s = limit;
  // Slurm's queueing delay: from when the job could start (Eligible: after its dependencies and
  // --begin time) to its start; the replay submits the job then.
  const std::optional<double> eligible = ParseTimestamp(field(kSacctEligible));
  const double queued = eligible ? std::max(*submit, *eligible) : *submit;
  r.job.measured_wait_s = *start - queued;
  r.gpus = gpus;
  r.submit = queued;
  return r;
}

}  // namespace

JobTrace ReadSlurmJobs(std::string_view text, const std::string& where, const JobTraceDefaults& defaults) {
  job_rows::LineScanner lines(text, where);
  int line = 0;
  std::string_view s;
  if (!lines.Next(&line, &s)) throw InputError(where + ": empty history (no header line)");
  std::vector<std::string_view> f;
  SplitBars(s, &f);
  if (!f.empty() && f.back().empty()) f.pop_back();  // --parsable ends each line with '|'
  const size_t width = f.size();
  const std::vector<int> col = SacctColumns(f, where, line);
  job_rows::JobTraceBuilder builder(where, JobTraceFormat::kSlurmSacct, defaults);
  std::vector<SacctRow> rows;
  double first_submit = std::numeric_limits<double>::infinity();
  while (lines.Next(&line, &s)) {
    SplitBars(s, &f);
    if (f.size() == width + 1 && f.back().empty()) f.pop_back();
    if (f.size() != width)
      throw InputError(fmt::format("{}:{}: expected {} fields, found {}", where, line, width, f.size()));
    if (f[col[kSacctJobId]].find('.') != std::string_view::npos) continue;  // a step: folded into its job's row
    SacctRow r = ReadRow(f, col, line, defaults);
    if (!r.reason.empty()) {
      builder.Skip(line, fmt::format("job {}: {}", Quote(f[col[kSacctJobId]]), r.reason));
      continue;
    }
    first_submit = std::min(first_submit, r.submit);
    rows.push_back(std::move(r));
  }
  for (SacctRow& r : rows) {
    r.job.submit_s = r.submit - first_submit;
    builder.Add(std::move(r.job), r.gpus);
  }
  return builder.Finish();
}

}  // namespace paratune
