#include "scheduling/kueue_config.h"

#include <algorithm>

#include <fmt/format.h>

#include "scheduling/gpu_resources.h"
#include "util/error.h"
#include "util/file.h"
#include "util/json_parse.h"
#include "util/text.h"

namespace paratune {

int64_t KueueClusterQueue::guaranteed_gpus() const {
  return lending_limit_gpus >= nominal_gpus ? 0 : nominal_gpus - lending_limit_gpus;
}

const KueueClusterQueue* KueueConfig::Find(std::string_view name) const {
  for (const auto& q : queues)
    if (q.name == name) return &q;
  return nullptr;
}

namespace {

using Json = nlohmann::json;
constexpr int64_t kMaxQuotaGpus = int64_t{1} << 40;

// The string at a JSON pointer ("/spec/cohort"); empty when absent or not a string.
std::string QueueString(const Json& e, const char* pointer) {
  const Json::json_pointer p(pointer);
  return e.contains(p) && e.at(p).is_string() ? e.at(p).get<std::string>() : std::string();
}

// The array at a key; empty when absent or not an array.
const Json& ArrayAt(const Json& e, const char* key) {
  static const Json kEmpty = Json::array();
  return e.is_object() && e.contains(key) && e.at(key).is_array() ? e.at(key) : kEmpty;
}

// A Kubernetes quantity of whole GPUs ("16" or 16); -1 when it is not one.
int64_t QuotaGpus(const Json& q) {
  int64_t n = -1;
  if (q.is_string()) {
    if (ParseInteger(q.get<std::string>(), &n) != NumberParse::kOk) return -1;
  } else if (q.is_number_integer()) {
    n = q.get<int64_t>();
  }
  return n < 0 || n > kMaxQuotaGpus ? -1 : n;
}

// Adds a resource's GPU quantities (nominalQuota, borrowingLimit, lendingLimit) over the flavors.
void AddResource(const Json& r, const std::string& where, KueueClusterQueue* q, bool* borrow_set, bool* lend_set) {
  const std::string name = QueueString(r, "/name");
  if (std::find(std::begin(kGpuResources), std::end(kGpuResources), name) == std::end(kGpuResources)) return;
  const auto read = [&](const char* key, int64_t* into, bool* set) {
    if (!r.contains(key)) return;
    const int64_t n = QuotaGpus(r.at(key));
    if (n < 0)
      throw InputError(
          fmt::format("{}: ClusterQueue {}: {} of {} is not a whole number of GPUs", where, Quote(q->name), key, name));
    if (set && !*set) *into = 0, *set = true;
    *into = std::min(kMaxQuotaGpus, *into + n);
  };
  read("nominalQuota", &q->nominal_gpus, nullptr);
  read("borrowingLimit", &q->borrowing_limit_gpus, borrow_set);
  read("lendingLimit", &q->lending_limit_gpus, lend_set);
}

template <typename E, size_t N>
E QueueChoice(const std::string& value, const std::pair<const char*, E> (&choices)[N], const std::string& where,
              const std::string& queue, const char* field) {
  if (value.empty()) return choices[0].second;
  for (const auto& [name, e] : choices)
    if (value == name) return e;
  std::string known;
  for (const auto& [name, e] : choices) known += known.empty() ? name : std::string(", ") + name;
  throw InputError(
      fmt::format("{}: ClusterQueue {}: {} {} is not one of {}", where, Quote(queue), field, Quote(value), known));
}

KueueClusterQueue ReadClusterQueue(const Json& cq, const std::string& where) {
  KueueClusterQueue q;
  q.name = QueueString(cq, "/metadata/name");
  if (q.name.empty()) throw InputError(where + ": a ClusterQueue without metadata.name");
  q.cohort = QueueString(cq, "/spec/cohort");
  if (q.cohort.empty()) q.cohort = QueueString(cq, "/spec/cohortName");
  q.strict_fifo = QueueChoice(QueueString(cq, "/spec/queueingStrategy"),
                              {std::pair{"BestEffortFIFO", false}, std::pair{"StrictFIFO", true}}, where, q.name,
                              "spec.queueingStrategy");
  q.reclaim =
      QueueChoice(QueueString(cq, "/spec/preemption/reclaimWithinCohort"),
                  {std::pair{"Never", KueueReclaim::kNever}, std::pair{"LowerPriority", KueueReclaim::kLowerPriority},
                   std::pair{"Any", KueueReclaim::kAny}},
                  where, q.name, "spec.preemption.reclaimWithinCohort");
  q.within =
      QueueChoice(QueueString(cq, "/spec/preemption/withinClusterQueue"),
                  {std::pair{"Never", KueueWithin::kNever}, std::pair{"LowerPriority", KueueWithin::kLowerPriority},
                   std::pair{"LowerOrNewerEqualPriority", KueueWithin::kLowerOrNewerEqualPriority}},
                  where, q.name, "spec.preemption.withinClusterQueue");
  bool borrow_set = false, lend_set = false;
  const Json::json_pointer groups("/spec/resourceGroups");
  if (cq.contains(groups) && cq.at(groups).is_array())
    for (const Json& g : cq.at(groups))
      for (const Json& f : ArrayAt(g, "flavors"))
        for (const Json& r : ArrayAt(f, "resources")) AddResource(r, where, &q, &borrow_set, &lend_set);
  return q;
}

}  // namespace

KueueConfig ParseKueueConfig(std::string_view text, const std::string& where) {
  Json root;
  try {
    root = ParseJson(text, where);
  } catch (const Json::parse_error& e) {
    throw InputError(fmt::format("{}: not JSON: {}", where, e.what()));
  } catch (const Json::out_of_range& e) {  // a number beyond double, e.g. 4e2026 (no position given)
    throw InputError(fmt::format("{}: not JSON: {}", where, e.what()));
  }
  KueueConfig c;
  c.path = where;
  const auto add = [&](const Json& item) {
    const std::string kind = QueueString(item, "/kind");
    if (kind != "ClusterQueue")
      throw InputError(fmt::format("{}: an item of kind {} is not a ClusterQueue", where, Quote(kind)));
    KueueClusterQueue q = ReadClusterQueue(item, where);
    if (c.Find(q.name)) throw InputError(fmt::format("{}: ClusterQueue {} is listed twice", where, Quote(q.name)));
    c.queues.push_back(std::move(q));
  };
  if (root.is_object() && root.contains("items") && root.at("items").is_array())
    for (const Json& item : root.at("items")) add(item);
  else
    add(root);
  if (c.queues.empty()) throw InputError(where + ": no ClusterQueue");
  return c;
}

KueueConfig ReadKueueConfig(const std::string& path) {
  RequireRegularFile(path);
  return ParseKueueConfig(ReadMaybeGzipFile(path, size_t{64} << 20), path);
}

}  // namespace paratune
