// pipeline_bubble (issue 11 rule 9): the pipeline bubble, the share of the step a pipeline rank
// idles in the schedule, above 10% (the tuning checklist's "a pipeline bubble in single digits").
// Source: the cost model's estimate of the planned layout (Estimate::bubble_rate, from the
// simulated schedule, docs/cost-model.md); a trace's idle time does not tell the bubble apart
// from other waits, so the bubble is not read from traces. For 1F1B it is about
// (pp-1)/(m+pp-1) for m micro-batches (Narayanan et al. 2021, arXiv 2104.04473 Sec. 2.2.1);
// interleaving with v virtual stages divides it by v (ibid. Sec. 2.2.2); ZB-H1 splits the
// backward pass to fill it (Qi et al. 2024, arXiv 2401.10241 Sec. 3.1).
// The fix is the best of these, each estimated by the cost model on the same GPUs: more
// virtual stages (--num-layers-per-virtual-pipeline-stage), the ZB-H1 schedule, a smaller
// micro-batch (more micro-batches per step), a larger global batch. The loss is the throughput
// the best one recovers, 1 - tokens/s(planned) / tokens/s(best); when none fits, the bubble's
// excess over 10%.
#include <fmt/format.h>

#include <algorithm>

#include "diagnose/rules.h"
#include "diagnose/what_if.h"

