// The host side of one transformer layer: how many kernels the framework's Python issues for it
// per micro-batch, and whether the layer makes the host wait for the GPU mid-way (a dropless MoE
// dispatcher copies its per-expert token counts to the host to size the expert GEMMs). When the
// host takes longer to issue a layer than the GPU takes to run it, the GPU idles for the
// difference (docs/stacks.md, "Launches"); CUDA graphs replay captured kernels without the host.
#pragma once

#include "layout/layout.h"
#include "model/model_spec.h"

namespace paratune {

struct LayerLaunches {
  double fwd_kernels = 0;  // kernels the host issues for the forward, after CUDA graphs
  double bwd_kernels = 0;  // and for the backward
  // Kernels the GPU runs in the forward (graphed or not): each costs kKernelOverheadS there.
  double gpu_fwd_kernels = 0;
};

LayerLaunches CountLayerLaunches(const ModelSpec& m, bool moe_layer, const Training& t, const Layout& l);

}  // namespace paratune
