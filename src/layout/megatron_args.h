// MegatronArgs: a Megatron-LM (Megatron-Core) training command line read back into paratune's
// model, training shape and layout, so that `paratune estimate --from-megatron "ARGS..."` can
// estimate a run someone already launches. Flag names and defaults follow
// megatron/training/arguments.py and megatron/core/transformer/transformer_config.py at the
// commit recorded in docs/frameworks.md; flags that do not change the estimate are ignored and
// listed.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "layout/layout.h"
#include "model/model_spec.h"

namespace paratune {

struct MegatronArgs {
  ModelSpec model;
  Training training;
  Layout layout;                    // dp is left 0: the world size comes from the cluster
  bool global_batch_given = false;  // absent: Megatron uses micro-batch * dp
  bool seq_given = false;
  std::vector<std::string> ignored;  // flags read but not used by paratune, in input order
  std::vector<std::string> notes;    // defaults taken and approximations made, one line each
};

// Splits a command line the way a POSIX shell does for words: whitespace separates, single
// quotes keep everything, double quotes keep everything but \" and \\, a backslash escapes the
// next character outside quotes. Throws InputError on an unterminated quote.
std::vector<std::string> SplitShellWords(const std::string& line);

// Parses a Megatron-LM argument list (one string; a launcher's words up to the script, "*.py",
// are skipped). Throws InputError naming the flag for a missing or malformed value, for a
// missing model dimension (--num-layers, --hidden-size, --num-attention-heads,
// --vocab-size/--padded-vocab-size), and for an option Megatron-LM does not have
// (data/megatron_flags.txt), with the nearest it has, unless `ignore_unknown`.
MegatronArgs ParseMegatronArgs(const std::string& line, bool ignore_unknown = false);

// The `megatron_args` member `estimate --from-megatron --json` adds to paratune.estimate/1
// (docs/json.md): the words ignored and the notes, in input order.
nlohmann::json MegatronArgsJson(const MegatronArgs& a);

// Evaluates Megatron's --moe-layer-freq list pattern, e.g. "([0]*3+[1]*58)" (a Python list
// expression of 0/1 terms joined by + and repeated by *). Throws InputError.
std::vector<int> EvalMoeLayerPattern(const std::string& pattern);

}  // namespace paratune
