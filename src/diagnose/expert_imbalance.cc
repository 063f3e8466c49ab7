// expert_imbalance (issue 11 rule 12): MoE routing sends more tokens to some experts than to
// others; the all-to-all synchronises the expert-parallel group, so every layer runs at the pace
// of its busiest expert (or EP rank). From per-expert token counts (trace/expert_tokens.h):
//  - per (iteration, layer) row: max and mean tokens over the experts; with a plan whose model
//    has as many experts and ep divides them, over the EP ranks instead (ranks hold contiguous
//    experts, rank r the experts r*E/ep .. (r+1)*E/ep - 1, as Megatron-Core's
//    local_expert_indices; megatron/core/transformer/moe/moe_layer.py);
//  - the imbalance R = sum(max) / sum(mean) over all rows (each layer waits for its max);
//  - the finding fires when R >= 1.25, the capacity factor Switch Transformer trains with
//    (Fedus et al. 2021, arXiv 2101.03961 Sec. 2.2: tokens beyond 1.25x the mean load are
//    dropped), so a router past it is out of its design range.
// Loss: without a plan, 1 - 1/R = 1 - sum(mean)/sum(max), the share of the MoE layers' expert
// time spent waiting for the busiest expert (an upper bound for the step: dense layers, attention
// and communication are not slowed). With a plan of a MoE model, the cost model's step with
// --expert-imbalance R against the balanced step: 1 - tokens/s(R) / tokens/s(1).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

#include "diagnose/rules.h"
#include "diagnose/what_if.h"

