// The Slurm history reader (slurm_jobs.cc) on `sacct --parsable2` output in the documented form
// (man sacct: --parsable2 separates fields with '|' and prints none at the end of a line;
// SLURM_TIME_FORMAT's default "standard" prints YYYY-MM-DDTHH:MM:SS; Elapsed is [DD-]HH:MM:SS;
// AllocTRES lists billing,cpu,gres/gpu,mem,node): steps fold into their job, array tasks are
// jobs, requeued runs, pending, running and CPU-only jobs are skipped with their reason.
#include "scheduling/job_history_reader.h"

#include <gtest/gtest.h>

#include <cmath>

#include "util/test_util.h"

namespace paratune {
namespace {

constexpr const char* kHeader =
    "JobID|JobName|User|Account|Partition|QOS|Priority|Submit|Eligible|Start|End|Elapsed|State|AllocTRES|ReqTRES|"
    "NodeList|NNodes\n";

std::string Row(const std::string& id, const std::string& submit, const std::string& start, const std::string& end,
                const std::string& elapsed, const std::string& state, const std::string& alloc,
                const std::string& req = "billing=8,cpu=8,gres/gpu=8,mem=64G,node=1") {
  return id + "|train|ana|ml|gpu|normal|4294|" + submit + "|" + submit + "|" + start + "|" + end + "|" + elapsed + "|" +
         state + "|" + alloc + "|" + req + "|node[01-02]|2\n";
}

TEST(SlurmJobs, JobsStepsArraysAndSkippedRows) {
  std::string h = kHeader;
  h += Row("1001", "2026-03-01T10:00:00", "2026-03-01T10:05:00", "2026-03-01T12:05:00", "02:00:00", "COMPLETED",
           "billing=128,cpu=128,gres/gpu=16,mem=1000G,node=2");
  h += Row("1001.batch", "2026-03-01T10:05:00", "2026-03-01T10:05:00", "2026-03-01T12:05:00", "02:00:00", "COMPLETED",
           "cpu=64,gres/gpu=8,mem=500G,node=1");
  h += Row("1001.0", "2026-03-01T10:05:01", "2026-03-01T10:05:01", "2026-03-01T12:05:00", "01:59:59", "COMPLETED",
           "cpu=128,gres/gpu=16,mem=1000G,node=2");
  h += Row("1002_3", "2026-03-01T09:00:00", "2026-03-01T09:00:30", "Unknown", "1-00:00:10", "TIMEOUT",
           "cpu=8,gres/gpu:h100=4,gres/gpu:a100=2,mem=64G,node=1");
  h += Row("1003", "2026-03-01T11:00:00", "2026-03-01T11:10:00", "2026-03-01T11:20:00", "00:10:00", "REQUEUED",
           "cpu=8,gres/gpu=8,node=1");
  h += Row("1004", "2026-03-01T11:00:00", "None", "Unknown", "00:00:00", "PENDING", "", "cpu=8,gres/gpu=8,node=1");
  h += Row("1005", "2026-03-01T11:00:00", "2026-03-01T11:00:05", "Unknown", "00:30:00", "RUNNING",
           "cpu=8,gres/gpu=8,node=1");
  h += Row("1006", "2026-03-01T11:00:00", "2026-03-01T11:00:05", "2026-03-01T11:30:05", "00:30:00", "COMPLETED",
           "billing=8,cpu=8,mem=64G,node=1", "cpu=8,mem=64G,node=1");
  h += Row("1007", "2026-03-01T11:30:00", "2026-03-01T11:31:00", "2026-03-01T11:41:00", "00:10:00", "CANCELLED by 1234",
           "", "cpu=8,gres/gpu=2,node=1");
  const JobTrace t = ReadJobTrace(h, "sacct.txt", std::nullopt, JobTraceDefaults{});
  EXPECT_EQ(t.format, "slurm-sacct");
  ASSERT_EQ(t.jobs.size(), 3u);
  // Submissions rebased on the earliest (the array task at 09:00).
  EXPECT_EQ(t.jobs[0].name, "1001");
  EXPECT_EQ(t.jobs[0].gpus, 16);
  EXPECT_DOUBLE_EQ(t.jobs[0].submit_s, 3600);
  EXPECT_DOUBLE_EQ(t.jobs[0].run_s, 7200);
  EXPECT_EQ(t.jobs[0].line, 2);
  EXPECT_DOUBLE_EQ(t.jobs[0].measured_wait_s, 300);  // Start 10:05 less Eligible 10:00
  EXPECT_DOUBLE_EQ(t.jobs[0].priority, 4294);        // the Priority field
  EXPECT_EQ(t.jobs[1].name, "1002_3");
  EXPECT_EQ(t.jobs[1].gpus, 6);              // typed gres summed
  EXPECT_DOUBLE_EQ(t.jobs[1].run_s, 86410);  // no End: Elapsed 1 day 10 s
  EXPECT_DOUBLE_EQ(t.jobs[1].submit_s, 0);
  EXPECT_EQ(t.jobs[2].name, "1007");
  EXPECT_EQ(t.jobs[2].gpus, 2);  // AllocTRES empty: ReqTRES
  EXPECT_DOUBLE_EQ(t.jobs[2].run_s, 600);
  ASSERT_EQ(t.skipped.size(), 4u);
  EXPECT_EQ(t.skipped[0].line, 6);
  EXPECT_EQ(t.skipped[0].reason, "job '1003': an earlier run, requeued: the job's later row is its run");
  EXPECT_EQ(t.skipped[1].reason, "job '1004': never ran: State 'PENDING', Start 'None'");
  EXPECT_EQ(t.skipped[2].reason, "job '1005': still running: no End");
  EXPECT_EQ(t.skipped[3].reason, "job '1006': no GPUs: no gres/gpu in its TRES");
}

TEST(SlurmJobs, DetectedByItsHeaderAndBrokenFilesAreOneLine) {
  EXPECT_EQ(DetectJobTraceFormat("JobID|JobName|Submit|Start|End|State|AllocTRES"), JobTraceFormat::kSlurmSacct);
  EXPECT_EQ(DetectJobTraceFormat("JobID|Start"), std::nullopt);
  const JobTraceDefaults d;
  // --parsable (a '|' at each line's end) reads as --parsable2 does.
  const JobTrace p = ReadJobTrace(
      "JobID|Submit|Start|End|State|AllocTRES|\n7|2026-03-01T10:00:00|2026-03-01T10:00:00|2026-03-01T10:01:00|"
      "COMPLETED|gres/gpu=1|\n",
      "p.txt", std::nullopt, d);
  ASSERT_EQ(p.jobs.size(), 1u);
  EXPECT_DOUBLE_EQ(p.jobs[0].run_s, 60);
  EXPECT_CONTAINS(InputErrorOf([&] { ReadJobTrace("JobID|Submit|State|AllocTRES\n", "s.txt", std::nullopt, d); }),
                  "s.txt:1: a Slurm history needs the fields JobID, Submit, Start, End (or Elapsed), State and "
                  "AllocTRES (or ReqTRES)");
  EXPECT_EQ(
      InputErrorOf([&] { ReadJobTrace("JobID|Submit|Start|End|State|AllocTRES\n1|2|3\n", "s.txt", std::nullopt, d); }),
      "s.txt:2: expected 6 fields, found 3");
  EXPECT_EQ(
      InputErrorOf([&] { ReadJobTrace("JobID|Submit|Start|End|State|JobID|AllocTRES\n", "s.txt", std::nullopt, d); }),
      "s.txt:1: duplicated field 'JobID'");
  const JobTrace bad = ReadJobTrace(
      "JobID|Submit|Start|End|State|AllocTRES\n1|yesterday|2026-03-01T10:00:00|2026-03-01T10:01:00|COMPLETED|"
      "gres/gpu=1\n2|2026-03-01T10:00:00|2026-03-01T10:00:00|2026-03-01T10:01:00|COMPLETED|gres/gpu=eight\n",
      "s.txt", std::nullopt, d);
  EXPECT_TRUE(bad.jobs.empty());
  ASSERT_EQ(bad.skipped.size(), 2u);
  EXPECT_EQ(bad.skipped[0].reason, "job '1': Submit 'yesterday' is not a time");
  EXPECT_EQ(bad.skipped[1].reason, "job '2': a gres/gpu count of its TRES is not a whole number");
  // A Priority that is not a whole number skips the row; an empty one is 0.
  const JobTrace prio = ReadJobTrace(
      "JobID|Priority|Submit|Start|End|State|AllocTRES\n"
      "1|high|2026-03-01T10:00:00|2026-03-01T10:00:00|2026-03-01T10:01:00|COMPLETED|gres/gpu=1\n"
      "2||2026-03-01T10:00:00|2026-03-01T10:00:00|2026-03-01T10:01:00|COMPLETED|gres/gpu=1\n",
      "s.txt", std::nullopt, d);
  ASSERT_EQ(prio.jobs.size(), 1u);
  EXPECT_DOUBLE_EQ(prio.jobs[0].priority, 0);
  ASSERT_EQ(prio.skipped.size(), 1u);
  EXPECT_EQ(prio.skipped[0].reason, "job '1': Priority 'high' is not a whole number");
}

// Partition and QOS name the job's queue; Timelimit is what Slurm's backfill assumes
// ("UNLIMITED" or "Partition_Limit": none given); a job held by a dependency or --begin is
// submitted to the replay at its Eligible time, from which its recorded wait counts.
TEST(SlurmJobs, PartitionLimitAndEligibleTime) {
  const JobTrace t = ReadJobTrace(
      "JobID|Partition|QOS|Submit|Eligible|Start|End|State|AllocTRES|Timelimit\n"
      "1|batch|normal|2026-03-01T10:00:00|2026-03-01T10:00:00|2026-03-01T10:00:00|2026-03-01T10:30:00|COMPLETED|"
      "gres/gpu=8|02:00:00\n"
      "2|prod|high|2026-03-01T10:00:00|2026-03-01T11:00:00|2026-03-01T11:10:00|2026-03-01T11:20:00|COMPLETED|"
      "gres/gpu=8|1-00:00:00\n"
      "3|batch|normal|2026-03-01T10:05:00|Unknown|2026-03-01T10:06:00|2026-03-01T10:07:00|COMPLETED|gres/gpu=1|"
      "UNLIMITED\n"
      "4|batch|normal|2026-03-01T10:05:00|2026-03-01T10:05:00|2026-03-01T10:06:00|2026-03-01T10:07:00|COMPLETED|"
      "gres/gpu=1|Partition_Limit\n",
      "sacct.txt", std::nullopt, JobTraceDefaults{});
  ASSERT_EQ(t.jobs.size(), 4u);
  EXPECT_EQ(t.jobs[0].queue, "batch");
  EXPECT_EQ(t.jobs[1].qos, "high");
  EXPECT_DOUBLE_EQ(t.jobs[0].time_limit_s, 7200);
  EXPECT_DOUBLE_EQ(t.jobs[1].time_limit_s, 86400);
  EXPECT_TRUE(std::isnan(t.jobs[2].time_limit_s));
  EXPECT_TRUE(std::isnan(t.jobs[3].time_limit_s));
  EXPECT_DOUBLE_EQ(t.jobs[1].submit_s, 3600);  // Eligible 11:00, an hour after the first
  EXPECT_DOUBLE_EQ(t.jobs[1].measured_wait_s, 600);
  EXPECT_DOUBLE_EQ(t.jobs[2].submit_s, 300);  // no Eligible time: Submit
}

}  // namespace
}  // namespace paratune
