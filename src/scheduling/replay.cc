#include "scheduling/replay.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "scheduling/policy.h"
#include "util/error.h"
#include "util/stats.h"

namespace paratune {

namespace {

constexpr int64_t kMaxSeriesSamples = 1'000'000;

int ClassRank(const Job& j, bool by_class) { return by_class && j.job_class == JobClass::kExperimental ? 1 : 0; }

// Sums over the jobs of one class (0 production, 1 experimental).
struct ReplayClassSums {
  std::vector<double> queue, jct, ttfr;
  int64_t jobs = 0, preemptions = 0;
  double lost = 0;
};

// Sums over the jobs of a replay: GPU-seconds allocated, useful and lost, the modelled MFU and
// slowdown weights, the ETTR, and the delays of the finished jobs, overall and per class.
struct ReplayJobSums {
  double allocated = 0, useful = 0, lost = 0, mfu_gpu_s = 0, slow_gpu_s = 0, modelled_gpu_s = 0, ettr = 0;
  std::vector<double> queue_all, jct_all, ttfr_all;
  ReplayClassSums acc[2];
};

// Sums the jobs' records; counts their preemptions and migrations into m and sets m.models.
ReplayJobSums SumReplayJobs(const std::vector<Job>& jobs, const std::vector<JobRecord>& records, PolicyMetrics* m) {
  ReplayJobSums s;
  for (size_t i = 0; i < jobs.size(); ++i) {
    const Job& j = jobs[i];
    const JobRecord& r = records[i];
    s.allocated += r.allocated_gpu_s;
    s.lost += r.lost_gpu_s;
    m->preemptions += r.preemptions;
    m->migrations += r.migrations;
    ReplayClassSums& c = s.acc[j.job_class == JobClass::kProduction ? 0 : 1];
    ++c.jobs;
    c.preemptions += r.preemptions;
    c.lost += r.lost_gpu_s;
    if (r.modelled) m->models = true;
    if (r.finish_s < 0) continue;
    const double work = j.run_s * j.gpus;
    s.useful += work;
    if (r.modelled) {
      s.mfu_gpu_s += work * r.mfu * r.slowdown;  // the packed MFU: the first run's MFU x its slowdown
      s.slow_gpu_s += r.allocated_gpu_s * r.slowdown;
      s.modelled_gpu_s += r.allocated_gpu_s;
    }
    const double span = r.finish_s - r.first_start_s;
    s.ettr += span > 0 ? std::min(1.0, j.run_s / span) : 1.0;
    s.queue_all.push_back(r.queue_s);
    s.jct_all.push_back(r.finish_s - j.submit_s);
    s.ttfr_all.push_back(r.first_start_s - j.submit_s);
    c.queue.push_back(r.queue_s);
    c.jct.push_back(r.finish_s - j.submit_s);
    c.ttfr.push_back(r.first_start_s - j.submit_s);
  }
  return s;
}

// The metrics of each class that has jobs.
void AddReplayClassMetrics(const ReplayClassSums (&acc)[2], PolicyMetrics* m) {
  for (int c = 0; c < 2; ++c) {
    if (acc[c].jobs == 0) continue;
    ClassMetrics cm;
    cm.job_class = JobClassName(c == 0 ? JobClass::kProduction : JobClass::kExperimental);
    cm.jobs = acc[c].jobs;
    cm.queue_delay_s = DelayStatsOf(acc[c].queue);
    cm.jct_s = DelayStatsOf(acc[c].jct);
    cm.time_to_first_run_s = DelayStatsOf(acc[c].ttfr);
    cm.preemptions = acc[c].preemptions;
    cm.lost_gpu_hours = acc[c].lost / 3600;
    m->by_class.push_back(std::move(cm));
  }
}

// The job metrics of the sums: GPU-hours, utilisation, goodput, MFU, slowdown, ETTR and the
// delays, overall and per class.
void SetReplayJobMetrics(const ReplayJobSums& s, double capacity_gpu_s, int64_t finished, double restart_gpu_s,
                         PolicyMetrics* m) {
  m->allocated_gpu_hours = s.allocated / 3600;
  m->useful_gpu_hours = s.useful / 3600;
  m->lost_gpu_hours = s.lost / 3600;
  m->restart_gpu_hours = restart_gpu_s / 3600;
  if (capacity_gpu_s > 0) {
    m->utilization = s.allocated / capacity_gpu_s;
    m->goodput = s.useful / capacity_gpu_s;
    m->effective_mfu = s.mfu_gpu_s / capacity_gpu_s;
  }
  m->mean_slowdown = s.modelled_gpu_s > 0 ? s.slow_gpu_s / s.modelled_gpu_s : 1;
  m->mean_ettr = finished > 0 ? s.ettr / static_cast<double>(finished) : 0;
  m->queue_delay_s = DelayStatsOf(s.queue_all);
  m->jct_s = DelayStatsOf(s.jct_all);
  m->time_to_first_run_s = DelayStatsOf(s.ttfr_all);
  AddReplayClassMetrics(s.acc, m);
}

}  // namespace

JobTrace FilterPlaceable(const ClusterTopology& topology, JobTrace trace, const ReplayOptions& options) {
  (void)options;
  ClusterState empty(topology);
  std::vector<Job> kept;
  kept.reserve(trace.jobs.size());
  for (auto& j : trace.jobs) {
    std::vector<int> types = empty.TypesFor(j.gpu_type);
    std::string reason;
    if (types.empty()) {
      reason = fmt::format("gpu type '{}' is not in the cluster", j.gpu_type);
    } else {
      bool fits = false;
      for (int t : types) {
        if (j.locality == Locality::kHard ? empty.BestFit(t, j.gpus).has_value() : empty.free_of_type(t) >= j.gpus)
          fits = true;
      }
      if (!fits)
        reason = j.locality == Locality::kHard
                     ? fmt::format("{} GPUs with hard locality have no packed placement on the cluster", j.gpus)
                     : fmt::format("{} GPUs: more than the cluster's {}{}", j.gpus,
                                   j.gpu_type.empty() ? "" : j.gpu_type + " ", "GPUs");
    }
    if (!reason.empty()) {
      trace.skipped.push_back({j.line, reason});
      continue;
    }
    j.id = static_cast<int64_t>(kept.size());
    kept.push_back(std::move(j));
  }
  trace.jobs = std::move(kept);
  std::stable_sort(trace.skipped.begin(), trace.skipped.end(),
                   [](const SkippedRow& a, const SkippedRow& b) { return a.line < b.line; });
  if (trace.jobs.empty() && !trace.skipped.empty())  // nothing to replay: a summary of zeros would say nothing true
    throw InputError(fmt::format("{}: every row was skipped ({}); the first, line {}: {}", trace.path,
                                 trace.skipped.size(), trace.skipped.front().line, trace.skipped.front().reason));
  return trace;
}

Scheduler::Scheduler(const ClusterTopology& topology, const JobTrace& trace, bool by_class, SpeedModel* speed,
                     const ReplayOptions& options)
    : topology_(&topology),
      jobs_(&trace.jobs),
      by_class_(by_class),
      speed_(speed),
      options_(options),
      state_(topology) {
  const size_t n = trace.jobs.size();
  queued_since_.assign(n, 0);
  remaining_s_.resize(n);
  restarting_.assign(n, 0);
  runs_.assign(n, 0);
  result_.jobs.resize(n);
  for (size_t i = 0; i < n; ++i) {
    remaining_s_[i] = trace.jobs[i].run_s;
    result_.jobs[i].job = static_cast<int64_t>(i);
  }
}

double Scheduler::Slowdown(int64_t id, const Placement& p) {
  if (!speed_) return 1;
  return speed_->Price(job(id), ShapeOf(*topology_, p)).slowdown;
}

bool Scheduler::Modelled(int64_t id, const Placement& p) {
  return speed_ && speed_->Price(job(id), ShapeOf(*topology_, p)).modelled;
}

double Scheduler::RunTime(int64_t id, const Placement& p) {
  return (restarting_[id] ? job(id).restart_overhead_s : 0) + remaining_s_[id] * Slowdown(id, p);
}

namespace {
// Wall time of a run saved by its checkpoints: whole checkpoint intervals of productive time
// (after the restart overhead).
double SavedWall(double productive_s, double interval_s) {
  if (interval_s <= 0 || productive_s <= 0) return 0;
  return std::floor(productive_s / interval_s) * interval_s;
}
}  // namespace

double Scheduler::LossIfStopped(int64_t id) const {
  auto it = running_.find(id);
  if (it == running_.end()) return 0;
  const RunningJob& r = it->second;
  const double productive = std::max(0.0, now_ - r.start_s - r.overhead_s);
  return job(id).gpus * (productive - SavedWall(productive, job(id).checkpoint_interval_s));
}

bool Scheduler::Preemptible(int64_t id) const {
  auto it = running_.find(id);
  return it != running_.end() && job(id).job_class == JobClass::kExperimental &&
         now_ - it->second.start_s >= options_.min_run_s;
}

QueueKey Scheduler::KeyOf(const Job& j, int64_t id) const {
  return {ClassRank(j, by_class_), -j.priority, j.submit_s, id};
}

void Scheduler::WakeAt(double t) {
  if (t > now_ && std::isfinite(t)) wakes_.push(t);
}

void Scheduler::Start(int64_t id, const Placement& p) {
  const Job& j = job(id);
  pending_.erase(KeyOf(j, id));
  queued_gpus_ -= j.gpus;
  JobRecord& rec = result_.jobs[id];
  rec.queue_s += now_ - queued_since_[id];
  const PlacementShape shape = ShapeOf(*topology_, p);
  Pricing pricing;
  if (speed_) pricing = speed_->Price(j, shape);
  RunningJob r;
  r.job = id;
  r.placement = p;
  r.type = shape.type;
  r.start_s = now_;
  r.overhead_s = restarting_[id] ? j.restart_overhead_s : 0;
  r.slowdown = std::max(1.0, pricing.slowdown);
  r.end_s = now_ + r.overhead_s + remaining_s_[id] * r.slowdown;
  r.run = runs_[id]++;
  r.split = shape.split();
  restart_gpu_s_ += r.overhead_s * j.gpus;
  if (rec.first_start_s < 0) {
    rec.first_start_s = now_;
    rec.slowdown = r.slowdown;
    rec.modelled = pricing.modelled;
    rec.mfu = pricing.mfu;
    rec.layout = pricing.layout;
    rec.note = pricing.note;
  }
  ++rec.runs;
  if (r.split) {
    ++rec.split_runs;
    ++result_.metrics.split_placements;
    if (j.gpus <= 8 && shape.nodes > 1) ++result_.metrics.split_placements_le8;
  }
  state_.Take(p);
  by_end_.insert({r.end_s, id});
  running_.emplace(id, std::move(r));
}

void Scheduler::Stop(int64_t id, IntervalEnd why) {
  auto it = running_.find(id);
  RunningJob r = std::move(it->second);
  running_.erase(it);
  by_end_.erase({r.end_s, id});
  const Job& j = job(id);
  JobRecord& rec = result_.jobs[id];
  const double elapsed = now_ - r.start_s;
  rec.allocated_gpu_s += elapsed * j.gpus;
  if (why != IntervalEnd::kFinished) {
    // The restart overhead not yet paid is not spent; work since the last checkpoint is lost.
    if (elapsed < r.overhead_s) restart_gpu_s_ -= (r.overhead_s - elapsed) * j.gpus;
    const double productive = std::max(0.0, elapsed - r.overhead_s);
    const double saved = SavedWall(productive, j.checkpoint_interval_s);
    rec.lost_gpu_s += (productive - saved) * j.gpus;
    remaining_s_[id] = std::max(0.0, remaining_s_[id] - saved / r.slowdown);
    restarting_[id] = 1;
  } else {
    remaining_s_[id] = 0;
  }
  if (options_.record_placements) {
    for (const auto& s : r.placement.shares)
      result_.placements.push_back({id, s.node, s.gpus, r.start_s, now_, r.run, r.split, r.slowdown, why});
  }
  state_.Release(r.placement);
}

void Scheduler::Preempt(int64_t id) {
  Stop(id, IntervalEnd::kPreempted);
  ++disruptions_;
  ++result_.jobs[id].preemptions;
  const Job& j = job(id);
  queued_since_[id] = now_;
  pending_.insert(KeyOf(j, id));
  queued_gpus_ += j.gpus;
}

void Scheduler::Migrate(int64_t id, const Placement& to) {
  Stop(id, IntervalEnd::kMigrated);
  ++disruptions_;
  ++result_.jobs[id].migrations;
  const Job& j = job(id);
  queued_since_[id] = now_;
  pending_.insert(KeyOf(j, id));
  queued_gpus_ += j.gpus;
  Start(id, to);
}

void Scheduler::Finish(int64_t id) {
  Stop(id, IntervalEnd::kFinished);
  result_.jobs[id].finish_s = now_;
}

int Scheduler::FragmentedGpus() const {
  if (pending_.empty()) return 0;
  const Job& head = job(QueuedJob(*pending_.begin()));
  int frag = 0;
  for (int t : state_.TypesFor(head.gpu_type)) {
    const int g = topology_->types[t].fabric.gpus_per_node;
    frag += head.gpus <= g ? state_.FreeBelow(t, head.gpus) : state_.free_of_type(t) - g * state_.whole_free_nodes(t);
  }
  return frag;
}

void Scheduler::Sample(double t) {
  SeriesSample s;
  s.time_s = t;
  s.allocated_gpus = state_.used_total();
  s.queue_length = static_cast<int>(pending_.size());
  s.queued_gpus = static_cast<int>(std::min<int64_t>(queued_gpus_, INT32_MAX));
  s.running_jobs = static_cast<int>(running_.size());
  s.fragmented_gpus = FragmentedGpus();
  s.partial_nodes = state_.partial_nodes();
  s.partial_domains = state_.partial_domains();
  result_.series.push_back(s);
}

void Scheduler::Account(double until) {
  const double dt = until - last_t_;
  if (options_.series_interval_s > 0) {
    while (next_sample_s_ < until && static_cast<int64_t>(result_.series.size()) < kMaxSeriesSamples) {
      Sample(next_sample_s_);
      next_sample_s_ += options_.series_interval_s;
    }
  }
  if (dt <= 0) return;
  partial_nodes_s_ += state_.partial_nodes() * dt;
  partial_domains_s_ += state_.partial_domains() * dt;
  if (!pending_.empty()) {
    pending_s_ += dt;
    const int frag = FragmentedGpus();
    fragmented_gpu_s_ += frag * dt;
    if (state_.free_total() > 0) fragmented_share_s_ += static_cast<double>(frag) / state_.free_total() * dt;
  }
  last_t_ = until;
}

ReplayResult Scheduler::Run(Policy& policy, Progress* progress) {
  const size_t n = jobs_->size();
  std::vector<int64_t> arrivals(n);
  for (size_t i = 0; i < n; ++i) arrivals[i] = static_cast<int64_t>(i);
  std::stable_sort(arrivals.begin(), arrivals.end(),
                   [&](int64_t a, int64_t b) { return job(a).submit_s < job(b).submit_s; });
  size_t next = 0;
  int64_t finished = 0, steps = 0;
  while (true) {
    double t = INFINITY;
    if (next < n) t = job(arrivals[next]).submit_s;
    if (!by_end_.empty()) t = std::min(t, by_end_.begin()->first);
    if (!wakes_.empty()) t = std::min(t, wakes_.top());
    if (!std::isfinite(t)) break;  // nothing left to happen (a job no policy can start stays pending)
    Account(t);
    now_ = t;
    while (!by_end_.empty() && by_end_.begin()->first <= now_) {
      Finish(by_end_.begin()->second);
      ++finished;
      ++events_;
    }
    while (next < n && job(arrivals[next]).submit_s <= now_) {
      const int64_t id = arrivals[next++];
      const Job& j = job(id);
      queued_since_[id] = now_;
      pending_.insert(KeyOf(j, id));
      queued_gpus_ += j.gpus;
      ++events_;
    }
    while (!wakes_.empty() && wakes_.top() <= now_) wakes_.pop();
    policy.Schedule(*this);
    if ((++steps & 0xfff) == 0) ReportProgress(progress, "jobs finished", finished, static_cast<int64_t>(n));
  }
  ReportProgress(progress, "jobs finished", finished, static_cast<int64_t>(n));

  // Metrics.
  PolicyMetrics& m = result_.metrics;
  m.jobs = static_cast<int64_t>(n);
  m.jobs_finished = finished;
  m.makespan_s = now_;
  const double capacity_gpu_s = static_cast<double>(topology_->total_gpus) * m.makespan_s;
  m.capacity_gpu_hours = capacity_gpu_s / 3600;
  const ReplayJobSums s = SumReplayJobs(*jobs_, result_.jobs, &m);
  SetReplayJobMetrics(s, capacity_gpu_s, finished, restart_gpu_s_, &m);
  if (m.makespan_s > 0) {
    m.fragmentation.mean_partial_nodes = partial_nodes_s_ / m.makespan_s;
    m.fragmentation.mean_partial_domains = partial_domains_s_ / m.makespan_s;
    m.fragmentation.pending_time_share = pending_s_ / m.makespan_s;
  }
  if (pending_s_ > 0) {
    m.fragmentation.mean_fragmented_gpus = fragmented_gpu_s_ / pending_s_;
    m.fragmentation.fragmented_share_of_free = fragmented_share_s_ / pending_s_;
  }
  if (speed_) m.price_cache_entries = speed_->cache_entries();
  return std::move(result_);
}

ReplayResult Replay(const ClusterTopology& topology, const JobTrace& trace, Policy& policy, SpeedModel* speed,
                    const ReplayOptions& options, Progress* progress) {
  Scheduler s(topology, trace, policy.by_class(), speed, options);
  return s.Run(policy, progress);
}

DelayStats DelayStatsOf(std::vector<double> v) {
  DelayStats d;
  d.count = static_cast<int64_t>(v.size());
  if (v.empty()) return d;
  std::sort(v.begin(), v.end());
  double sum = 0;
  for (double x : v) sum += x;
  d.mean = sum / static_cast<double>(v.size());
  d.p50 = SortedQuantile(v, 0.50);
  d.p99 = SortedQuantile(v, 0.99);
  d.p999 = SortedQuantile(v, 0.999);
  for (int i = 0; i < kCdfPoints; ++i) d.cdf.push_back(SortedQuantile(v, static_cast<double>(i) / (kCdfPoints - 1)));
  return d;
}

std::optional<DelayStats> MeasuredQueueDelayOf(const JobTrace& trace) {
  std::vector<double> waits;
  for (const Job& j : trace.jobs)
    if (std::isfinite(j.measured_wait_s)) waits.push_back(j.measured_wait_s);
  if (waits.empty()) return std::nullopt;
  return DelayStatsOf(std::move(waits));
}

}  // namespace paratune
