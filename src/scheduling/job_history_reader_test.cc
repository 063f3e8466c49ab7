// The dispatch and shared checks of the job-trace readers: detection of each header, the errors
// that reject a file, the common row checks and the fuzz target's seed corpus.
#include "scheduling/job_history_reader.h"
#include "scheduling/kueue_config.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "scheduling/job_rows.h"
#include "util/file.h"
#include "util/test_util.h"

namespace paratune {
namespace {

TEST(DetectJobTraceFormat, EachHeader) {
  EXPECT_EQ(DetectJobTraceFormat("timestamp,duration,num_gpus,gpu_time,cluster"), JobTraceFormat::kPhilly);
  EXPECT_EQ(DetectJobTraceFormat("timestamp,duration,num_gpus,gpu_time,cluster\r"), JobTraceFormat::kPhilly);
  EXPECT_EQ(DetectJobTraceFormat("\xEF\xBB\xBFtimestamp,duration,num_gpus,gpu_time,cluster"), JobTraceFormat::kPhilly);
  EXPECT_EQ(DetectJobTraceFormat("name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
                                 "deletion_time,scheduled_time"),
            JobTraceFormat::kAlibabaV2023);
  // The multigpu50 variant is detected as Alibaba, whose reader then says why it cannot be replayed.
  EXPECT_EQ(DetectJobTraceFormat("name,cpu_milli,memory_mib,num_gpu,gpu_milli"), JobTraceFormat::kAlibabaV2023);
  EXPECT_EQ(DetectJobTraceFormat("submit_s,gpus,run_s"), JobTraceFormat::kNative);
  EXPECT_EQ(DetectJobTraceFormat("gpus, gpu_hours, submit_s, name"), JobTraceFormat::kNative);
  EXPECT_EQ(DetectJobTraceFormat("sn,cpu_milli,memory_mib,gpu,model"), std::nullopt);  // the Alibaba node list
  EXPECT_EQ(DetectJobTraceFormat("submit,gpus,run"), std::nullopt);
  EXPECT_EQ(DetectJobTraceFormat(""), std::nullopt);
  EXPECT_EQ(DetectJobTraceFormat("\"timestamp"), std::nullopt);  // unterminated quote
}

TEST(ReadJobTrace, DetectsAndDispatches) {
  const JobTraceDefaults d;
  EXPECT_EQ(ReadJobTrace("timestamp,duration,num_gpus,gpu_time,cluster\n2017-10-09 07:01:55,66.0,1,66.0,11cb48\n",
                         "p.csv", std::nullopt, d)
                .format,
            "philly");
  EXPECT_EQ(ReadJobTrace("submit_s,gpus,run_s\n0,1,10\n", "n.csv", std::nullopt, d).format, "native");
  const JobTrace t = ReadJobTrace("\n\nsubmit_s,gpus,run_s\n0,1,10\n", "n.csv", JobTraceFormat::kNative, d);
  ASSERT_EQ(t.jobs.size(), 1u);
  EXPECT_EQ(t.jobs[0].line, 4);  // blank lines count
  EXPECT_EQ(t.path, "n.csv");
}

TEST(ReadJobTrace, RejectsWhatIsNoTrace) {
  const JobTraceDefaults d;
  EXPECT_EQ(InputErrorOf([&] { ReadJobTrace("", "e.csv", std::nullopt, d); }), "e.csv: empty trace (no header line)");
  EXPECT_EQ(InputErrorOf([&] { ReadJobTrace("\n \n\r\n", "e.csv", JobTraceFormat::kPhilly, d); }),
            "e.csv: empty trace (no header line)");
  const std::string m =
      InputErrorOf([&] { ReadJobTrace("\nsn,cpu_milli,memory_mib,gpu,model\n", "nodes.csv", std::nullopt, d); });
  EXPECT_CONTAINS(m, "nodes.csv:2: the header is not a job trace's");
  EXPECT_CONTAINS(m, "philly, alibaba-v2023, native, slurm-sacct or kubernetes");
  // A format given that the header is not: the reader names the first column it does not know.
  EXPECT_EQ(InputErrorOf([&] { ReadJobTrace("submit_s,gpus,run_s\n", "n.csv", JobTraceFormat::kPhilly, d); }),
            "n.csv:1: unknown column 'submit_s' (a Philly trace's columns are timestamp, duration, num_gpus, "
            "gpu_time, cluster)");
}

TEST(ReadJobTrace, QuotedFieldsAndBadQuotes) {
  const JobTraceDefaults d;
  const JobTrace t = ReadJobTrace("name,submit_s,gpus,run_s\n\"a, \"\"b\"\"\",0,1,10\n", "q.csv", std::nullopt, d);
  ASSERT_EQ(t.jobs.size(), 1u);
  EXPECT_EQ(t.jobs[0].name, "a, \"b\"");
  EXPECT_EQ(InputErrorOf([&] { ReadJobTrace("name,submit_s,gpus,run_s\n\"a,0,1,10\n", "q.csv", std::nullopt, d); }),
            "q.csv:2: unterminated quoted field");
  EXPECT_EQ(InputErrorOf([&] { ReadJobTrace("name,submit_s,gpus,run_s\n\"a\"x,0,1,10\n", "q.csv", std::nullopt, d); }),
            "q.csv:2: text after a closing quote");
}

// The row limit is counted by the line scanner every reader uses, before a row is parsed: a
// header and kMaxTraceJobs rows pass, one more is rejected naming its line (blank lines count in
// the line number, not in the rows).
TEST(JobRows, LineScannerStopsAfterTheMostRows) {
  std::string text = "h\n\n";
  text.reserve(text.size() + (kMaxTraceJobs + 1) * 2);
  for (size_t i = 0; i < kMaxTraceJobs; ++i) text += "x\n";
  const std::string where = "big.csv";
  {
    job_rows::LineScanner lines(text, where);
    int line = 0;
    std::string_view s;
    size_t n = 0;
    while (lines.Next(&line, &s)) ++n;
    EXPECT_EQ(n, kMaxTraceJobs + 1);
    EXPECT_EQ(line, static_cast<int>(kMaxTraceJobs) + 2);
  }
  text += "x\n";
  job_rows::LineScanner lines(text, where);
  int line = 0;
  std::string_view s;
  const std::string m = InputErrorOf([&] {
    while (lines.Next(&line, &s)) {
    }
  });
  EXPECT_EQ(m, "big.csv:10000003: more than 10000000 rows (the most a trace may have)");
}

TEST(ReadJobTrace, FieldCountMismatchRejectsTheFile) {
  const JobTraceDefaults d;
  EXPECT_EQ(InputErrorOf([&] { ReadJobTrace("submit_s,gpus,run_s\n0,1,10\n0,1\n", "n.csv", std::nullopt, d); }),
            "n.csv:3: expected 3 fields, found 2");
  EXPECT_EQ(InputErrorOf([&] {
              ReadJobTrace("timestamp,duration,num_gpus,gpu_time,cluster\n2017-10-09 07:01:55,66.0,1,66.0,11cb48,x\n",
                           "p.csv", std::nullopt, d);
            }),
            "p.csv:2: expected 5 fields, found 6");
}

TEST(ReadJobTrace, CommonRowChecksWithLines) {
  JobTraceDefaults d;
  d.max_gpus = 16;
  const JobTrace t = ReadJobTrace(
      "submit_s,gpus,run_s\n"
      "0,1,10\n"                     // 2 ok
      "-1,1,10\n"                    // 3 negative submit time
      "0,0,10\n"                     // 4 zero GPUs
      "0,-2,10\n"                    // 5 negative GPUs
      "0,17,10\n"                    // 6 more than the cluster
      "0,1,0\n"                      // 7 zero run time
      "0,1,-5\n"                     // 8 negative run time
      "inf,1,10\n"                   // 9 non-finite
      "0,1,nan\n"                    // 10 non-finite
      "0,x,10\n"                     // 11 not an integer
      "0,1.5,10\n"                   // 12 not an integer
      "0,1,ten\n"                    // 13 not a number
      "1e11,1,10\n"                  // 14 beyond kMaxJobTraceSeconds
      "0,99999999999999999999,10\n"  // 15 out of range
      "1e400,1,10\n"                 // 16 overflows a double: not finite
      "5,16,20\n",                   // 17 ok
      "n.csv", std::nullopt, d);
  ASSERT_EQ(t.jobs.size(), 2u);
  EXPECT_EQ(t.jobs[0].id, 0);
  EXPECT_EQ(t.jobs[0].line, 2);
  EXPECT_EQ(t.jobs[1].id, 1);
  EXPECT_EQ(t.jobs[1].line, 17);
  EXPECT_EQ(t.jobs[1].gpus, 16);
  EXPECT_EQ(t.jobs[1].submit_s, 5);
  EXPECT_EQ(t.jobs[1].run_s, 20);
  const std::vector<std::pair<int, std::string>> expected = {
      {3, "negative submit time (-1 s)"},
      {4, "zero GPUs"},
      {5, "negative GPUs (-2)"},
      {6, "asks for 17 GPUs, more than the cluster's 16"},
      {7, "run time is zero"},
      {8, "negative run time (-5 s)"},
      {9, "submit time is not finite"},
      {10, "run time is not finite"},
      {11, "field 'gpus' is not an integer: 'x'"},
      {12, "field 'gpus' is not an integer: '1.5'"},
      {13, "field 'run_s' is not a number: 'ten'"},
      {14, "submit time 100000000000 s is beyond 1e+10 s"},
      {15, "field 'gpus' is out of range: '99999999999999999999'"},
      {16, "submit time is not finite"},
  };
  ASSERT_EQ(t.skipped.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(t.skipped[i].line, expected[i].first);
    EXPECT_EQ(t.skipped[i].reason, expected[i].second);
  }
}

TEST(ReadJobTrace, NoClusterSizeStillBoundsGpus) {
  const JobTrace t =
      ReadJobTrace("submit_s,gpus,run_s\n0,134217729,10\n0,134217728,10\n", "n.csv", std::nullopt, JobTraceDefaults{});
  ASSERT_EQ(t.skipped.size(), 1u);
  EXPECT_EQ(t.skipped[0].reason, "asks for 134217729 GPUs, more than any cluster's 134217728");
  ASSERT_EQ(t.jobs.size(), 1u);
  EXPECT_EQ(t.jobs[0].gpus, 134217728);
}

TEST(ReadJobTrace, ReasonsAreOnePrintableLine) {
  const JobTrace t = ReadJobTrace("submit_s,gpus,run_s\n0,\x01\r2,10\n", "n.csv", std::nullopt, JobTraceDefaults{});
  ASSERT_EQ(t.skipped.size(), 1u);
  EXPECT_EQ(t.skipped[0].reason, "field 'gpus' is not an integer: '??2'");
}

// The fuzz target's seeds are real traces: each good one reads, the broken one is rejected.
TEST(ReadJobTrace, FuzzCorpusSeeds) {
  const std::string dir = std::string(PARATUNE_SOURCE_DIR) + "/fuzz/corpus/job_history/";
  const JobTraceDefaults d;
  const JobTrace philly = ReadJobTrace(ReadFile(dir + "philly.csv"), "philly.csv", std::nullopt, d);
  EXPECT_EQ(philly.format, "philly");
  EXPECT_EQ(philly.jobs.size(), 4u);
  const JobTrace alibaba = ReadJobTrace(ReadFile(dir + "alibaba.csv"), "alibaba.csv", std::nullopt, d);
  EXPECT_EQ(alibaba.format, "alibaba-v2023");
  EXPECT_EQ(alibaba.jobs.size(), 3u);
  EXPECT_EQ(alibaba.jobs[1].measured_wait_s, 0);  // scheduled_time 427061 less creation_time 427061
  ASSERT_EQ(alibaba.skipped.size(), 2u);
  EXPECT_EQ(alibaba.skipped[0].line, 5);
  EXPECT_EQ(alibaba.skipped[0].reason, "never ran: pod_phase Pending");
  EXPECT_EQ(alibaba.skipped[1].line, 6);
  EXPECT_EQ(alibaba.skipped[1].reason, "no GPUs: CPU-only pod");
  const JobTrace native = ReadJobTrace(ReadFile(dir + "native.csv"), "native.csv", std::nullopt, d);
  EXPECT_EQ(native.format, "native");
  EXPECT_EQ(native.jobs.size(), 2u);
  ASSERT_EQ(native.skipped.size(), 1u);
  EXPECT_EQ(native.skipped[0].line, 4);
  const JobTrace hours = ReadJobTrace(ReadFile(dir + "native_gpu_hours.csv"), "h.csv", std::nullopt, d);
  ASSERT_EQ(hours.jobs.size(), 2u);
  EXPECT_EQ(hours.jobs[0].run_s, 32 * 3600.0 / 16);
  EXPECT_CONTAINS(
      InputErrorOf([&] { ReadJobTrace(ReadFile(dir + "alibaba_multigpu50.csv"), "m.csv", std::nullopt, d); }),
      "m.csv:1: this Alibaba v2023 pod list has no times");
  EXPECT_EQ(InputErrorOf([&] { ReadJobTrace(ReadFile(dir + "broken.csv"), "broken.csv", std::nullopt, d); }),
            "broken.csv:3: expected 5 fields, found 4");
  const JobTrace slurm = ReadJobTrace(ReadFile(dir + "slurm_sacct.txt"), "s.txt", std::nullopt, d);
  EXPECT_EQ(slurm.format, "slurm-sacct");
  ASSERT_EQ(slurm.jobs.size(), 2u);  // 1001 (its step folded) and the array task 1002_3
  EXPECT_EQ(slurm.jobs[0].gpus, 16);
  ASSERT_EQ(slurm.skipped.size(), 1u);  // the pending 1004
  EXPECT_EQ(slurm.skipped[0].line, 5);
  // Kueue Workloads: one finished (2 x 8 GPUs admitted), one pending; Pods: one job of 8 GPUs
  // (its 1-GPU init container counts less than its container).
  const JobTrace kueue = ReadJobTrace(ReadFile(dir + "kueue_workloads.json"), "w.json", std::nullopt, d);
  EXPECT_EQ(kueue.format, "kubernetes");
  ASSERT_EQ(kueue.jobs.size(), 1u);
  EXPECT_EQ(kueue.jobs[0].gpus, 16);
  EXPECT_DOUBLE_EQ(kueue.jobs[0].measured_wait_s, 300);
  ASSERT_EQ(kueue.skipped.size(), 1u);
  EXPECT_EQ(kueue.skipped[0].reason, "workload 'team-a/pending': never admitted (pending)");
  const JobTrace pods = ReadJobTrace(ReadFile(dir + "pods.json"), "p.json", std::nullopt, d);
  ASSERT_EQ(pods.jobs.size(), 1u);
  EXPECT_EQ(pods.jobs[0].gpus, 8);
  EXPECT_DOUBLE_EQ(pods.jobs[0].run_s, 3600);
  // Kueue ClusterQueues (--kueue-config), a seed of the same target: not a job history.
  const JobTrace not_jobs = ReadJobTrace(ReadFile(dir + "kueue_clusterqueues.json"), "q.json", std::nullopt, d);
  EXPECT_TRUE(not_jobs.jobs.empty());
  ASSERT_EQ(not_jobs.skipped.size(), 2u);
  EXPECT_EQ(not_jobs.skipped[0].reason, "item 'team-a': kind 'ClusterQueue' is neither a Workload nor a Pod");
  const KueueConfig queues = ReadKueueConfig(dir + "kueue_clusterqueues.json");
  ASSERT_EQ(queues.queues.size(), 2u);
  EXPECT_EQ(queues.queues[0].nominal_gpus, 64);
  EXPECT_EQ(queues.queues[0].guaranteed_gpus(), 48);  // lendingLimit 16
  EXPECT_EQ(queues.queues[1].cohort, "ml");
  size_t seeds = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) seeds += e.is_regular_file();
  EXPECT_EQ(seeds, 10u) << "a new seed in " << dir << ": add it to this test";
}

}  // namespace
}  // namespace paratune
