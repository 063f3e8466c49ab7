#include "cli/estimate_text.h"

#include <fmt/format.h>

#include "cli/time_to_train_cli.h"

namespace paratune::cli {
namespace {

std::string Seconds(double s) {
  if (s >= 1) return fmt::format("{:.3f} s", s);
  if (s >= 1e-3) return fmt::format("{:.2f} ms", s * 1e3);
  return fmt::format("{:.1f} us", s * 1e6);
}

std::string Bytes(double b) {
  if (b >= 1e9) return fmt::format("{:.1f} GB", b / 1e9);
  if (b >= 1e6) return fmt::format("{:.1f} MB", b / 1e6);
  if (b >= 1e3) return fmt::format("{:.1f} kB", b / 1e3);
  return fmt::format("{:.0f} B", b);
}

template <typename... A>
void Append(std::string& o, fmt::format_string<A...> f, A&&... a) {
  o += fmt::format(f, std::forward<A>(a)...);
  o += '\n';
}

}  // namespace

namespace {

// The scenario, the layout and the throughput figures.
void AppendThroughput(std::string& o, const Estimate& e, const ClusterSpec& cluster) {
  const GpuSpec& gpu = cluster.gpu;
  const Layout& l = e.layout;
  const Training& t = e.training;
  Append(o, "{} on {} x {} ({}), seq {}, global batch {}, {}", e.model, e.gpus, e.gpu, cluster.Describe(), t.seq,
         t.global_batch, PrecisionName(t.precision));
  Append(o, "  {:.2f}B parameters ({:.2f}B active)", e.total_params / 1e9, e.active_params / 1e9);
  Append(o,
         "layout: tp {} pp {} vp {} cp {} ep {} etp {} dp {} | sp {} | zero {} | recompute {} | mbs {} | "
         "{} micro-batches, schedule {}",
         l.tp, l.pp, l.vp, l.cp, l.ep, l.expert_tp(), l.dp, l.sequence_parallel() ? "on" : "off", l.zero,
         RecomputeName(l.recompute), l.mbs, e.micro_batches, e.schedule);
  Append(o, "");
  Append(o, "Throughput");
  Append(o, "  step time           {}", Seconds(e.step_time_s));
  Append(o, "  tokens/s            {:.0f} (job), {:.0f} per GPU", e.tokens_per_s, e.tokens_per_s_per_gpu);
  Append(o, "  model TFLOP/s/GPU   {:.1f}", e.model_tflops_per_gpu);
  // The two MFUs of step/mfu.h: against the BF16 peak first, the one every precision shares.
  Append(o,
         "  MFU                 {:.1f}% of the dense BF16 peak ({:g} TFLOP/s); {:.1f}% of the dense {} peak ({:g} "
         "TFLOP/s)",
         100 * e.mfu_vs_bf16, gpu.bf16_flops / 1e12, 100 * e.mfu, PrecisionName(t.precision),
         gpu.peak_flops(t.precision) / 1e12);
  Append(o, "  HFU                 {:.1f}% of the dense {} peak (with recomputation)", 100 * e.hfu,
         PrecisionName(t.precision));
  Append(o, "  comm share          {:.1f}% exposed communication", 100 * e.comm_share);
  Append(o, "  bubble rate         {:.1f}%", 100 * e.bubble_rate);
}

// The time to train a budget of tokens, and its cost.
void AppendBudget(std::string& o, const Estimate& e, const TrainingBudget& budget) {
  const TimeToTrain tt = ComputeTimeToTrain(budget, e);
  Append(o, "");
  Append(o, "Time to train {:.4g} tokens (every step at the predicted step time)", tt.train_tokens);
  Append(o, "  wall time           {:.1f} days at {:.0f} tokens/s", tt.days(), tt.tokens_per_s);
  Append(o, "  GPU-hours           {} ({} GPUs)", Abbreviated(tt.gpu_hours()), tt.gpus);
  if (tt.cost_usd)
    Append(o, "  cost                {} USD at {:.2f} USD per GPU-hour", Abbreviated(*tt.cost_usd),
           *tt.usd_per_gpu_hour);
}

// The step's time by term (the schema list kStepTerms).
void AppendStepTerms(std::string& o, const Estimate& e) {
  const TimeBreakdown& tb = e.time;
  const double step = e.step_time_s;
  // The compute terms follow the longest stage; the DP tail and optimizer the stage that ends
  // the step (issue 32: "critical pipeline stage 1" showed stage 0's optimizer time).
  if (e.end_stage == e.critical_stage)
    Append(o, "Time per step (critical pipeline stage {})", e.critical_stage);
  else
    Append(o,
           "Time per step (compute terms: critical pipeline stage {}; DP tail and optimizer: stage {}, which ends the "
           "step)",
           e.critical_stage, e.end_stage);
  for (const StepTerm& term : kStepTerms) {
    const double s = tb.*term.value;
    if (term.part_of) {
      if (s > 0) Append(o, "  {:<28} {:>12}", std::string("  ") + term.label, Seconds(s));
    } else if (s > 1e-9 * step || term.value == &TimeBreakdown::compute_s) {
      Append(o, "  {:<28} {:>12} {:>6.1f}%", term.label, Seconds(s), 100 * s / step);
    }
  }
}

// Communication per step, by collective.
void AppendComms(std::string& o, const Estimate& e, const ClusterSpec& cluster) {
  if (!e.comms.empty()) {
    Append(o, "");
    Append(o, "Communication per step");
    Append(o, "  {:<4} {:<26} {:>5} {:<8} {:>10} {:>9} {:>10} {:>11} {:>11}", "kind", "collective", "group", "link",
           "bytes/call", "calls", "time/call", "total", "exposed");
    for (const CommItem& c : e.comms)
      Append(o, "  {:<4} {:<26} {:>5} {:<8} {:>10} {:>9.0f} {:>10} {:>11} {:>11}", c.kind, c.op, c.group_size,
             c.crosses_domain                              ? "network"
             : cluster.fabric.scale_up == LinkClass::kPcie ? "PCIe"
                                                           : "NVLink",
             Bytes(c.bytes_per_call), c.calls_per_step, Seconds(c.time_per_call_s), Seconds(c.total_s),
             Seconds(c.exposed_s));
  }
}

// Link occupancy of the busiest stage.
void AppendLinks(std::string& o, const Estimate& e) {
  if (!e.links.empty()) {
    Append(o, "");
    Append(o, "Link occupancy per step (busiest stage; each transfer at the link's full rate)");
    Append(o, "  {:<10} {:>5} {:>11} {:>6} {:>11} {:>11} {:>11} {:>11}", "link", "stage", "busy", "util",
           "fwd in-stage", "bwd in-stage", "pp", "dp");
    for (const LinkLoad& ld : e.links)
      Append(o, "  {:<10} {:>5} {:>11} {:>5.1f}% {:>11} {:>11} {:>11} {:>11}{}", ld.link, ld.stage, Seconds(ld.busy_s),
             100 * ld.utilisation, Seconds(ld.forward_s), Seconds(ld.backward_s), Seconds(ld.pp_s), Seconds(ld.dp_s),
             ld.utilisation >= kLinkBottleneckUtilisation ? "  bottleneck" : "");
  }
}

// Memory per GPU by stage (the schema list kMemoryTerms).
void AppendMemory(std::string& o, const Estimate& e) {
  Append(o, "Memory per GPU (GB = 1e9 bytes): peak stage {} needs {:.1f} of {:.1f} GB: {}", e.peak_stage,
         e.peak_memory_bytes / 1e9, e.capacity_bytes / 1e9, e.fits ? "fits" : "DOES NOT FIT");
  {
    std::string head = fmt::format("  {:>5}", "stage");
    for (const MemoryTerm& term : kMemoryTerms) head += fmt::format(" {:>7}", term.label);
    Append(o, "{} {:>7} {:>8}", head, "total", "inflight");
  }
  for (const StageEstimate& s : e.stages) {
    std::string line = fmt::format("  {:>5}", s.index);
    for (const MemoryTerm& term : kMemoryTerms) line += fmt::format(" {:>7.1f}", s.memory.*term.value / 1e9);
    Append(o, "{} {:>7.1f} {:>8.2f}", line, s.memory.total() / 1e9, s.inflight_microbatches);
  }
}

}  // namespace

std::string FormatEstimate(const Estimate& e, const ClusterSpec& cluster, const std::optional<TrainingBudget>& budget) {
  std::string o;
  AppendThroughput(o, e, cluster);
  if (budget) AppendBudget(o, e, *budget);
  Append(o, "");
  AppendStepTerms(o, e);
  AppendComms(o, e, cluster);
  AppendLinks(o, e);
  Append(o, "");
  AppendMemory(o, e);
  if (!e.warnings.empty()) {
    Append(o, "");
    Append(o, "Warnings");
    for (const std::string& w : e.warnings) Append(o, "  - {}", w);
  }
  return o;
}

}  // namespace paratune::cli
