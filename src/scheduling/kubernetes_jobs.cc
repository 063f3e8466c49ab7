// A Kubernetes cluster's job history as `kubectl ... -o json` writes it: a List of Kueue Workload
// objects (`kubectl get workloads.kueue.x-k8s.io -A -o json`; Kueue API reference, "Workload",
// kueue.x-k8s.io/v1beta1 and v1beta2) or of Pods (`kubectl get pods -A -o json`; Kubernetes API
// reference, "Pod v1 core").
// - A Workload is one job: submitted at metadata.creationTimestamp, started when its Admitted
//   condition (QuotaReserved where Kueue had no Admitted condition yet) last turned True, ended
//   when its Finished condition turned True; its GPUs are the nvidia.com/gpu (or amd.com/gpu)
//   of status.admission's podSetAssignments[].resourceUsage, else of spec.podSets (count x
//   per-pod request). Kueue's own wait metric is the same span ("time between a workload was
//   created or requeued until admission", kueue_admission_wait_time_seconds, Kueue docs
//   "Prometheus Metrics"); a workload that was evicted (an Evicted condition, or
//   status.requeueState) keeps only its last admission, so its measured wait is not known.
// - Pods of one controller (metadata.ownerReferences with controller: true: a Job, JobSet,
//   PyTorchJob...) are one job: its GPUs the sum of the pods' (each pod max(sum of containers,
//   largest init container): "Resource sharing within containers", Kubernetes docs "Init
//   Containers"), submitted at the first pod's creation, started when the last pod was scheduled
//   (PodScheduled True: a gang starts when all its pods are placed), ended at the last
//   container's terminated.finishedAt. A file holding Workloads reads those and skips its pods.
// Times are RFC 3339 UTC ("2026-01-05T10:00:00Z", metav1.Time), rebased so the earliest
// submission is 0. docs/cluster-traces.md, "Kubernetes".
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>

#include <fmt/format.h>
#include <simdjson.h>

#include "scheduling/gpu_resources.h"
#include "scheduling/job_history_reader.h"
#include "scheduling/job_rows.h"
#include "util/error.h"
#include "util/json_parse.h"
#include "util/text.h"
#include "util/timestamp.h"

