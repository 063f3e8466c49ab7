#include "pipeline/simulator.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <fmt/format.h>
#include <stdexcept>

#include "util/error.h"

namespace paratune {
namespace {

constexpr double kNotYet = -1;  // a time that is not known yet (every real time is >= 0)

void CheckTime(double t, const char* what, size_t i) {
  if (!(t >= 0) || !std::isfinite(t))
    throw InputError(fmt::format("pipeline simulation: {} [{}] must be a finite time >= 0, got {}", what, i, t));
}

void CheckInput(const Schedule& s, const PipelineInput& in) {
  const size_t n = static_cast<size_t>(s.pp) * static_cast<size_t>(s.vp);
  if (in.chunks.size() != n)
    throw InputError(fmt::format("pipeline simulation: {} chunk times for pp {} x vp {} = {} virtual stages",
                                 in.chunks.size(), s.pp, s.vp, n));
  for (size_t i = 0; i < n; ++i) {
    const ChunkTimes& c = in.chunks[i];
    CheckTime(c.forward_s, "forward_s", i);
    CheckTime(c.backward_s, "backward_s", i);
    CheckTime(c.weight_s, "weight_s", i);
    if (c.weight_s > c.backward_s)
      throw InputError(fmt::format("pipeline simulation: chunk {} weight_s {} exceeds its backward_s {}", i, c.weight_s,
                                   c.backward_s));
  }
  CheckTime(in.p2p_s, "p2p_s", 0);
  if (in.gathers_per_forward < 0 || in.gathers_per_backward < 0)
    throw InputError("pipeline simulation: gathers per forward and backward must not be negative");
  for (auto [v, what] : {std::pair{&in.grad_reduce_s, "grad_reduce_s"},
                         {&in.optimizer_s, "optimizer_s"},
                         {&in.param_gather_s, "param_gather_s"}}) {
    if (!v->empty() && v->size() != static_cast<size_t>(s.pp))
      throw InputError(fmt::format("pipeline simulation: {} has {} entries for pp {}", what, v->size(), s.pp));
    for (size_t i = 0; i < v->size(); ++i) CheckTime((*v)[i], what, i);
  }
  if (!in.rates.empty() && in.rates.size() != static_cast<size_t>(s.pp))
    throw InputError(fmt::format("pipeline simulation: rates has {} entries for pp {}", in.rates.size(), s.pp));
  for (size_t i = 0; i < in.rates.size(); ++i)
    for (double r : {in.rates[i].pp, in.rates[i].dp_forward, in.rates[i].dp_backward})
      if (!(r > 0 && r <= 1))
        throw InputError(fmt::format("pipeline simulation: rates [{}] must be in (0, 1], got {}", i, r));
}

// Work of `w` seconds at a port's full rate, from `t` on: none of it inside `blocked`, rate[i]
// of it inside compute interval i, all of it elsewhere (both lists in start order, without
// overlaps). Returns the end; `pieces` gets the intervals the work ran in.
double FillPort(double t, double w, const std::vector<Interval>& blocked, const std::vector<Interval>& compute,
                const std::vector<double>& rate, std::vector<Interval>& pieces) {
  auto first_after = [](const std::vector<Interval>& v, double x) {
    return static_cast<size_t>(
        std::partition_point(v.begin(), v.end(), [x](const Interval& i) { return i.end_s <= x; }) - v.begin());
  };
  size_t b = first_after(blocked, t), c = first_after(compute, t);
  double piece = -1;  // start of the piece running, -1: none
  for (;;) {
    while (b < blocked.size() && blocked[b].end_s <= t) ++b;
    while (c < compute.size() && compute[c].end_s <= t) ++c;
    if (b < blocked.size() && blocked[b].start_s <= t) {
      if (piece >= 0 && t > piece) pieces.push_back({piece, t});
      piece = -1;
      t = blocked[b].end_s;
      continue;
    }
    double next = std::numeric_limits<double>::infinity(), r = 1;
    if (b < blocked.size()) next = blocked[b].start_s;
    if (c < compute.size()) {
      if (compute[c].start_s <= t) {
        r = rate.empty() ? 1 : rate[c];
        next = std::min(next, compute[c].end_s);
      } else {
        next = std::min(next, compute[c].start_s);
      }
    }
    if (piece < 0) piece = t;
    if (r * (next - t) >= w) {
      t += w / r;
      if (t > piece) pieces.push_back({piece, t});
      return t;
    }
    w -= r * (next - t);
    t = next;
  }
}

}  // namespace

PipelineInput BalancedInput(int pp, int vp, double forward_s, double backward_s, double weight_s) {
  PipelineInput in;
  in.chunks.assign(static_cast<size_t>(pp) * static_cast<size_t>(vp), ChunkTimes{forward_s, backward_s, weight_s});
  return in;
}

namespace {

// One op's bookkeeping for the critical path: its start, end, the op it waited for and the part
// of its wait spent on gathers.
struct OpRecord {
  double start = 0, finish = 0, gather = 0;
  int32_t pred = -1;  // the op it waited for (its position in Schedule::ops); -1: none
  bool data = false;  // waited for a transfer (else for its rank)
};

// One simulation of SimulatePipeline: the schedule's state per rank and per (global stage,
// micro-batch), advanced op by op (RunOps), then the step's tail (FinishRank), the critical
// path and the breakdowns. Global stage g lives on rank g % pp as chunk g / pp.
class PipelineSimulation {
 public:
  PipelineSimulation(const Schedule& s, const PipelineInput& in)
      : s_(s),
        in_(in),
        pp_(s.pp),
        vp_(s.vp),
        m_(static_cast<size_t>(s.m)),
        G_(s.pp * s.vp),
        split_(s.split_backward),
        gathers_(!in.param_gather_s.empty()),
        zero3_(gathers_ && in.gathers_per_forward > 0),
        per_micro_batch_(in.reduce_every_micro_batch && !in.grad_reduce_s.empty()),
        dp_stream_id_(in.dp_stream ? Timeline::kCommStream + 1 : Timeline::kCommStream) {
    Allocate();
  }

