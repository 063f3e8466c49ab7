#include "scheduling/kueue_config.h"

#include <algorithm>

#include <fmt/format.h>
#include <simdjson.h>

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

using Element = simdjson::dom::element;
constexpr int64_t kMaxQuotaGpus = int64_t{1} << 40;

// The string at a JSON pointer; empty when absent or not a string.
std::string_view QueueString(Element e, std::string_view pointer) {
  std::string_view s;
  return e.at_pointer(pointer).get_string().get(s) ? std::string_view() : s;
}

// A Kubernetes quantity of whole GPUs ("16" or 16); -1 when it is not one.
int64_t QuotaGpus(Element q) {
  int64_t n = -1;
  std::string_view s;
  if (!q.get_string().get(s)) {
    if (ParseInteger(s, &n) != NumberParse::kOk) return -1;
  } else if (q.get_int64().get(n)) {
    return -1;
  }
  return n < 0 || n > kMaxQuotaGpus ? -1 : n;
}

// Adds a resource's GPU quantities (nominalQuota, borrowingLimit, lendingLimit) over the flavors.
void AddResource(Element r, const std::string& where, KueueClusterQueue* q, bool* borrow_set, bool* lend_set) {
  const std::string_view name = QueueString(r, "/name");
  if (std::find(std::begin(kGpuResources), std::end(kGpuResources), name) == std::end(kGpuResources)) return;
  const auto read = [&](const char* key, int64_t* into, bool* set) {
    Element v;
    if (r.at_key(key).get(v)) return;
    const int64_t n = QuotaGpus(v);
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
E QueueChoice(std::string_view value, const std::pair<const char*, E> (&choices)[N], const std::string& where,
              const std::string& queue, const char* field) {
  if (value.empty()) return choices[0].second;
  for (const auto& [name, e] : choices)
    if (value == name) return e;
  std::string known;
  for (const auto& [name, e] : choices) known += known.empty() ? name : std::string(", ") + name;
  throw InputError(
      fmt::format("{}: ClusterQueue {}: {} {} is not one of {}", where, Quote(queue), field, Quote(value), known));
}

KueueClusterQueue ReadClusterQueue(Element cq, const std::string& where) {
  KueueClusterQueue q;
  q.name = std::string(QueueString(cq, "/metadata/name"));
  if (q.name.empty()) throw InputError(where + ": a ClusterQueue without metadata.name");
  q.cohort = std::string(QueueString(cq, "/spec/cohort"));
  if (q.cohort.empty()) q.cohort = std::string(QueueString(cq, "/spec/cohortName"));
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
  simdjson::dom::array groups, flavors, resources;
  if (!cq.at_pointer("/spec/resourceGroups").get(groups))
    for (Element g : groups)
      if (!g.at_key("flavors").get(flavors))
        for (Element f : flavors)
          if (!f.at_key("resources").get(resources))
            for (Element r : resources) AddResource(r, where, &q, &borrow_set, &lend_set);
  return q;
}

}  // namespace

KueueConfig ParseKueueConfig(std::string_view text, const std::string& where) {
  const simdjson::padded_string json(text);
  simdjson::dom::parser parser;
  Element root;
  if (parser.allocate(json.size(), kMaxJsonDepth)) throw std::bad_alloc();
  if (const auto error = parser.parse(json).get(root))
    throw InputError(fmt::format("{}: not JSON: {}", where, simdjson::error_message(error)));
  KueueConfig c;
  c.path = where;
  const auto add = [&](Element item) {
    if (QueueString(item, "/kind") != "ClusterQueue")
      throw InputError(
          fmt::format("{}: an item of kind {} is not a ClusterQueue", where, Quote(QueueString(item, "/kind"))));
    KueueClusterQueue q = ReadClusterQueue(item, where);
    if (c.Find(q.name)) throw InputError(fmt::format("{}: ClusterQueue {} is listed twice", where, Quote(q.name)));
    c.queues.push_back(std::move(q));
  };
  simdjson::dom::array items;
  if (!root.at_key("items").get(items))
    for (Element item : items) add(item);
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