namespace paratune {
namespace {

// Switch Transformer's capacity factor (arXiv 2101.03961 Sec. 2.2, Table 1).
constexpr double kMaxImbalance = 1.25;
// Layers listed in the message, worst first.
constexpr size_t kLayersShown = 5;

struct Row {
  const ExpertTokens* file;
  const ExpertTokenCounts* counts;
  double max = 0, mean = 0;
};

class ExpertImbalance : public Rule {
 public:
  const char* Name() const override { return "expert_imbalance"; }
  const char* Summary() const override {
    return "per-expert token counts show the busiest expert well above the mean (router load balancing)";
  }
  void Check(const DiagnoseInputs& in, std::vector<Finding>* out) const override {
    if (in.expert_tokens.empty()) return;
    // Group experts by EP rank when the plan tells how they are placed.
    size_t experts = 0;
    for (const ExpertTokens& t : in.expert_tokens)
      if (!t.rows.empty()) experts = std::max(experts, t.rows.front().tokens.size());
    if (experts == 0) return;
    size_t group = 1;
    const bool moe_plan = in.plan && in.plan->model.is_moe();
    if (moe_plan && size_t(in.plan->model.experts) == experts && in.plan->layout.ep > 1 &&
        experts % size_t(in.plan->layout.ep) == 0)
      group = experts / size_t(in.plan->layout.ep);
    const size_t units = experts / group;

    std::vector<Row> rows;
    double sum_max = 0, sum_mean = 0;
    for (const ExpertTokens& t : in.expert_tokens)
      for (const ExpertTokenCounts& c : t.rows) {
        if (c.tokens.size() != experts) continue;  // another model's file: left out
        double total = 0, mx = 0;
        for (size_t u = 0; u < units; ++u) {
          double s = 0;
          for (size_t e = u * group; e < (u + 1) * group; ++e) s += c.tokens[e];
          total += s;
          mx = std::max(mx, s);
        }
        if (!(total > 0)) continue;
        rows.push_back({&t, &c, mx, total / double(units)});
        sum_max += mx;
        sum_mean += total / double(units);
      }
    if (rows.empty() || !(sum_mean > 0)) return;
    const double ratio = sum_max / sum_mean;
    if (ratio < kMaxImbalance) return;

    // Per iteration (over its layers) and per layer (over the iterations).
    struct Acc {
      double max = 0, mean = 0;
      std::vector<double> tokens;
    };
    std::map<int64_t, Acc> by_iteration;
    std::map<int, Acc> by_layer;
    const Row* worst = &rows.front();
    for (const Row& r : rows) {
      by_iteration[r.counts->iteration].max += r.max;
      by_iteration[r.counts->iteration].mean += r.mean;
      Acc& a = by_layer[r.counts->layer];
      a.max += r.max;
      a.mean += r.mean;
      a.tokens.resize(experts, 0.0);
      for (size_t e = 0; e < experts; ++e) a.tokens[e] += r.counts->tokens[e];
      if (r.max / r.mean > worst->max / worst->mean) worst = &r;
    }
    int64_t first_over = -1, worst_iteration = -1;
    double worst_iteration_ratio = 0;
    std::vector<double> series;
    for (const auto& [it, a] : by_iteration) {
      const double q = a.max / a.mean;
      series.push_back(q);
      if (first_over < 0 && q >= kMaxImbalance) first_over = it;
      if (q > worst_iteration_ratio) worst_iteration_ratio = q, worst_iteration = it;
    }
    std::vector<std::pair<double, int>> layers;
    for (const auto& [layer, a] : by_layer)
      if (a.max / a.mean >= kMaxImbalance) layers.push_back({a.max / a.mean, layer});
    std::sort(layers.begin(), layers.end(), std::greater<>());

    double loss = 1 - 1 / ratio;
    std::string cost;
    if (moe_plan) {
      const PlannedRun& p = *in.plan;
      const double bound = double(p.model.experts) / double(std::max<int64_t>(1, p.model.topk));
      Layout imb = p.layout, bal = p.layout;
      imb.expert_imbalance = std::min(ratio, bound);
      bal.expert_imbalance = 1.0;
      imb.dp = bal.dp = 0;
      const std::optional<Estimate> ei = EstimateVariant(p, imb, p.training);
      const std::optional<Estimate> eb = EstimateVariant(p, bal, p.training);
      if (ei && eb && eb->tokens_per_s > 0) {
        loss = std::max(0.0, LossAgainst(*ei, *eb));
        cost = fmt::format(
            " The cost model with --expert-imbalance {:.2f} predicts a {:.3f} s step against {:.3f} s "
            "balanced: {:.1f}% of the step's throughput.",
            imb.expert_imbalance, ei->step_time_s, eb->step_time_s, 100 * loss);
      }
    }

    Finding f;
    f.rule = Name();
    f.loss_fraction = loss;
    f.severity = AtLeast(SeverityForLoss(loss), Severity::kWarning);
    const char* unit = group > 1 ? "EP rank" : "expert";
    f.title = fmt::format("MoE routing imbalance: the busiest {} gets {:.2f}x the mean tokens", unit, ratio);
    f.message = fmt::format(
        "Over {} (iteration, layer) rows of {} experts{}, the busiest {} receives {:.2f}x the mean "
        "(sum of max / sum of mean; {:.2f} is the design bound).",
        rows.size(), experts, group > 1 ? fmt::format(" on {} EP ranks of {} experts", units, group) : std::string(),
        unit, ratio, kMaxImbalance);
    if (!layers.empty()) {
      f.message += " Worst layers:";
      for (size_t i = 0; i < std::min(layers.size(), kLayersShown); ++i) {
        const Acc& a = by_layer[layers[i].second];
        const size_t hot = size_t(std::max_element(a.tokens.begin(), a.tokens.end()) - a.tokens.begin());
        double total = 0;
        for (double v : a.tokens) total += v;
        f.message += fmt::format("{} layer {} ({:.2f}x, expert {} has {:.1f}% of its tokens)", i ? "," : "",
                                 layers[i].second, layers[i].first, hot, 100 * a.tokens[hot] / total);
      }
      f.message += ".";
    }
    if (series.size() >= 3) {
      const size_t k = std::max<size_t>(1, series.size() / 3);
      double head = 0, tail = 0;
      for (size_t i = 0; i < k; ++i) head += series[i], tail += series[series.size() - 1 - i];
      head /= double(k), tail /= double(k);
      f.message +=
          fmt::format(" Trend: {:.2f}x over the first third of the iterations, {:.2f}x over the last ({}).", head, tail,
                      tail > head * 1.05   ? "worsening"
                      : tail < head / 1.05 ? "improving"
                                           : "steady");
    }
    f.message += fmt::format(
        " Loss {:.1f}%{}.", 100 * loss,
        cost.empty() ? " of the MoE layers' expert time (1 - mean/max; give the plan for the step's share)" : "");
    f.message += cost;
    f.fix =
        "balance the router: raise the auxiliary load-balancing loss (Megatron-LM --moe-router-load-balancing-type "
        "aux_loss --moe-aux-loss-coeff, e.g. 1e-2), or use aux-loss-free expert-bias balancing "
        "(--moe-router-enable-expert-bias --moe-router-bias-update-rate 1e-3; DeepSeek-V3, arXiv 2412.19437 Sec. "
        "2.1.2), or cap the load with a capacity factor (--moe-expert-capacity-factor 1.25, tokens beyond it dropped)";
    if (first_over >= 0) f.where.iterations.push_back(first_over);
    if (worst_iteration >= 0 && worst_iteration != first_over) f.where.iterations.push_back(worst_iteration);
    f.where.lines.push_back(worst->file->path + ":" + std::to_string(worst->counts->line));
    f.evidence = {{"max / mean tokens", ratio, "", worst->file->path},
                  {"worst row max / mean", worst->max / worst->mean, "",
                   worst->file->path + ":" + std::to_string(worst->counts->line)},
                  {"worst iteration max / mean", worst_iteration_ratio, "", worst->file->path},
                  {"loss", loss, "fraction", cost.empty() ? "1 - mean/max" : "cost model"}};
    out->push_back(std::move(f));
  }
};

}  // namespace

std::unique_ptr<Rule> MakeExpertImbalanceRule() { return std::make_unique<ExpertImbalance>(); }

}  // namespace paratune
