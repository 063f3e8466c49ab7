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

SimulationResult SimulatePipeline(const Schedule& s, const PipelineInput& in) {
  CheckInput(s, in);
  const int pp = s.pp, vp = s.vp;
  const size_t m = static_cast<size_t>(s.m);
  const int G = pp * vp;  // global stages; stage g lives on rank g % pp as chunk g / pp
  const bool split = s.split_backward;

  // Flat per (global stage, micro-batch) state: when the forward output / input gradient of
  // stage g is available at the neighbour, and when B ended (for W and the last stage's B).
  std::vector<double> f_end(static_cast<size_t>(G) * m, kNotYet), f_arrive(f_end.size(), kNotYet);
  std::vector<double> b_arrive(f_end.size(), kNotYet);
  // Critical path bookkeeping: the op (position in s.ops) whose output each arrival carries, and
  // per op its start, end, the op it waited for and the part of its wait spent on gathers.
  std::vector<int32_t> f_from(f_end.size(), -1), b_from(f_end.size(), -1);
  struct OpRecord {
    double start = 0, finish = 0, gather = 0;
    int32_t pred = -1;  // the op it waited for; -1: none
    bool data = false;  // waited for a transfer (else for its rank)
  };
  std::vector<OpRecord> rec(s.ops.size());
  std::vector<size_t> pos(static_cast<size_t>(pp));
  std::vector<double> compute_free(static_cast<size_t>(pp), 0), comm_free(static_cast<size_t>(pp), 0);
  // The data-parallel stream: its own, or the comm stream of the pipeline transfers.
  std::vector<double> own_dp_free(static_cast<size_t>(pp), 0);
  std::vector<double>& dp_free = in.dp_stream ? own_dp_free : comm_free;
  auto rate_of = [&](int r) {
    return in.rates.empty() ? PipelineInput::StreamRates{} : in.rates[static_cast<size_t>(r)];
  };
  // Per rank, the DP rate during each compute interval (for the reductions' fill).
  std::vector<std::vector<double>> compute_dp_rate(static_cast<size_t>(pp));
  const int dp_stream_id = in.dp_stream ? Timeline::kCommStream + 1 : Timeline::kCommStream;
  // Per global stage: start of the last op that finalizes the stage's weight gradients.
  std::vector<double> last_grad_start(static_cast<size_t>(G), 0);
  // ZeRO gathers: per chunk and rank, the gather time of one pass over the chunk's parameters.
  const bool gathers = !in.param_gather_s.empty();
  const bool zero3 = gathers && in.gathers_per_forward > 0;
  std::vector<double> first_gather_end(static_cast<size_t>(G), 0);  // ZeRO-1/2: chunk's gather end
  std::vector<double> prev_op_start(static_cast<size_t>(pp), 0);    // ZeRO-3 prefetch point
  std::vector<int> inflight(static_cast<size_t>(pp), 0), pending_w(static_cast<size_t>(pp), 0);
  // Per global stage: end of the last op that finalizes the stage's weight gradients.
  std::vector<double> last_grad_end(static_cast<size_t>(G), 0);
  std::vector<std::vector<Interval>> compute(static_cast<size_t>(pp)), comm(static_cast<size_t>(pp)),
      dp_comm(static_cast<size_t>(pp));
  std::vector<std::vector<Interval>> dp_comm_union(static_cast<size_t>(pp));  // dp intervals, also on "comm"

  SimulationResult res;
  res.stages.resize(static_cast<size_t>(pp));
  Timeline& tl = res.timeline;
  tl.ranks = pp;
  if (in.dp_stream) tl.stream_names = {"compute", "comm", "dp"};
  if (in.record_timeline) tl.events.reserve(s.ops.size() * 2 + 2 * static_cast<size_t>(pp) * static_cast<size_t>(vp));
  for (int r = 0; r < pp; ++r) {
    pos[static_cast<size_t>(r)] = s.rank_begin[static_cast<size_t>(r)];
    compute[static_cast<size_t>(r)].reserve(s.rank_begin[static_cast<size_t>(r) + 1] -
                                            s.rank_begin[static_cast<size_t>(r)] + 1);
    comm[static_cast<size_t>(r)].reserve(pp > 1 || vp > 1 ? 2 * m * static_cast<size_t>(vp) + static_cast<size_t>(vp)
                                                          : static_cast<size_t>(vp));
  }

  // Sends the result of an op on rank r to the rank of global stage `to`; returns its arrival.
  auto send = [&](int r, int to, double ready, int32_t mb, int32_t chunk) {
    if (to % pp == r || in.p2p_s == 0) return ready;  // same rank, or free transfer
    double& cf = comm_free[static_cast<size_t>(r)];
    const double start = std::max(ready, cf);
    const double d = in.p2p_s / rate_of(r).pp;
    cf = start + d;
    comm[static_cast<size_t>(r)].push_back({start, cf});
    if (in.record_timeline) tl.events.push_back({r, Timeline::kCommStream, Phase::kSend, mb, chunk, start, d, {}});
    if (in.p2p_blocks_compute)
      compute_free[static_cast<size_t>(r)] = std::max(compute_free[static_cast<size_t>(r)], cf);
    return cf;
  };

  // A data-parallel collective of `work` seconds at its port's full rate on rank r's dp stream,
  // from `after` on. Overlapped with the passes, it runs at the lower of the rank's two DP rates
  // (it may run under passes of either kind, whose own collectives hold part of the port); one
  // the rank waits for (no overlap) has the port to itself.
  auto dp_collective = [&](int r, double after, double work, Phase phase, int32_t chunk, bool overlapped) {
    const PipelineInput::StreamRates rr = rate_of(r);
    const double d = overlapped ? work / std::min(rr.dp_forward, rr.dp_backward) : work;
    double& df = dp_free[static_cast<size_t>(r)];
    const double start = std::max(after, df);
    df = start + d;
    (in.dp_stream ? dp_comm : comm)[static_cast<size_t>(r)].push_back({start, df});
    if (in.dp_stream) dp_comm_union[static_cast<size_t>(r)].push_back({start, df});
    if (in.record_timeline) tl.events.push_back({r, dp_stream_id, phase, -1, chunk, start, d, {}});
    return df;
  };
  // ZeRO-1/2: each rank gathers its chunks' updated parameters from the start of the step, in
  // the order the chunks first run (chunk 0 first).
  if (gathers && !zero3)
    for (int r = 0; r < pp; ++r) {
      const double per_chunk = in.param_gather_s[static_cast<size_t>(r)] / vp;
      if (per_chunk <= 0) continue;
      for (int c = 0; c < vp; ++c)
        first_gather_end[static_cast<size_t>(c * pp + r)] =
            dp_collective(r, 0, per_chunk, Phase::kAllGather, c, in.overlap_param_gather);
    }
  std::vector<uint8_t> chunk_started(static_cast<size_t>(G), 0);
  // ZeRO-2/3: the reduce-scatter of one micro-batch's gradients of a chunk, issued as its
  // gradient pass starts (per-block buckets) or, without overlap, after it, the rank waiting.
  const bool per_micro_batch = in.reduce_every_micro_batch && !in.grad_reduce_s.empty();
  auto reduce_micro_batch = [&](int r, double start, double finish, int32_t chunk) {
    if (!per_micro_batch) return;
    const double work = in.grad_reduce_s[static_cast<size_t>(r)] / vp;
    if (work <= 0) return;
    const double end = dp_collective(r, in.overlap_grad_reduce ? start : finish, work, Phase::kAllReduce, chunk,
                                     in.overlap_grad_reduce);
    if (!in.overlap_grad_reduce)
      compute_free[static_cast<size_t>(r)] = std::max(compute_free[static_cast<size_t>(r)], end);
  };

  size_t remaining = s.ops.size();
  while (remaining > 0) {
    bool progress = false;
    for (int r = 0; r < pp; ++r) {
      const size_t end = s.rank_begin[static_cast<size_t>(r) + 1];
      size_t& p = pos[static_cast<size_t>(r)];
      double& free_at = compute_free[static_cast<size_t>(r)];
      StageFigures& fig = res.stages[static_cast<size_t>(r)];
      while (p < end) {
        const PipelineOp op = s.ops[p];
        const int g = op.virtual_stage * pp + r;
        const size_t j = static_cast<size_t>(op.micro_batch);
        const size_t idx = static_cast<size_t>(g) * m + j;
        const ChunkTimes& ct =
            in.chunks[static_cast<size_t>(r) * static_cast<size_t>(vp) + static_cast<size_t>(op.virtual_stage)];
        double ready = 0, dur = 0;
        int32_t from = -1;  // the op whose output `ready` waits for
        Phase phase = Phase::kForward;
        if (op.kind == OpKind::kForward) {
          ready = g == 0 ? 0 : f_arrive[idx - m];
          if (g > 0) from = f_from[idx - m];
          dur = ct.forward_s;
        } else if (op.kind == OpKind::kBackward) {
          ready = g == G - 1 ? f_end[idx] : b_arrive[idx + m];
          from = g == G - 1 ? f_from[idx] : b_from[idx + m];
          dur = split ? ct.backward_s - ct.weight_s : ct.backward_s;
          phase = Phase::kBackward;
        } else {
          ready = b_arrive[idx] == kNotYet ? kNotYet : 0;  // W follows its B on this rank (in order)
          dur = ct.weight_s;
          phase = Phase::kWeightGrad;
        }
        if (ready == kNotYet) break;
        double start = std::max(free_at, ready);
        const double unconstrained = start;
        OpRecord& me = rec[p];
        if (ready > free_at && from >= 0) {
          me.pred = from;
          me.data = true;
        } else if (p > s.rank_begin[static_cast<size_t>(r)]) {
          me.pred = static_cast<int32_t>(p - 1);
        }
        if (gathers && op.kind != OpKind::kWeightGrad) {
          const double per_chunk = in.param_gather_s[static_cast<size_t>(r)] / vp;
          if (zero3 && per_chunk > 0) {
            // ZeRO-3: this op's gathers, prefetched from the start of the rank's previous op; the
            // op consumes them block by block as they arrive, so it cannot end before they do
            // (FSDP forward prefetch). Without overlap they are issued when the op could start
            // and the op waits for them.
            const int n = op.kind == OpKind::kForward ? in.gathers_per_forward : in.gathers_per_backward;
            double end = start;
            const double from = in.overlap_param_gather ? prev_op_start[static_cast<size_t>(r)] : start;
            for (int k = 0; k < n; ++k)
              end = dp_collective(r, from, per_chunk, Phase::kAllGather, op.virtual_stage, in.overlap_param_gather);
            start = std::max(start, in.overlap_param_gather ? end - dur : end);
          } else if (!zero3 && op.kind == OpKind::kForward && !chunk_started[static_cast<size_t>(g)]) {
            // ZeRO-1/2: the chunk's first forward consumes the gathered buckets as they arrive, so
            // it cannot end before its gather does (Megatron overlap_param_gather); without
            // overlap it waits for the whole gather.
            const double gend = first_gather_end[static_cast<size_t>(g)];
            start = std::max(start, in.overlap_param_gather ? gend - dur : gend);
          }
        }
        me.gather = start - unconstrained;
        if (op.kind == OpKind::kForward) chunk_started[static_cast<size_t>(g)] = 1;
        prev_op_start[static_cast<size_t>(r)] = start;
        const double finish = start + dur;
        me.start = start;
        me.finish = finish;
        free_at = finish;
        compute[static_cast<size_t>(r)].push_back({start, finish});
        if (!in.rates.empty())
          compute_dp_rate[static_cast<size_t>(r)].push_back(op.kind == OpKind::kForward ? rate_of(r).dp_forward
                                                                                        : rate_of(r).dp_backward);
        if (in.record_timeline)
          tl.events.push_back({r, Timeline::kComputeStream, phase, op.micro_batch, op.virtual_stage, start, dur, {}});
        if (op.kind == OpKind::kForward) {
          f_end[idx] = finish;
          f_from[idx] = static_cast<int32_t>(p);
          f_arrive[idx] = g == G - 1 ? finish : send(r, g + 1, finish, op.micro_batch, op.virtual_stage);
          fig.peak_inflight = std::max(fig.peak_inflight, ++inflight[static_cast<size_t>(r)]);
          // A B moves a micro-batch from in flight to pending, a W frees it: the sum peaks at a F.
          fig.peak_held = std::max(fig.peak_held, inflight[static_cast<size_t>(r)] + pending_w[static_cast<size_t>(r)]);
        } else if (op.kind == OpKind::kBackward) {
          // b_arrive[idx] holds the gradient's arrival at stage g-1; stage 0 marks B done.
          b_from[idx] = static_cast<int32_t>(p);
          b_arrive[idx] = g == 0 ? finish : send(r, g - 1, finish, op.micro_batch, op.virtual_stage);
          --inflight[static_cast<size_t>(r)];
          if (split) {
            fig.peak_pending_weight_grads =
                std::max(fig.peak_pending_weight_grads, ++pending_w[static_cast<size_t>(r)]);
          } else {
            last_grad_end[static_cast<size_t>(g)] = finish;
            last_grad_start[static_cast<size_t>(g)] = start;
            reduce_micro_batch(r, start, finish, op.virtual_stage);
          }
        } else {
          --pending_w[static_cast<size_t>(r)];
          last_grad_end[static_cast<size_t>(g)] = finish;
          last_grad_start[static_cast<size_t>(g)] = start;
          reduce_micro_batch(r, start, finish, op.virtual_stage);
        }
        fig.pipeline_end_s = finish;
        ++p;
        --remaining;
        progress = true;
      }
    }
    if (!progress)
      throw std::logic_error(
          fmt::format("pipeline schedule {} deadlocks (pp {}, vp {}, m {})", ScheduleName(s.kind), s.pp, s.vp, s.m));
  }

  // Data-parallel gradient reduction on the comm stream, then the optimizer on compute.
  std::vector<int> chunk_order;
  for (int r = 0; r < pp; ++r) {
    StageFigures& fig = res.stages[static_cast<size_t>(r)];
    res.pipeline_time_s = std::max(res.pipeline_time_s, fig.pipeline_end_s);
    double grads_done = fig.pipeline_end_s;
    if (per_micro_batch) {
      grads_done = std::max(grads_done, dp_free[static_cast<size_t>(r)]);
    } else if (!in.grad_reduce_s.empty() && in.grad_reduce_s[static_cast<size_t>(r)] > 0) {
      const double per_chunk = in.grad_reduce_s[static_cast<size_t>(r)] / vp;
      // Chunks in the order their gradients become final.
      chunk_order.resize(static_cast<size_t>(vp));
      for (int c = 0; c < vp; ++c) chunk_order[static_cast<size_t>(c)] = c;
      auto done = [&](int c) { return last_grad_end[static_cast<size_t>(c * pp + r)]; };
      std::stable_sort(chunk_order.begin(), chunk_order.end(), [&](int a, int b) { return done(a) < done(b); });
      // The reductions fill their port from their ready time, after the DP queue (its gathers),
      // around the pipeline transfers when they share the port (the transfers go first).
      const size_t ri = static_cast<size_t>(r);
      static const std::vector<Interval> kNone;
      const std::vector<Interval>& blocked = in.dp_stream && in.dp_shares_pp_port ? comm[ri] : kNone;
      double cursor = dp_free[ri];
      std::vector<Interval> pieces;
      for (int c : chunk_order) {
        const double ready =
            in.reduce_during_last_backward ? last_grad_start[static_cast<size_t>(c * pp + r)] : done(c);
        const double after = std::max(cursor, in.overlap_grad_reduce ? ready : fig.pipeline_end_s);
        pieces.clear();
        cursor = FillPort(after, per_chunk, blocked, compute[ri], compute_dp_rate[ri], pieces);
        for (const Interval& piece : pieces) {
          (in.dp_stream ? dp_comm : comm)[ri].push_back(piece);
          if (in.dp_stream) dp_comm_union[ri].push_back(piece);
          if (in.record_timeline)
            tl.events.push_back(
                {r, dp_stream_id, Phase::kAllReduce, -1, c, piece.start_s, piece.end_s - piece.start_s, {}});
        }
        grads_done = std::max(grads_done, cursor);
      }
      dp_free[ri] = cursor;
    }
    fig.reduce_tail_s = std::max(0.0, grads_done - fig.pipeline_end_s);
    double last = std::max({grads_done, comm_free[static_cast<size_t>(r)], dp_free[static_cast<size_t>(r)]});
    if (!in.optimizer_s.empty() && in.optimizer_s[static_cast<size_t>(r)] > 0) {
      const double start = std::max(compute_free[static_cast<size_t>(r)], grads_done);
      const double d = in.optimizer_s[static_cast<size_t>(r)];
      compute[static_cast<size_t>(r)].push_back({start, start + d});
      if (in.record_timeline)
        tl.events.push_back({r, Timeline::kComputeStream, Phase::kOptimizer, -1, -1, start, d, {}});
      last = std::max(last, start + d);
    }
    fig.last_event_end_s = last;
    res.step_time_s = std::max(res.step_time_s, last);
  }
  if (!in.breakdown) {
    for (StageFigures& fig : res.stages) fig.peak_inflight_microbatches = static_cast<double>(fig.peak_inflight) / vp;
    return res;
  }
  // The critical path, back from the last op of the rank whose step ends last.
  {
    CriticalPath& cp = res.critical_path;
    for (int r = 1; r < pp; ++r)
      if (res.stages[static_cast<size_t>(r)].last_event_end_s >
          res.stages[static_cast<size_t>(cp.end_rank)].last_event_end_s)
        cp.end_rank = r;
    const StageFigures& end = res.stages[static_cast<size_t>(cp.end_rank)];
    const size_t first = s.rank_begin[static_cast<size_t>(cp.end_rank)],
                 stop = s.rank_begin[static_cast<size_t>(cp.end_rank) + 1];
    for (int64_t cur = stop > first ? static_cast<int64_t>(stop - 1) : -1; cur >= 0;) {
      const OpRecord& o = rec[static_cast<size_t>(cur)];
      cp.compute_s += o.finish - o.start;
      cp.gather_wait_s += o.gather;
      const double waited =
          o.pred >= 0 ? o.start - o.gather - rec[static_cast<size_t>(o.pred)].finish : o.start - o.gather;
      (o.data ? cp.transfer_s : cp.send_block_s) += std::max(0.0, waited);
      cur = o.pred;
    }
    if (!in.p2p_blocks_compute) {
      // Without blocking sends a rank-bound op starts right after its predecessor; what is left
      // is the start of the first op (0).
      cp.send_block_s = 0;
    }
    cp.reduce_tail_s = end.reduce_tail_s;
    cp.optimizer_s = in.optimizer_s.empty() ? 0 : in.optimizer_s[static_cast<size_t>(cp.end_rank)];
    cp.other_s = std::max(0.0, end.last_event_end_s - end.pipeline_end_s - cp.reduce_tail_s - cp.optimizer_s);
  }
  for (int r = 0; r < pp; ++r) {
    StageFigures& fig = res.stages[static_cast<size_t>(r)];
    // Each stream's intervals are in start order: merge them instead of sorting.
    std::vector<Interval> other(comm[static_cast<size_t>(r)].size() + dp_comm[static_cast<size_t>(r)].size());
    std::merge(comm[static_cast<size_t>(r)].begin(), comm[static_cast<size_t>(r)].end(),
               dp_comm[static_cast<size_t>(r)].begin(), dp_comm[static_cast<size_t>(r)].end(), other.begin(),
               [](const Interval& a, const Interval& b) { return a.start_s < b.start_s; });
    fig.time = BreakdownIntervals(compute[static_cast<size_t>(r)], other, 0, res.step_time_s);
    if (in.dp_stream)
      fig.dp_non_compute_s =
          BreakdownIntervals(compute[static_cast<size_t>(r)], dp_comm_union[static_cast<size_t>(r)], 0, res.step_time_s)
              .non_compute_s;
    fig.peak_inflight_microbatches = static_cast<double>(fig.peak_inflight) / vp;
  }
  return res;
}

}  // namespace paratune
