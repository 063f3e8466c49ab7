// ExpertTokens: tokens routed to each expert of each MoE layer over an interval, from a CSV with a
// header naming an iteration (or step) column, a layer column, an expert column and a tokens (or
// count) column, one row per (iteration, layer, expert) (docs/diagnose.md). What a router log
// dumps when asked for per-expert load.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace paratune {

struct ExpertTokenCounts {
  int line = 0;  // first line of this (iteration, layer) in the file
  int64_t iteration = -1;
  int layer = 0;
  std::vector<double> tokens;  // by expert index (experts absent from the file count 0)
};

struct ExpertTokens {
  std::string path;
  std::vector<ExpertTokenCounts> rows;  // one per (iteration, layer), file order
};

bool LooksLikeExpertTokens(std::string_view head);
ExpertTokens ParseExpertTokens(std::string_view text, const std::string& where);
ExpertTokens ReadExpertTokens(const std::string& path);

}  // namespace paratune
