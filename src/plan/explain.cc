#include "plan/explain.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "layout/pipeline_split.h"

namespace paratune {
namespace {

// Gaps between two layouts below this share of the step are within the model's noise: the
// pairwise ranking is judged only on runs more than 5% apart (validate, docs/validation.md
// "Pairwise ranking"), so a smaller gap is not split into percentages (issue 32: a 2.5 ms gap
// came out as "902%" and "-802% of the gap").
constexpr double kGapNoise = 0.05;

std::string GB(double bytes) { return fmt::format("{:.1f} GB", bytes / 1e9); }

std::string Seconds(double s) { return s >= 1 ? fmt::format("{:.3f} s", s) : fmt::format("{:.1f} ms", s * 1e3); }

// The pipeline split in a few words (layout/pipeline_split.h SplitLabel).
std::string SplitName(const Estimate& e) {
  const Layout& l = e.layout;
  int64_t layers = 0;
  for (const StageEstimate& st : e.stages) layers += st.dense_layers + st.moe_layers;
  return SplitLabel(layers, l.pp, l.vp, l.pp_layout);
}

// The layout fields in which a and b differ: "zero 1 vs 3, mbs 2 vs 1".
std::string Differences(const Estimate& a, const Estimate& b) {
  const Layout &x = a.layout, &y = b.layout;
  std::vector<std::string> d;
  auto cmp = [&](const char* name, auto u, auto v) {
    if (u != v) d.push_back(fmt::format("{} {} vs {}", name, u, v));
  };
  cmp("tp", x.tp, y.tp);
  cmp("pp", x.pp, y.pp);
  cmp("vp", x.vp, y.vp);
  cmp("cp", x.cp, y.cp);
  cmp("ep", x.ep, y.ep);
  cmp("etp", x.expert_tp(), y.expert_tp());
  cmp("dp", x.dp, y.dp);
  cmp("zero", x.zero, y.zero);
  cmp("recompute", std::string(RecomputeName(x.recompute)), std::string(RecomputeName(y.recompute)));
  cmp("mbs", x.mbs, y.mbs);
  cmp("schedule", std::string(ScheduleName(x.pipeline_schedule())), std::string(ScheduleName(y.pipeline_schedule())));
  cmp("split", SplitName(a), SplitName(b));
  cmp("precision", std::string(PrecisionName(a.training.precision)), std::string(PrecisionName(b.training.precision)));
  std::string s;
  for (size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + d[i];
  return s.empty() ? "nothing" : s;
}

}  // namespace

std::string DescribeLayout(const Estimate& e) {
  const Layout& l = e.layout;
  std::string s = fmt::format("tp {}, pp {}", l.tp, l.pp);
  if (l.vp > 1) s += fmt::format(", vp {}", l.vp);
  if (l.pp > 1) s += fmt::format(", {}", ScheduleName(l.pipeline_schedule()));
  if (!l.pp_layout.empty()) s += fmt::format(", split {}", SplitName(e));
  if (l.cp > 1) s += fmt::format(", cp {}", l.cp);
  if (l.ep > 1 || l.etp > 0) s += fmt::format(", ep {}, etp {}", l.ep, l.expert_tp());
  s += fmt::format(", dp {}, zero {}, recompute {}, mbs {}, {}", l.dp, l.zero, RecomputeName(l.recompute), l.mbs,
                   PrecisionName(e.training.precision));
  return s;
}

namespace {

// "#1 LAYOUT: tokens/s, step, MFU against the BF16 peak (the denominator every precision shares,
// step/mfu.h; the own precision's figure beside it where that peak differs), memory."
std::string WinnerLine(const Estimate& a, const GpuSpec& g) {
  const std::string own_mfu =
      g.peak_flops(a.training.precision) == g.bf16_flops
          ? ""
          : fmt::format(" ({:.1f}% of the {} peak)", 100 * a.mfu, PrecisionName(a.training.precision));
  return fmt::format("#1 {}: {:.0f} tokens/s per GPU, step {}, MFU {:.1f}% of the dense BF16 peak{}, {} per GPU.",
                     DescribeLayout(a), a.tokens_per_s_per_gpu, Seconds(a.step_time_s), 100 * a.mfu_vs_bf16, own_mfu,
                     GB(a.peak_memory_bytes));
}

// Where the gap between #1 and #2 comes from: the four step-time terms (kStepTerms) that differ
// most, #2 minus #1, compute without its recomputation part.
std::string GapLine(const Estimate& a, const Estimate& b) {
  struct Term {
    const char* name;
    double a, b;
  };
  const double gap = b.step_time_s - a.step_time_s;
  const TimeBreakdown &x = a.time, &y = b.time;
  std::vector<Term> terms;
  for (const StepTerm& term : kStepTerms) {
    if (term.value == &TimeBreakdown::compute_s)
      terms.push_back({"compute (without recomputation)", x.compute_s - x.recompute_s, y.compute_s - y.recompute_s});
    else if (term.value == &TimeBreakdown::recompute_s)
      terms.push_back({"recomputation", x.recompute_s, y.recompute_s});
    else
      terms.push_back({term.label, x.*term.value, y.*term.value});
  }
  std::stable_sort(terms.begin(), terms.end(),
                   [](const Term& p, const Term& q) { return std::abs(p.b - p.a) > std::abs(q.b - q.a); });
  std::vector<std::string> parts;
  const bool within_noise = std::abs(gap) < kGapNoise * a.step_time_s;
  for (const Term& t : terms) {
    const double d = t.b - t.a;
    if (std::abs(d) < 1e-6 || parts.size() >= 4) continue;
    std::string share = !within_noise ? fmt::format(", {:.0f}% of the gap", 100 * d / gap) : "";
    parts.push_back(fmt::format("{} {}{} ({} vs {}{})", t.name, d >= 0 ? "+" : "-", Seconds(std::abs(d)), Seconds(t.a),
                                Seconds(t.b), share));
  }
  if (parts.empty())
    return "The two step times are equal term by term; the tie-break (EP inside the NVLink domain, "
           "then lower peak memory, then smaller degrees) ordered them.";
  std::string s = within_noise ? fmt::format(
                                     "The gap is {:.1f}% of the step, within the model's noise (under {:.0f}%): "
                                     "#1 and #2 are as good as equal. The terms that differ (#2 minus #1): ",
                                     100 * std::abs(gap) / a.step_time_s, 100 * kGapNoise)
                               : "Where the gap comes from (#2 minus #1): ";
  for (size_t i = 0; i < parts.size(); ++i) s += (i ? "; " : "") + parts[i];
  return s + ".";
}

// Recomputation is dropped where memory allows it: the search compares all three modes. ""
// when there is nothing to say.
std::string RecomputeLine(const Estimate& a, const GpuSpec& g, double limit, const std::optional<Estimate>& best_none,
                          double min_none_need) {
  if (a.layout.recompute == Recompute::kNone)
    return fmt::format("recompute none fits: {} of {} on {}, so no forward work is repeated.", GB(a.peak_memory_bytes),
                       GB(g.hbm_bytes), g.name);
  if (best_none)
    return fmt::format(
        "recompute {} wins although recompute none fits elsewhere (best: {}, {:.0f} tokens/s "
        "per GPU): recomputation buys a layout that runs faster.",
        RecomputeName(a.layout.recompute), DescribeLayout(*best_none), best_none->tokens_per_s_per_gpu);
  if (min_none_need > 0)
    return fmt::format(
        "recompute none does not fit: the smallest layout without it needs {} per GPU, "
        "over the {} limit.",
        GB(min_none_need), GB(limit));
  return "";
}

}  // namespace

std::vector<std::string> ExplainPlan(const std::vector<Estimate>& ranked, const PlanRequest& r, double limit,
                                     const std::optional<Estimate>& best_none, double min_none_need) {
  std::vector<std::string> out;
  const Estimate& a = ranked.front();
  const GpuSpec& g = r.cluster.gpu;
  out.push_back(WinnerLine(a, g));
  if (ranked.size() >= 2) {
    const Estimate& b = ranked[1];
    out.push_back(
        fmt::format("#2 differs in {}; #1 is {:.1f}% faster ({:.0f} vs {:.0f} tokens/s per GPU; "
                    "step {} vs {}, gap {}).",
                    Differences(a, b), 100 * (a.tokens_per_s_per_gpu / b.tokens_per_s_per_gpu - 1),
                    a.tokens_per_s_per_gpu, b.tokens_per_s_per_gpu, Seconds(a.step_time_s), Seconds(b.step_time_s),
                    Seconds(b.step_time_s - a.step_time_s)));
    out.push_back(GapLine(a, b));
    out.push_back(fmt::format("Memory: #1 peaks at {} per GPU, #2 at {} (limit {} = {:.0f}% of {} on {}).",
                              GB(a.peak_memory_bytes), GB(b.peak_memory_bytes), GB(limit), 100 * (1 - r.headroom),
                              GB(g.hbm_bytes), g.name));
    if (r.objective == Objective::kMemory)
      out.push_back(
          fmt::format("Objective memory: #1 needs {} less than #2.", GB(b.peak_memory_bytes - a.peak_memory_bytes)));
  } else {
    out.push_back(fmt::format("Only one layout fits (limit {} on {}).", GB(limit), g.name));
  }
  if (std::string line = RecomputeLine(a, g, limit, best_none, min_none_need); !line.empty())
    out.push_back(std::move(line));
  return out;
}

}  // namespace paratune
