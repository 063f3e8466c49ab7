// The Philly-derived trace reader: hand-computed submit times of real rows, the whole file's
// counts, and every broken row.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>

#include "scheduling/job_history_reader.h"
#include "util/file.h"
#include "util/test_util.h"

namespace paratune {
namespace {

constexpr const char* kPhillyPath = "cluster-traces/philly-pollux/philly.csv";

// The file's first four data rows (lines 2-5), as they are.
constexpr const char* kHead =
    "timestamp,duration,num_gpus,gpu_time,cluster\n"
    "2017-10-09 07:01:55,66.0,1,66.0,11cb48\n"
    "2017-10-09 06:13:03,2951.0,1,2951.0,6214e9\n"
    "2017-09-29 07:58:32,860662.0,1,860662.0,6c71a0\n"
    "2017-10-09 06:13:36,2759.0,1,2759.0,6214e9\n"
    "\n";

TEST(PhillyJobs, FirstRowsByHand) {
  JobTraceDefaults d;
  d.production_vcs = {"6214e9"};
  d.model = "llama-3-8b";
  const JobTrace t = ReadJobTrace(kHead, "head.csv", std::nullopt, d);
  EXPECT_EQ(t.format, "philly");
  ASSERT_EQ(t.jobs.size(), 4u);
  EXPECT_TRUE(t.skipped.empty());
  // The earliest of the four is line 4 (2017-09-29 07:58:32): it submits at 0, and line 2 ten
  // days less 07:58:32 - 07:01:55 = 3397 s later.
  EXPECT_EQ(t.jobs[2].submit_s, 0);
  EXPECT_EQ(t.jobs[0].submit_s, 864000 - 3397);
  EXPECT_EQ(t.jobs[1].submit_s, 864000 - 6329);  // 07:58:32 - 06:13:03 = 1:45:29
  EXPECT_EQ(t.jobs[3].submit_s, 864000 - 6296);
  EXPECT_EQ(t.jobs[0].submit_s - t.jobs[1].submit_s, 2932);  // 07:01:55 - 06:13:03
  const Job& j = t.jobs[1];
  EXPECT_EQ(j.id, 1);
  EXPECT_EQ(j.line, 3);
  EXPECT_EQ(j.name, "philly-3");
  EXPECT_EQ(j.gpus, 1);
  EXPECT_EQ(j.run_s, 2951);
  EXPECT_EQ(j.job_class, JobClass::kProduction);
  EXPECT_EQ(t.jobs[0].job_class, JobClass::kExperimental);
  EXPECT_EQ(j.checkpoint_interval_s, d.checkpoint_interval_s);
  EXPECT_EQ(j.restart_overhead_s, d.restart_overhead_s);
  EXPECT_EQ(j.locality, Locality::kSoft);
  EXPECT_EQ(j.model, "llama-3-8b");
  EXPECT_EQ(j.gpu_type, "");
  EXPECT_EQ(j.tp, 0);
}

TEST(PhillyJobs, ColumnOrderIsFreeAndCrlfIsRead) {
  const JobTrace t =
      ReadJobTrace("cluster,num_gpus,duration,gpu_time,timestamp\r\n6214e9,8,100.0,800.0,2017-10-09 06:13:03\r\n",
                   "c.csv", std::nullopt, JobTraceDefaults{});
  ASSERT_EQ(t.jobs.size(), 1u);
  EXPECT_EQ(t.jobs[0].gpus, 8);
  EXPECT_EQ(t.jobs[0].run_s, 100);
  EXPECT_EQ(t.jobs[0].submit_s, 0);
}

TEST(PhillyJobs, BrokenRowsAreSkippedWithTheirLines) {
  JobTraceDefaults d;
  d.max_gpus = 64;
  const JobTrace t = ReadJobTrace(
      "timestamp,duration,num_gpus,gpu_time,cluster\n"
      "2017-10-09 07:01:55,66.0,1,66.0,11cb48\n"      // 2 ok
      "2017-13-09 07:01:55,66.0,1,66.0,11cb48\n"      // 3 month 13
      "yesterday,66.0,1,66.0,11cb48\n"                // 4 not a time
      "2017-10-09 07:01:55,abc,1,66.0,11cb48\n"       // 5 duration not a number
      "2017-10-09 07:01:55,66.0,one,66.0,11cb48\n"    // 6 num_gpus not an integer
      "2017-10-09 07:01:55,66.0,2,66.0,11cb48\n"      // 7 gpu_time disagrees
      "2017-10-09 07:01:55,66.0,0,0.0,11cb48\n"       // 8 zero GPUs
      "2017-10-09 07:01:55,-66.0,1,-66.0,11cb48\n"    // 9 negative duration
      "2017-10-09 07:01:55,0.0,4,0.0,11cb48\n"        // 10 zero run time
      "2017-10-09 07:01:55,10.0,128,1280.0,11cb48\n"  // 11 more GPUs than the cluster
      "2017-10-09 07:01:55,66.4,2,133.0,11cb48\n"     // 12 ok: within rounding (132.8)
      "2017-09-01 00:00:00,10.0,1,,11cb48\n"          // 13 empty gpu_time; still the earliest time
      "\n\n",
      "b.csv", std::nullopt, d);
  ASSERT_EQ(t.jobs.size(), 2u);
  EXPECT_EQ(t.jobs[0].line, 2);
  EXPECT_EQ(t.jobs[1].line, 12);
  EXPECT_EQ(t.jobs[1].id, 1);
  EXPECT_EQ(t.jobs[1].run_s, 66.4);
  // Times count from line 13's timestamp (a skipped row's): 2017-09-01 to 2017-10-09 07:01:55.
  EXPECT_EQ(t.jobs[0].submit_s, 38 * 86400 + 7 * 3600 + 60 + 55);
  const std::vector<std::pair<int, std::string>> expected = {
      {3, "field 'timestamp' is not a time (YYYY-MM-DD HH:MM:SS): '2017-13-09 07:01:55'"},
      {4, "field 'timestamp' is not a time (YYYY-MM-DD HH:MM:SS): 'yesterday'"},
      {5, "field 'duration' is not a number: 'abc'"},
      {6, "field 'num_gpus' is not an integer: 'one'"},
      {7, "gpu_time 66 is not duration x num_gpus (66 x 2)"},
      {8, "zero GPUs"},
      {9, "negative run time (-66 s)"},
      {10, "run time is zero"},
      {11, "asks for 128 GPUs, more than the cluster's 64"},
      {13, "field 'gpu_time' is empty"},
  };
  ASSERT_EQ(t.skipped.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(t.skipped[i].line, expected[i].first) << i;
    EXPECT_EQ(t.skipped[i].reason, expected[i].second) << i;
  }
}

TEST(PhillyJobs, HeaderErrorsRejectTheFile) {
  const JobTraceDefaults d;
  EXPECT_EQ(InputErrorOf([&] { ReadPhillyJobs("timestamp,duration,num_gpus,gpu_time\n", "h.csv", d); }),
            "h.csv:1: missing column 'cluster' (a Philly trace has timestamp,duration,num_gpus,gpu_time,cluster)");
  EXPECT_EQ(InputErrorOf([&] { ReadPhillyJobs("timestamp,duration,num_gpus,gpu_time,cluster,user\n", "h.csv", d); }),
            "h.csv:1: unknown column 'user' (a Philly trace's columns are timestamp, duration, num_gpus, gpu_time, "
            "cluster)");
  EXPECT_EQ(
      InputErrorOf([&] { ReadPhillyJobs("timestamp,duration,num_gpus,gpu_time,cluster,duration\n", "h.csv", d); }),
      "h.csv:1: duplicated column 'duration'");
}

// The whole file: every row is a job (82,247), sizes as SOURCES.md's histogram, times from
// 2017-09-04 10:30:41 (line 31568) to 2017-12-22 08:02:11.
TEST(PhillyJobs, WholeFile) {
  PARATUNE_SHARED_OR_SKIP(path, kPhillyPath);
  JobTraceDefaults d;
  d.production_vcs = {"6214e9"};
  const JobTrace t = ReadJobTrace(ReadFile(path), path, std::nullopt, d);
  EXPECT_EQ(t.format, "philly");
  ASSERT_EQ(t.jobs.size(), 82247u);
  EXPECT_TRUE(t.skipped.empty());
  std::map<int, int> by_gpus;
  int production = 0;
  double latest = 0, gpu_s = 0;
  for (size_t i = 0; i < t.jobs.size(); ++i) {
    const Job& j = t.jobs[i];
    ASSERT_EQ(j.id, static_cast<int64_t>(i));
    ASSERT_EQ(j.line, static_cast<int>(i) + 2);
    ++by_gpus[j.gpus];
    production += j.job_class == JobClass::kProduction;
    latest = std::max(latest, j.submit_s);
    gpu_s += j.run_s * j.gpus;
  }
  EXPECT_EQ(
      by_gpus,
      (std::map<int, int>{
          {1, 76627}, {2, 1818}, {4, 1870}, {8, 1643}, {12, 7}, {16, 199}, {24, 7}, {32, 67}, {64, 6}, {128, 3}}));
  EXPECT_EQ(production, 41226);          // the largest virtual cluster
  EXPECT_EQ(t.jobs[31566].submit_s, 0);  // line 31568
  // 2017-09-04 10:30:41 to 2017-10-09 07:01:55: 35 days less 3:28:46.
  EXPECT_EQ(t.jobs[0].submit_s, 35 * 86400 - 12526);
  EXPECT_EQ(t.jobs[1].submit_s, 35 * 86400 - 12526 - 2932);
  EXPECT_EQ(latest, 109 * 86400 - 8910);       // to 2017-12-22 08:02:11
  EXPECT_NEAR(gpu_s / 3600, 978078.47, 0.01);  // the sum of gpu_time / 3600

  // On 8 nodes of 8 GPUs the three 128-GPU jobs are skipped, the ids stay 0..n-1.
  d.max_gpus = 64;
  const JobTrace small = ReadJobTrace(ReadFile(path), path, JobTraceFormat::kPhilly, d);
  ASSERT_EQ(small.jobs.size(), 82244u);
  ASSERT_EQ(small.skipped.size(), 3u);
  EXPECT_EQ(small.skipped[0].line, 23198);
  EXPECT_EQ(small.skipped[1].line, 23509);
  EXPECT_EQ(small.skipped[2].line, 63242);
  EXPECT_EQ(small.skipped[0].reason, "asks for 128 GPUs, more than the cluster's 64");
  EXPECT_EQ(small.jobs.back().id, 82243);
  EXPECT_EQ(small.jobs[0].submit_s, t.jobs[0].submit_s);  // times do not move with the cluster
}

}  // namespace
}  // namespace paratune
