#include "cli/runs_text.h"

#include <fmt/format.h>

#include <cmath>

namespace paratune::cli {
namespace {

std::string Signed(const MetricInfo& m, double v) {
  if (!HasFigure(v)) return "-";
  std::string s = FormatFigure(m, std::fabs(v));
  if (std::string(m.unit) == "fraction") s = fmt::format("{:.2f} pt", std::fabs(v) * 100);
  return (v < 0 ? "-" : "+") + s;
}

std::string Percent(double v) { return HasFigure(v) ? fmt::format("{:+.1f}%", v * 100) : "-"; }

}  // namespace

std::string FormatFigure(const MetricInfo& m, double v) {
  if (!HasFigure(v)) return "-";
  const std::string unit = m.unit;
  if (unit == "fraction") return fmt::format("{:.2f}%", v * 100);
  if (unit == "s") return std::fabs(v) < 1 ? fmt::format("{:.2f} ms", v * 1e3) : fmt::format("{:.3f} s", v);
  if (unit == "B") return fmt::format("{:.2f} GB", v / 1e9);  // GB = 1e9 bytes, as every other output prints memory
  if (unit == "tokens/h") return fmt::format("{:.3f} M", v / 1e6);
  return fmt::format("{:.1f}", v);
}

std::string FormatRunList(const std::vector<RunRecord>& runs, int64_t total) {
  if (runs.empty()) return total > 0 ? fmt::format("0 of {} runs; --limit to see more\n", total) : "no runs\n";
  const auto& mfu = InfoOf(Metric::kMfu);
  const auto& tps = InfoOf(Metric::kTokensPerSPerGpu);
  const auto& st = InfoOf(Metric::kStepTime);
  std::string out = fmt::format("{:<28} {:<24} {:<16} {:<18} {:>10} {:>10} {:>12}\n", "run", "created (UTC)", "cluster",
                                "model", "MFU", "tok/s/GPU", "step time");
  auto pick = [](const Figure& f) { return HasFigure(f.measured) ? f.measured : f.predicted; };
  for (const auto& r : runs)
    out += fmt::format("{:<28} {:<24} {:<16} {:<18} {:>10} {:>10} {:>12}\n", r.name, r.created_utc, r.cluster, r.model,
                       FormatFigure(mfu, pick(r[Metric::kMfu])), FormatFigure(tps, pick(r[Metric::kTokensPerSPerGpu])),
                       FormatFigure(st, pick(r[Metric::kStepTime])));
  out += "(measured where recorded, else predicted)\n";
  if (total > static_cast<int64_t>(runs.size()))
    out += fmt::format("{} of {} runs; --limit to see more\n", runs.size(), total);
  return out;
}

std::string FormatRunShow(const RunRecord& r) {
  std::string out = fmt::format("run {}\n  created  {}\n  cluster  {}\n  model    {}\n  GPUs     {} x {}\n", r.name,
                                r.created_utc, r.cluster.empty() ? "-" : r.cluster, r.model.empty() ? "-" : r.model,
                                r.gpus, r.gpu.empty() ? "?" : r.gpu);
  if (!r.software.empty()) out += fmt::format("  software {}\n", r.software);
  for (const auto& [k, v] : r.tags) out += fmt::format("  tag      {}={}\n", k, v);
  out += fmt::format("\n{:<22} {:>14} {:>14}  {}\n", "figure", "measured", "predicted", "unit");
  for (const auto& m : kMetrics) {
    const Figure& f = r[m.id];
    if (!HasFigure(f.measured) && !HasFigure(f.predicted)) continue;
    out += fmt::format("{:<22} {:>14} {:>14}  {}\n", m.name, FormatFigure(m, f.measured), FormatFigure(m, f.predicted),
                       m.unit);
  }
  if (!r.findings.empty()) {
    out += "\nfindings\n";
    for (const auto& f : r.findings)
      out += fmt::format("  {:<8} {:<26} {:>6.1f}%  {}\n", f.severity, f.rule, f.loss_fraction * 100, f.title);
  }
  for (const auto& p : r.policies) {
    out += fmt::format("\npolicy {}\n", p.policy);
    for (const auto& [k, v] : p.figures) out += fmt::format("  {:<18} {}\n", k, v);
  }
  if (!r.series.empty()) {
    out += "\nseries\n";
    for (const auto& s : r.series)
      out += fmt::format("  {:<40} {} points, iterations {} to {}\n", s.kind, s.y.size(), s.x.empty() ? 0 : s.x.front(),
                         s.x.empty() ? 0 : s.x.back());
  }
  out += "\nsources\n";
  for (const auto& s : r.sources)
    out += fmt::format("  {:<22} {}  {}  {}\n", s.schema, s.sha256.substr(0, 12), s.recorded_utc, s.path);
  return out;
}

std::string FormatComparison(const Comparison& c) {
  std::string out;
  if (!c.baseline_scope.empty()) out += fmt::format("baseline of {}: {}\n", c.baseline_scope, c.a.name);
  out += fmt::format("{:<22} {:>14} {:>14} {:>14} {:>9}  {}\n", "figure", c.a.name.substr(0, 14),
                     c.b.name.substr(0, 14), "difference", "relative", "side");
  for (const auto& d : c.figures) {
    const auto& m = InfoOf(d.metric);
    out += fmt::format("{:<22} {:>14} {:>14} {:>14} {:>9}  {}\n", m.name, FormatFigure(m, d.a), FormatFigure(m, d.b),
                       Signed(m, d.abs_diff), Percent(d.rel_diff), d.measured ? "measured" : "predicted");
  }
  if (HasFigure(c.step_delta_s)) {
    const auto& st = InfoOf(Metric::kStepTime);
    out += fmt::format("\nwhich term moved ({} step time {}):\n", c.terms_measured ? "measured" : "predicted",
                       Signed(st, c.step_delta_s));
    if (c.terms.empty()) out += "  no term moved\n";
    for (const auto& t : c.terms)
      out += fmt::format("  {:<22} {:>12} {:>9}\n", InfoOf(t.metric).name, Signed(InfoOf(t.metric), t.delta_s),
                         HasFigure(t.share) ? fmt::format("{:.0f}%", t.share * 100) : "-");
  }
  return out;
}

std::string FormatBaselines(const std::vector<Baseline>& b) {
  if (b.empty()) return "no baselines\n";
  std::string out = fmt::format("{:<48} {:<28} {}\n", "scope", "run", "set (UTC)");
  for (const auto& x : b) out += fmt::format("{:<48} {:<28} {}\n", x.scope, x.run, x.set_utc);
  return out;
}

}  // namespace paratune::cli
