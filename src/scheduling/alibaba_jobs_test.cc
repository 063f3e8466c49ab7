// The Alibaba v2023 pod-list reader: real rows, the default list's counts per phase and class,
// the multigpu50 variant's rejection, and every broken row.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "scheduling/job_history_reader.h"
#include "util/file.h"
#include "util/test_util.h"

namespace paratune {
namespace {

constexpr const char* kHeader =
    "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n";

TEST(AlibabaJobs, RealRows) {
  JobTraceDefaults d;
  d.restart_overhead_s = 60;
  const JobTrace t =
      ReadJobTrace(std::string(kHeader) +
                       "openb-pod-0000,12000,16384,1,1000,,LS,Running,0,12537496,0\n"
                       "openb-pod-0001,6000,12288,1,460,,LS,Running,427061,12902960,427061\n"
                       "openb-pod-0017,88000,327680,8,1000,nan,Burstable,Succeeded,9437497,10769854,9437497\n"
                       "openb-pod-0035,16000,32768,1,1000,V100M16|V100M32,LS,Running,9967058,9968575,9967063\n",
                   "pods.csv", std::nullopt, d);
  EXPECT_EQ(t.format, "alibaba-v2023");
  ASSERT_EQ(t.jobs.size(), 4u);
  EXPECT_TRUE(t.skipped.empty());
  EXPECT_EQ(t.jobs[0].name, "openb-pod-0000");
  EXPECT_EQ(t.jobs[0].submit_s, 0);
  EXPECT_EQ(t.jobs[0].run_s, 12537496);
  EXPECT_EQ(t.jobs[0].job_class, JobClass::kProduction);
  EXPECT_EQ(t.jobs[0].restart_overhead_s, 60);
  // 460 thousandths of a GPU: the pod takes the whole GPU.
  EXPECT_EQ(t.jobs[1].gpus, 1);
  EXPECT_EQ(t.jobs[1].submit_s, 427061);
  EXPECT_EQ(t.jobs[1].run_s, 12902960 - 427061);
  EXPECT_EQ(t.jobs[2].gpus, 8);
  EXPECT_EQ(t.jobs[2].run_s, 10769854 - 9437497);
  EXPECT_EQ(t.jobs[2].job_class, JobClass::kExperimental);
  EXPECT_EQ(t.jobs[2].gpu_type, "");  // "nan" as pandas writes no constraint
  // Run time from scheduling (5 s after creation) to deletion.
  EXPECT_EQ(t.jobs[3].submit_s, 9967058);
  EXPECT_EQ(t.jobs[3].run_s, 9968575 - 9967063);
  EXPECT_EQ(t.jobs[3].gpu_type, "V100M16|V100M32");
  EXPECT_EQ(t.jobs[3].id, 3);
  EXPECT_EQ(t.jobs[3].line, 5);
}

TEST(AlibabaJobs, BrokenAndUnrunRowsAreSkippedWithTheirLines) {
  JobTraceDefaults d;
  d.max_gpus = 4;
  const JobTrace t =
      ReadJobTrace(std::string(kHeader) +
                       "p2,1,1,1,1000,,LS,Running,0,100,0\n"          // 2 ok
                       "p3,1,1,0,0,,LS,Running,0,100,0\n"             // 3 CPU-only
                       "p4,1,1,1,1000,,BE,Pending,10,20,\n"           // 4 pending
                       "p5,1,1,1,1000,,BE,Failed,10,20,\n"            // 5 no scheduled_time
                       "p6,1,1,1,1000,,BE,Failed,10,,12\n"            // 6 no deletion_time
                       "p7,1,1,1,1000,,XX,Running,0,100,0\n"          // 7 unknown qos
                       "p8,1,1,1,0,,LS,Running,0,100,0\n"             // 8 gpu_milli 0
                       "p9,1,1,1,1500,,LS,Running,0,100,0\n"          // 9 gpu_milli above 1000
                       "p10,1,1,1,1000,,LS,Running,0,50,60\n"         // 10 deleted before scheduled
                       "p11,1,1,1,1000,,LS,Running,0,60,60\n"         // 11 zero run time
                       "p12,1,1,1,1000,,LS,Running,70,100,60\n"       // 12 scheduled before creation
                       "p13,1,1,x,1000,,LS,Running,0,100,0\n"         // 13 num_gpu not an integer
                       "p14,1,1,8,1000,,LS,Running,0,100,0\n"         // 14 more than the cluster
                       "p15,1,1,1,1000,,LS,Evicted,0,100,0\n"         // 15 unknown phase
                       "p16,1,1,1,1000,,LS,Running,-5,100,0\n"        // 16 scheduled before (negative) creation
                       "p17,1,1,1,1000,,LS,Running,0,1e,0\n"          // 17 not a number
                       "p18,1,1,-1,1000,,LS,Running,0,100,0\n"        // 18 negative GPUs
                       ",1,1,2,1000,,guaranteed,running,5,100,10\n",  // 19 ok, case-insensitive
                   "pods.csv", std::nullopt, d);
  ASSERT_EQ(t.jobs.size(), 2u);
  EXPECT_EQ(t.jobs[0].line, 2);
  EXPECT_EQ(t.jobs[1].line, 19);
  EXPECT_EQ(t.jobs[1].id, 1);
  EXPECT_EQ(t.jobs[1].name, "pod-19");
  EXPECT_EQ(t.jobs[1].job_class, JobClass::kProduction);
  EXPECT_EQ(t.jobs[1].run_s, 90);
  const std::vector<std::pair<int, std::string>> expected = {
      {3, "no GPUs: CPU-only pod"},
      {4, "never ran: pod_phase Pending"},
      {5, "never ran: no scheduled_time"},
      {6, "never ran: no deletion_time"},
      {7, "unknown qos 'XX' (expected LS, Guaranteed, BE or Burstable)"},
      {8, "gpu_milli 0 is outside 1..1000"},
      {9, "gpu_milli 1500 is outside 1..1000"},
      {10, "negative run time (-10 s)"},
      {11, "run time is zero"},
      {12, "scheduled_time 60 is before creation_time 70"},
      {13, "field 'num_gpu' is not an integer: 'x'"},
      {14, "asks for 8 GPUs, more than the cluster's 4"},
      {15, "unknown pod_phase 'Evicted' (expected Running, Succeeded, Failed or Pending)"},
      {16, "negative submit time (-5 s)"},
      {17, "field 'deletion_time' is not a number: '1e'"},
      {18, "negative GPUs (-1)"},
  };
  ASSERT_EQ(t.skipped.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(t.skipped[i].line, expected[i].first) << i;
    EXPECT_EQ(t.skipped[i].reason, expected[i].second) << i;
  }
}

TEST(AlibabaJobs, HeaderErrorsRejectTheFile) {
  const JobTraceDefaults d;
  EXPECT_EQ(
      InputErrorOf([&] { ReadAlibabaJobs("name,cpu_milli,memory_mib,num_gpu,gpu_milli\nx,1,1,1,1000\n", "m.csv", d); }),
      "m.csv:1: this Alibaba v2023 pod list has no times (creation_time, scheduled_time, deletion_time): it is a "
      "workload for a fragmentation snapshot (like openb_pod_list_multigpu50.csv), not a trace to replay");
  EXPECT_EQ(InputErrorOf([&] {
              ReadAlibabaJobs("name,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time\n", "m.csv",
                              d);
            }),
            "m.csv:1: missing column 'scheduled_time' (an Alibaba v2023 pod list has name,cpu_milli,memory_mib,num_gpu,"
            "gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time)");
  EXPECT_CONTAINS(InputErrorOf([&] { ReadAlibabaJobs(std::string(kHeader).insert(4, ",gpu_model"), "m.csv", d); }),
                  "m.csv:1: unknown column 'gpu_model'");
}

// openb_pod_list_default.csv: 8,152 pods; 1,088 ask for no GPU, 861 GPU pods never ran
// (Pending); the 6,203 that ran are Running 4,149, Failed 1,869, Succeeded 185.
TEST(AlibabaJobs, DefaultPodList) {
  PARATUNE_SHARED_OR_SKIP(path, "cluster-traces/alibaba-gpu-v2023/openb_pod_list_default.csv");
  const JobTrace t = ReadJobTrace(ReadFile(path), path, std::nullopt, JobTraceDefaults{});
  EXPECT_EQ(t.format, "alibaba-v2023");
  ASSERT_EQ(t.jobs.size(), 6203u);
  std::map<std::string, int> reasons;
  for (const SkippedRow& s : t.skipped) ++reasons[s.reason];
  EXPECT_EQ(reasons,
            (std::map<std::string, int>{{"no GPUs: CPU-only pod", 1088}, {"never ran: pod_phase Pending", 861}}));
  std::map<int, int> by_gpus;
  int production = 0;
  double gpu_s = 0;
  for (const Job& j : t.jobs) {
    ++by_gpus[j.gpus];
    production += j.job_class == JobClass::kProduction;
    gpu_s += j.gpus * j.run_s;
  }
  EXPECT_EQ(by_gpus, (std::map<int, int>{{1, 6129}, {2, 15}, {4, 15}, {8, 44}}));
  EXPECT_EQ(production, 3590 + 6);  // LS + Guaranteed; BE 2,510 + Burstable 97 are experimental
  EXPECT_NEAR(gpu_s / 3600, 59612.21, 0.01);
  EXPECT_EQ(t.skipped.front().line, 7);  // openb-pod-0005, CPU-only
  EXPECT_EQ(t.jobs.back().name, "openb-pod-8151");
}

TEST(AlibabaJobs, MultiGpu50IsRejected) {
  PARATUNE_SHARED_OR_SKIP(path, "cluster-traces/alibaba-gpu-v2023/openb_pod_list_multigpu50.csv");
  EXPECT_CONTAINS(
      InputErrorOf([&] { ReadJobTrace(ReadFile(path), "multigpu50.csv", std::nullopt, JobTraceDefaults{}); }),
      "multigpu50.csv:1: this Alibaba v2023 pod list has no times");
}

}  // namespace
}  // namespace paratune
