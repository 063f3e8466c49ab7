#include "analysis/rank_means.h"

#include <cmath>

namespace paratune {

StepMeans MeanStepFigures(const TraceAnalysis& a) {
  StepMeans m;
  for (const RankAnalysis& r : a.ranks) {
    const double count = static_cast<double>(r.step_time.count);
    if (count <= 0) continue;  // no ProfilerStep: no per-step figure
    const double s = r.step_time.mean;
    m.step_s += s;
    m.compute_s += r.temporal.compute_pct() / 100.0 * s;
    for (const CollectiveStats& c : r.collectives) {
      const double exposed = c.exposed_s / count;
      (c.kind == Collective::kSendRecv   ? m.pp_comm_s
       : c.kind == Collective::kAllToAll ? m.ep_comm_s
                                         : m.other_comm_s) += exposed;
    }
    m.dataloader_share += r.dataloader_share;
    ++m.ranks;
  }
  if (m.ranks > 0) {
    const double n = m.ranks;
    m.step_s /= n, m.compute_s /= n, m.pp_comm_s /= n, m.ep_comm_s /= n, m.other_comm_s /= n;
    m.dataloader_share /= n;
  }
  return m;
}

std::map<std::string, BusBandwidthMean> MeanBusBandwidthByKind(const TraceAnalysis& a) {
  std::map<std::string, std::pair<double, int>> busbw, ceiling;  // kind -> (sum, ranks with a value)
  for (const RankAnalysis& r : a.ranks)
    for (const CollectiveStats& c : r.collectives) {
      if (!(c.busbw_bytes_per_s > 0)) continue;
      auto& acc = busbw[CollectiveName(c.kind)];
      acc.first += c.busbw_bytes_per_s;
      ++acc.second;
      if (std::isfinite(c.ceiling_bytes_per_s) && c.ceiling_bytes_per_s > 0) {
        auto& ce = ceiling[CollectiveName(c.kind)];
        ce.first += c.ceiling_bytes_per_s;
        ++ce.second;
      }
    }
  std::map<std::string, BusBandwidthMean> out;
  for (const auto& [kind, acc] : busbw) {
    BusBandwidthMean& m = out[kind];
    m.busbw_bytes_per_s = acc.first / acc.second;
    if (const auto c = ceiling.find(kind); c != ceiling.end()) {
      m.ceiling_bytes_per_s = c->second.first / c->second.second;
      m.has_ceiling = true;
    }
  }
  return out;
}

}  // namespace paratune
