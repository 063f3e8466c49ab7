// The Kubernetes history reader (kubernetes_jobs.cc) on `kubectl get ... -A -o json` output in
// the documented form: a List whose items carry apiVersion and kind; Kueue Workloads
// (kueue.x-k8s.io/v1beta1 Workload: spec.podSets[].count and .template, status.conditions of
// type QuotaReserved, Admitted, Evicted, Finished with RFC 3339 lastTransitionTime,
// status.admission.podSetAssignments[].resourceUsage); Pods (v1 Pod: spec.containers[] and
// initContainers[] resources.requests/limits, status.phase, the PodScheduled condition,
// containerStatuses[].state.terminated.finishedAt, metadata.ownerReferences[].controller).
#include "scheduling/job_history_reader.h"

#include <cmath>

#include <gtest/gtest.h>

#include "util/test_util.h"

namespace paratune {
namespace {

std::string Condition(const std::string& type, const std::string& status, const std::string& time) {
  return R"({"type":")" + type + R"(","status":")" + status + R"(","lastTransitionTime":")" + time +
         R"(","reason":"r","message":""})";
}

std::string PodSet(const std::string& name, int count, const std::string& gpus) {
  const std::string requests = gpus.empty() ? R"({"cpu":"4"})" : R"({"cpu":"4","nvidia.com/gpu":")" + gpus + "\"}";
  return R"({"name":")" + name + R"(","count":)" + std::to_string(count) +
         R"(,"template":{"spec":{"containers":[{"name":"c","image":"i","resources":{"requests":)" + requests + "}}]}}}";
}

std::string Workload(const std::string& name, const std::string& created, const std::string& pod_sets,
                     const std::string& conditions, const std::string& extra_status = "") {
  return R"({"apiVersion":"kueue.x-k8s.io/v1beta1","kind":"Workload","metadata":{"name":")" + name +
         R"(","namespace":"team-a","creationTimestamp":")" + created +
         R"("},
  "spec":{"queueName":"lq","priority":100,"podSets":[)" +
         pod_sets + R"(]},
  "status":{)" +
         extra_status + R"("conditions":[)" + conditions + "]}}";
}

// A pod set with a Kueue TAS topologyRequest ("required" or "preferred" block level).
std::string Tas(const std::string& pod_set, const std::string& kind) {
  return R"({"topologyRequest":{")" + kind + R"(":"cloud.google.com/gce-topology-block"},)" + pod_set.substr(1);
}

std::string List(const std::vector<std::string>& items) {
  std::string s = "{\n\"apiVersion\": \"v1\",\n\"items\": [\n";
  for (size_t i = 0; i < items.size(); ++i) s += items[i] + (i + 1 < items.size() ? ",\n" : "\n");
  return s + "],\n\"kind\": \"List\",\n\"metadata\": {\"resourceVersion\": \"\"}\n}\n";
}

