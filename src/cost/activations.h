// Activation memory of one transformer layer for one micro-batch on one GPU: the tensors the
// forward pass keeps for the backward pass, following Korthikanti et al. 2022 (MLSys'23,
// arXiv 2205.05198, Sec. 4 and Table 2), generalised tensor by tensor to GQA, MLA, gated MLPs,
// MoE, context parallelism, FlashAttention and FP8 (docs/cost-model.md, "Activations").
#pragma once

#include "hardware/gpu_spec.h"
#include "layout/layout.h"
#include "model/model_spec.h"

namespace paratune {

struct ActivationOptions {
  int tp = 1;
  int etp = 1;  // expert tensor parallel
  int cp = 1;
  bool sp = false;  // sequence parallel
  Recompute recompute = Recompute::kNone;
  bool flash_attention = true;             // scores never stored
  Precision precision = Precision::kBf16;  // GEMM inputs saved in 1 byte under FP8/FP4
  uint8_t recompute_modules = 0;           // Layout::recompute_modules (with recompute kSelective)
  bool fp8_activation_cache = false;       // Layout::fp8_activation_cache
  bool recomputes(RecomputeModule m) const { return RecomputesModule(recompute, recompute_modules, m); }
};

// Bytes kept by one layer for a micro-batch of `b` sequences of length `seq` (whole sequence;
// divided by cp inside). With recompute kFull only the layer input is kept.
double LayerActivationBytes(const ModelSpec& m, bool moe_layer, double b, double seq, const ActivationOptions& o);

// Bytes one layer holds while it is being recomputed or run (its full activations, without
// recompute), the working set added once per stage under full recomputation.
double LayerWorkingBytes(const ModelSpec& m, bool moe_layer, double b, double seq, const ActivationOptions& o);

// Korthikanti et al. 2022 Table 2, bytes per layer for GPT (MHA, 4h GELU MLP, dropout, 16-bit):
enum class KorthikantiCase { kNone, kTp, kTpSp, kTpSelective, kTpSpSelective, kFull };
double KorthikantiActivationBytes(double s, double b, double h, double a, double t, KorthikantiCase c);

}  // namespace paratune
