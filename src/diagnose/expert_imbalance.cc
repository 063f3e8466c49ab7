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

// The (iteration, layer) rows with tokens of the model's experts, each with the max and mean
// tokens over the units (experts, or EP ranks of group experts); adds them to sum_max and sum_mean.
std::vector<Row> ExpertRows(const DiagnoseInputs& in, size_t experts, size_t group, double* sum_max, double* sum_mean) {
  const size_t units = experts / group;
  std::vector<Row> rows;
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
      *sum_max += mx;
      *sum_mean += total / double(units);
    }
  return rows;
}

// The max and mean tokens summed over rows, and per expert the tokens summed.
struct ImbalanceAcc {
  double max = 0, mean = 0;
  std::vector<double> tokens;
};

// Where the imbalance is: per iteration (over its layers) and per layer (over the iterations).
struct ImbalanceSpread {
  std::map<int64_t, ImbalanceAcc> by_iteration;
  std::map<int, ImbalanceAcc> by_layer;
  const Row* worst = nullptr;
  int64_t first_over = -1, worst_iteration = -1;
  double worst_iteration_ratio = 0;
  std::vector<double> series;                  // max / mean per iteration, in order
  std::vector<std::pair<double, int>> layers;  // (max / mean, layer) of the layers over the bound, worst first
};

// Per iteration (over its layers) and per layer (over the iterations).
ImbalanceSpread SpreadOfImbalance(const std::vector<Row>& rows, size_t experts) {
  ImbalanceSpread out;
  auto& by_iteration = out.by_iteration;
  auto& by_layer = out.by_layer;
  const Row* worst = &rows.front();
  for (const Row& r : rows) {
    by_iteration[r.counts->iteration].max += r.max;
    by_iteration[r.counts->iteration].mean += r.mean;
    ImbalanceAcc& a = by_layer[r.counts->layer];
    a.max += r.max;
    a.mean += r.mean;
    a.tokens.resize(experts, 0.0);
    for (size_t e = 0; e < experts; ++e) a.tokens[e] += r.counts->tokens[e];
    if (r.max / r.mean > worst->max / worst->mean) worst = &r;
  }
  out.worst = worst;
  for (const auto& [it, a] : by_iteration) {
    const double q = a.max / a.mean;
    out.series.push_back(q);
    if (out.first_over < 0 && q >= kMaxImbalance) out.first_over = it;
    if (q > out.worst_iteration_ratio) out.worst_iteration_ratio = q, out.worst_iteration = it;
  }
  for (const auto& [layer, a] : by_layer)
    if (a.max / a.mean >= kMaxImbalance) out.layers.push_back({a.max / a.mean, layer});
  std::sort(out.layers.begin(), out.layers.end(), std::greater<>());
  return out;
}

// With a plan of a MoE model: the cost model's loss with --expert-imbalance ratio against the
// balanced step, and its sentence in cost; else loss unchanged.
double PlannedImbalanceLoss(const PlannedRun& p, double ratio, double loss, std::string* cost) {
  const double bound = double(p.model.experts) / double(std::max<int64_t>(1, p.model.topk));
  Layout imb = p.layout, bal = p.layout;
  imb.expert_imbalance = std::min(ratio, bound);
  bal.expert_imbalance = 1.0;
  imb.dp = bal.dp = 0;
  const std::optional<Estimate> ei = EstimateVariant(p, imb, p.training);
  const std::optional<Estimate> eb = EstimateVariant(p, bal, p.training);
  if (ei && eb && eb->tokens_per_s > 0) {
    loss = std::max(0.0, LossAgainst(*ei, *eb));
    *cost = fmt::format(
        " The cost model with --expert-imbalance {:.2f} predicts a {:.3f} s step against {:.3f} s "
        "balanced: {:.1f}% of the step's throughput.",
        imb.expert_imbalance, ei->step_time_s, eb->step_time_s, 100 * loss);
  }
  return loss;
}