namespace paratune {
namespace {

// Issue 11's checklist: "a pipeline bubble in single digits".
constexpr double kMaxBubbleShare = 0.10;
// Virtual stages per rank tried: a bound on the search (each must divide the layers per stage,
// checked by the layout rules), not a published figure.
constexpr int kMaxVirtualStages = 8;
// Global batches tried: twice and four times the planned one.
constexpr int kMaxBatchFactor = 4;

struct Option {
  std::string what;      // "interleaving with vp 4"
  std::string megatron;  // the Megatron-LM flags
  Estimate estimate;
};

// The changes that shrink the planned layout's bubble and fit with the planner's headroom, each
// estimated by the cost model, the highest throughput first.
std::vector<Option> BubbleOptions(const PlannedRun& p) {
  const Estimate& now = p.estimate;
  const Layout& l0 = now.layout;
  std::vector<Option> options;
  auto consider = [&](std::string what, std::string megatron, Layout l, const Training& t) {
    l.dp = 0;
    std::optional<Estimate> e = EstimateVariant(p, l, t);
    if (e && FitsWithHeadroom(*e) && e->bubble_rate < now.bubble_rate)
      options.push_back({std::move(what), std::move(megatron), std::move(*e)});
  };
  const int64_t layers = p.model.layers;
  for (int vp = l0.vp + 1; vp <= kMaxVirtualStages; ++vp) {
    if (layers % (int64_t(l0.pp) * vp) != 0) continue;
    Layout l = l0;
    l.vp = vp;
    l.pp_layout.clear();
    if (l.schedule && *l.schedule != ScheduleKind::kInterleaved) l.schedule.reset();
    consider(fmt::format("interleaved 1F1B with vp {}", vp),
             fmt::format("--num-layers-per-virtual-pipeline-stage {}", layers / (int64_t(l0.pp) * vp)), l, p.training);
  }
  if (l0.pipeline_schedule() != ScheduleKind::kZbH1) {
    Layout l = l0;
    l.vp = 1;
    l.pp_layout.clear();
    l.schedule = ScheduleKind::kZbH1;
    consider("the zero-bubble ZB-H1 schedule",
             "the ZB-H1 schedule (github.com/sail-sg/zero-bubble-pipeline-parallelism)", l, p.training);
  }
  for (int mbs = l0.mbs / 2; mbs >= 1; mbs /= 2) {
    Layout l = l0;
    l.mbs = mbs;
    consider(fmt::format("micro-batch {} ({} micro-batches)", mbs, l0.micro_batches(p.training) * (l0.mbs / mbs)),
             fmt::format("--micro-batch-size {}", mbs), l, p.training);
  }
  for (int k = 2; k <= kMaxBatchFactor; k *= 2) {
    Training t = p.training;
    t.global_batch *= k;
    consider(fmt::format("global batch {} (changes the optimisation; retune the learning rate)", t.global_batch),
             fmt::format("--global-batch-size {}", t.global_batch), l0, t);
  }
  std::sort(options.begin(), options.end(),
            [](const Option& a, const Option& b) { return a.estimate.tokens_per_s > b.estimate.tokens_per_s; });
  return options;
}

class PipelineBubble : public Rule {
 public:
  const char* Name() const override { return "pipeline_bubble"; }
  const char* Summary() const override {
    return "the planned layout's pipeline bubble exceeds 10% of the step (more micro-batches, interleaving, "
           "zero-bubble)";
  }
  void Check(const DiagnoseInputs& in, std::vector<Finding>* out) const override {
    if (!in.plan || in.plan->layout.pp <= 1) return;
    const PlannedRun& p = *in.plan;
    const Estimate& now = p.estimate;
    if (!(now.bubble_rate > kMaxBubbleShare)) return;
    const Layout& l0 = now.layout;
    const std::vector<Option> options = BubbleOptions(p);

    Finding f;
    f.rule = Name();
    const double excess = now.bubble_rate - kMaxBubbleShare;
    const double gain = options.empty() ? 0 : LossAgainst(now, options.front().estimate);
    f.loss_fraction = options.empty() || gain <= 0 ? excess : gain;
    // Above the checklist's bound is a misconfiguration: a warning at least.
    f.severity = AtLeast(SeverityForLoss(f.loss_fraction), Severity::kWarning);
    f.title = fmt::format("pipeline bubble {:.1f}% of the step (pp {}, {} micro-batches, {})", 100 * now.bubble_rate,
                          l0.pp, now.micro_batches, ScheduleName(l0.pipeline_schedule()));
    f.message = fmt::format(
        "The cost model puts {:.3f} s of the {:.3f} s step in the pipeline bubble ({:.1f}%, above the "
        "{:.0f}% target).",
        now.time.bubble_s, now.step_time_s, 100 * now.bubble_rate, 100 * kMaxBubbleShare);
    for (const Option& o : options)
      f.message += fmt::format(" With {}: bubble {:.1f}%, {:.0f} tokens/s per GPU ({:+.1f}%).", o.what,
                               100 * o.estimate.bubble_rate, o.estimate.tokens_per_s_per_gpu,
                               100 * (o.estimate.tokens_per_s / now.tokens_per_s - 1));
    if (options.empty()) {
      f.message +=
          " No interleaving, schedule, micro-batch or batch change fits in memory with the planner's headroom.";
      f.fix =
          "more micro-batches per step (a larger global batch or a smaller micro-batch), interleaving "
          "(--num-layers-per-virtual-pipeline-stage) or a zero-bubble schedule, or fewer pipeline stages";
    } else {
      const Option& b = options.front();
      f.fix =
          fmt::format("{}: {} (Megatron-LM {}); predicted bubble {:.1f}%, step {:.3f} s", b.what,
                      VariantFlags(b.estimate, now), b.megatron, 100 * b.estimate.bubble_rate, b.estimate.step_time_s);
    }
    f.evidence = {{"bubble share", now.bubble_rate, "fraction", "cost model"},
                  {"bubble time", now.time.bubble_s, "s", "cost model"},
                  {"micro-batches per step", double(now.micro_batches), "", "cost model"},
                  {"pipeline stages", double(l0.pp), "", "plan"}};
    if (!options.empty())
      f.evidence.push_back(
          {"bubble share after the fix", options.front().estimate.bubble_rate, "fraction", "cost model"});
    out->push_back(std::move(f));
  }
};

}  // namespace

std::unique_ptr<Rule> MakePipelineBubbleRule() { return std::make_unique<PipelineBubble>(); }

}  // namespace paratune
