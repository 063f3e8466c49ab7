#include "runs/run_record.h"

#include <algorithm>

namespace paratune {

std::optional<Metric> MetricByName(std::string_view name) {
  for (const auto& m : kMetrics)
    if (name == m.name) return m.id;
  return std::nullopt;
}

void SetTag(RunRecord& r, const std::string& key, const std::string& value) {
  auto it = std::lower_bound(r.tags.begin(), r.tags.end(), key,
                             [](const auto& t, const std::string& k) { return t.first < k; });
  if (it != r.tags.end() && it->first == key)
    it->second = value;
  else
    r.tags.insert(it, {key, value});
}

void MergeInto(RunRecord& into, const RunRecord& part) {
  auto text = [](std::string& a, const std::string& b) {
    if (!b.empty()) a = b;
  };
  text(into.name, part.name);
  text(into.created_utc, part.created_utc);
  text(into.cluster, part.cluster);
  text(into.model, part.model);
  text(into.gpu, part.gpu);
  if (part.gpus > 0) into.gpus = part.gpus;
  text(into.layout_json, part.layout_json);
  text(into.scenario_json, part.scenario_json);
  text(into.software, part.software);
  text(into.content_hash, part.content_hash);
  for (size_t i = 0; i < kMetricCount; ++i) {
    if (HasFigure(part.figures[i].measured)) into.figures[i].measured = part.figures[i].measured;
    if (HasFigure(part.figures[i].predicted)) into.figures[i].predicted = part.figures[i].predicted;
  }
  for (const auto& [k, v] : part.tags) SetTag(into, k, v);
  into.findings.insert(into.findings.end(), part.findings.begin(), part.findings.end());
  into.series.insert(into.series.end(), part.series.begin(), part.series.end());
  into.policies.insert(into.policies.end(), part.policies.begin(), part.policies.end());
  into.sources.insert(into.sources.end(), part.sources.begin(), part.sources.end());
}

std::string DefaultClusterLabel(const std::string& gpu, int64_t gpus) {
  if (gpu.empty() || gpus <= 0) return "";
  return std::to_string(gpus) + "x" + gpu;
}

}  // namespace paratune