  SimulationResult Run() {
    StartParameterGathers();
    RunOps();
    for (int r = 0; r < pp_; ++r) FinishRank(r);
    if (!in_.breakdown) {
      for (StageFigures& fig : res_.stages)
        fig.peak_inflight_microbatches = static_cast<double>(fig.peak_inflight) / vp_;
      return std::move(res_);
    }
    TraceCriticalPath();
    Breakdowns();
    return std::move(res_);
  }

 private:
  size_t R(int r) const { return static_cast<size_t>(r); }
  PipelineInput::StreamRates RateOf(int r) const {
    return in_.rates.empty() ? PipelineInput::StreamRates{} : in_.rates[R(r)];
  }
  // The data-parallel stream: its own, or the comm stream of the pipeline transfers.
  std::vector<double>& DpFree() { return in_.dp_stream ? own_dp_free_ : comm_free_; }

  void Allocate() {
    const size_t states = static_cast<size_t>(G_) * m_;
    f_end_.assign(states, kNotYet);
    f_arrive_.assign(states, kNotYet);
    b_arrive_.assign(states, kNotYet);
    f_from_.assign(states, -1);
    b_from_.assign(states, -1);
    rec_.resize(s_.ops.size());
    for (auto* v : {&compute_free_, &comm_free_, &own_dp_free_, &prev_op_start_}) v->assign(R(pp_), 0);
    for (auto* v : {&last_grad_start_, &last_grad_end_, &first_gather_end_}) v->assign(static_cast<size_t>(G_), 0);
    pos_.resize(R(pp_));
    inflight_.assign(R(pp_), 0);
    pending_w_.assign(R(pp_), 0);
    compute_dp_rate_.resize(R(pp_));
    compute_.resize(R(pp_));
    comm_.resize(R(pp_));
    dp_comm_.resize(R(pp_));
    dp_comm_union_.resize(R(pp_));
    chunk_started_.assign(static_cast<size_t>(G_), 0);
    res_.stages.resize(R(pp_));
    Timeline& tl = res_.timeline;
    tl.ranks = pp_;
    if (in_.dp_stream) tl.stream_names = {"compute", "comm", "dp"};
    if (in_.record_timeline) tl.events.reserve(s_.ops.size() * 2 + 2 * R(pp_) * static_cast<size_t>(vp_));
    for (int r = 0; r < pp_; ++r) {
      pos_[R(r)] = s_.rank_begin[R(r)];
      compute_[R(r)].reserve(s_.rank_begin[R(r) + 1] - s_.rank_begin[R(r)] + 1);
      comm_[R(r)].reserve(pp_ > 1 || vp_ > 1 ? 2 * m_ * static_cast<size_t>(vp_) + static_cast<size_t>(vp_)
                                             : static_cast<size_t>(vp_));
    }
  }

