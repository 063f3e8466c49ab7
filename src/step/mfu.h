// MFU, defined once. Model FLOPs utilisation (PaLM, Chowdhery et al. 2022, Appendix B) is the
// model FLOPs of a step over what the GPUs could compute in the step time at their dense peak
// (dense, not 2:4-sparse: Megatron-LM #1276, #1565; ../shared/ANCHORS.md "MFU conventions").
// HFU is the same ratio of the hardware FLOPs, recomputation included (Korthikanti et al. 2022).
//
// paratune states MFU against two peaks, both in every estimate:
//   - the dense BF16 peak (Estimate::mfu_vs_bf16, JSON `mfu_vs_bf16_peak`): one denominator for
//     every precision, so FP8 and FP4 layouts compare with BF16 ones; the plan table's `MFU`;
//   - the dense peak of the layout's own precision (Estimate::mfu, JSON `mfu`; the plan table's
//     `MFU own`). An FP8 layout's BF16-peak MFU is its own-peak MFU times fp8/bf16 peak (2 on
//     Hopper and Blackwell); for BF16 and FP16 layouts the two are equal.
#pragma once

namespace paratune {

// `flops_per_step` / (`step_time_s` * `gpus` * `peak_flops_per_s`): a fraction of the peak.
inline double FlopsUtilization(double flops_per_step, double step_time_s, int gpus, double peak_flops_per_s) {
  return flops_per_step / (step_time_s * gpus * peak_flops_per_s);
}

}  // namespace paratune
