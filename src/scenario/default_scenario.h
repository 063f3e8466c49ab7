// The built-in default scenario: Llama-3.1-70B on 4 nodes of 8 NVIDIA B300 (HGX B300),
// sequence 8192, global batch 256 sequences, BF16. What `paratune estimate` (and later
// `paratune plan`) run with no arguments.
#pragma once

#include "layout/layout.h"

namespace paratune {

inline constexpr const char* kDefaultModel = "llama-3.1-70b";
inline constexpr const char* kDefaultGpu = "B300";
inline constexpr int kDefaultNodes = 4;

// Training shape of the default scenario: Training's own defaults (layout/layout.h).
inline Training DefaultTraining() { return Training{}; }

// The layout `estimate` uses when none is given: TP inside the node, no pipeline, Megatron's
// distributed optimizer (ZeRO-1), no recomputation.
inline Layout DefaultLayout() {
  Layout l;
  l.tp = 4;
  l.pp = 1;
  l.zero = 1;
  l.mbs = 1;
  return l;
}

}  // namespace paratune