  // Sends the result of an op on rank r to the rank of global stage `to`; returns its arrival.
  double Send(int r, int to, double ready, int32_t mb, int32_t chunk) {
    if (to % pp_ == r || in_.p2p_s == 0) return ready;  // same rank, or free transfer
    double& cf = comm_free_[R(r)];
    const double start = std::max(ready, cf);
    const double d = in_.p2p_s / RateOf(r).pp;
    cf = start + d;
    comm_[R(r)].push_back({start, cf});
    if (in_.record_timeline)
      res_.timeline.events.push_back({r, Timeline::kCommStream, Phase::kSend, mb, chunk, start, d, {}});
    if (in_.p2p_blocks_compute) compute_free_[R(r)] = std::max(compute_free_[R(r)], cf);
    return cf;
  }

  // A data-parallel collective of `work` seconds at its port's full rate on rank r's dp stream,
  // from `after` on. Overlapped with the passes, it runs at the lower of the rank's two DP rates
  // (it may run under passes of either kind, whose own collectives hold part of the port); one
  // the rank waits for (no overlap) has the port to itself.
  double DpCollective(int r, double after, double work, Phase phase, int32_t chunk, bool overlapped) {
    const PipelineInput::StreamRates rr = RateOf(r);
    const double d = overlapped ? work / std::min(rr.dp_forward, rr.dp_backward) : work;
    double& df = DpFree()[R(r)];
    const double start = std::max(after, df);
    df = start + d;
    (in_.dp_stream ? dp_comm_ : comm_)[R(r)].push_back({start, df});
    if (in_.dp_stream) dp_comm_union_[R(r)].push_back({start, df});
    if (in_.record_timeline) res_.timeline.events.push_back({r, dp_stream_id_, phase, -1, chunk, start, d, {}});
    return df;
  }

  // ZeRO-1/2: each rank gathers its chunks' updated parameters from the start of the step, in
  // the order the chunks first run (chunk 0 first).
  void StartParameterGathers() {
    if (!gathers_ || zero3_) return;
    for (int r = 0; r < pp_; ++r) {
      const double per_chunk = in_.param_gather_s[R(r)] / vp_;
      if (per_chunk <= 0) continue;
      for (int c = 0; c < vp_; ++c)
        first_gather_end_[static_cast<size_t>(c * pp_ + r)] =
            DpCollective(r, 0, per_chunk, Phase::kAllGather, c, in_.overlap_param_gather);
    }
  }

  // ZeRO-2/3: the reduce-scatter of one micro-batch's gradients of a chunk, issued as its
  // gradient pass starts (per-block buckets) or, without overlap, after it, the rank waiting.
  void ReduceMicroBatch(int r, double start, double finish, int32_t chunk) {
    if (!per_micro_batch_) return;
    const double work = in_.grad_reduce_s[R(r)] / vp_;
    if (work <= 0) return;
    const double end = DpCollective(r, in_.overlap_grad_reduce ? start : finish, work, Phase::kAllReduce, chunk,
                                    in_.overlap_grad_reduce);
    if (!in_.overlap_grad_reduce) compute_free_[R(r)] = std::max(compute_free_[R(r)], end);
  }