namespace paratune {
namespace {

using Element = simdjson::dom::element;

// One item of the List: its kind, the line where it starts, and the item itself.
struct Item {
  std::string_view kind;
  int line = 0;
  Element e;
};

// e[key] when it is there (any type), else nullopt.
std::optional<Element> Get(Element e, std::string_view key) {
  Element v;
  if (e.at_key(key).get(v)) return std::nullopt;
  return v;
}

std::string_view StringAt(Element e, std::string_view key) {
  std::string_view s;
  return e.at_key(key).get_string().get(s) ? std::string_view() : s;
}

// The string at a JSON pointer ("/metadata/name"); empty when it is absent or not a string.
std::string_view StringAtPointer(Element e, std::string_view pointer) {
  std::string_view s;
  return e.at_pointer(pointer).get_string().get(s) ? std::string_view() : s;
}

// A metav1.Time ("2026-01-05T10:00:00Z") in seconds since the epoch; nullopt when it is not one.
std::optional<double> K8sTime(std::string_view s) {
  if (s.empty() || s.back() != 'Z') return std::nullopt;
  return ParseTimestamp(s.substr(0, s.size() - 1));
}

// The GPUs of a resource map ({"nvidia.com/gpu": "8", "cpu": "64"}): 0 without any; -1 when a
// GPU quantity is not a whole number (a Kubernetes quantity is a string, or a number).
int64_t GpusOf(std::optional<Element> resources) {
  if (!resources) return 0;
  int64_t total = 0;
  for (std::string_view name : kGpuResources) {
    const std::optional<Element> q = Get(*resources, name);
    if (!q) continue;
    int64_t n = 0;
    std::string_view s;
    if (!q->get_string().get(s)) {
      if (ParseInteger(s, &n) != NumberParse::kOk) return -1;
    } else if (q->get_int64().get(n)) {
      return -1;
    }
    if (n < 0 || n > kMaxJobGpus) return -1;
    total += n;
  }
  return total;
}

// A container's GPUs: its requests, else its limits (an extended resource's request defaults to
// its limit).
int64_t ContainerGpus(Element c) {
  const std::optional<Element> r = Get(c, "resources");
  if (!r) return 0;
  const int64_t req = GpusOf(Get(*r, "requests"));
  return req != 0 ? req : GpusOf(Get(*r, "limits"));
}

// A pod spec's GPUs: max(sum of its containers, largest init container); -1 when one is unreadable.
int64_t PodSpecGpus(Element spec) {
  int64_t sum = 0, init = 0;
  simdjson::dom::array a;
  if (!spec.at_key("containers").get(a))
    for (Element c : a) {
      const int64_t g = ContainerGpus(c);
      if (g < 0) return -1;
      sum += g;
    }
  if (!spec.at_key("initContainers").get(a))
    for (Element c : a) {
      const int64_t g = ContainerGpus(c);
      if (g < 0) return -1;
      init = std::max(init, g);
    }
  return std::max(sum, init);
}

// The lastTransitionTime of the condition `type` when its status is True; nullopt otherwise.
std::optional<double> ConditionTime(Element status, std::string_view type) {
  simdjson::dom::array a;
  if (status.at_key("conditions").get(a)) return std::nullopt;
  for (Element c : a)
    if (StringAt(c, "type") == type && StringAt(c, "status") == "True")
      return K8sTime(StringAt(c, "lastTransitionTime"));
  return std::nullopt;
}

bool HasCondition(Element status, std::string_view type) {
  simdjson::dom::array a;
  if (status.at_key("conditions").get(a)) return false;
  for (Element c : a)
    if (StringAt(c, "type") == type) return true;
  return false;
}

// A job read from the history, or why an item is not one (then `reason` is set).
struct K8sJob {
  Job job;
  int64_t gpus = 0;
  double submit = 0, start = 0, end = 0;
  std::optional<Locality> locality;  // Kueue TAS: set over the defaults
  std::string reason;
};

K8sJob NotAJob(std::string reason) {
  K8sJob j;
  j.reason = std::move(reason);
  return j;
}

std::string NameOf(Element e) {
  const std::string_view ns = StringAtPointer(e, "/metadata/namespace"), name = StringAtPointer(e, "/metadata/name");
  return ns.empty() ? std::string(name) : fmt::format("{}/{}", ns, name);
}

// A Workload's GPUs: the admission's resource usage, else the pod sets' count x per-pod GPUs.
int64_t WorkloadGpus(Element w) {
  int64_t total = 0;
  simdjson::dom::array a;
  const std::optional<Element> status = Get(w, "status");
  const std::optional<Element> admission = status ? Get(*status, "admission") : std::nullopt;
  if (admission && !admission->at_key("podSetAssignments").get(a)) {
    for (Element p : a) {
      const int64_t g = GpusOf(Get(p, "resourceUsage"));
      if (g < 0) return -1;
      total += g;
    }
    return total;
  }
  if (w.at_pointer("/spec/podSets").get(a)) return 0;
  for (Element p : a) {
    int64_t count = 1;
    if (const std::optional<Element> c = Get(p, "count"); c && (c->get_int64().get(count) || count < 0)) return -1;
    Element spec;
    const int64_t g = p.at_pointer("/template/spec").get(spec) ? 0 : PodSpecGpus(spec);
    if (g < 0 || (g > 0 && count > kMaxJobGpus / g)) return -1;
    total += count * g;
    if (total > kMaxJobGpus) return -1;
  }
  return total;
}

K8sJob ReadWorkload(Element w) {
  Element status;
  if (w.at_key("status").get(status) || !status.is_object()) return NotAJob("never admitted: no status");
  const std::optional<double> created = K8sTime(StringAtPointer(w, "/metadata/creationTimestamp"));
  if (!created) return NotAJob("metadata.creationTimestamp is not an RFC 3339 UTC time");
  std::optional<double> admitted = ConditionTime(status, "Admitted");
  if (!admitted && !HasCondition(status, "Admitted")) admitted = ConditionTime(status, "QuotaReserved");
  const std::optional<double> finished = ConditionTime(status, "Finished");
  if (!admitted) return NotAJob(finished ? "finished without an admission" : "never admitted (pending)");
  if (!finished) return NotAJob("still running: not Finished");
  const int64_t gpus = WorkloadGpus(w);
  if (gpus < 0) return NotAJob("a GPU count of its pod sets is not a whole number");
  if (gpus == 0) return NotAJob("no GPUs: no nvidia.com/gpu in its pod sets");
  K8sJob j;
  j.gpus = gpus;
  j.submit = *created;
  j.start = *admitted;
  j.end = *finished;
  int64_t priority = 0;  // spec.priority: the WorkloadPriorityClass (or PriorityClass) value
  if (const auto error = w.at_pointer("/spec/priority").get(priority); error && error != simdjson::NO_SUCH_FIELD)
    return NotAJob("spec.priority is not an integer");
  j.job.priority = static_cast<double>(priority);
  // The ClusterQueue that admitted it (Kueue's quota, cohorts and preemption are per ClusterQueue),
  // and topology-aware scheduling: a pod set's topologyRequest (Kueue TAS, the
  // kueue.x-k8s.io/podset-required-topology and -preferred-topology annotations) makes the job's
  // locality hard when a level is required, soft when one is only preferred.
  j.job.queue = std::string(StringAtPointer(w, "/status/admission/clusterQueue"));
  simdjson::dom::array sets;
  if (!w.at_pointer("/spec/podSets").get(sets))
    for (Element p : sets) {
      if (!StringAtPointer(p, "/topologyRequest/required").empty())
        j.locality = Locality::kHard;
      else if (!StringAtPointer(p, "/topologyRequest/preferred").empty() && !j.locality)
        j.locality = Locality::kSoft;
    }
  const bool evicted = HasCondition(status, "Evicted") || Get(status, "requeueState").has_value();
  if (!evicted) j.job.measured_wait_s = *admitted - *created;
  return j;
}

// One pod's share of its job: GPUs, creation, scheduling and end; `reason` when it ran no GPU work.
K8sJob ReadPod(Element p) {
  const std::optional<double> created = K8sTime(StringAtPointer(p, "/metadata/creationTimestamp"));
  if (!created) return NotAJob("metadata.creationTimestamp is not an RFC 3339 UTC time");
  Element spec, status;
  if (p.at_key("spec").get(spec) || p.at_key("status").get(status)) return NotAJob("no spec or status");
  const int64_t gpus = PodSpecGpus(spec);
  if (gpus < 0) return NotAJob("a GPU count of its containers is not a whole number");
  if (gpus == 0) return NotAJob("no GPUs: no nvidia.com/gpu in its containers");
  const std::string_view phase = StringAt(status, "phase");
  const std::optional<double> scheduled = ConditionTime(status, "PodScheduled");
  if (!scheduled) return NotAJob(fmt::format("never scheduled (phase {})", Quote(phase)));
  if (phase != "Succeeded" && phase != "Failed") return NotAJob(fmt::format("still running (phase {})", Quote(phase)));
  double end = -std::numeric_limits<double>::infinity();
  simdjson::dom::array a;
  if (!status.at_key("containerStatuses").get(a))
    for (Element c : a)
      if (const std::optional<double> t = K8sTime(StringAtPointer(c, "/state/terminated/finishedAt")))
        end = std::max(end, *t);
  if (!std::isfinite(end)) return NotAJob("no container has a terminated.finishedAt");
  K8sJob j;
  j.gpus = gpus;
  j.submit = *created;
  j.start = *scheduled;
  j.end = end;
  return j;
}

// The controller a pod belongs to ("ns/Job/name"), or the pod itself.
std::string OwnerKey(Element p) {
  simdjson::dom::array owners;
  if (!p.at_pointer("/metadata/ownerReferences").get(owners))
    for (Element o : owners) {
      bool controller = false;
      if (!o.at_key("controller").get(controller) && controller) {
        return fmt::format("{}/{}/{}", StringAtPointer(p, "/metadata/namespace"), StringAt(o, "kind"),
                           StringAt(o, "name"));
      }
    }
  return NameOf(p);
}

// The line where each item of the List starts (for messages), from a second, on-demand pass
// that only finds where each item's text begins; empty when the document has no "items" array.
std::vector<int> ItemLines(const simdjson::padded_string& json) {
  namespace od = simdjson::ondemand;
  std::vector<int> lines;
  od::parser parser;
  od::document doc;
  od::array items;
  if (parser.allocate(json.size(), kMaxJsonDepth) || parser.iterate(json).get(doc) ||
      doc["items"].get_array().get(items))
    return {};
  int line = 1;
  const char* at = json.data();
  for (auto v : items) {
    od::value value;
    od::json_type type;
    std::string_view raw;
    if (v.get(value) || value.type().get(type)) return {};
    if (type == od::json_type::object) {
      od::object o;
      if (value.get_object().get(o) || o.raw_json().get(raw)) return {};
    } else if (type == od::json_type::array) {
      od::array a;
      if (value.get_array().get(a) || a.raw_json().get(raw)) return {};
    } else {
      raw = value.raw_json_token();
    }
    line += static_cast<int>(std::count(at, raw.data(), '\n'));
    at = raw.data();
    lines.push_back(line);
  }
  return lines;
}

// The List's items with their kinds and lines; a single Workload or Pod object is a List of one.
std::vector<Item> ItemsOf(Element root, const simdjson::padded_string& json, const std::string& where) {
  std::vector<Item> out;
  simdjson::dom::array items;
  if (root.at_key("items").get(items)) {
    const std::string_view kind = StringAt(root, "kind");
    if (kind != "Workload" && kind != "Pod")
      throw InputError(where +
                       ": not a Kubernetes history: expected the JSON of `kubectl get "
                       "workloads.kueue.x-k8s.io -A -o json` or `kubectl get pods -A -o json` (a List with "
                       "\"items\")");
    out.push_back({kind, 1, root});
    return out;
  }
  if (items.size() > kMaxTraceJobs) throw InputError(fmt::format("{}: more than {} items", where, kMaxTraceJobs));
  const std::vector<int> lines = ItemLines(json);
  for (Element e : items) {
    const int line = lines.size() == items.size() ? lines[out.size()] : 0;
    out.push_back({StringAt(e, "kind"), line, e});
  }
  return out;
}

// Folds a pod into the job of its controller (GPUs summed, first creation, last scheduling, last end).
void FoldPod(K8sJob& job, const K8sJob& pod) {
  job.gpus = std::min(job.gpus + pod.gpus, kMaxJobGpus + 1);
  job.submit = std::min(job.submit, pod.submit);
  job.start = std::max(job.start, pod.start);
  job.end = std::max(job.end, pod.end);
}

// The jobs of the history in reading order; items that are not one are skipped with their reason.
std::vector<K8sJob> ReadItems(const std::vector<Item>& items, job_rows::JobTraceBuilder& builder) {
  const bool workloads = std::any_of(items.begin(), items.end(), [](const Item& i) { return i.kind == "Workload"; });
  std::vector<K8sJob> jobs;
  std::map<std::string, size_t> by_owner;
  for (const Item& item : items) {
    const std::string name = NameOf(item.e);
    if (item.kind != "Workload" && item.kind != "Pod") {
      builder.Skip(item.line,
                   fmt::format("item {}: kind {} is neither a Workload nor a Pod", Quote(name), Quote(item.kind)));
      continue;
    }
    if (item.kind == "Pod" && workloads) {
      builder.Skip(item.line, fmt::format("pod {}: the file's Workloads are its jobs", Quote(name)));
      continue;
    }
    K8sJob j = item.kind == "Workload" ? ReadWorkload(item.e) : ReadPod(item.e);
    if (!j.reason.empty()) {
      builder.Skip(item.line, fmt::format("{} {}: {}", item.kind == "Pod" ? "pod" : "workload", Quote(name), j.reason));
      continue;
    }
    j.job.line = item.line;
    j.job.name = item.kind == "Pod" ? OwnerKey(item.e) : name;
    if (item.kind == "Workload") {
      jobs.push_back(std::move(j));
      continue;
    }
    const auto [at, fresh] = by_owner.emplace(j.job.name, jobs.size());
    if (fresh)
      jobs.push_back(std::move(j));
    else
      FoldPod(jobs[at->second], j);
  }
  if (!workloads)
    for (K8sJob& j : jobs) j.job.measured_wait_s = j.start - j.submit;
  return jobs;
}

}  // namespace

JobTrace ReadKubernetesJobs(std::string_view text, const std::string& where, const JobTraceDefaults& defaults) {
  const simdjson::padded_string json(text);
  simdjson::dom::parser parser;
  Element root;
  if (parser.allocate(json.size(), kMaxJsonDepth)) throw std::bad_alloc();
  if (const auto error = parser.parse(json).get(root))
    throw InputError(fmt::format("{}: not JSON: {}", where, simdjson::error_message(error)));
  job_rows::JobTraceBuilder builder(where, JobTraceFormat::kKubernetes, defaults);
  std::vector<K8sJob> jobs = ReadItems(ItemsOf(root, json, where), builder);
  double first_submit = std::numeric_limits<double>::infinity();
  for (const K8sJob& j : jobs) first_submit = std::min(first_submit, j.submit);
  for (K8sJob& j : jobs) {
    j.job.submit_s = j.submit - first_submit;
    j.job.run_s = j.end - j.start;
    job_rows::ApplyDefaults(j.job, defaults);
    if (j.locality) j.job.locality = *j.locality;
    builder.Add(std::move(j.job), j.gpus);
  }
  return builder.Finish();
}

}  // namespace paratune
