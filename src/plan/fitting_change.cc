#include "plan/fitting_change.h"

#include <fmt/format.h>

#include <vector>

#include "util/error.h"

namespace paratune {

std::optional<FittingChange> FindFittingChange(const ModelSpec& m, const ClusterSpec& c, const Training& t,
                                               const Layout& l, const EstimateOptions& o) {
  std::vector<std::pair<std::string, Layout>> candidates;
  auto add = [&](std::string change, Layout x) {
    x.dp = 0;  // derived again from the world size
    candidates.emplace_back(std::move(change), std::move(x));
  };
  for (Recompute r : {Recompute::kSelective, Recompute::kFull})
    if (static_cast<int>(r) > static_cast<int>(l.recompute)) {
      Layout x = l;
      x.recompute = r;
      add(fmt::format("recompute {}", RecomputeName(r)), x);
    }
  for (int z = l.zero + 1; z <= 3; ++z) {
    Layout x = l;
    x.zero = z;
    add(fmt::format("zero {}", z), x);
  }
  for (int mbs = l.mbs / 2; mbs >= 1; mbs /= 2) {
    Layout x = l;
    x.mbs = mbs;
    add(fmt::format("mbs {}", mbs), x);
  }
  {
    Layout x = l;
    x.tp = l.tp * 2;
    add(fmt::format("tp {}", x.tp), x);
  }
  {
    Layout x = l;
    x.pp = l.pp * 2;
    x.pp_layout.clear();
    add(fmt::format("pp {}", x.pp), x);
  }
  std::optional<FittingChange> best;
  for (auto& [change, x] : candidates) {
    try {
      Estimate e = EstimateStep(m, c, t, x, o);
      if (e.fits && (!best || e.tokens_per_s_per_gpu > best->estimate.tokens_per_s_per_gpu))
        best = FittingChange{change, std::move(e)};
    } catch (const InputError&) {
      // Not a valid layout for this model and cluster (tp beyond the heads, pp beyond the layers).
    }
  }
  return best;
}

nlohmann::json FittingChangeJson(const std::optional<FittingChange>& fix) {
  if (!fix) return nullptr;
  const Estimate& e = fix->estimate;
  return {{"change", fix->change},
          {"peak_memory_bytes", e.peak_memory_bytes},
          {"step_time_s", e.step_time_s},
          {"tokens_per_s_per_gpu", e.tokens_per_s_per_gpu},
          {"mfu", e.mfu}};
}

}  // namespace paratune
