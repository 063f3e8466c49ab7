// Model shapes shared by the unit tests (included only by *_test.cc files).
#pragma once

#include "model/model_spec.h"

namespace paratune {

// The GPT model of Narayanan et al. 2021 and Korthikanti et al. 2022: multi-head attention,
// a 4h GELU MLP, LayerNorm, tied embeddings, Megatron's dropout of 0.1.
inline ModelSpec GptModel(int64_t layers, int64_t hidden, int64_t heads, int64_t vocab) {
  ModelSpec m;
  m.name = "gpt";
  m.architecture = "GPT2LMHeadModel";
  m.layers = layers;
  m.hidden = hidden;
  m.heads = heads;
  m.kv_heads = heads;
  m.head_dim = hidden / heads;
  m.vocab = vocab;
  m.ffn_hidden = 4 * hidden;
  m.mlp = MlpKind::kPlain;
  m.norm = NormKind::kLayerNorm;
  m.tied_embeddings = true;
  m.dropout = true;
  return m;
}

}  // namespace paratune
