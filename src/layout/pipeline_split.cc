#include "layout/pipeline_split.h"

#include <algorithm>
#include <tuple>
#include <utility>

#include <fmt/format.h>

namespace paratune {

std::vector<int> ChunkLayers(int64_t layers, const Layout& l) {
  if (!l.pp_layout.empty()) return l.pp_layout;
  const int64_t chunks = static_cast<int64_t>(l.pp) * l.vp;
  return std::vector<int>(static_cast<size_t>(chunks), static_cast<int>(layers / chunks));
}

// transformer_block.py get_num_layers_to_build: (L + e + l) / (pp*vp) per chunk, one fewer on
// the first virtual stage of the first rank (embedding) and the last of the last rank (loss).
std::vector<int> AccountForSplit(int64_t layers, int pp, int vp, bool embedding, bool loss) {
  const int64_t chunks = static_cast<int64_t>(pp) * vp;
  const int64_t counted = layers + (embedding ? 1 : 0) + (loss ? 1 : 0);
  if (pp < 1 || vp < 1 || counted % chunks != 0) return {};
  const int64_t per = counted / chunks;
  std::vector<int> v(static_cast<size_t>(chunks), static_cast<int>(per));
  if (embedding) v.front() -= 1;  // chunk 0 = virtual stage 0 of rank 0
  if (loss) v.back() -= 1;        // chunk pp*vp-1 = virtual stage vp-1 of rank pp-1
  for (int n : v)
    if (n < 1) return {};
  return v;
}

// transformer_config.py __post_init__ ("Uneven PP") and get_num_layers_to_build: first/last
// positive and multiples of vp, the middle layers divisible by the middle ranks and (per rank)
// by vp, middle ranks and middle layers both present or both absent.
std::vector<int> FirstLastSplit(int64_t layers, int pp, int vp, int first, int last) {
  if (pp < 1 || vp < 1 || first < 0 || last < 0 || (first == 0 && last == 0)) return {};
  if (pp == 1 && first > 0 && last > 0) return {};
  int64_t rest = layers, middle = pp;
  for (int n : {first, last}) {
    if (n == 0) continue;
    if (n % vp != 0) return {};
    rest -= n;
    middle -= 1;
  }
  if ((rest != 0) != (middle != 0) || rest < 0) return {};
  if (middle > 0 && (rest % middle != 0 || (rest / middle) % vp != 0)) return {};
  const int64_t per_middle = middle > 0 ? rest / middle : 0;
  std::vector<int> ranks(static_cast<size_t>(pp), static_cast<int>(per_middle));
  if (first > 0) ranks.front() = first;
  if (last > 0) ranks.back() = last;
  std::vector<int> v(static_cast<size_t>(pp) * vp);
  for (int c = 0; c < vp; ++c)
    for (int s = 0; s < pp; ++s) v[static_cast<size_t>(c) * pp + s] = ranks[static_cast<size_t>(s)] / vp;
  for (int n : v)
    if (n < 1) return {};
  return v;
}

std::vector<int> BalancedSplit(int64_t layers, int pp, int vp) {
  if (pp < 1 || vp < 1 || layers < static_cast<int64_t>(pp) * vp) return {};
  std::vector<int64_t> ranks(static_cast<size_t>(pp), layers / pp);
  std::vector<int> order;  // who takes an extra layer first
  for (int s = 1; s + 1 < pp; ++s) order.push_back(s);
  order.push_back(0);
  if (pp > 1) order.push_back(pp - 1);
  for (int64_t i = 0; i < layers % pp; ++i) ranks[static_cast<size_t>(order[static_cast<size_t>(i)])] += 1;
  std::vector<int> v(static_cast<size_t>(pp) * vp);
  for (int s = 0; s < pp; ++s)
    for (int c = 0; c < vp; ++c)
      v[static_cast<size_t>(c) * pp + s] =
          static_cast<int>(ranks[static_cast<size_t>(s)] / vp + (c < ranks[static_cast<size_t>(s)] % vp ? 1 : 0));
  return v;
}

SplitDescription DescribeSplit(int64_t layers, int pp, int vp, const std::vector<int>& l) {
  if (l.empty()) return {SplitKind::kEven};
  const int64_t chunks = static_cast<int64_t>(pp) * vp;
  if (static_cast<int64_t>(l.size()) == chunks && layers % chunks == 0 &&
      std::all_of(l.begin(), l.end(), [&](int n) { return n == layers / chunks; }))
    return {SplitKind::kEven};
  for (auto [e, lo, kind] : {std::tuple{true, false, SplitKind::kAccountEmbedding},
                             {false, true, SplitKind::kAccountLoss},
                             {true, true, SplitKind::kAccountBoth}})
    if (AccountForSplit(layers, pp, vp, e, lo) == l) return {kind};
  if (static_cast<int64_t>(l.size()) == chunks) {
    // Per-rank totals; first/last are given only where that rank differs from the middle ones.
    std::vector<int> rank(static_cast<size_t>(pp), 0);
    for (size_t k = 0; k < l.size(); ++k) rank[k % static_cast<size_t>(pp)] += l[k];
    // Fewest flags first: only the last rank, only the first, both.
    for (auto [first, last] : {std::pair{0, rank.back()}, {rank.front(), 0}, {rank.front(), rank.back()}})
      if (FirstLastSplit(layers, pp, vp, first, last) == l) return {SplitKind::kFirstLast, first, last};
  }
  return {SplitKind::kCustom};
}

std::vector<std::vector<int>> SplitCandidates(int64_t layers, int pp, int vp) {
  const int64_t chunks = static_cast<int64_t>(pp) * vp;
  if (pp < 1 || vp < 1 || layers < chunks) return {};
  if (layers % chunks == 0) return {{}};
  std::vector<std::vector<int>> out;
  for (auto [e, lo] : {std::pair{true, false}, {false, true}, {true, true}})
    if (std::vector<int> v = AccountForSplit(layers, pp, vp, e, lo); !v.empty()) out.push_back(std::move(v));
  if (!out.empty() || vp != 1 || pp < 2) return out;
  // The fewest layers per middle rank n with pp*n >= L; first + last = L - (pp-2)*n.
  const int64_t n = (layers + pp - 1) / pp;
  const int64_t edges = layers - (pp - 2) * n;
  for (int64_t first = std::max<int64_t>(1, edges - n); first <= std::min(n, edges - 1); ++first)
    if (std::vector<int> v = FirstLastSplit(layers, pp, 1, static_cast<int>(first), static_cast<int>(edges - first));
        !v.empty())
      out.push_back(std::move(v));
  return out;
}

std::string SplitLabel(int64_t layers, int pp, int vp, const std::vector<int>& pp_layout) {
  const SplitDescription d = DescribeSplit(layers, pp, vp, pp_layout);
  if (d.kind != SplitKind::kFirstLast) return SplitKindName(d.kind);
  // 0: that rank is not uneven (a middle rank's count), so it is left out.
  if (d.first > 0 && d.last > 0) return fmt::format("first {}, last {}", d.first, d.last);
  return d.first > 0 ? fmt::format("first {}", d.first) : fmt::format("last {}", d.last);
}

}  // namespace paratune
