// The pipeline split: how many transformer layers each pipeline chunk holds (chunk k = c*pp + s,
// virtual stage c of pipeline rank s, as Megatron-LM orders them), in the ways Megatron-LM can
// express it (megatron/core/transformer/transformer_block.py get_num_layers_to_build and
// megatron/core/transformer/transformer_config.py __post_init__, NVIDIA/Megatron-LM d98e8a64):
//   - even: L / (pp*vp) layers per chunk;
//   - --account-for-embedding-in-pipeline-split / --account-for-loss-in-pipeline-split: the
//     embedding (loss) counts as one layer, so L+1 (L+2 with both) must divide by pp*vp, and the
//     first chunk of the first rank (the last chunk of the last rank) builds one layer fewer;
//   - --decoder-first-pipeline-num-layers F / --decoder-last-pipeline-num-layers G: the first
//     (last) rank holds F (G) layers, F/vp per chunk; the middle ranks share the rest evenly;
//   - --pipeline-model-parallel-layout: any list of counts (a layout string, "E,t*7|t*8|...").
// Layout::pp_layout holds the counts (empty: even); this file builds them, names them, and says
// which of them `plan` searches (docs/planner.md, "Pipeline splits").
#pragma once

#include <string>

#include <cstdint>
#include <vector>

#include "layout/layout.h"
#include "util/enum_names.h"

namespace paratune {

enum class SplitKind { kEven, kAccountEmbedding, kAccountLoss, kAccountBoth, kFirstLast, kCustom };
inline constexpr EnumNames<SplitKind, 6> kSplitKindNames{{{{SplitKind::kEven, "even"},
                                                           {SplitKind::kAccountEmbedding, "embedding"},
                                                           {SplitKind::kAccountLoss, "loss"},
                                                           {SplitKind::kAccountBoth, "embedding+loss"},
                                                           {SplitKind::kFirstLast, "first-last"},
                                                           {SplitKind::kCustom, "custom"}}},
                                                         6};
inline const char* SplitKindName(SplitKind k) { return kSplitKindNames.Name(k); }

// Layers of each chunk: pp_layout, or the even split L / (pp*vp) (sizes must be positive).
std::vector<int> ChunkLayers(int64_t layers, const Layout& l);

// Megatron's split with the account-for flags; empty when L + embedding + loss is not divisible
// by pp*vp or a chunk would hold no transformer layer (paratune needs one per chunk).
std::vector<int> AccountForSplit(int64_t layers, int pp, int vp, bool embedding, bool loss);

// Megatron's uneven split: the first rank holds `first` layers and the last `last` (0: not
// given, that rank is a middle one), each a multiple of vp; the middle ranks share the rest
// evenly, a multiple of vp each. Empty when Megatron would reject it or a chunk is empty.
std::vector<int> FirstLastSplit(int64_t layers, int pp, int vp, int first, int last);

// The most balanced split a layout string can express, for layers pp*vp does not divide: each
// rank holds L/pp layers rounded down or up, the extra layers going to the middle ranks first,
// then the first rank (it also runs the embedding), then the last (it also runs the loss); each
// rank's chunks differ by at most one layer, the earlier virtual stages taking the extra. Empty
// when a chunk would hold no layer.
std::vector<int> BalancedSplit(int64_t layers, int pp, int vp);

// How Megatron expresses a chunk list, in order of preference: even (nothing), the account-for
// flags, first/last counts, else a custom layout string. `first`/`last` are set for kFirstLast
// (0 where that rank is not uneven).
struct SplitDescription {
  SplitKind kind = SplitKind::kEven;
  int first = 0;
  int last = 0;
};
SplitDescription DescribeSplit(int64_t layers, int pp, int vp, const std::vector<int>& pp_layout);

// The split in a few words, as tables and explanations print it: "even", "embedding",
// "loss", "embedding+loss" (counted as layers), "first 15, last 13" / "first 15" / "last 1"
// (layers of the uneven first and last ranks), "custom".
std::string SplitLabel(int64_t layers, int pp, int vp, const std::vector<int>& pp_layout);

// The chunk lists `plan` tries for a pipeline of pp ranks with vp chunks each (empty list = the
// even split), a search policy (docs/planner.md): the even split when pp*vp divides L; else the
// account-for splits (embedding, loss, both) whose counts pp*vp divides; else, with vp = 1, the
// first/last splits whose middle ranks hold the fewest layers n that let pp*n cover L, and whose
// first and last ranks hold between 1 and n layers (an edge rank, which also runs the embedding
// or the loss, is never given more layers than a middle one).
std::vector<std::vector<int>> SplitCandidates(int64_t layers, int pp, int vp);

}  // namespace paratune
