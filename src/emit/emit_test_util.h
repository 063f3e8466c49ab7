// Shared fixtures of the emitter tests: the default scenario's planned winner and a few fixed
// layouts (MoE with MLA, interleaved pipeline, FSDP, FP8) as EmitInput.
#pragma once

#include <algorithm>

#include "emit/emit.h"
#include "hardware/hardware_catalog.h"
#include "layout/constraints.h"
#include "model/catalog.h"
#include "plan/planner.h"
#include "scenario/default_scenario.h"

namespace paratune::testing_util {

// Planned once per test process: the search takes a noticeable fraction of a second.
inline EmitInput DefaultWinner() {
  static const EmitInput winner = [] {
    PlanRequest r;
    r.model = LoadModel(kDefaultModel);
    r.cluster = HardwareCatalog::BuiltIn().Cluster(kDefaultGpu, kDefaultNodes * 8);
    r.training = DefaultTraining();
    r.switches = DefaultLayout();
    r.top = 1;
    const Estimate w = Plan(r).ranked.front();
    return EmitInput{r.model, r.cluster, w.training, w.layout};
  }();
  return winner;
}

// A fixed layout, checked (dp filled in). Fails the calling test if it breaks a rule.
inline EmitInput Fixed(const std::string& model, const std::string& gpu, int gpus, Layout l, Training t) {
  EmitInput in{LoadModel(model), HardwareCatalog::BuiltIn().Cluster(gpu, gpus), t, l};
  const auto v = CheckLayout(in.model, in.cluster, in.training, in.layout);
  if (!v.empty()) throw std::runtime_error(DescribeViolations(v));
  return in;
}

// A valid layout for any catalog model: tp = pp = 1 on 8 GPUs of `gpu`, ZeRO-1, a sequence
// within the model's context (at most 4096), global batch 64.
inline EmitInput CatalogCase(const std::string& id, Precision precision = Precision::kBf16,
                             const std::string& gpu = "H100") {
  const ModelSpec m = LoadModel(id);
  Layout l;
  l.tp = 1;
  l.pp = 1;
  l.zero = 1;
  l.mbs = 1;
  const int64_t seq = std::min<int64_t>(4096, m.max_position_embeddings);
  return Fixed(id, gpu, 8, l, Training{seq, 64, precision});
}

// Inputs that exercise every branch of the emitters.
inline std::vector<EmitInput> Cases() {
  std::vector<EmitInput> v = {DefaultWinner()};
  Layout a;  // DeepSeek-V3: MLA, MoE with dense first layers, EP across nodes, FSDP, full recompute, FP8
  a.tp = 2;
  a.pp = 1;
  a.ep = 64;
  a.etp = 1;
  a.zero = 3;
  a.recompute = Recompute::kFull;
  a.mbs = 1;
  v.push_back(Fixed("deepseek-v3", "H100", 1024, a, Training{4096, 1024, Precision::kFp8}));
  Layout b;  // Llama-3.1-405B: interleaved pipeline, TP overlap, ZeRO-2, selective recompute, FP8 on Blackwell
  b.tp = 8;
  b.pp = 9;
  b.vp = 7;
  b.zero = 2;
  b.recompute = Recompute::kSelective;
  b.overlap_tp_comm = true;
  b.mbs = 2;
  // 576 GPUs: dp 8, mbs 2, 36 micro-batches, a multiple of pp as interleaving needs.
  v.push_back(Fixed("llama-3.1-405b", "B300", 576, b, Training{8192, 576, Precision::kFp8}));
  Layout c;  // Mixtral: MoE with etp = tp, ZeRO-0, CP, no overlap, FP4 on B300
  c.tp = 2;
  c.cp = 2;
  c.ep = 8;
  c.etp = 2;
  c.zero = 0;
  c.overlap_grad_reduce = false;
  c.overlap_pp_comm = false;
  v.push_back(Fixed("mixtral-8x7b", "B300", 64, c, Training{32768, 64, Precision::kFp4}));
  Layout d;  // GPT-style: LayerNorm, GELU, biases, learned positions, tied embeddings
  d.tp = 4;
  d.pp = 2;
  v.push_back(Fixed("gpt3-175b", "A100-80GB", 64, d, Training{2048, 128, Precision::kBf16}));
  return v;
}

}  // namespace paratune::testing_util
