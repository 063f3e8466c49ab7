// Framework settings for a planned layout: Megatron-LM command-line arguments, a torchtitan TOML
// job file, or a DeepSpeed JSON config, in each framework's own option names (checked against
// the source at the versions recorded in docs/frameworks.md). What a framework cannot express is
// returned as notes, never silently dropped.
#pragma once

#include <string>
#include <vector>

#include "hardware/cluster.h"
#include "layout/layout.h"
#include "model/model_spec.h"

namespace paratune {

enum class Framework { kMegatron, kTorchtitan, kDeepSpeed };
Framework ParseFramework(const std::string& s, const std::string& where);
const char* FrameworkName(Framework f);

// A layout after CheckLayout (dp filled in) with the model, training shape and cluster it runs.
struct EmitInput {
  ModelSpec model;
  ClusterSpec cluster;
  Training training;
  Layout layout;
};

struct Emitted {
  std::string text;                // the settings, ready to write to a file
  std::vector<std::string> notes;  // what the framework cannot express and what was emitted instead
};

Emitted EmitSettings(Framework f, const EmitInput& in);

// One emitter per framework (emit/megatron.cc, emit/torchtitan.cc, emit/deepspeed.cc).
Emitted EmitMegatron(const EmitInput& in);
Emitted EmitTorchtitan(const EmitInput& in);
Emitted EmitDeepSpeed(const EmitInput& in);

}  // namespace paratune