TEST(KubernetesJobs, KueueWorkloadsAreJobsWithTheirAdmissionWait) {
  const std::string admitted_32 =
      R"("admission":{"clusterQueue":"cq","podSetAssignments":[{"name":"launcher","resourceUsage":{"cpu":"4"}},)"
      R"({"name":"worker","flavors":{"nvidia.com/gpu":"b300"},"resourceUsage":{"cpu":"16","nvidia.com/gpu":"32"},"count":4}]},)";
  const std::string text = List({
      Workload("job-a", "2026-03-01T10:00:00Z", PodSet("launcher", 1, "") + "," + PodSet("worker", 4, "8"),
               Condition("QuotaReserved", "True", "2026-03-01T10:05:00Z") + "," +
                   Condition("Admitted", "True", "2026-03-01T10:05:00Z") + "," +
                   Condition("Finished", "True", "2026-03-01T12:05:00Z"),
               admitted_32),
      Workload("job-pending", "2026-03-01T10:30:00Z", PodSet("main", 1, "8"),
               Condition("QuotaReserved", "False", "2026-03-01T10:30:00Z")),
      // Evicted (preempted) and admitted again: the run is the last admission's; the wait unknown.
      Workload("job-evicted", "2026-03-01T09:00:00Z", Tas(PodSet("main", 2, "8"), "preferred"),
               Condition("Evicted", "False", "2026-03-01T09:40:00Z") + "," +
                   Condition("Admitted", "True", "2026-03-01T09:50:00Z") + "," +
                   Condition("Finished", "True", "2026-03-01T10:50:00Z"),
               R"("requeueState":{"count":1},)"),
      // Kueue before the Admitted condition: QuotaReserved; GPUs from the pod sets (2 x 8).
      // Topology-aware scheduling: the pod set requires one block (locality hard).
      Workload("job-old", "2026-03-01T11:00:00Z", Tas(PodSet("main", 2, "8"), "required"),
               Condition("QuotaReserved", "True", "2026-03-01T11:00:30Z") + "," +
                   Condition("Finished", "True", "2026-03-01T11:30:30Z")),
      Workload("job-running", "2026-03-01T11:00:00Z", PodSet("main", 1, "8"),
               Condition("Admitted", "True", "2026-03-01T11:01:00Z")),
      Workload("job-cpu", "2026-03-01T11:00:00Z", PodSet("main", 1, ""),
               Condition("Admitted", "True", "2026-03-01T11:01:00Z") + "," +
                   Condition("Finished", "True", "2026-03-01T11:02:00Z")),
  });
  JobTraceDefaults hard;
  hard.locality = Locality::kHard;
  const JobTrace t = ReadJobTrace(text, "wl.json", std::nullopt, hard);
  EXPECT_EQ(t.format, "kubernetes");
  ASSERT_EQ(t.jobs.size(), 3u);
  EXPECT_EQ(t.jobs[0].queue, "cq");  // status.admission.clusterQueue
  EXPECT_EQ(t.jobs[1].queue, "");
  EXPECT_EQ(t.jobs[0].locality, Locality::kHard);  // no topology request: the default
  EXPECT_EQ(t.jobs[1].locality, Locality::kSoft);  // preferred
  EXPECT_EQ(t.jobs[2].locality, Locality::kHard);  // required
  EXPECT_EQ(t.jobs[0].name, "team-a/job-a");
  EXPECT_EQ(t.jobs[0].line, 4);  // the item's first line
  EXPECT_EQ(t.jobs[0].gpus, 32);
  EXPECT_DOUBLE_EQ(t.jobs[0].submit_s, 3600);  // rebased on job-evicted's 09:00
  EXPECT_DOUBLE_EQ(t.jobs[0].run_s, 7200);
  EXPECT_DOUBLE_EQ(t.jobs[0].measured_wait_s, 300);
  EXPECT_DOUBLE_EQ(t.jobs[0].priority, 100);  // spec.priority
  EXPECT_EQ(t.jobs[1].name, "team-a/job-evicted");
  EXPECT_EQ(t.jobs[1].gpus, 16);
  EXPECT_DOUBLE_EQ(t.jobs[1].submit_s, 0);
  EXPECT_DOUBLE_EQ(t.jobs[1].run_s, 3600);
  EXPECT_TRUE(std::isnan(t.jobs[1].measured_wait_s));
  EXPECT_EQ(t.jobs[2].name, "team-a/job-old");
  EXPECT_EQ(t.jobs[2].gpus, 16);
  EXPECT_DOUBLE_EQ(t.jobs[2].run_s, 1800);
  EXPECT_DOUBLE_EQ(t.jobs[2].measured_wait_s, 30);
  ASSERT_EQ(t.skipped.size(), 3u);
  EXPECT_EQ(t.skipped[0].reason, "workload 'team-a/job-pending': never admitted (pending)");
  EXPECT_EQ(t.skipped[1].reason, "workload 'team-a/job-running': still running: not Finished");
  EXPECT_EQ(t.skipped[2].reason, "workload 'team-a/job-cpu': no GPUs: no nvidia.com/gpu in its pod sets");
}

std::string Pod(const std::string& name, const std::string& owner, const std::string& created,
                const std::string& containers, const std::string& phase, const std::string& scheduled,
                const std::string& finished, const std::string& init = "") {
  const std::string owners = owner.empty() ? ""
                                           : R"(,"ownerReferences":[{"apiVersion":"batch/v1","kind":"Job","name":")" +
                                                 owner + R"(","uid":"u","controller":true}])";
  const std::string status_end =
      finished.empty() ? ""
                       : R"(,"containerStatuses":[{"name":"c","state":{"terminated":{"exitCode":0,"finishedAt":")" +
                             finished + R"("}}}])";
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
         R"(","namespace":"ml","creationTimestamp":")" + created + "\"" + owners + R"(},"spec":{"containers":[)" +
         containers + "]" + (init.empty() ? "" : R"(,"initContainers":[)" + init + "]") + R"(},"status":{"phase":")" +
         phase + R"(","conditions":[)" +
         (scheduled.empty() ? Condition("PodScheduled", "False", created)
                            : Condition("PodScheduled", "True", scheduled)) +
         "]" + status_end + "}}";
}

