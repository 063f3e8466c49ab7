// Framework settings for a planned layout: Megatron-LM command-line arguments, a torchtitan TOML
// job file, or a DeepSpeed JSON config, in each framework's own option names (checked against
// the source at the versions recorded in docs/frameworks.md). What a framework cannot express is
// returned as notes, never silently dropped.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "util/enum_names.h"

#include "hardware/cluster.h"
#include "layout/layout.h"
#include "layout/stack.h"
#include "model/model_spec.h"

namespace paratune {

inline Framework ParseFramework(const std::string& s, const std::string& where) {
  return kFrameworkNames.Parse(s, where, "framework");
}

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

// Why framework `f` refuses to run this layout at all, or "" when it runs it (what it cannot
// express is a note instead). DeepSpeed: its pipeline engine asserts ZeRO stage 0 or 1
// (deepspeed/runtime/pipe/engine.py, PipelineEngine.__init__: "ZeRO-2 and ZeRO-3 are
// incompatible with pipeline parallelism").
std::string FrameworkRefuses(Framework f, const EmitInput& in);

// The settings; throws InputError with FrameworkRefuses's reason when the framework would refuse.
Emitted EmitSettings(Framework f, const EmitInput& in);

// The one low-precision recipe each framework is given, whatever the GPU (docs/frameworks.md,
// "FP8 and FP4 recipes"): per-tensor current scaling, which Hopper and Blackwell both run, and
// the same scaling granularity in every framework.
//   Megatron-LM: --fp8-format hybrid --fp8-recipe tensorwise (Transformer Engine
//   Float8CurrentScaling with Format.HYBRID, megatron/core/fp8_utils.py); FP4: --fp4-format
//   e2m1 --fp4-recipe nvfp4.
//   torchtitan: converter quantize.linear.float8 with recipe_name "tensorwise"
//   (torchtitan/config/job_config.py Float8Linear); no FP4.
//   DeepSpeed: no config key; Transformer Engine's Float8CurrentScaling(fp8_format=Format.HYBRID)
//   in the model code, named in a note.
inline constexpr const char* kMegatronFp8Format = "hybrid";
inline constexpr const char* kMegatronFp8Recipe = "tensorwise";
inline constexpr const char* kMegatronFp4Format = "e2m1";
inline constexpr const char* kMegatronFp4Recipe = "nvfp4";
inline constexpr const char* kTorchtitanFp8Converter = "quantize.linear.float8";
inline constexpr const char* kTorchtitanFp8Recipe = "tensorwise";
inline constexpr const char* kTransformerEngineFp8Recipe =
    "transformer_engine.common.recipe.Float8CurrentScaling(fp8_format=Format.HYBRID)";

// One emitter per framework (emit/megatron.cc, emit/torchtitan.cc, emit/deepspeed.cc).
Emitted EmitMegatron(const EmitInput& in);
Emitted EmitTorchtitan(const EmitInput& in);
Emitted EmitDeepSpeed(const EmitInput& in);

// The model torchtitan v0.2.2 builds for a registered model name and flavor (its registry,
// torchtitan/models/{llama3,qwen3,deepseek_v3}/__init__.py, transcribed), or nullopt. Its
// max_position_embeddings is 0: torchtitan takes the context from training.seq_len.
std::optional<ModelSpec> TorchtitanFlavorModel(const std::string& name, const std::string& flavor);

}  // namespace paratune
