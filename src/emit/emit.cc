#include "emit/emit.h"

#include "util/error.h"

namespace paratune {

Framework ParseFramework(const std::string& s, const std::string& where) {
  if (s == "megatron") return Framework::kMegatron;
  if (s == "torchtitan") return Framework::kTorchtitan;
  if (s == "deepspeed") return Framework::kDeepSpeed;
  throw InputError(where + ": unknown framework '" + s + "' (expected megatron, torchtitan or deepspeed)");
}

const char* FrameworkName(Framework f) {
  switch (f) {
    case Framework::kMegatron: return "megatron";
    case Framework::kTorchtitan: return "torchtitan";
    case Framework::kDeepSpeed: return "deepspeed";
  }
  return "?";
}

Emitted EmitSettings(Framework f, const EmitInput& in) {
  switch (f) {
    case Framework::kMegatron: return EmitMegatron(in);
    case Framework::kTorchtitan: return EmitTorchtitan(in);
    case Framework::kDeepSpeed: return EmitDeepSpeed(in);
  }
  return {};
}

}  // namespace paratune
