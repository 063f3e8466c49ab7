#include "pipeline/simulator.h"

#include <algorithm>
#include <cmath>
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
      throw InputError(fmt::format("pipeline simulation: chunk {} weight_s {} exceeds its backward_s {}", i,
                                   c.weight_s, c.backward_s));
  }
  CheckTime(in.p2p_s, "p2p_s", 0);
  for (auto [v, what] : {std::pair{&in.grad_reduce_s, "grad_reduce_s"}, {&in.optimizer_s, "optimizer_s"}}) {
    if (!v->empty() && v->size() != static_cast<size_t>(s.pp))
      throw InputError(fmt::format("pipeline simulation: {} has {} entries for pp {}", what, v->size(), s.pp));
    for (size_t i = 0; i < v->size(); ++i) CheckTime((*v)[i], what, i);
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
  std::vector<size_t> pos(static_cast<size_t>(pp));
  std::vector<double> compute_free(static_cast<size_t>(pp), 0), comm_free(static_cast<size_t>(pp), 0);
  std::vector<int> inflight(static_cast<size_t>(pp), 0), pending_w(static_cast<size_t>(pp), 0);
  // Per global stage: end of the last op that finalizes the stage's weight gradients.
  std::vector<double> last_grad_end(static_cast<size_t>(G), 0);
  std::vector<std::vector<Interval>> compute(static_cast<size_t>(pp)), comm(static_cast<size_t>(pp));

  SimulationResult res;
  res.stages.resize(static_cast<size_t>(pp));
  Timeline& tl = res.timeline;
  tl.ranks = pp;
  if (in.record_timeline) tl.events.reserve(s.ops.size() * 2 + 2 * static_cast<size_t>(pp) * static_cast<size_t>(vp));
  for (int r = 0; r < pp; ++r) {
    pos[static_cast<size_t>(r)] = s.rank_begin[static_cast<size_t>(r)];
    compute[static_cast<size_t>(r)].reserve(s.rank_begin[static_cast<size_t>(r) + 1] - s.rank_begin[static_cast<size_t>(r)] + 1);
    comm[static_cast<size_t>(r)].reserve(pp > 1 || vp > 1 ? 2 * m * static_cast<size_t>(vp) + static_cast<size_t>(vp) : static_cast<size_t>(vp));
  }

  // Sends the result of an op on rank r to the rank of global stage `to`; returns its arrival.
  auto send = [&](int r, int to, double ready, int32_t mb, int32_t chunk) {
    if (to % pp == r || in.p2p_s == 0) return ready;  // same rank, or free transfer
    double& cf = comm_free[static_cast<size_t>(r)];
    const double start = std::max(ready, cf);
    cf = start + in.p2p_s;
    comm[static_cast<size_t>(r)].push_back({start, cf});
    if (in.record_timeline)
      tl.events.push_back({r, Timeline::kCommStream, Phase::kSend, mb, chunk, start, in.p2p_s, {}});
    if (in.p2p_blocks_compute) compute_free[static_cast<size_t>(r)] = std::max(compute_free[static_cast<size_t>(r)], cf);
    return cf;
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
        const ChunkTimes& ct = in.chunks[static_cast<size_t>(r) * static_cast<size_t>(vp) + static_cast<size_t>(op.virtual_stage)];
        double ready = 0, dur = 0;
        Phase phase = Phase::kForward;
        if (op.kind == OpKind::kForward) {
          ready = g == 0 ? 0 : f_arrive[idx - m];
          dur = ct.forward_s;
        } else if (op.kind == OpKind::kBackward) {
          ready = g == G - 1 ? f_end[idx] : b_arrive[idx + m];
          dur = split ? ct.backward_s - ct.weight_s : ct.backward_s;
          phase = Phase::kBackward;
        } else {
          ready = b_arrive[idx] == kNotYet ? kNotYet : 0;  // W follows its B on this rank (in order)
          dur = ct.weight_s;
          phase = Phase::kWeightGrad;
        }
        if (ready == kNotYet) break;
        const double start = std::max(free_at, ready), finish = start + dur;
        free_at = finish;
        compute[static_cast<size_t>(r)].push_back({start, finish});
        if (in.record_timeline)
          tl.events.push_back({r, Timeline::kComputeStream, phase, op.micro_batch, op.virtual_stage, start, dur, {}});
        if (op.kind == OpKind::kForward) {
          f_end[idx] = finish;
          f_arrive[idx] = g == G - 1 ? finish : send(r, g + 1, finish, op.micro_batch, op.virtual_stage);
          fig.peak_inflight = std::max(fig.peak_inflight, ++inflight[static_cast<size_t>(r)]);
        } else if (op.kind == OpKind::kBackward) {
          // b_arrive[idx] holds the gradient's arrival at stage g-1; stage 0 marks B done.
          b_arrive[idx] = g == 0 ? finish : send(r, g - 1, finish, op.micro_batch, op.virtual_stage);
          --inflight[static_cast<size_t>(r)];
          if (split) fig.peak_pending_weight_grads = std::max(fig.peak_pending_weight_grads, ++pending_w[static_cast<size_t>(r)]);
          else last_grad_end[static_cast<size_t>(g)] = finish;
        } else {
          --pending_w[static_cast<size_t>(r)];
          last_grad_end[static_cast<size_t>(g)] = finish;
        }
        fig.pipeline_end_s = finish;
        ++p;
        --remaining;
        progress = true;
      }
    }
    if (!progress)
      throw std::logic_error(fmt::format("pipeline schedule {} deadlocks (pp {}, vp {}, m {})", ScheduleName(s.kind),
                                         s.pp, s.vp, s.m));
  }

  // Data-parallel gradient reduction on the comm stream, then the optimizer on compute.
  std::vector<int> chunk_order;
  for (int r = 0; r < pp; ++r) {
    StageFigures& fig = res.stages[static_cast<size_t>(r)];
    res.pipeline_time_s = std::max(res.pipeline_time_s, fig.pipeline_end_s);
    double grads_done = fig.pipeline_end_s;
    if (!in.grad_reduce_s.empty() && in.grad_reduce_s[static_cast<size_t>(r)] > 0) {
      const double per_chunk = in.grad_reduce_s[static_cast<size_t>(r)] / vp;
      double& cf = comm_free[static_cast<size_t>(r)];
      // Chunks in the order their gradients become final.
      chunk_order.resize(static_cast<size_t>(vp));
      for (int c = 0; c < vp; ++c) chunk_order[static_cast<size_t>(c)] = c;
      auto done = [&](int c) { return last_grad_end[static_cast<size_t>(c * pp + r)]; };
      std::stable_sort(chunk_order.begin(), chunk_order.end(), [&](int a, int b) { return done(a) < done(b); });
      for (int c : chunk_order) {
        const double after = in.overlap_grad_reduce ? done(c) : fig.pipeline_end_s;
        const double start = std::max(after, cf);
        cf = start + per_chunk;
        comm[static_cast<size_t>(r)].push_back({start, cf});
        if (in.record_timeline)
          tl.events.push_back({r, Timeline::kCommStream, Phase::kAllReduce, -1, c, start, per_chunk, {}});
      }
      grads_done = std::max(grads_done, cf);
    }
    double last = std::max(grads_done, comm_free[static_cast<size_t>(r)]);
    if (!in.optimizer_s.empty() && in.optimizer_s[static_cast<size_t>(r)] > 0) {
      const double start = std::max(compute_free[static_cast<size_t>(r)], grads_done);
      const double d = in.optimizer_s[static_cast<size_t>(r)];
      compute[static_cast<size_t>(r)].push_back({start, start + d});
      if (in.record_timeline) tl.events.push_back({r, Timeline::kComputeStream, Phase::kOptimizer, -1, -1, start, d, {}});
      last = std::max(last, start + d);
    }
    res.step_time_s = std::max(res.step_time_s, last);
  }
  for (int r = 0; r < pp; ++r) {
    StageFigures& fig = res.stages[static_cast<size_t>(r)];
    fig.time = BreakdownIntervals(compute[static_cast<size_t>(r)], comm[static_cast<size_t>(r)], 0, res.step_time_s);
    fig.peak_inflight_microbatches = static_cast<double>(fig.peak_inflight) / vp;
  }
  return res;
}

}  // namespace paratune