std::string Gpus(const std::string& where, const std::string& n) {
  return R"({"name":"c","resources":{")" + where + R"(":{"nvidia.com/gpu":)" + n + "}}}";
}

TEST(KubernetesJobs, PodsOfOneControllerAreOneGangJob) {
  const std::string text = List({
      Pod("train-0", "train", "2026-03-01T10:00:00Z", Gpus("requests", "\"8\""), "Succeeded", "2026-03-01T10:01:00Z",
          "2026-03-01T11:01:30Z"),
      Pod("train-1", "train", "2026-03-01T10:00:01Z", Gpus("limits", "8"), "Failed", "2026-03-01T10:01:30Z",
          "2026-03-01T11:01:40Z"),
      // Init container of 4 GPUs, containers of 2 + 1: the pod holds max(3, 4).
      Pod("solo", "", "2026-03-01T10:30:00Z", Gpus("requests", "\"2\"") + "," + Gpus("limits", "\"1\""), "Succeeded",
          "2026-03-01T10:30:10Z", "2026-03-01T10:40:10Z", Gpus("requests", "\"4\"")),
      Pod("serve", "", "2026-03-01T10:00:00Z", Gpus("requests", "\"1\""), "Running", "2026-03-01T10:00:05Z", ""),
      Pod("queued", "", "2026-03-01T10:00:00Z", Gpus("requests", "\"8\""), "Pending", "", ""),
      Pod("half", "", "2026-03-01T10:00:00Z", Gpus("requests", "\"0.5\""), "Succeeded", "2026-03-01T10:00:05Z",
          "2026-03-01T10:10:00Z"),
      Pod("web", "", "2026-03-01T10:00:00Z", R"({"name":"c"})", "Succeeded", "2026-03-01T10:00:05Z",
          "2026-03-01T10:10:00Z"),
  });
  const JobTrace t = ReadJobTrace(text, "pods.json", std::nullopt, JobTraceDefaults{});
  ASSERT_EQ(t.jobs.size(), 2u);
  EXPECT_EQ(t.jobs[0].name, "ml/Job/train");
  EXPECT_EQ(t.jobs[0].gpus, 16);
  EXPECT_DOUBLE_EQ(t.jobs[0].submit_s, 0);
  EXPECT_DOUBLE_EQ(t.jobs[0].run_s, 3610);          // last scheduled 10:01:30 to last end 11:01:40
  EXPECT_DOUBLE_EQ(t.jobs[0].measured_wait_s, 90);  // first created 10:00:00 to last scheduled
  EXPECT_EQ(t.jobs[1].name, "ml/solo");
  EXPECT_EQ(t.jobs[1].gpus, 4);
  EXPECT_DOUBLE_EQ(t.jobs[1].submit_s, 1800);
  EXPECT_DOUBLE_EQ(t.jobs[1].run_s, 600);
  EXPECT_DOUBLE_EQ(t.jobs[1].measured_wait_s, 10);
  ASSERT_EQ(t.skipped.size(), 4u);
  EXPECT_EQ(t.skipped[0].reason, "pod 'ml/serve': still running (phase 'Running')");
  EXPECT_EQ(t.skipped[1].reason, "pod 'ml/queued': never scheduled (phase 'Pending')");
  EXPECT_EQ(t.skipped[2].reason, "pod 'ml/half': a GPU count of its containers is not a whole number");
  EXPECT_EQ(t.skipped[3].reason, "pod 'ml/web': no GPUs: no nvidia.com/gpu in its containers");
}

TEST(KubernetesJobs, AFileWithWorkloadsSkipsItsPodsAndOneObjectIsAListOfOne) {
  const std::string wl = Workload("w", "2026-03-01T10:00:00Z", PodSet("main", 1, "8"),
                                  Condition("Admitted", "True", "2026-03-01T10:00:10Z") + "," +
                                      Condition("Finished", "True", "2026-03-01T10:10:10Z"));
  const std::string pod = Pod("w-0", "w", "2026-03-01T10:00:11Z", Gpus("requests", "\"8\""), "Succeeded",
                              "2026-03-01T10:00:12Z", "2026-03-01T10:10:00Z");
  const JobTrace both = ReadJobTrace(List({pod, wl}), "both.json", std::nullopt, JobTraceDefaults{});
  ASSERT_EQ(both.jobs.size(), 1u);
  EXPECT_EQ(both.jobs[0].name, "team-a/w");
  ASSERT_EQ(both.skipped.size(), 1u);
  EXPECT_EQ(both.skipped[0].reason, "pod 'ml/w-0': the file's Workloads are its jobs");
  // `kubectl get workload w -o json`: the object itself.
  const JobTrace one = ReadJobTrace(wl, "one.json", std::nullopt, JobTraceDefaults{});
  ASSERT_EQ(one.jobs.size(), 1u);
  EXPECT_DOUBLE_EQ(one.jobs[0].run_s, 600);
  EXPECT_DOUBLE_EQ(one.jobs[0].measured_wait_s, 10);
}