// " Worst layers: ..." with each layer's hot expert, or "" when no layer is over the bound.
std::string WorstLayersText(const ImbalanceSpread& spread) {
  const auto& layers = spread.layers;
  if (layers.empty()) return "";
  std::string message = " Worst layers:";
  for (size_t i = 0; i < std::min(layers.size(), kLayersShown); ++i) {
    const ImbalanceAcc& a = spread.by_layer.at(layers[i].second);
    const size_t hot = size_t(std::max_element(a.tokens.begin(), a.tokens.end()) - a.tokens.begin());
    double total = 0;
    for (double v : a.tokens) total += v;
    message += fmt::format("{} layer {} ({:.2f}x, expert {} has {:.1f}% of its tokens)", i ? "," : "", layers[i].second,
                           layers[i].first, hot, 100 * a.tokens[hot] / total);
  }
  message += ".";
  return message;
}

// " Trend: ..." comparing the first and last third of the iterations, or "" with fewer than 3.
std::string ImbalanceTrendText(const std::vector<double>& series) {
  if (series.size() < 3) return "";
  const size_t k = std::max<size_t>(1, series.size() / 3);
  double head = 0, tail = 0;
  for (size_t i = 0; i < k; ++i) head += series[i], tail += series[series.size() - 1 - i];
  head /= double(k), tail /= double(k);
  return fmt::format(" Trend: {:.2f}x over the first third of the iterations, {:.2f}x over the last ({}).", head, tail,
                     tail > head * 1.05   ? "worsening"
                     : tail < head / 1.05 ? "improving"
                                          : "steady");
}

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

    double sum_max = 0, sum_mean = 0;
    const std::vector<Row> rows = ExpertRows(in, experts, group, &sum_max, &sum_mean);
    if (rows.empty() || !(sum_mean > 0)) return;
    const double ratio = sum_max / sum_mean;
    if (ratio < kMaxImbalance) return;

    const ImbalanceSpread spread = SpreadOfImbalance(rows, experts);
    const Row* worst = spread.worst;
    double loss = 1 - 1 / ratio;
    std::string cost;
    if (moe_plan) loss = PlannedImbalanceLoss(*in.plan, ratio, loss, &cost);

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
    f.message += WorstLayersText(spread);
    f.message += ImbalanceTrendText(spread.series);
    f.message += fmt::format(
        " Loss {:.1f}%{}.", 100 * loss,
        cost.empty() ? " of the MoE layers' expert time (1 - mean/max; give the plan for the step's share)" : "");
    f.message += cost;
    f.fix =
        "balance the router: raise the auxiliary load-balancing loss (Megatron-LM --moe-router-load-balancing-type "
        "aux_loss --moe-aux-loss-coeff, e.g. 1e-2), or use aux-loss-free expert-bias balancing "
        "(--moe-router-enable-expert-bias --moe-router-bias-update-rate 1e-3; DeepSeek-V3, arXiv 2412.19437 Sec. "
        "2.1.2), or cap the load with a capacity factor (--moe-expert-capacity-factor 1.25, tokens beyond it dropped)";
    if (spread.first_over >= 0) f.where.iterations.push_back(spread.first_over);
    if (spread.worst_iteration >= 0 && spread.worst_iteration != spread.first_over)
      f.where.iterations.push_back(spread.worst_iteration);
    f.where.lines.push_back(worst->file->path + ":" + std::to_string(worst->counts->line));
    f.evidence = {{"max / mean tokens", ratio, "", worst->file->path},
                  {"worst row max / mean", worst->max / worst->mean, "",
                   worst->file->path + ":" + std::to_string(worst->counts->line)},
                  {"worst iteration max / mean", spread.worst_iteration_ratio, "", worst->file->path},
                  {"loss", loss, "fraction", cost.empty() ? "1 - mean/max" : "cost model"}};
    out->push_back(std::move(f));
  }
};

}  // namespace

std::unique_ptr<Rule> MakeExpertImbalanceRule() { return std::make_unique<ExpertImbalance>(); }

}  // namespace paratune
