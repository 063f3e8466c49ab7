// libFuzzer target: the job-trace readers of `paratune cluster` (Philly, Alibaba v2023, native,
// Slurm sacct) must throw InputError or succeed on any bytes, with the format detected and with
// each format forced, and what they return keeps the readers' promises (docs/cluster-traces.md).
// The same bytes as Kueue ClusterQueues (`--kueue-config`) are read or refused with InputError; a
// read queue has a name and quotas that are not negative, its kept part within its quota.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string_view>

#include "scheduling/job_history_reader.h"
#include "scheduling/kueue_config.h"
#include "util/error.h"

namespace {

void Check(const paratune::JobTrace& t, const paratune::JobTraceDefaults& d) {
  int last_line = 0;
  for (size_t i = 0; i < t.jobs.size(); ++i) {
    const paratune::Job& j = t.jobs[i];
    if (j.id != static_cast<int64_t>(i) || j.line <= last_line) std::abort();  // ids 0..n-1, lines ascending
    last_line = j.line;
    if (j.gpus < 1 || (d.max_gpus > 0 && j.gpus > d.max_gpus)) std::abort();
    if (!(j.submit_s >= 0 && j.submit_s <= paratune::kMaxJobTraceSeconds)) std::abort();
    if (!(j.run_s > 0 && j.run_s <= paratune::kMaxJobTraceSeconds)) std::abort();
    if (!(j.checkpoint_interval_s >= 0 && j.checkpoint_interval_s <= paratune::kMaxJobTraceSeconds)) std::abort();
    if (!(j.restart_overhead_s >= 0 && j.restart_overhead_s <= paratune::kMaxJobTraceSeconds)) std::abort();
    if (j.tp < 0 || j.pp < 0) std::abort();
  }
  int last_skipped = 0;
  for (const paratune::SkippedRow& s : t.skipped) {
    if (s.line < last_skipped || s.line < 1 || s.reason.empty()) std::abort();
    for (char c : s.reason)
      if (static_cast<unsigned char>(c) < 0x20) std::abort();  // one printable line
    last_skipped = s.line;
  }
  if (t.jobs.size() + t.skipped.size() > paratune::kMaxTraceJobs) std::abort();
}

void CheckKueueConfig(std::string_view text) {
  try {
    const paratune::KueueConfig c = paratune::ParseKueueConfig(text, "fuzz.json");
    for (const paratune::KueueClusterQueue& q : c.queues)
      if (q.name.empty() || q.nominal_gpus < 0 || q.borrowing_limit_gpus < 0 || q.lending_limit_gpus < 0 ||
          q.guaranteed_gpus() < 0 || q.guaranteed_gpus() > q.nominal_gpus)
        std::abort();
  } catch (const paratune::InputError&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)paratune::DetectJobTraceFormat(text.substr(0, text.find('\n')));
  paratune::JobTraceDefaults d;
  d.max_gpus = 64;
  d.production_vcs = {"6214e9"};
  const std::optional<paratune::JobTraceFormat> formats[] = {std::nullopt,
                                                             paratune::JobTraceFormat::kPhilly,
                                                             paratune::JobTraceFormat::kAlibabaV2023,
                                                             paratune::JobTraceFormat::kNative,
                                                             paratune::JobTraceFormat::kSlurmSacct,
                                                             paratune::JobTraceFormat::kKubernetes};
  for (const auto& f : formats) {
    try {
      Check(paratune::ReadJobTrace(text, "fuzz.csv", f, d), d);
    } catch (const paratune::InputError&) {
    }
  }
  CheckKueueConfig(text);
  return 0;
}
