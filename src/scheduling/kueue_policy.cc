// The `kueue` policy: Kueue's admission under the cluster's ClusterQueues (KueueConfig,
// --kueue-config), so that a replay of a Kueue history can be set beside the queueing it recorded
// and a changed quota compared. What it follows (Kueue's concepts: cluster_queue, cohort,
// preemption, topology_aware_scheduling, https://kueue.sigs.k8s.io/docs/concepts/):
// - Workloads in order of priority (spec.priority) then creation; a workload is admitted when its
//   ClusterQueue's quota holds it: its usage plus the workload within its nominal quota, or, in a
//   cohort, beyond it by at most its borrowingLimit out of what the cohort's queues lend (their
//   nominal quota less what they keep: nominal - lendingLimit) and do not use themselves.
// - StrictFIFO: a queue's head that cannot be admitted blocks the queue; BestEffortFIFO (the
//   default): the workloads behind it are tried.
// - Preemption, when the quota is what stops a workload: reclaimWithinCohort (Any, or
//   LowerPriority) evicts workloads of other queues of its cohort that borrow, when the workload
//   fits its own nominal quota; withinClusterQueue (LowerPriority, LowerOrNewerEqualPriority)
//   evicts its own queue's lower-priority workloads. Victims in Kueue's order: from borrowing
//   queues first, lowest priority, most recently started. They are requeued.
// - Admission needs GPUs too (the pods must be placed): a workload whose pod sets require a
//   topology level (TAS, locality hard) takes only a packed placement (ClusterState::BestFit);
//   the others the packed one, else whole nodes across leaves.
// A workload whose ClusterQueue is not in the configuration has no quota: only the GPUs limit it.
#include <algorithm>
#include <map>

#include "scheduling/kueue_config.h"
#include "scheduling/policy.h"

namespace paratune {

namespace {

class KueuePolicy : public Policy {
 public:
  void Schedule(Scheduler& s) override;

 private:
  struct Usage {
    std::map<std::string, int64_t> by_queue;
  };
  bool FitsQuota(const KueueClusterQueue* q, int64_t gpus, const Usage& u) const;
  std::optional<Placement> Place(const Scheduler& s, const Job& j) const;
  bool Preempt(Scheduler& s, int64_t id, const KueueClusterQueue& q, Usage& u);
  const KueueConfig* config_ = nullptr;
};

// Whether `q` can take `gpus` more: within its quota, or in its cohort within its borrowing limit
// and the GPUs the cohort's queues lend and do not use themselves.
bool KueuePolicy::FitsQuota(const KueueClusterQueue* q, int64_t gpus, const Usage& u) const {
  if (!q) return true;
  const auto used = [&](const std::string& name) {
    auto it = u.by_queue.find(name);
    return it == u.by_queue.end() ? int64_t{0} : it->second;
  };
  const int64_t own = used(q->name) + gpus;
  if (q->cohort.empty()) return own <= q->nominal_gpus;
  if (own > q->nominal_gpus && own - q->nominal_gpus > q->borrowing_limit_gpus) return false;
  int64_t lent = 0, lent_used = 0;
  for (const KueueClusterQueue& c : config_->queues) {
    if (c.cohort != q->cohort) continue;
    const int64_t g = c.guaranteed_gpus();
    lent += c.nominal_gpus - g;
    lent_used += std::max<int64_t>(0, (c.name == q->name ? own : used(c.name)) - g);
  }
  return lent_used <= lent;
}

std::optional<Placement> KueuePolicy::Place(const Scheduler& s, const Job& j) const {
  const ClusterState& state = s.state();
  for (int t : state.TypesFor(j.gpu_type)) {
    if (auto p = state.BestFit(t, j.gpus)) return p;
    if (j.locality == Locality::kHard) continue;
    if (auto p = state.WholeNodesFit(t, j.gpus)) return p;
  }
  return std::nullopt;
}

bool KueuePolicy::Preempt(Scheduler& s, int64_t id, const KueueClusterQueue& q, Usage& u) {
  const Job& j = s.job(id);
  const bool reclaim =
      q.reclaim != KueueReclaim::kNever && !q.cohort.empty() && u.by_queue[q.name] + j.gpus <= q.nominal_gpus;
  // (from a borrowing queue first, priority, -start, -id): the victims in Kueue's order, the most
  // recently admitted first.
  std::vector<std::tuple<int, double, double, int64_t>> candidates;
  for (const auto& [rid, run] : s.running()) {
    const Job& r = s.job(rid);
    const KueueClusterQueue* rq = config_->Find(r.queue);
    if (!rq) continue;
    bool ok = false;
    if (rq == &q) {
      ok = (q.within == KueueWithin::kLowerPriority && r.priority < j.priority) ||
           (q.within == KueueWithin::kLowerOrNewerEqualPriority &&
            (r.priority < j.priority || (r.priority == j.priority && r.submit_s > j.submit_s)));
    } else if (reclaim && rq->cohort == q.cohort && u.by_queue[rq->name] > rq->nominal_gpus) {
      ok = q.reclaim == KueueReclaim::kAny || r.priority < j.priority;
    }
    if (ok) candidates.emplace_back(rq == &q ? 1 : 0, r.priority, -run.start_s, -rid);
  }
  std::sort(candidates.begin(), candidates.end());
  std::vector<int64_t> victims;
  for (const auto& c : candidates) {
    if (FitsQuota(&q, j.gpus, u)) break;
    const int64_t v = -std::get<3>(c);
    const Job& r = s.job(v);
    if (r.queue != q.name && u.by_queue[r.queue] <= config_->Find(r.queue)->nominal_gpus)
      continue;  // no longer borrowing
    u.by_queue[r.queue] -= r.gpus;
    victims.push_back(v);
  }
  if (!FitsQuota(&q, j.gpus, u)) {
    for (int64_t v : victims) u.by_queue[s.job(v).queue] += s.job(v).gpus;
    return false;
  }
  for (int64_t v : victims) s.Preempt(v);
  return true;
}

void KueuePolicy::Schedule(Scheduler& s) {
  static const KueueConfig kNone;
  config_ = s.options().kueue ? s.options().kueue : &kNone;
  Usage u;
  for (const auto& [id, run] : s.running()) u.by_queue[s.job(id).queue] += s.job(id).gpus;
  std::vector<int64_t> queue;
  for (const QueueKey& k : s.pending()) {
    if (static_cast<int>(queue.size()) >= s.options().backfill_depth) break;
    queue.push_back(QueuedJob(k));
  }
  std::vector<std::string> blocked;  // StrictFIFO queues whose head could not be admitted
  for (int64_t id : queue) {
    const Job& j = s.job(id);
    if (std::find(blocked.begin(), blocked.end(), j.queue) != blocked.end()) continue;
    const KueueClusterQueue* q = config_->Find(j.queue);
    bool quota = FitsQuota(q, j.gpus, u);
    if (!quota && q) quota = Preempt(s, id, *q, u);
    std::optional<Placement> p;
    if (quota) p = Place(s, j);
    if (p) {
      s.Start(id, *p);
      u.by_queue[j.queue] += j.gpus;
    } else if (q && q->strict_fifo) {
      blocked.push_back(j.queue);
    }
  }
}

}  // namespace

std::unique_ptr<Policy> MakeKueuePolicy() { return std::make_unique<KueuePolicy>(); }

}  // namespace paratune
