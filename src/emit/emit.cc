#include "emit/emit.h"


namespace paratune {

Emitted EmitSettings(Framework f, const EmitInput& in) {
  switch (f) {
    case Framework::kMegatron: return EmitMegatron(in);
    case Framework::kTorchtitan: return EmitTorchtitan(in);
    case Framework::kDeepSpeed: return EmitDeepSpeed(in);
  }
  return {};
}

}  // namespace paratune
