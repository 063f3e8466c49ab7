// The built-in model catalog (data/models/*.json, compiled in) and the --model resolver.
#pragma once

#include <string>
#include <vector>

#include "model/model_spec.h"

namespace paratune {

// Ids of the built-in models, sorted.
std::vector<std::string> CatalogModelIds();

// Loads a model by catalog id (case-insensitive) or by path to a config.json. A value that
// names an existing file, contains '/' or ends in ".json" is a path. Throws InputError for an
// unknown id (listing the catalog) or an unreadable/invalid file.
ModelSpec LoadModel(const std::string& name_or_path);

// Dimensions given inline on the command line (--layers --hidden ...).
struct InlineDims {
  int64_t layers = 0, hidden = 0, ffn = 0, heads = 0, kv_heads = 0, vocab = 0;
  int64_t experts = 0, topk = 0;
  bool gated_mlp = true;  // SwiGLU unless told otherwise
};

// A Llama-style model (RMSNorm, rotary, untied, SwiGLU) with the given dimensions; with experts,
// every layer is MoE with `ffn` as the expert width. Throws InputError on a bad dimension.
ModelSpec ModelFromDims(const InlineDims& d);

}  // namespace paratune
