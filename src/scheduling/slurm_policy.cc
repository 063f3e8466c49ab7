// The `slurm` policy: Slurm's own scheduling under the cluster's slurm.conf (SlurmConfig), so that
// a replay of a Slurm history under its configuration can be set beside the queueing it recorded,
// and a changed configuration compared. What it follows (Slurm's scheduling documentation,
// https://slurm.schedmd.com/sched_config.html, and slurm.conf(5)):
// - The queue order: partition PriorityTier, then job priority (priority/multifactor, or submit
//   order under priority/basic), then submit time (priority_multifactor.html, "jobs are
//   evaluated in the following order"); the job's class and priority come from ApplySlurmConfig.
// - The main scheduler, at every submission and completion: jobs in that order, each started
//   when its nodes are free, up to the first that cannot start (default_queue_depth at most).
// - The backfill scheduler (sched/backfill), every bf_interval when something arrived or ended:
//   up to bf_max_job_test jobs in order; a job that can start now without delaying any earlier
//   job's reservation starts; one that cannot gets a reservation at the earliest time its GPUs
//   are free (within bf_window), assuming every job runs to its time limit. sched/builtin has
//   the main scheduler only.
// - Placement by TopologyPlugin: flat (none), the lowest-numbered nodes that fit; tree, the best
//   fitting leaf (ClusterState::BestFit), spanning leaves when none holds the job; block, only
//   inside one NVLink domain / block (or the fewest), the job waits otherwise.
// - Preemption (PreemptType=preempt/partition_prio with PreemptMode=REQUEUE or CANCEL): a job of
//   the highest PriorityTier that cannot start evicts lower-tier jobs (whole jobs, the least lost
//   work, after PreemptExemptTime), which are requeued. PreemptType=preempt/qos with the QOS table
//   (--slurm-qos; preempt.html, "QOS"): a job whose QOS lists others in Preempt evicts jobs of
//   those QOS, each by its QOS's PreemptMode and PreemptExemptTime (else the cluster's).
#include <algorithm>
#include <cmath>
#include <memory>

#include "scheduling/slurm_conf.h"
#include "scheduling/slurm_profile.h"
#include "scheduling/topo_preempt_policy.h"

namespace paratune {

namespace {

class SlurmPolicy : public TopoPreemptPolicy {
 public:
  bool by_class() const override { return true; }
  void Schedule(Scheduler& s) override;

 private:
  const SlurmConfig& Config(const Scheduler& s) const { return s.options().slurm ? *s.options().slurm : defaults_; }
  // The run time the scheduler assumes: the time limit, else the run time (a perfect estimate).
  double Limit(Scheduler& s, int64_t id) const;
  std::optional<Placement> Place(const Scheduler& s, const Job& j, const std::vector<char>* excluded) const;
  bool FitsNow(const Scheduler& s, const Job& j) const;
  // Which running jobs `j` may preempt under PreemptType (empty: none).
  MayGo Preemptable(const Scheduler& s, const Job& j) const;
  bool TryStart(Scheduler& s, int64_t id, const std::vector<char>* excluded);
  void Main(Scheduler& s);
  void Backfill(Scheduler& s);
  // The GPU counts and shortest limits of the jobs of any GPU type that could not start in the
  // pass: a job asking at least as many GPUs (on one node or whole nodes alike) for at least as
  // long cannot either.
  struct FailedSizes {
    std::vector<std::pair<int, double>> sizes;
    bool Dominate(const Job& j, double d, int per_node) const;
    void Add(const Job& j, double d);
  };
  // The blocked jobs' reservations from blocked_[reserved_upto_] on, in order, while the job
  // (limit d) still fits outside them: its placement then, or nullopt once one takes what it needs.
  std::optional<Placement> ReserveWhileItFits(Scheduler& s, const Job& j, double d, Placement p,
                                              std::vector<char>* excluded);
  // The profile of the running jobs, each holding its GPUs until its start plus its time limit.
  SlurmProfile& RunningProfile(const Scheduler& s);
  // The job's reservation at the earliest time its GPUs are free (within bf_window), held.
  std::optional<SlurmProfile::Slot> Reserve(Scheduler& s, int64_t id);

