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

// The Hugging Face repositories whose config.json a catalog entry copies: the one list that
// maps a repository id (e.g. "meta-llama/Llama-3.1-8B", as datasets name models) to its entry.
struct HfRepository {
  const char* repo;  // Hugging Face repository id
  const char* id;    // catalog id
};
const std::vector<HfRepository>& HfRepositories();
// The catalog id whose config.json comes from Hugging Face repository `repo` (case-insensitive);
// empty when the catalog has none.
std::string CatalogIdForHfRepository(const std::string& repo);

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
