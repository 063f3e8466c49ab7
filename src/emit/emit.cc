#include "emit/emit.h"

#include <fmt/format.h>


namespace paratune {

Emitted EmitSettings(Framework f, const EmitInput& in) {
  Emitted out;
  switch (f) {
    case Framework::kMegatron: return EmitMegatron(in);
    case Framework::kTorchtitan: out = EmitTorchtitan(in); break;
    case Framework::kDeepSpeed: out = EmitDeepSpeed(in); break;
  }
  // Activation offloading as estimated is Megatron-Core's (Transformer Engine's per-layer
  // offload handler); the other frameworks' offloading works differently.
  if (in.layout.offload_layers > 0)
    out.notes.push_back(fmt::format("activation offload of {} layers as Megatron-Core runs it has no setting here: "
                                    "the estimate assumed it",
                                    in.layout.offload_layers));
  return out;
}

}  // namespace paratune