  // Every rank runs its ops in order as far as their inputs have arrived, round after round.
  void RunOps() {
    size_t remaining = s_.ops.size();
    while (remaining > 0) {
      bool progress = false;
      for (int r = 0; r < pp_; ++r) {
        const size_t end = s_.rank_begin[R(r) + 1];
        size_t& p = pos_[R(r)];
        while (p < end && RunOp(r, p)) {
          ++p;
          --remaining;
          progress = true;
        }
      }
      if (!progress)
        throw std::logic_error(fmt::format("pipeline schedule {} deadlocks (pp {}, vp {}, m {})", ScheduleName(s_.kind),
                                           s_.pp, s_.vp, s_.m));
    }
  }

  // What op p needs before it starts: the time its input is ready (kNotYet: not yet), the op
  // whose output it waits for, its duration and its phase.
  struct OpInput {
    double ready = 0, dur = 0;
    int32_t from = -1;
    Phase phase = Phase::kForward;
  };
  OpInput InputOf(const PipelineOp& op, int g, size_t idx, const ChunkTimes& ct) const {
    OpInput x;
    if (op.kind == OpKind::kForward) {
      x.ready = g == 0 ? 0 : f_arrive_[idx - m_];
      if (g > 0) x.from = f_from_[idx - m_];
      x.dur = ct.forward_s;
    } else if (op.kind == OpKind::kBackward) {
      x.ready = g == G_ - 1 ? f_end_[idx] : b_arrive_[idx + m_];
      x.from = g == G_ - 1 ? f_from_[idx] : b_from_[idx + m_];
      x.dur = split_ ? ct.backward_s - ct.weight_s : ct.backward_s;
      x.phase = Phase::kBackward;
    } else {
      x.ready = b_arrive_[idx] == kNotYet ? kNotYet : 0;  // W follows its B on this rank (in order)
      x.dur = ct.weight_s;
      x.phase = Phase::kWeightGrad;
    }
    return x;
  }

  // The start of an op that could start at `start`, after the ZeRO parameter gathers it needs.
  double AfterGathers(int r, const PipelineOp& op, int g, double start, double dur) {
    if (!gathers_ || op.kind == OpKind::kWeightGrad) return start;
    const double per_chunk = in_.param_gather_s[R(r)] / vp_;
    if (zero3_ && per_chunk > 0) {
      // ZeRO-3: this op's gathers, prefetched from the start of the rank's previous op; the
      // op consumes them block by block as they arrive, so it cannot end before they do
      // (FSDP forward prefetch). Without overlap they are issued when the op could start
      // and the op waits for them.
      const int n = op.kind == OpKind::kForward ? in_.gathers_per_forward : in_.gathers_per_backward;
      double end = start;
      const double from = in_.overlap_param_gather ? prev_op_start_[R(r)] : start;
      for (int k = 0; k < n; ++k)
        end = DpCollective(r, from, per_chunk, Phase::kAllGather, op.virtual_stage, in_.overlap_param_gather);
      return std::max(start, in_.overlap_param_gather ? end - dur : end);
    }
    if (!zero3_ && op.kind == OpKind::kForward && !chunk_started_[static_cast<size_t>(g)]) {
      // ZeRO-1/2: the chunk's first forward consumes the gathered buckets as they arrive, so
      // it cannot end before its gather does (Megatron overlap_param_gather); without
      // overlap it waits for the whole gather.
      const double gend = first_gather_end_[static_cast<size_t>(g)];
      return std::max(start, in_.overlap_param_gather ? gend - dur : gend);
    }
    return start;
  }

