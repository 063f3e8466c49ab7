#include "step/compose.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <fmt/format.h>

#include "cost/flops.h"
#include "cost/stage_costs.h"
#include "pipeline/schedule.h"
#include "step/link_loads.h"
#include "step/mfu.h"
#include "util/error.h"

namespace paratune {
namespace {

// Tokens per optimizer step above which a batch earns a warning: 16x the largest published run's
// (DeepSeek-V3, 63M; see the warning below).
constexpr double kLargestSensibleTokensPerStep = 1e9;

// Passes of a schedule over all ranks, saturating instead of overflowing.
int64_t OpsOf(ScheduleKind k, int pp, int vp, int64_t m) {
  int64_t ops = 0;
  if (__builtin_mul_overflow(m, static_cast<int64_t>(vp) * pp * (k == ScheduleKind::kZbH1 ? 3 : 2), &ops))
    return std::numeric_limits<int64_t>::max();
  return ops;
}

void CheckOps(ScheduleKind k, int pp, int vp, int64_t m, int64_t limit, const char* what) {
  const int64_t ops = OpsOf(k, pp, vp, m);
  if (ops > limit)
    throw InputError(fmt::format(
        "{} would run {} passes ({} micro-batches x pp {} x vp {}), more than the {} this "
        "bound allows: {}",
        what, ops, m, pp, vp, limit,
        // Name the factor that is out of scale (issue 32: the micro-batch count was, and
        // the message said pp or vp).
        m > static_cast<int64_t>(pp) * vp
            ? "fewer micro-batches (`global_batch` / (dp x `mbs`): a smaller global batch or a larger `mbs`)"
            : "lower `pp` or `vp`"));
}

SimulationResult Run(ScheduleKind k, int pp, int vp, int64_t m, PipelineInput in, bool record) {
  in.record_timeline = record;
  return SimulatePipeline(BuildSchedule(k, pp, vp, m), in);
}

// The per-rank figures a simulation reports that grow (or stay) with the micro-batch count.
template <class F>
void ForEachFigure(SimulationResult& r, F f) {
  f(r.step_time_s);
  f(r.pipeline_time_s);
  for (StageFigures& s : r.stages) {
    // Counts, held as doubles while extended: GPipe keeps every micro-batch in flight.
    double inflight = s.peak_inflight, pending = s.peak_pending_weight_grads;
    f(inflight);
    f(pending);
    f(s.peak_inflight_microbatches);
    s.peak_inflight = static_cast<int>(std::llround(inflight));
    s.peak_pending_weight_grads = static_cast<int>(std::llround(pending));
    f(s.time.window_s);
    f(s.time.compute_s);
    f(s.time.non_compute_s);
    f(s.time.idle_s);
    f(s.time.comm_s);
    f(s.dp_non_compute_s);
    f(s.pipeline_end_s);
    f(s.last_event_end_s);
    f(s.reduce_tail_s);
  }
  CriticalPath& c = r.critical_path;
  for (double* x :
       {&c.compute_s, &c.transfer_s, &c.send_block_s, &c.gather_wait_s, &c.reduce_tail_s, &c.optimizer_s, &c.other_s})
    f(*x);
}

std::vector<double> Figures(SimulationResult r) {
  std::vector<double> v;
  ForEachFigure(r, [&](double x) { v.push_back(x); });
  return v;
}

// Whether every figure grows by the same amount from a to b as from b to c.
bool Periodic(const SimulationResult& a, const SimulationResult& b, const SimulationResult& c) {
  const std::vector<double> x = Figures(a), y = Figures(b), z = Figures(c);
  const double scale = std::max(1e-30, std::abs(c.step_time_s));
  for (size_t i = 0; i < x.size(); ++i)
    if (std::abs((z[i] - y[i]) - (y[i] - x[i])) > 1e-9 * scale) return false;
  return true;
}

struct BoundedRun {
  SimulationResult result;
  int64_t simulated = 0;
  bool extrapolated = false;
};

// The schedule over m micro-batches, simulated in full up to kFullSimulationMicroBatches and
// extended from its periodic steady state beyond (compose.h).
// With `record`, the result's timeline holds every micro-batch (from a full run beside the
// extended figures, which stay the numbers reported).
BoundedRun SimulateBounded(ScheduleKind k, int pp, int vp, int64_t m, const PipelineInput& in, bool record,
                           int64_t full) {
  if (record) CheckOps(k, pp, vp, m, kMaxTimelineOps, "a timeline of this step");
  if (m <= full) {
    CheckOps(k, pp, vp, m, kMaxSimulatedOps, "the pipeline simulation");
    return {Run(k, pp, vp, m, in, record), m, false};
  }
  // One period: a group of pp micro-batches for the interleaved order, else one.
  const int64_t period = k == ScheduleKind::kInterleaved ? pp : 1;
  auto ceil_to = [&](int64_t x) { return (x + period - 1) / period * period; };
  // Past the warm-up and the cool-down of every rank, with the count m has modulo the period.
  for (int64_t a = ceil_to(std::max<int64_t>(std::min<int64_t>(full, kFullSimulationMicroBatches) / 4, 4LL * pp));
       a + 2 * period < m; a = ceil_to(2 * a)) {
    const int64_t b = a + period, c = b + period;
    CheckOps(k, pp, vp, c, kMaxSimulatedOps, "the pipeline simulation");
    const SimulationResult ra = Run(k, pp, vp, a, in, false), rb = Run(k, pp, vp, b, in, false);
    SimulationResult rc = Run(k, pp, vp, c, in, false);
    if (!Periodic(ra, rb, rc)) continue;
    // f(m) = f(c) + (m - c) / period * (f(c) - f(b)), for every figure.
    const double steps = static_cast<double>((m - c) / period);
    const std::vector<double> fb = Figures(rb);
    size_t i = 0;
    ForEachFigure(rc, [&](double& x) {
      x += steps * (x - fb[i]);
      ++i;
    });
    if (record) rc.timeline = Run(k, pp, vp, m, in, true).timeline;
    return {std::move(rc), c, true};
  }
  // No periodic steady state within the bound: simulate every micro-batch if that fits.
  CheckOps(k, pp, vp, m, kMaxSimulatedOps, "the pipeline simulation");
  return {Run(k, pp, vp, m, in, record), m, false};
}

// The ports the DP collectives hold (dense weights, expert weights), if they have any work.
std::vector<Port> DpPorts(const StepCosts& sc) {
  double dense = 0, expert = 0;
  for (const StageCost& st : sc.stages) {
    dense += st.grad_reduce_dense_s + st.param_gather_dense_s;
    expert += st.grad_reduce_expert_s + st.param_gather_expert_s;
  }
  std::vector<Port> v;
  if (dense > 0) v.push_back(PortOf(sc.dense_dp_links));
  if (expert > 0 && (v.empty() || v[0] != PortOf(sc.expert_dp_links))) v.push_back(PortOf(sc.expert_dp_links));
  return v;
}

// Link occupancy: the rates the comm and dp streams of a rank keep on their ports while its
// passes run, 1 less the share the passes' own collectives hold (docs/cost-model.md).
PipelineInput::StreamRates Rates(const StageCost& st, const Layout& l, Port pp_port, const std::vector<Port>& dp) {
  const bool split = l.pipeline_schedule() == ScheduleKind::kZbH1;
  const double b_pass = st.backward_s - (split ? st.weight_grad_s : 0);
  auto share = [](double busy, double pass) { return pass > 0 ? std::min(1.0, busy / pass) : 0.0; };
  // The passes' own collectives (synchronous, on the critical path) go first; a stream gets the
  // rest of the port, but two flows on one port share it at worst fairly (NCCL's channels
  // interleave), so a stream keeps at least half; what that overcommits the port, the link
  // bound (BoundByLinks) adds to the step.
  auto rate = [](double used) { return std::max(0.5, 1 - used); };
  // With the EP all-to-all overlapped, a forward's collectives run under a backward and the
  // reverse: the port's share is the pair's.
  auto shares = [&](Port p) {
    if (l.overlap_ep_comm) {
      const double pair = share(st.forward_ports_s[p] + st.backward_ports_s[p], st.forward_s + b_pass);
      return std::pair{pair, pair};
    }
    return std::pair{share(st.forward_ports_s[p], st.forward_s), share(st.backward_ports_s[p], b_pass)};
  };
  PipelineInput::StreamRates r;
  const auto [pf, pb] = shares(pp_port);
  r.pp = rate(std::max(pf, pb));
  double f = 0, b = 0;
  for (Port p : dp) {
    f = std::max(f, shares(p).first);
    b = std::max(b, shares(p).second);
  }
  r.dp_forward = rate(f);
  r.dp_backward = rate(b);
  return r;
}

// The simulator's input from the stage costs: each rank's chunks with their own layers.
PipelineInput MakeInput(const StepCosts& sc, const Layout& l) {
  PipelineInput in;
  in.p2p_s = sc.p2p_s;
  in.p2p_blocks_compute = !l.overlap_pp_comm;
  in.overlap_grad_reduce = l.overlap_grad_reduce;
  in.reduce_during_last_backward = true;
  in.reduce_every_micro_batch = l.zero >= 2;
  in.dp_stream = true;
  in.overlap_param_gather = l.overlap_param_gather;
  in.gathers_per_forward = sc.zero3_gathers_forward;
  in.gathers_per_backward = sc.zero3_gathers_backward;
  const Port pp_port = PortOf(sc.pp_links);
  const std::vector<Port> dp_ports = DpPorts(sc);
  in.dp_shares_pp_port =
      l.pp > 1 && sc.p2p_s > 0 && std::find(dp_ports.begin(), dp_ports.end(), pp_port) != dp_ports.end();
  for (const StageCost& st : sc.stages) {
    in.rates.push_back(Rates(st, l, pp_port, dp_ports));
    for (const StageCost::ChunkCost& c : st.chunks) in.chunks.push_back({c.forward_s, c.backward_s, c.weight_grad_s});
    in.grad_reduce_s.push_back(st.grad_reduce_s());
    if (l.zero >= 1) in.param_gather_s.push_back(st.param_gather_s());
    in.optimizer_s.push_back(st.optimizer_s);
  }
  return in;
}

void AddComm(std::vector<CommItem>& v, const char* kind, const char* op, const GroupCost& g, double bytes, double calls,
             double call_s, double exposed_s) {
  if (calls <= 0 || bytes <= 0) return;
  v.push_back({kind, op, g.size, g.crosses_domain, bytes, calls, call_s, calls * call_s, exposed_s});
}

std::string GB(double bytes) { return fmt::format("{:.1f} GB", bytes / 1e9); }

// The communication table: in-stage collectives and DP collectives of the critical stage, PP
// transfers; exposed times from the breakdown (DP shared in proportion to time).
std::vector<CommItem> CommTable(const StepCosts& sc, const Layout& l, const TimeBreakdown& tb, int crit) {
  std::vector<CommItem> v;
  const StageCost& st = sc.stages[static_cast<size_t>(crit)];
  const double md = static_cast<double>(sc.micro_batches);
  const double nd = st.dense_layers, nm = st.moe_layers;
  const double rc = l.recompute == Recompute::kFull ? 1 : 0;
  const LayerCost& dense = sc.dense;
  if (l.tp > 1)
    AddComm(v, "tp", l.sequence_parallel() ? "all-gather/reduce-scatter" : "all-reduce", sc.tp_group, dense.tp_bytes,
            md * (nd + nm) * (dense.tp_calls_fwd * (1 + rc) + dense.tp_calls_bwd), dense.tp_call_s, tb.tp_s);
  if (l.cp > 1)
    AddComm(v, "cp", l.cp_comm == CpComm::kA2a ? "all-to-all" : "send-recv", sc.cp_group, dense.cp_bytes,
            md * (nd + nm) * (dense.cp_calls_fwd * (1 + rc) + dense.cp_calls_bwd), dense.cp_call_s, tb.cp_s);
  if (nm > 0 && l.ep > 1)
    AddComm(v, "ep", "all-to-all", sc.ep_group, sc.moe.ep_bytes, md * nm * (2 * (1 + rc) + 2), sc.moe.ep_call_s,
            tb.ep_s);
  if (l.pp > 1) AddComm(v, "pp", "send-recv", sc.pp_group, sc.p2p_bytes, 2.0 * md * l.vp, sc.p2p_s, tb.pp_s);
  const size_t first_dp = v.size();
  const char* reduce_op = l.zero == 0 ? "all-reduce" : "reduce-scatter";
  const double reductions = GradReductionsPerStep(sc, l);
  const double grad_bytes = GradCommBytesPerParam(l);
  AddComm(v, "dp", reduce_op, sc.dense_dp_group, st.dense_params * grad_bytes, reductions, st.grad_reduce_dense_s, 0);
  AddComm(v, "edp", reduce_op, sc.expert_dp_group, st.expert_params * grad_bytes, reductions, st.grad_reduce_expert_s,
          0);
  if (l.zero >= 1) {
    const double gathers = ParamGathersPerStep(sc, l);
    AddComm(v, "dp", "all-gather", sc.dense_dp_group, st.dense_params * 2, gathers, st.param_gather_dense_s, 0);
    AddComm(v, "edp", "all-gather", sc.expert_dp_group, st.expert_params * 2, gathers, st.param_gather_expert_s, 0);
  }
  double dp_total = 0;
  for (size_t i = first_dp; i < v.size(); ++i) dp_total += v[i].total_s;
  for (size_t i = first_dp; i < v.size(); ++i) v[i].exposed_s = dp_total > 0 ? tb.dp_s * v[i].total_s / dp_total : 0;
  return v;
}

// The pipeline time of the schedule over the pass times alone, which the bubble is measured
// against (through the cache when one is given).
double ScheduleOnlyTime(ScheduleKind kind, int pp, int vp, int64_t mb, const PipelineInput& input,
                        const ComposeOptions& co) {
  ScheduleTimeCache::Key key;
  if (co.schedule_cache) {
    std::vector<double> times;
    for (const ChunkTimes& ct : input.chunks) times.insert(times.end(), {ct.forward_s, ct.backward_s, ct.weight_s});
    key = {static_cast<int>(kind), pp, vp, mb, std::move(times)};
    if (const double* cached = co.schedule_cache->Find(key)) return *cached;
  }
  PipelineInput schedule_only;
  schedule_only.chunks = input.chunks;
  schedule_only.breakdown = false;
  const double t =
      SimulateBounded(kind, pp, vp, mb, schedule_only, false, co.full_simulation_micro_batches).result.pipeline_time_s;
  if (co.schedule_cache) co.schedule_cache->Put(std::move(key), t);
  return t;
}

// The stages of the estimate: their costs, and the activations the schedule keeps in flight
// (peak forwards not yet backwarded; Narayanan et al. 2021 Sec. 2.2: 1F1B stage s keeps pp - s).
std::vector<StageEstimate> Stages(const StepCosts& sc, const SimulationResult& sim) {
  std::vector<StageEstimate> out(sc.stages.size());
  for (size_t s = 0; s < sc.stages.size(); ++s) {
    const StageCost& st = sc.stages[s];
    StageEstimate& se = out[s];
    static_cast<StagePasses&>(se) = st;
    se.params = st.params();
    se.grad_reduce_s = st.grad_reduce_s();
    se.param_gather_s = st.param_gather_s();
    se.optimizer_s = st.optimizer_s;
    se.inflight_microbatches = sim.stages[s].peak_inflight_microbatches;
    se.memory = st.memory;
    // Zero-bubble schedules: at the peak of micro-batches held (in flight or with W pending),
    // those beyond the in-flight peak wait for their W and keep its inputs (an upper bound).
    const StageFigures& fig = sim.stages[s];
    se.memory.activations = se.inflight_microbatches * st.activation_bytes +
                            std::max(0, fig.peak_held - fig.peak_inflight) * st.weight_grad_activation_bytes +
                            st.working_bytes;
    se.memory.fragmentation = kAllocatorReserveFraction * se.memory.allocated();
  }
  return out;
}

// The step-time terms (docs/cost-model.md, section 7). The compute terms are the critical
// stage's (the longest per micro-batch): m times its compute and exposed in-stage communication.
// The pipeline bubble is what the schedule alone adds to that: the same schedule over the same
// pass times without transfers, DP collectives or optimizer ends that much later (for balanced
// stages the closed form (pp-1)/(vp*m) of the compute, Narayanan et al. 2021 Sec. 2.2;
// pipeline/closed_form.h). The simulated critical path (pipeline/simulator.h CriticalPath) gives
// the DP part (the gathers it waits for and the end rank's reduction after its last pass) and
// the end rank's optimizer; the PP transfers are the rest of the step.
TimeBreakdown AttributeStep(const StepCosts& sc, const SimulationResult& sim, double schedule_s, int pp) {
  const double md = static_cast<double>(sc.micro_batches);
  const StageCost& cs = sc.stages[static_cast<size_t>(sc.critical_stage)];
  const CriticalPath& path = sim.critical_path;
  TimeBreakdown tb;
  tb.compute_s = md * cs.compute_s;
  tb.recompute_s = md * cs.recompute_s;
  tb.tp_s = md * cs.tp_exposed_s;
  tb.cp_s = md * cs.cp_exposed_s;
  tb.ep_s = md * cs.ep_exposed_s;
  tb.offload_s = md * cs.offload_exposed_s;
  const double work = tb.compute_s + tb.tp_s + tb.cp_s + tb.ep_s + tb.offload_s;
  tb.bubble_s = pp == 1 ? 0.0 : std::max(0.0, schedule_s - work);  // one rank runs back to back
  tb.dp_s = path.gather_wait_s + path.reduce_tail_s;
  tb.optimizer_s = path.optimizer_s;
  tb.other_s = path.other_s;
  // Gathers the critical path waits for can fall where the schedule alone idles: that time is
  // the gathers', not the bubble's, so the terms add up to the step.
  const double excess = work + tb.bubble_s + tb.dp_s + tb.optimizer_s + tb.other_s - sim.step_time_s;
  if (excess > 0) {
    const double from_bubble = std::min(tb.bubble_s, excess);
    tb.bubble_s -= from_bubble;
    tb.dp_s = std::max(0.0, tb.dp_s - (excess - from_bubble));
  }
  tb.pp_s = std::max(0.0, sim.step_time_s - (work + tb.bubble_s + tb.dp_s + tb.optimizer_s + tb.other_s));
  return tb;
}

// Throughput, MFU (against both peaks, step/mfu.h) and HFU of a step of `e.step_time_s`.
void FillThroughput(const ModelSpec& m, const ClusterSpec& c, const Training& t, Estimate& e) {
  const GpuSpec& g = c.gpu;
  const double tokens = static_cast<double>(t.global_batch) * static_cast<double>(t.seq);
  e.tokens_per_s = tokens / e.step_time_s;
  e.tokens_per_s_per_gpu = e.tokens_per_s / c.gpus;
  e.model_flops_per_step = ModelFlopsPerStep(m, t);
  e.hardware_flops_per_step = HardwareFlopsPerStep(m, t, e.layout.recompute);
  e.model_tflops_per_gpu = e.model_flops_per_step / e.step_time_s / c.gpus / 1e12;
  const double peak = g.peak_flops(t.precision);
  e.mfu = FlopsUtilization(e.model_flops_per_step, e.step_time_s, c.gpus, peak);
  e.hfu = FlopsUtilization(e.hardware_flops_per_step, e.step_time_s, c.gpus, peak);
  e.mfu_vs_bf16 = FlopsUtilization(e.model_flops_per_step, e.step_time_s, c.gpus, g.bf16_flops);
  e.comm_share = e.time.exposed_comm_s() / e.step_time_s;
  e.bubble_rate = e.time.bubble_s / e.step_time_s;
}

// The peak stage against the HBM, and the warnings that depend on the composed step.
void FillMemoryAndWarnings(const StepCosts& sc, const GpuSpec& g, Estimate& e) {
  e.capacity_bytes = g.hbm_bytes;
  for (const StageEstimate& st : e.stages) {
    if (st.memory.total() > e.peak_memory_bytes) {
      e.peak_memory_bytes = st.memory.total();
      e.peak_stage = st.index;
    }
    e.peak_allocated_bytes = std::max(e.peak_allocated_bytes, st.memory.allocated());
  }
  e.fits = e.peak_memory_bytes <= e.capacity_bytes;
  e.warnings = sc.warnings;
  if (!e.fits)
    e.warnings.push_back(fmt::format("memory: stage {} needs {} per GPU, more than the {} of {}", e.peak_stage,
                                     GB(e.peak_memory_bytes), GB(e.capacity_bytes), g.name));
  for (const LinkLoad& ld : e.links)
    if (ld.utilisation >= kLinkBottleneckUtilisation)
      e.warnings.push_back(
          fmt::format("link {} of stage {} is busy {:.0f}% of the step (in-stage {:.3f} s, PP {:.3f} "
                      "s, DP {:.3f} s): the step is bound by it",
                      ld.link, ld.stage, 100 * ld.utilisation, ld.forward_s + ld.backward_s, ld.pp_s, ld.dp_s));
  if (e.bubble_rate > 0.2)
    e.warnings.push_back(
        fmt::format("pipeline bubble is {:.0f}% of the step: raise the micro-batch count (global "
                    "batch / (dp*mbs) = {}) or vp",
                    100 * e.bubble_rate, e.micro_batches));
  // A batch far beyond any published run's is more likely a typo than a plan (issue 32: 16.4B
  // tokens per step passed without a word). The largest published: DeepSeek-V3, 15,360 x 4,096 =
  // 63M tokens per step (arXiv:2412.19437, section 4.2); Llama 3 405B 16M (arXiv:2407.21783, 3.4.1).
  const double tokens_per_step = static_cast<double>(e.training.global_batch) * e.training.seq;
  if (tokens_per_step > kLargestSensibleTokensPerStep)
    e.warnings.push_back(
        fmt::format("batch: {} sequences x {} tokens = {:.3g} tokens per step, over {:.0f} times the largest "
                    "published (DeepSeek-V3's 63M): is --global-batch in sequences?",
                    e.training.global_batch, e.training.seq, tokens_per_step, tokens_per_step / 63e6));
}

}  // namespace

StepResult ComposeValidStep(const ModelSpec& m, const ClusterSpec& c, const Training& t, const Layout& l,
                            const EstimateOptions& o, const ComposeOptions& co) {
  const StepCosts sc = ComputeStepCosts(m, c, t, l, o.state_bytes);
  const ScheduleKind kind = l.pipeline_schedule();
  const PipelineInput input = MakeInput(sc, l);

  StepResult out;
  BoundedRun run =
      SimulateBounded(kind, l.pp, l.vp, sc.micro_batches, input, co.record_timeline, co.full_simulation_micro_batches);
  out.simulated_micro_batches = run.simulated;
  out.extrapolated = run.extrapolated;
  out.simulation = std::move(run.result);
  const SimulationResult& sim = out.simulation;

  Estimate& e = out.estimate;
  e.model = m.name;
  e.gpu = c.gpu.name;
  e.gpus = c.gpus;
  e.nodes = c.nodes();
  e.layout = l;
  e.training = t;
  e.schedule = ScheduleName(kind);
  e.micro_batches = sc.micro_batches;
  e.p2p_time_s = sc.p2p_s;
  e.total_params = sc.total_params;
  e.active_params = sc.active_params;
  e.critical_stage = sc.critical_stage;
  e.end_stage = sim.critical_path.end_rank;
  e.stages = Stages(sc, sim);
  const double schedule_s = l.pp == 1 ? 0 : ScheduleOnlyTime(kind, l.pp, l.vp, sc.micro_batches, input, co);
  e.time = AttributeStep(sc, sim, schedule_s, l.pp);
  e.step_time_s = sim.step_time_s;
  const auto loads = StageLinkLoads(sc, l);
  BoundByLinks(sc, loads, e);
  FillThroughput(m, c, t, e);
  e.comms = CommTable(sc, l, e.time, sc.critical_stage);
  e.links = BusiestLinks(loads, e.step_time_s);
  FillMemoryAndWarnings(sc, c.gpu, e);
  return out;
}

StepResult ComposeStep(const ModelSpec& m, const ClusterSpec& c, const Training& t, Layout l, const EstimateOptions& o,
                       const ComposeOptions& co) {
  const auto violations = CheckLayout(m, c, t, l, o.rules);
  if (!violations.empty()) throw InputError(DescribeViolations(violations));
  return ComposeValidStep(m, c, t, l, o, co);
}

Estimate EstimateStep(const ModelSpec& m, const ClusterSpec& c, const Training& t, Layout l, const EstimateOptions& o) {
  return ComposeStep(m, c, t, std::move(l), o).estimate;
}

Estimate EstimateCheckedStep(const ModelSpec& m, const ClusterSpec& c, const Training& t, const Layout& l,
                             const EstimateOptions& o) {
  return ComposeValidStep(m, c, t, l, o).estimate;
}

}  // namespace paratune