  // The reservations of the backfill pass so far, by GPU type and count: the (limit, start) pairs
  // none of the others has a shorter or equal limit and a later or equal start than (start
  // infinity when none before bf_window), by limit.
  struct ReservedSize {
    std::string gpu_type;
    int gpus;
    SlurmProfile::Search search;
    std::vector<std::pair<double, double>> front;
  };
  static void AddToFront(std::vector<std::pair<double, double>>* front, double limit_s, double start_s);
  std::vector<ReservedSize> reserved_;
  std::vector<int64_t> blocked_;  // the pass's blocked jobs in queue order
  size_t reserved_upto_ = 0;      // those before it have their reservations
  SlurmConfig defaults_;
  std::unique_ptr<SlurmProfile> profile_;  // kept between passes for its buffers
  double next_backfill_s_ = 0;
  int64_t backfilled_events_ = -1;
};

double SlurmPolicy::Limit(Scheduler& s, int64_t id) const {
  const Job& j = s.job(id);
  return std::isfinite(j.time_limit_s) ? j.time_limit_s : s.remaining_work_s(id) + j.restart_overhead_s;
}

std::optional<Placement> SlurmPolicy::Place(const Scheduler& s, const Job& j, const std::vector<char>* excluded) const {
  const ClusterState& state = s.state();
  const SlurmPlacement mode = Config(s).placement;
  for (int t : state.TypesFor(j.gpu_type)) {
    const int per = s.topology().types[t].fabric.gpus_per_node;
    if (mode == SlurmPlacement::kFlat) {
      // The lowest-numbered nodes: one with the GPUs for a job of a node, else whole free nodes.
      Placement p;
      int left = j.gpus;
      for (size_t n = 0; n < s.topology().nodes.size() && left > 0; ++n) {
        const int node = static_cast<int>(n);
        if (s.topology().nodes[n].type != t || (excluded && (*excluded)[n])) continue;
        const int need = std::min(left, per);
        if (j.gpus <= per ? state.free(node) >= need : state.free(node) == per) {
          p.shares.push_back({node, need});
          left -= need;
        }
      }
      if (left == 0) return p;
      continue;
    }
    if (auto p = state.BestFit(t, j.gpus, excluded)) return p;
    if (mode == SlurmPlacement::kTree)
      if (auto p = state.WholeNodesFit(t, j.gpus, excluded)) return p;
  }
  return std::nullopt;
}

bool SlurmPolicy::FitsNow(const Scheduler& s, const Job& j) const {
  const ClusterState& state = s.state();
  for (int t : state.TypesFor(j.gpu_type)) {
    const int per = s.topology().types[t].fabric.gpus_per_node;
    if (j.gpus <= per ? state.free_of_type(t) - state.FreeBelow(t, j.gpus) > 0
                      : state.whole_free_nodes(t) * per >= j.gpus)
      return true;
  }
  return false;
}

TopoPreemptPolicy::MayGo SlurmPolicy::Preemptable(const Scheduler& s, const Job& j) const {
  const SlurmConfig& c = Config(s);
  if (c.preempt == SlurmPreempt::kPartitionPrio) {
    if (c.preempt_mode == SlurmPreemptMode::kOff || j.job_class != JobClass::kProduction) return {};
    return [&s](int64_t v) { return s.Preemptible(v); };
  }
  const SlurmQos* q = c.preempt == SlurmPreempt::kQos ? c.Qos(j.qos) : nullptr;
  if (!q || q->preempt.empty()) return {};
  // A running job of a QOS the job's QOS lists, whose QOS (or the cluster) lets it be preempted,
  // past its QOS's PreemptExemptTime (or the cluster's).
  return [&s, &c, q](int64_t v) {
    const SlurmQos* of = c.Qos(s.job(v).qos);
    if (!of || std::find(q->preempt.begin(), q->preempt.end(), of->name) == q->preempt.end()) return false;
    if (of->mode.value_or(c.preempt_mode) == SlurmPreemptMode::kOff) return false;
    const double exempt_s = std::isnan(of->exempt_time_s) ? c.preempt_exempt_time_s : of->exempt_time_s;
    return s.now() - s.running().at(v).start_s >= exempt_s;
  };
}

bool SlurmPolicy::TryStart(Scheduler& s, int64_t id, const std::vector<char>* excluded) {
  const Job& j = s.job(id);
  if (auto p = Place(s, j, excluded)) {
    s.Start(id, *p);
    return true;
  }
  if (excluded) return false;
  const MayGo may_go = Preemptable(s, j);
  if (!may_go) return false;
  const std::vector<int64_t> victims = ChooseVictims(s, id, may_go);
  if (victims.empty()) return false;
  for (int64_t v : victims) s.Preempt(v);
  if (auto p = Place(s, j, nullptr)) {
    s.Start(id, *p);
    return true;
  }
  return false;
}

void SlurmPolicy::Main(Scheduler& s) {
  int tested = 0;
  while (!s.pending().empty() && tested++ < Config(s).default_queue_depth) {
    const int64_t id = QueuedJob(*s.pending().begin());
    if (!TryStart(s, id, nullptr)) return;
  }
}

SlurmProfile& SlurmPolicy::RunningProfile(const Scheduler& s) {
  if (!profile_) profile_ = std::make_unique<SlurmProfile>(s.topology());
  profile_->Reset(s.now());
  for (const auto& [id, run] : s.running()) {
    const double limit = std::isfinite(s.job(id).time_limit_s) ? run.start_s + s.job(id).time_limit_s : run.end_s;
    profile_->Hold(run.placement, s.now(), std::max(limit, s.now() + 1));
  }
  return *profile_;
}

void SlurmPolicy::AddToFront(std::vector<std::pair<double, double>>* front, double limit_s, double start_s) {
  auto at = std::upper_bound(front->begin(), front->end(), limit_s,
                             [](double limit, const std::pair<double, double>& e) { return limit < e.first; });
  if (at != front->begin() && std::prev(at)->second >= start_s) return;  // a shorter limit starts as late
  auto end = at;
  while (end != front->end() && end->second <= start_s) ++end;  // longer limits starting no later
  if (at != front->begin() && std::prev(at)->first == limit_s) --at;
  front->insert(front->erase(at, end), {limit_s, start_s});
}

std::optional<SlurmProfile::Slot> SlurmPolicy::Reserve(Scheduler& s, int64_t id) {
  const SlurmConfig& c = Config(s);
  const double horizon_s = s.now() + c.bf_window_s;
  const bool block = c.placement == SlurmPlacement::kBlock;
  // A job asking at least the GPUs of one reserved earlier in the pass, of its types and searched
  // alike (one node, whole nodes inside a leaf, whole nodes anywhere), for at least as long
  // cannot start before it: the profile has only gained holds since.
  const auto dominates = [&](const ReservedSize& r, const Job& j, SlurmProfile::Search search) {
    return r.gpu_type == j.gpu_type && r.search == search && j.gpus >= r.gpus;
  };
  const Job& j = s.job(id);
  const double d = Limit(s, id);
  const std::vector<int>& types = s.state().TypesFor(j.gpu_type);
  const SlurmProfile::Search search = profile_->SearchFor(types, j.gpus, block);
  double not_before_s = -INFINITY;
  ReservedSize* same = nullptr;
  for (ReservedSize& r : reserved_) {
    if (r.gpu_type == j.gpu_type && r.gpus == j.gpus) same = &r;
    if (!dominates(r, j, search)) continue;
    // The latest start among those of at most the job's limit (the front rises with the limit).
    auto at = std::upper_bound(r.front.begin(), r.front.end(), d,
                               [](double limit, const std::pair<double, double>& e) { return limit < e.first; });
    if (at != r.front.begin()) not_before_s = std::max(not_before_s, std::prev(at)->second);
  }
  std::optional<SlurmProfile::Slot> slot;
  if (not_before_s < horizon_s) slot = profile_->Earliest(types, j.gpus, d, horizon_s, block, not_before_s);
  if (slot) profile_->Hold(slot->placement, slot->start_s, slot->start_s + d);
  if (!same) same = &reserved_.emplace_back(ReservedSize{j.gpu_type, j.gpus, search, {}});
  AddToFront(&same->front, d, slot ? slot->start_s : INFINITY);
  return slot;
}

bool SlurmPolicy::FailedSizes::Dominate(const Job& j, double d, int per_node) const {
  if (!j.gpu_type.empty()) return false;
  for (const auto& [g, limit] : sizes)
    if (j.gpus >= g && d >= limit && (g <= per_node) == (j.gpus <= per_node)) return true;
  return false;
}

void SlurmPolicy::FailedSizes::Add(const Job& j, double d) {
  if (!j.gpu_type.empty()) return;
  auto at = std::find_if(sizes.begin(), sizes.end(), [&](const auto& f) { return f.first == j.gpus; });
  if (at == sizes.end())
    sizes.emplace_back(j.gpus, d);
  else
    at->second = std::min(at->second, d);
}

std::optional<Placement> SlurmPolicy::ReserveWhileItFits(Scheduler& s, const Job& j, double d, Placement p,
                                                         std::vector<char>* excluded) {
  // The earlier blocked jobs' reservations, each rechecked against the nodes it holds before the
  // job would end.
  while (reserved_upto_ < blocked_.size()) {
    const std::optional<SlurmProfile::Slot> slot = Reserve(s, blocked_[reserved_upto_++]);
    if (!slot || slot->start_s >= s.now() + d) continue;
    bool lost = false;
    for (const NodeShare& share : slot->placement.shares)
      if (!(*excluded)[share.node] && !profile_->FitsNode(share.node, j.gpus, d)) {
        (*excluded)[share.node] = 1;
        lost = true;
      }
    if (!lost) continue;
    auto again = Place(s, j, excluded);
    if (!again) return std::nullopt;
    p = std::move(*again);
  }
  return p;
}

void SlurmPolicy::Backfill(Scheduler& s) {
  const SlurmConfig& c = Config(s);
  const double now = s.now();
  SlurmProfile& profile = RunningProfile(s);
  reserved_.clear();
  blocked_.clear();
  reserved_upto_ = 0;
  std::vector<int64_t> queue;
  for (const QueueKey& k : s.pending()) {
    if (static_cast<int>(queue.size()) >= c.bf_max_job_test) break;
    queue.push_back(QueuedJob(k));
  }
  // Reservations are made lazily: only when a later job could start now do the earlier blocked
  // jobs' reservations matter, and they are then made in queue order, as the pass would have,
  // until one takes what the job needed (the rest wait for the next job that could start).
  // Holds only ever take GPUs away, so a job that cannot start now on the holds made so far
  // cannot with more, and neither can a job asking at least as many GPUs for at least as long.
  FailedSizes failed;
  std::vector<char> excluded;
  for (int64_t id : queue) {
    if (s.state().free_total() == 0) break;
    const Job& j = s.job(id);
    const double d = Limit(s, id);
    const bool may_fit = FitsNow(s, j) && !failed.Dominate(j, d, s.topology().max_gpus_per_node);
    std::optional<Placement> p;
    if (may_fit) {
      excluded = profile.Excluded(s.state().TypesFor(j.gpu_type), j.gpus, d, &s.state());
      p = Place(s, j, &excluded);
      if (p) p = ReserveWhileItFits(s, j, d, std::move(*p), &excluded);
    }
    if (!p) {
      if (may_fit) failed.Add(j, d);
      blocked_.push_back(id);
      continue;
    }
    s.Start(id, *p);
    profile.Hold(*p, now, now + d);
  }
}

void SlurmPolicy::Schedule(Scheduler& s) {
  Main(s);
  const SlurmConfig& c = Config(s);
  if (c.scheduler != SlurmScheduler::kBackfill || s.pending().empty() || s.state().free_total() == 0) return;
  if (s.events() == backfilled_events_) return;  // nothing arrived or ended since the last pass
  if (s.now() < next_backfill_s_) {
    s.WakeAt(next_backfill_s_);
    return;
  }
  Backfill(s);
  backfilled_events_ = s.events();
  next_backfill_s_ = s.now() + c.bf_interval_s;
}

}  // namespace

std::unique_ptr<Policy> MakeSlurmPolicy() { return std::make_unique<SlurmPolicy>(); }

}  // namespace paratune