  // Runs op p of rank r if its input has arrived; false when it must wait.
  bool RunOp(int r, size_t p) {
    const PipelineOp op = s_.ops[p];
    const int g = op.virtual_stage * pp_ + r;
    const size_t idx = static_cast<size_t>(g) * m_ + static_cast<size_t>(op.micro_batch);
    const ChunkTimes& ct = in_.chunks[R(r) * static_cast<size_t>(vp_) + static_cast<size_t>(op.virtual_stage)];
    const OpInput x = InputOf(op, g, idx, ct);
    if (x.ready == kNotYet) return false;
    double& free_at = compute_free_[R(r)];
    const double unconstrained = std::max(free_at, x.ready);
    OpRecord& me = rec_[p];
    if (x.ready > free_at && x.from >= 0) {
      me.pred = x.from;
      me.data = true;
    } else if (p > s_.rank_begin[R(r)]) {
      me.pred = static_cast<int32_t>(p - 1);
    }
    const double start = AfterGathers(r, op, g, unconstrained, x.dur);
    me.gather = start - unconstrained;
    if (op.kind == OpKind::kForward) chunk_started_[static_cast<size_t>(g)] = 1;
    prev_op_start_[R(r)] = start;
    const double finish = start + x.dur;
    me.start = start;
    me.finish = finish;
    free_at = finish;
    compute_[R(r)].push_back({start, finish});
    if (!in_.rates.empty())
      compute_dp_rate_[R(r)].push_back(op.kind == OpKind::kForward ? RateOf(r).dp_forward : RateOf(r).dp_backward);
    if (in_.record_timeline)
      res_.timeline.events.push_back(
          {r, Timeline::kComputeStream, x.phase, op.micro_batch, op.virtual_stage, start, x.dur, {}});
    Finished(r, p, op, g, idx, start, finish);
    return true;
  }

  // Op p ended: its output is sent on, the in-flight counts move, its gradients are reduced.
  void Finished(int r, size_t p, const PipelineOp& op, int g, size_t idx, double start, double finish) {
    StageFigures& fig = res_.stages[R(r)];
    if (op.kind == OpKind::kForward) {
      f_end_[idx] = finish;
      f_from_[idx] = static_cast<int32_t>(p);
      f_arrive_[idx] = g == G_ - 1 ? finish : Send(r, g + 1, finish, op.micro_batch, op.virtual_stage);
      fig.peak_inflight = std::max(fig.peak_inflight, ++inflight_[R(r)]);
      // A B moves a micro-batch from in flight to pending, a W frees it: the sum peaks at a F.
      fig.peak_held = std::max(fig.peak_held, inflight_[R(r)] + pending_w_[R(r)]);
    } else if (op.kind == OpKind::kBackward) {
      // b_arrive[idx] holds the gradient's arrival at stage g-1; stage 0 marks B done.
      b_from_[idx] = static_cast<int32_t>(p);
      b_arrive_[idx] = g == 0 ? finish : Send(r, g - 1, finish, op.micro_batch, op.virtual_stage);
      --inflight_[R(r)];
      if (split_) {
        fig.peak_pending_weight_grads = std::max(fig.peak_pending_weight_grads, ++pending_w_[R(r)]);
      } else {
        last_grad_end_[static_cast<size_t>(g)] = finish;
        last_grad_start_[static_cast<size_t>(g)] = start;
        ReduceMicroBatch(r, start, finish, op.virtual_stage);
      }
    } else {
      --pending_w_[R(r)];
      last_grad_end_[static_cast<size_t>(g)] = finish;
      last_grad_start_[static_cast<size_t>(g)] = start;
      ReduceMicroBatch(r, start, finish, op.virtual_stage);
    }
    fig.pipeline_end_s = finish;
  }