TEST(KubernetesJobs, BrokenHistoriesAreOneLineErrorsOrSkippedItems) {
  const JobTraceDefaults d;
  EXPECT_EQ(DetectJobTraceFormat("{"), JobTraceFormat::kKubernetes);
  EXPECT_EQ(DetectJobTraceFormat("  {\"apiVersion\": \"v1\","), JobTraceFormat::kKubernetes);
  EXPECT_CONTAINS(InputErrorOf([&] { ReadJobTrace("{\"items\": [", "t.json", std::nullopt, d); }),
                  "t.json: not JSON: ");
  EXPECT_EQ(InputErrorOf([&] { ReadJobTrace("{\"kind\": \"Service\"}", "s.json", std::nullopt, d); }),
            "s.json: not a Kubernetes history: expected the JSON of `kubectl get workloads.kueue.x-k8s.io -A -o json` "
            "or `kubectl get pods -A -o json` (a List with \"items\")");
  EXPECT_EQ(InputErrorOf([&] { ReadJobTrace("[1, 2]", "a.json", JobTraceFormat::kKubernetes, d); }),
            "a.json: not a Kubernetes history: expected the JSON of `kubectl get workloads.kueue.x-k8s.io -A -o json` "
            "or `kubectl get pods -A -o json` (a List with \"items\")");
  // Nested deeper than the one JSON bound (util/json_parse.h).
  EXPECT_CONTAINS(InputErrorOf([&] {
                    ReadJobTrace("{\"items\":" + std::string(100, '[') + std::string(100, ']') + "}", "d.json",
                                 std::nullopt, d);
                  }),
                  "d.json: not JSON: ");
  // Items that are not jobs: wrong kinds, wrong types, times without a zone, absurd quantities.
  const JobTrace t = ReadJobTrace(List({R"({"kind":"Service","metadata":{"name":"s"}})", R"("text")",
                                        Workload("tz", "2026-03-01T10:00:00+01:00", PodSet("m", 1, "8"),
                                                 Condition("Admitted", "True", "2026-03-01T10:00:10Z")),
                                        Workload("big", "2026-03-01T10:00:00Z", PodSet("m", 1000000, "99999999"),
                                                 Condition("Admitted", "True", "2026-03-01T10:00:10Z") + "," +
                                                     Condition("Finished", "True", "2026-03-01T10:00:20Z")),
                                        Workload("neg", "2026-03-01T10:00:00Z", PodSet("m", -2, "8"),
                                                 Condition("Admitted", "True", "2026-03-01T10:00:10Z") + "," +
                                                     Condition("Finished", "True", "2026-03-01T10:00:20Z")),
                                        R"({"kind":"Workload","metadata":{"name":7},"status":[]})"}),
                                  "x.json", std::nullopt, d);
  EXPECT_TRUE(t.jobs.empty());
  ASSERT_EQ(t.skipped.size(), 6u);
  EXPECT_EQ(t.skipped[0].reason, "item 's': kind 'Service' is neither a Workload nor a Pod");
  EXPECT_EQ(t.skipped[0].line, 4);
  EXPECT_EQ(t.skipped[1].reason, "item '': kind '' is neither a Workload nor a Pod");
  EXPECT_EQ(t.skipped[2].reason, "workload 'team-a/tz': metadata.creationTimestamp is not an RFC 3339 UTC time");
  EXPECT_EQ(t.skipped[3].reason, "workload 'team-a/big': a GPU count of its pod sets is not a whole number");
  EXPECT_EQ(t.skipped[4].reason, "workload 'team-a/neg': a GPU count of its pod sets is not a whole number");
  EXPECT_EQ(t.skipped[5].reason, "workload '': never admitted: no status");
}

}  // namespace
}  // namespace paratune
