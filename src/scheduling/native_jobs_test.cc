// paratune's native job-trace CSV: every column, defaults for empty cells, gpu_hours as work,
// header errors and every broken row.
#include <gtest/gtest.h>

#include <string>

#include "scheduling/job_history_reader.h"
#include "util/test_util.h"

namespace paratune {
namespace {

TEST(NativeJobs, EveryColumnAndTheDefaults) {
  JobTraceDefaults d;
  d.checkpoint_interval_s = 1800;
  d.restart_overhead_s = 90;
  d.locality = Locality::kHard;
  d.model = "llama-3-8b";
  const JobTrace t = ReadJobTrace(
      "submit_s,gpus,run_s,name,class,checkpoint_interval_s,restart_overhead_s,locality,gpu_type,model,tp,pp\n"
      "0,16,7200,\"pretrain, 70B\",production,600,120,soft,H100,llama-3-70b,8,2\n"
      "30.5,4,600,,exp,,,,,,,\n"
      "60,2,100,sweep,PROD,0,0,hard,,,2,\n",
      "jobs.csv", std::nullopt, d);
  EXPECT_EQ(t.format, "native");
  ASSERT_EQ(t.jobs.size(), 3u);
  EXPECT_TRUE(t.skipped.empty());
  const Job& a = t.jobs[0];
  EXPECT_EQ(a.name, "pretrain, 70B");
  EXPECT_EQ(a.submit_s, 0);
  EXPECT_EQ(a.gpus, 16);
  EXPECT_EQ(a.run_s, 7200);
  EXPECT_EQ(a.job_class, JobClass::kProduction);
  EXPECT_EQ(a.checkpoint_interval_s, 600);
  EXPECT_EQ(a.restart_overhead_s, 120);
  EXPECT_EQ(a.locality, Locality::kSoft);
  EXPECT_EQ(a.gpu_type, "H100");
  EXPECT_EQ(a.model, "llama-3-70b");
  EXPECT_EQ(a.tp, 8);
  EXPECT_EQ(a.pp, 2);
  const Job& b = t.jobs[1];  // every optional cell empty: the defaults
  EXPECT_EQ(b.name, "job-3");
  EXPECT_EQ(b.submit_s, 30.5);
  EXPECT_EQ(b.job_class, JobClass::kExperimental);
  EXPECT_EQ(b.checkpoint_interval_s, 1800);
  EXPECT_EQ(b.restart_overhead_s, 90);
  EXPECT_EQ(b.locality, Locality::kHard);
  EXPECT_EQ(b.gpu_type, "");
  EXPECT_EQ(b.model, "llama-3-8b");
  EXPECT_EQ(b.tp, 0);
  EXPECT_EQ(b.pp, 0);
  const Job& c = t.jobs[2];
  EXPECT_EQ(c.job_class, JobClass::kProduction);  // alias, any case
  EXPECT_EQ(c.checkpoint_interval_s, 0);          // never checkpoints
  EXPECT_EQ(c.restart_overhead_s, 0);
  EXPECT_EQ(c.tp, 2);
  EXPECT_EQ(c.id, 2);
  EXPECT_EQ(c.line, 4);
}

TEST(NativeJobs, MinimalTraceTakesEveryDefault) {
  const JobTraceDefaults d;
  const JobTrace t = ReadJobTrace(" gpus , submit_s , run_s \n2,0,10\n", "m.csv", std::nullopt, d);
  ASSERT_EQ(t.jobs.size(), 1u);
  EXPECT_EQ(t.jobs[0].gpus, 2);
  EXPECT_EQ(t.jobs[0].job_class, JobClass::kExperimental);
  EXPECT_EQ(t.jobs[0].checkpoint_interval_s, d.checkpoint_interval_s);
  EXPECT_EQ(t.jobs[0].restart_overhead_s, d.restart_overhead_s);
  EXPECT_EQ(t.jobs[0].locality, d.locality);
  EXPECT_EQ(t.jobs[0].model, "");
}

TEST(NativeJobs, GpuHoursAreWorkSpreadOverTheGpus) {
  const JobTrace t = ReadJobTrace("submit_s,gpus,gpu_hours\n0,8,16\n10,3,1\n20,4,0\n30,0,5\n40,2,-1\n", "w.csv",
                                  std::nullopt, JobTraceDefaults{});
  ASSERT_EQ(t.jobs.size(), 2u);
  EXPECT_EQ(t.jobs[0].run_s, 7200);  // 16 GPU-hours on 8 GPUs
  EXPECT_EQ(t.jobs[1].run_s, 1200);  // 1 GPU-hour on 3 GPUs
  ASSERT_EQ(t.skipped.size(), 3u);
  EXPECT_EQ(t.skipped[0].line, 4);
  EXPECT_EQ(t.skipped[0].reason, "gpu_hours 0 is not positive");
  EXPECT_EQ(t.skipped[1].line, 5);
  EXPECT_EQ(t.skipped[1].reason, "zero GPUs");
  EXPECT_EQ(t.skipped[2].line, 6);
  EXPECT_EQ(t.skipped[2].reason, "gpu_hours -1 is not positive");
}

TEST(NativeJobs, HeaderErrorsRejectTheFile) {
  const JobTraceDefaults d;
  EXPECT_EQ(InputErrorOf([&] { ReadNativeJobs("submit_s,gpus,run_s,priority\n", "h.csv", d); }),
            "h.csv:1: unknown column 'priority' (a native trace's columns are submit_s, gpus, run_s, gpu_hours, name, "
            "class, checkpoint_interval_s, restart_overhead_s, locality, gpu_type, model, tp, pp)");
  EXPECT_EQ(InputErrorOf([&] { ReadNativeJobs("submit_s,gpus,run_s,gpus\n", "h.csv", d); }),
            "h.csv:1: duplicated column 'gpus'");
  EXPECT_EQ(InputErrorOf([&] { ReadNativeJobs("gpus,run_s\n", "h.csv", d); }),
            "h.csv:1: missing column 'submit_s' (a native trace needs submit_s, gpus and run_s or gpu_hours)");
  EXPECT_EQ(InputErrorOf([&] { ReadNativeJobs("submit_s,gpus\n", "h.csv", d); }),
            "h.csv:1: a native trace has exactly one of the columns run_s and gpu_hours (it has neither)");
  EXPECT_EQ(InputErrorOf([&] { ReadNativeJobs("submit_s,gpus,run_s,gpu_hours\n", "h.csv", d); }),
            "h.csv:1: a native trace has exactly one of the columns run_s and gpu_hours (it has both)");
  EXPECT_EQ(InputErrorOf([&] { ReadNativeJobs("submit_s,gpus,run_s,\n", "h.csv", d); }),
            "h.csv:1: unknown column '' (a native trace's columns are submit_s, gpus, run_s, gpu_hours, name, class, "
            "checkpoint_interval_s, restart_overhead_s, locality, gpu_type, model, tp, pp)");
}

TEST(NativeJobs, BrokenRowsAreSkippedWithTheirLines) {
  const JobTrace t = ReadJobTrace(
      "submit_s,gpus,run_s,class,locality,checkpoint_interval_s,restart_overhead_s,tp,pp\n"
      "0,8,10,,,,,,\n"        // 2 ok
      ",8,10,,,,,,\n"         // 3 empty submit_s
      "0,,10,,,,,,\n"         // 4 empty gpus
      "0,8,,,,,,,\n"          // 5 empty run_s
      "0,8,10,urgent,,,,,\n"  // 6 unknown class
      "0,8,10,,loose,,,,\n"   // 7 unknown locality
      "0,8,10,,,-1,,,\n"      // 8 negative checkpoint interval
      "0,8,10,,,,inf,,\n"     // 9 non-finite restart overhead
      "0,8,10,,,,,3,\n"       // 10 tp does not divide gpus
      "0,8,10,,,,,4,4\n"      // 11 tp x pp does not divide gpus
      "0,8,10,,,,,-2,\n"      // 12 negative tp
      "0,8,10,,,,,x,\n"       // 13 tp not an integer
      "0,8,10,,,,,2,2\n",     // 14 ok
      "b.csv", std::nullopt, JobTraceDefaults{});
  ASSERT_EQ(t.jobs.size(), 2u);
  EXPECT_EQ(t.jobs[0].line, 2);
  EXPECT_EQ(t.jobs[1].line, 14);
  EXPECT_EQ(t.jobs[1].id, 1);
  const std::vector<std::pair<int, std::string>> expected = {
      {3, "field 'submit_s' is empty"},
      {4, "field 'gpus' is empty"},
      {5, "field 'run_s' is empty"},
      {6, "field 'class': unknown class 'urgent' (expected production or experimental)"},
      {7, "field 'locality': unknown locality 'loose' (expected soft or hard)"},
      {8, "negative checkpoint interval (-1 s)"},
      {9, "restart overhead is not finite"},
      {10, "tp x pp = 3 does not divide gpus 8"},
      {11, "tp x pp = 16 does not divide gpus 8"},
      {12, "tp -2 or pp 0 is outside 0..134217728"},
      {13, "field 'tp' is not an integer: 'x'"},
  };
  ASSERT_EQ(t.skipped.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(t.skipped[i].line, expected[i].first) << i;
    EXPECT_EQ(t.skipped[i].reason, expected[i].second) << i;
  }
}

}  // namespace
}  // namespace paratune