  // Once per step (ZeRO-0/1): rank r's gradient reduction, chunk by chunk in the order their
  // gradients become final, filling the port from their ready time after the DP queue (its
  // gathers), around the pipeline transfers when they share the port (the transfers go first).
  // Returns when the gradients are reduced.
  double ReduceGradients(int r, double grads_done) {
    const StageFigures& fig = res_.stages[R(r)];
    const double per_chunk = in_.grad_reduce_s[R(r)] / vp_;
    std::vector<int> chunk_order(static_cast<size_t>(vp_));
    for (int c = 0; c < vp_; ++c) chunk_order[static_cast<size_t>(c)] = c;
    auto done = [&](int c) { return last_grad_end_[static_cast<size_t>(c * pp_ + r)]; };
    std::stable_sort(chunk_order.begin(), chunk_order.end(), [&](int a, int b) { return done(a) < done(b); });
    const size_t ri = R(r);
    static const std::vector<Interval> kNone;
    const std::vector<Interval>& blocked = in_.dp_stream && in_.dp_shares_pp_port ? comm_[ri] : kNone;
    std::vector<double>& dp_free = DpFree();
    double cursor = dp_free[ri];
    std::vector<Interval> pieces;
    for (int c : chunk_order) {
      const double ready =
          in_.reduce_during_last_backward ? last_grad_start_[static_cast<size_t>(c * pp_ + r)] : done(c);
      const double after = std::max(cursor, in_.overlap_grad_reduce ? ready : fig.pipeline_end_s);
      pieces.clear();
      cursor = FillPort(after, per_chunk, blocked, compute_[ri], compute_dp_rate_[ri], pieces);
      for (const Interval& piece : pieces) {
        (in_.dp_stream ? dp_comm_ : comm_)[ri].push_back(piece);
        if (in_.dp_stream) dp_comm_union_[ri].push_back(piece);
        if (in_.record_timeline)
          res_.timeline.events.push_back(
              {r, dp_stream_id_, Phase::kAllReduce, -1, c, piece.start_s, piece.end_s - piece.start_s, {}});
      }
      grads_done = std::max(grads_done, cursor);
    }
    dp_free[ri] = cursor;
    return grads_done;
  }

  // Rank r's step after its pipeline: the data-parallel gradient reduction on the comm (or dp)
  // stream, then the optimizer on compute.
  void FinishRank(int r) {
    StageFigures& fig = res_.stages[R(r)];
    res_.pipeline_time_s = std::max(res_.pipeline_time_s, fig.pipeline_end_s);
    double grads_done = fig.pipeline_end_s;
    if (per_micro_batch_) {
      grads_done = std::max(grads_done, DpFree()[R(r)]);
    } else if (!in_.grad_reduce_s.empty() && in_.grad_reduce_s[R(r)] > 0) {
      grads_done = ReduceGradients(r, grads_done);
    }
    fig.reduce_tail_s = std::max(0.0, grads_done - fig.pipeline_end_s);
    double last = std::max({grads_done, comm_free_[R(r)], DpFree()[R(r)]});
    if (!in_.optimizer_s.empty() && in_.optimizer_s[R(r)] > 0) {
      const double start = std::max(compute_free_[R(r)], grads_done);
      const double d = in_.optimizer_s[R(r)];
      compute_[R(r)].push_back({start, start + d});
      if (in_.record_timeline)
        res_.timeline.events.push_back({r, Timeline::kComputeStream, Phase::kOptimizer, -1, -1, start, d, {}});
      last = std::max(last, start + d);
    }
    fig.last_event_end_s = last;
    res_.step_time_s = std::max(res_.step_time_s, last);
  }

