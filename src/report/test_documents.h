// Documents the report's tests draw (hand-made values, written by the producers' own writers so
// they are whole documents of their schemas, docs/json.md): an estimate whose terms are
// powers of two, so that a lost or doubled value shows in the charts' sums, a plan and a
// simulation.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "plan/plan_json.h"
#include "step/estimate_json.h"
#include "step/simulate_json.h"

namespace paratune::report_test {

// An estimate of `model` on 16 H100 at tp 2 pp 2 dp 4: step 2 s at `tokens_per_s` per GPU, MFU
// 40%, two stages of 67 and 68 GB against 80 GB, the scale-up link half busy on stage 0 and the
// scale-out link three quarters on stage 1.
inline nlohmann::json EstimateDoc(const std::string& model = "llama-3.1-8b", double tokens_per_s = 3000) {
  struct Estimate e;
  e.model = model;
  e.gpu = "H100";
  e.gpus = 16;
  e.layout.tp = 2;
  e.layout.pp = 2;
  e.layout.dp = 4;
  e.step_time_s = 2.0;
  e.tokens_per_s_per_gpu = tokens_per_s;
  e.mfu = 0.4;
  e.comm_share = 0.1;
  e.bubble_rate = 0.05;
  e.time.compute_s = 1.5;
  e.time.recompute_s = 0.25;
  e.time.tp_s = 0.125;
  e.time.dp_s = 0.0625;
  e.time.bubble_s = 0.25;
  e.time.optimizer_s = 0.0625;
  for (int s = 0; s < 2; ++s) {
    StageEstimate& st = e.stages.emplace_back();
    st.index = s;
    st.memory.params = 10e9;
    st.memory.grads = 5e9;
    st.memory.optimizer = 20e9;
    st.memory.activations = 30e9 + s * 1e9;
    st.memory.runtime = 2e9;
  }
  e.capacity_bytes = 80e9;
  e.peak_memory_bytes = 68e9;
  e.links = {{.link = "scale_up", .stage = 0, .utilisation = 0.5},
             {.link = "scale_out", .stage = 1, .utilisation = 0.75}};
  return EstimateToJson(e);
}

// A plan of llama-3.1-8b on 16 H100 (sequence 4096, global batch 64): 40 candidates, 30 estimated,
// 12 fit under a 76 GB limit; ranked tp 1, 2, 4 (dp 16, 8, 4) at 3000, 2500 and 1250 tokens/s per
// GPU, MFU 50%, 37.5% and 25%, step 1, 2 and 3 s, peak 40, 50 and 60 GB; one line of explanation;
// the winner is EstimateDoc's estimate.
inline nlohmann::json PlanDoc() {
  PlanDocument d;
  d.model = "llama-3.1-8b";
  d.gpu = "H100";
  d.gpus = 16;
  d.seq_len = 4096;
  d.global_batch = 64;
  d.precision = "bf16";
  d.result.candidates = 40;
  d.result.estimated = 30;
  d.result.fitting = 12;
  d.result.memory_limit_bytes = 76e9;
  d.result.explanation = {"#1 is faster because of less TP communication"};
  const double tps[] = {3000, 2500, 1250};
  for (int i = 0; i < 3; ++i) {
    struct Estimate& e = d.result.ranked.emplace_back();
    e.layout.tp = 1 << i;
    e.layout.dp = 16 >> i;
    e.step_time_s = 1.0 + i;
    e.tokens_per_s_per_gpu = tps[i];
    e.mfu = 0.5 - 0.125 * i;
    e.peak_memory_bytes = 40e9 + 10e9 * i;
  }
  d.winner = EstimateFromJson(EstimateDoc(), "estimate");
  return PlanToJson(d);
}

// A simulation of tp 2 pp 4 on 8 H100 (1F1B, 4 micro-batches, step 1 s, pipeline 0.9 s): each of
// the 4 stages 0.5 s compute, 0.1 s non-compute and 0.4 s idle; its timeline has a forward
// (50 ms) and a backward (80 ms) per stage and micro-batch.
inline nlohmann::json SimulateDoc() {
  SimulateDocument d;
  d.model = "m";
  d.gpu = "H100";
  d.gpus = 8;
  d.layout.tp = 2;
  d.layout.pp = 4;
  d.layout.dp = 1;
  d.schedule = "1f1b";
  d.micro_batches = 4;
  d.simulated_micro_batches = 4;
  d.step_time_s = 1.0;
  d.pipeline_time_s = 0.9;
  Timeline& t = d.timeline.emplace();
  t.ranks = 4;
  for (int s = 0; s < 4; ++s) {
    SimulatedStage& st = d.stages.emplace_back();
    st.passes.index = s;
    st.figures.time.compute_s = 0.5;
    st.figures.time.non_compute_s = 0.1;
    st.figures.time.idle_s = 0.4;
    for (int m = 0; m < 4; ++m) {
      t.events.push_back({.rank = s,
                          .stream = 0,
                          .phase = Phase::kForward,
                          .micro_batch = m,
                          .virtual_stage = -1,
                          .start_s = 0.1 * (s + m),
                          .duration_s = 0.05,
                          .name = ""});
      t.events.push_back({.rank = s,
                          .stream = 0,
                          .phase = Phase::kBackward,
                          .micro_batch = m,
                          .virtual_stage = -1,
                          .start_s = 0.5 + 0.1 * m,
                          .duration_s = 0.08,
                          .name = ""});
    }
  }
  return SimulateToJson(d);
}

}  // namespace paratune::report_test
