#include "emit/emit.h"

#include <fmt/format.h>

#include "util/error.h"

namespace paratune {

std::string FrameworkRefuses(Framework f, const EmitInput& in) {
  const Layout& l = in.layout;
  if (f == Framework::kLlmFoundry)
    return "paratune writes no llm-foundry (Composer) YAML; emit megatron-lm, torchtitan or deepspeed";
  if (f == Framework::kDeepSpeed && l.pp > 1 && l.zero >= 2)
    return fmt::format(
        "DeepSpeed's pipeline engine runs ZeRO stage 0 or 1 only (deepspeed/runtime/pipe/engine.py), "
        "and this layout has pp {} with ZeRO stage {}",
        l.pp, l.zero);
  return "";
}

Emitted EmitSettings(Framework f, const EmitInput& in) {
  if (const std::string why = FrameworkRefuses(f, in); !why.empty())
    throw InputError(fmt::format("--emit {}: {}", FrameworkName(f), why));
  Emitted out;
  switch (f) {
    // Megatron-Bridge's ConfigContainer takes Megatron-Core's options under the same names.
    case Framework::kMegatronLm:
    case Framework::kMegatronBridge:
      return EmitMegatron(in);
    case Framework::kTorchtitan:
      out = EmitTorchtitan(in);
      break;
    case Framework::kDeepSpeed:
      out = EmitDeepSpeed(in);
      break;
    case Framework::kLlmFoundry:
      break;  // refused above
  }
  // Activation offloading as estimated is Megatron-Core's (Transformer Engine's per-layer
  // offload handler); the other frameworks' offloading works differently.
  if (in.layout.offload_layers > 0)
    out.notes.push_back(
        fmt::format("activation offload of {} layers as Megatron-Core runs it has no setting here: "
                    "the estimate assumed it",
                    in.layout.offload_layers));
  return out;
}

}  // namespace paratune