  // The critical path, back from the last op of the rank whose step ends last.
  void TraceCriticalPath() {
    CriticalPath& cp = res_.critical_path;
    for (int r = 1; r < pp_; ++r)
      if (res_.stages[R(r)].last_event_end_s > res_.stages[R(cp.end_rank)].last_event_end_s) cp.end_rank = r;
    const StageFigures& end = res_.stages[R(cp.end_rank)];
    const size_t first = s_.rank_begin[R(cp.end_rank)], stop = s_.rank_begin[R(cp.end_rank) + 1];
    for (int64_t cur = stop > first ? static_cast<int64_t>(stop - 1) : -1; cur >= 0;) {
      const OpRecord& o = rec_[static_cast<size_t>(cur)];
      cp.compute_s += o.finish - o.start;
      cp.gather_wait_s += o.gather;
      const double waited =
          o.pred >= 0 ? o.start - o.gather - rec_[static_cast<size_t>(o.pred)].finish : o.start - o.gather;
      (o.data ? cp.transfer_s : cp.send_block_s) += std::max(0.0, waited);
      cur = o.pred;
    }
    if (!in_.p2p_blocks_compute) {
      // Without blocking sends a rank-bound op starts right after its predecessor; what is left
      // is the start of the first op (0).
      cp.send_block_s = 0;
    }
    cp.reduce_tail_s = end.reduce_tail_s;
    cp.optimizer_s = in_.optimizer_s.empty() ? 0 : in_.optimizer_s[R(cp.end_rank)];
    cp.other_s = std::max(0.0, end.last_event_end_s - end.pipeline_end_s - cp.reduce_tail_s - cp.optimizer_s);
  }

  // Each rank's compute, non-compute and idle time over the step.
  void Breakdowns() {
    for (int r = 0; r < pp_; ++r) {
      StageFigures& fig = res_.stages[R(r)];
      // Each stream's intervals are in start order: merge them instead of sorting.
      std::vector<Interval> other(comm_[R(r)].size() + dp_comm_[R(r)].size());
      std::merge(comm_[R(r)].begin(), comm_[R(r)].end(), dp_comm_[R(r)].begin(), dp_comm_[R(r)].end(), other.begin(),
                 [](const Interval& a, const Interval& b) { return a.start_s < b.start_s; });
      fig.time = BreakdownIntervals(compute_[R(r)], other, 0, res_.step_time_s);
      if (in_.dp_stream)
        fig.dp_non_compute_s =
            BreakdownIntervals(compute_[R(r)], dp_comm_union_[R(r)], 0, res_.step_time_s).non_compute_s;
      fig.peak_inflight_microbatches = static_cast<double>(fig.peak_inflight) / vp_;
    }
  }

  const Schedule& s_;
  const PipelineInput& in_;
  const int pp_, vp_;
  const size_t m_;
  const int G_;                 // global stages, pp * vp
  const bool split_;            // B and W apart (zero-bubble schedules)
  const bool gathers_, zero3_;  // ZeRO parameter gathers; per pass (ZeRO-3) rather than once
  const bool per_micro_batch_;  // ZeRO-2/3: gradients reduced every micro-batch
  const int dp_stream_id_;
  // Flat per (global stage, micro-batch) state: when the forward output / input gradient of
  // stage g is available at the neighbour, and when B ended (for W and the last stage's B); the
  // op (position in s.ops) whose output each arrival carries.
  std::vector<double> f_end_, f_arrive_, b_arrive_;
  std::vector<int32_t> f_from_, b_from_;
  std::vector<OpRecord> rec_;  // per op, for the critical path
  std::vector<size_t> pos_;    // per rank, its next op
  std::vector<double> compute_free_, comm_free_, own_dp_free_;
  std::vector<double> prev_op_start_;  // per rank: ZeRO-3 prefetch point
  std::vector<int> inflight_, pending_w_;
  // Per global stage: start and end of the last op that finalizes its weight gradients; ZeRO-1/2:
  // the chunk's gather end.
  std::vector<double> last_grad_start_, last_grad_end_, first_gather_end_;
  std::vector<uint8_t> chunk_started_;
  std::vector<std::vector<double>> compute_dp_rate_;  // per rank, the DP rate in each compute interval
  std::vector<std::vector<Interval>> compute_, comm_, dp_comm_;
  std::vector<std::vector<Interval>> dp_comm_union_;  // dp intervals, also on "comm"
  SimulationResult res_;
};

}  // namespace

SimulationResult SimulatePipeline(const Schedule& s, const PipelineInput& in) {
  CheckInput(s, in);
  return PipelineSimulation(s, in).Run();
}

}  // namespace paratune
