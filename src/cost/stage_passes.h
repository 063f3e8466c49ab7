// StagePasses: what a pipeline stage holds and what one micro-batch's passes through it cost:
// the part of a stage's cost (cost/stage_costs.h StageCost) that the estimate reports as it is
// (step/estimate.h StageEstimate). Both extend it, so the two cannot drift.
#pragma once

namespace paratune {

struct StagePasses {
  int index = 0;
  int dense_layers = 0;
  int moe_layers = 0;
  bool has_embedding = false;
  bool has_logits = false;
  // One micro-batch through all of the rank's chunks.
  double forward_s = 0;      // incl. the exposed in-stage communication of the forward
  double backward_s = 0;     // incl. recomputation and the exposed communication it repeats
  double weight_grad_s = 0;  // weight-gradient GEMMs within backward_s (W of zero-bubble schedules)
  double compute_s = 0;      // forward + backward compute (recomputation included)
};

}  // namespace paratune
