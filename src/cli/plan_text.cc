#include "cli/plan_text.h"

#include <fmt/format.h>

#include "cli/time_to_train_cli.h"
#include "layout/pipeline_split.h"

namespace paratune::cli {

std::string FormatPlan(const PlanResult& res, const PlanRequest& r, const std::optional<TrainingBudget>& budget) {
  std::string o;
  auto line = [&](const std::string& s) { o += s + "\n"; };
  line(fmt::format("plan: {} on {} x {} ({}), seq {}, global batch {}, precision {}, objective {}", r.model.name,
                   r.cluster.gpus, r.cluster.gpu.name, r.cluster.Describe(), r.training.seq, r.training.global_batch,
                   r.any_precision ? "any" : PrecisionName(r.training.precision), ObjectiveName(r.objective)));
  line(fmt::format(
      "searched {} valid layouts ({} branches cut by a rule), {} estimated ({} skipped by the memory "
      "bound, {} by the step-time bound), {} fit in {:.1f} GB per GPU "
      "({:.0f}% of {:.1f} GB, --headroom {}; GB = 1e9 bytes)",
      res.candidates, res.rejected_by_rules, res.estimated, res.skipped_memory, res.pruned_by_bound, res.fitting,
      res.memory_limit_bytes / 1e9, 100 * (1 - r.headroom), r.cluster.gpu.hbm_bytes / 1e9, r.headroom));
  line("");
  const bool cost = budget && budget->usd_per_gpu_hour;
  std::string header = fmt::format(
      "{:>3} {:>3} {:>3} {:>3} {:>3} {:>4} {:>4} {:>5} {:>4} {:>9} {:>4} {:>5} {:>11} {:>14} {:>10} {:>12} {:>6} {:>6} "
      "{:>9} {:>6} {:>7}",
      "#", "tp", "pp", "vp", "cp", "ep", "etp", "dp", "zero", "recompute", "mbs", "prec", "schedule", "split", "step",
      "tok/s/GPU", "MFU", "own", "mem/GPU", "comm", "bubble");
  if (budget) header += fmt::format(" {:>7}", "days");
  if (cost) header += fmt::format(" {:>9}", "USD");
  line(header);
  for (size_t i = 0; i < res.ranked.size(); ++i) {
    const Estimate& e = res.ranked[i];
    const Layout& l = e.layout;
    const std::string split = SplitLabel(r.model.layers, l.pp, l.vp, l.pp_layout);
    const std::string etp = r.model.is_moe() ? std::to_string(l.expert_tp()) : "-";  // a dense model has no experts
    std::string row = fmt::format(
        "{:>3} {:>3} {:>3} {:>3} {:>3} {:>4} {:>4} {:>5} {:>4} {:>9} {:>4} {:>5} {:>11} {:>14} {:>8.3f} s {:>12.0f} "
        "{:>5.1f}% {:>5.1f}% {:>6.1f} GB {:>5.1f}% {:>6.1f}%",
        i + 1, l.tp, l.pp, l.vp, l.cp, l.ep, etp, l.dp, l.zero, RecomputeName(l.recompute), l.mbs,
        PrecisionName(e.training.precision), ScheduleName(l.pipeline_schedule()), split, e.step_time_s,
        e.tokens_per_s_per_gpu, 100 * e.mfu_vs_bf16, 100 * e.mfu, e.peak_memory_bytes / 1e9, 100 * e.comm_share,
        100 * e.bubble_rate);
    if (budget) {
      const TimeToTrain t = ComputeTimeToTrain(*budget, e);
      row += fmt::format(" {:>7.1f}", t.days());
      if (t.cost_usd) row += fmt::format(" {:>9}", Abbreviated(*t.cost_usd));
    }
    line(row);
  }
  line(
      fmt::format("MFU: model FLOPs over the dense BF16 peak ({:g} TFLOP/s), one denominator for every row; own: over "
                  "the dense peak of the row's precision",
                  r.cluster.gpu.bf16_flops / 1e12));
  if (budget) {
    line("");
    line(fmt::format("time to train {:.4g} tokens with #1: {}", budget->train_tokens,
                     DescribeTimeToTrain(ComputeTimeToTrain(*budget, res.ranked.front()))));
  }
  line("");
  line("rules that shaped the search:");
  for (const RuleNote& n : res.rules) line(fmt::format("  [{}] {}", n.rule, n.note));
  line("");
  line("why #1:");
  for (const std::string& s : res.explanation) line("  " + s);
  return o;
}

}  // namespace paratune::cli
