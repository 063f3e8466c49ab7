#include "cli/diagnose_text.h"

#include <cmath>
#include <map>

#include <fmt/format.h>

#include "util/timestamp.h"

namespace paratune::cli {
namespace {

// A value in the unit people read: SI inside, converted only here.
std::string Value(const Evidence& e) {
  const double v = e.value;
  if (!std::isfinite(v)) return "n/a";
  if (e.unit == "s") return std::fabs(v) >= 1 ? fmt::format("{:.2f} s", v) : fmt::format("{:.2f} ms", v * 1e3);
  if (e.unit == "B/s") return fmt::format("{:.1f} GB/s", v / 1e9);
  if (e.unit == "B") return fmt::format("{:.2f} GiB", v / (1024.0 * 1024 * 1024));
  if (e.unit == "fraction") return fmt::format("{:.1f}%", v * 100);
  if (e.unit == "Hz") return fmt::format("{:.0f} MHz", v / 1e6);
  if (e.unit == "FLOP/s") return fmt::format("{:.1f} TFLOP/s", v / 1e12);
  if (e.unit.empty())
    return v == std::floor(v) && std::fabs(v) < 1e15 ? fmt::format("{:.0f}", v) : fmt::format("{:.4g}", v);
  return fmt::format("{:.4g} {}", v, e.unit);
}

std::string WhereLine(const FindingWhere& w) {
  std::vector<std::string> parts;
  if (!w.iterations.empty()) {
    std::string s = "iterations";
    for (size_t i = 0; i < w.iterations.size() && i < 12; ++i) s += (i ? ", " : " ") + std::to_string(w.iterations[i]);
    if (w.iterations.size() > 12) s += fmt::format(" (+{} more)", w.iterations.size() - 12);
    parts.push_back(s);
  }
  for (size_t i = 0; i < w.time_ranges_s.size() && i < 4; ++i)
    parts.push_back(
        fmt::format("{} .. {}", FormatTimestamp(w.time_ranges_s[i].first), FormatTimestamp(w.time_ranges_s[i].second)));
  if (!w.gpus.empty()) {
    std::string s = w.gpus.size() == 1 ? "GPU" : "GPUs";
    for (size_t i = 0; i < w.gpus.size(); ++i) s += (i ? ", " : " ") + std::to_string(w.gpus[i]);
    parts.push_back(s);
  }
  if (!w.gpu_pairs.empty()) {
    std::string s = "GPU pairs";
    for (size_t i = 0; i < w.gpu_pairs.size(); ++i)
      s += fmt::format("{}{}-{}", i ? ", " : " ", w.gpu_pairs[i].first, w.gpu_pairs[i].second);
    parts.push_back(s);
  }
  if (w.period_iterations > 0) parts.push_back(fmt::format("every {} iterations", w.period_iterations));
  if (std::isfinite(w.period_s)) parts.push_back(fmt::format("period {:.1f} s", w.period_s));
  for (size_t i = 0; i < w.lines.size() && i < 3; ++i) parts.push_back(w.lines[i]);
  if (w.lines.size() > 3) parts.push_back(fmt::format("(+{} lines)", w.lines.size() - 3));
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? "; " : "") + parts[i];
  return out;
}

}  // namespace

std::string FormatDiagnosis(const Diagnosis& d) {
  std::map<std::string, int> kinds;
  for (const InputFile& f : d.inputs) ++kinds[kInputKindNames.Name(f.kind)];
  std::string s = fmt::format("paratune diagnose: {} input file(s)", d.inputs.size());
  std::string k;
  for (const auto& [name, n] : kinds) k += fmt::format("{}{} {}", k.empty() ? "" : ", ", n, name);
  if (!k.empty()) s += " (" + k + ")";
  s += fmt::format(", {} rules\n\n", d.rules_run.size());
  s += fmt::format("  {:>2}  {:<8}  {:>6}  {:<24}  {}\n", "#", "severity", "loss", "rule", "finding");
  for (size_t i = 0; i < d.findings.size(); ++i) {
    const Finding& f = d.findings[i];
    s += fmt::format("  {:>2}  {:<8}  {:>6}  {:<24}  {}\n", i + 1, kSeverityNames.Name(f.severity),
                     f.loss_fraction > 0 ? fmt::format("{:.1f}%", f.loss_fraction * 100) : "-", f.rule, f.title);
  }
  for (size_t i = 0; i < d.findings.size(); ++i) {
    const Finding& f = d.findings[i];
    s += fmt::format("\n{}. [{}] {}: {}\n", i + 1, kSeverityNames.Name(f.severity), f.rule, f.title);
    if (!f.message.empty()) s += "   " + f.message + "\n";
    // The first few numbers; a rule may list one per save, GPU or layer (all of them in --json).
    constexpr size_t kEvidenceShown = 8;
    for (size_t k = 0; k < f.evidence.size() && k < kEvidenceShown; ++k) {
      const Evidence& e = f.evidence[k];
      s += fmt::format("   - {} = {}{}\n", e.name, Value(e), e.source.empty() ? "" : " (" + e.source + ")");
    }
    if (f.evidence.size() > kEvidenceShown)
      s += fmt::format("   - ... {} more in --json\n", f.evidence.size() - kEvidenceShown);
    const std::string w = WhereLine(f.where);
    if (!w.empty()) s += "   where: " + w + "\n";
    if (!f.fix.empty()) s += "   fix: " + f.fix + "\n";
  }
  return s;
}

}  // namespace paratune::cli
