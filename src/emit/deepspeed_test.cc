// DeepSpeed configs: the JSON parses, every key is a DeepSpeed config key with the right type
// (list below, checked against deepspeedai/DeepSpeed edaa7221, version 0.19.6 dev, 2026-08-22:
// runtime/constants.py, runtime/zero/config.py, runtime/activation_checkpointing/config.py,
// runtime/tensor_parallel/config.py, runtime/config.py), and train_batch_size equals
// micro-batch * accumulation * dp, the check DeepSpeed itself makes.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>

#include "emit/emit.h"
#include "emit/emit_test_util.h"
#include "util/test_util.h"
#include "model/catalog.h"

namespace paratune {
namespace {

// Dotted key -> "int", "bool", "string", "object".
const std::map<std::string, std::string>& VerifiedKeys() {
  static const std::map<std::string, std::string> k = {
      {"train_batch_size", "int"},
      {"train_micro_batch_size_per_gpu", "int"},
      {"gradient_accumulation_steps", "int"},
      {"bf16", "object"},
      {"bf16.enabled", "bool"},
      {"fp16", "object"},
      {"fp16.enabled", "bool"},
      {"zero_optimization", "object"},
      {"zero_optimization.stage", "int"},
      {"zero_optimization.overlap_comm", "bool"},
      {"zero_optimization.contiguous_gradients", "bool"},
      {"zero_optimization.reduce_scatter", "bool"},
      {"zero_optimization.reduce_bucket_size", "int"},
      {"zero_optimization.allgather_partitions", "bool"},
      {"activation_checkpointing", "object"},
      {"activation_checkpointing.partition_activations", "bool"},
      {"activation_checkpointing.contiguous_memory_optimization", "bool"},
      {"activation_checkpointing.number_checkpoints", "int"},
      {"activation_checkpointing.cpu_checkpointing", "bool"},
      {"tensor_parallel", "object"},
      {"tensor_parallel.autotp_size", "int"},
      {"pipeline", "object"},
      {"pipeline.stages", "int"},
      {"pipeline.partition", "string"},
      {"gradient_clipping", "float"},
      {"steps_per_print", "int"},
  };
  return k;
}

void Check(const nlohmann::json& j, const std::string& prefix) {
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string name = prefix.empty() ? it.key() : prefix + "." + it.key();
    const auto k = VerifiedKeys().find(name);
    ASSERT_NE(k, VerifiedKeys().end()) << "not a verified DeepSpeed key: " << name;
    const std::string& type = k->second;
    if (type == "object") {
      ASSERT_TRUE(it->is_object()) << name;
      Check(*it, name);
    } else if (type == "int") {
      EXPECT_TRUE(it->is_number_integer()) << name;
    } else if (type == "bool") {
      EXPECT_TRUE(it->is_boolean()) << name;
    } else if (type == "float") {
      EXPECT_TRUE(it->is_number()) << name;
    } else {
      EXPECT_TRUE(it->is_string()) << name;
    }
  }
}

TEST(EmitDeepSpeed, ParsesWithKnownKeysAndConsistentBatch) {
  for (const EmitInput& in : testing_util::Cases()) {
    SCOPED_TRACE(in.model.name);
    const nlohmann::json j = nlohmann::json::parse(EmitDeepSpeed(in).text);
    Check(j, "");
    const int64_t batch = j["train_batch_size"], micro = j["train_micro_batch_size_per_gpu"],
                  accumulation = j["gradient_accumulation_steps"];
    EXPECT_EQ(batch, micro * accumulation * in.layout.dp);
    EXPECT_EQ(batch, in.training.global_batch);
    EXPECT_EQ(j["zero_optimization"]["stage"], in.layout.zero);
    EXPECT_EQ(j["bf16"]["enabled"], true);
  }
}

TEST(EmitDeepSpeed, NotesWhatCannotBeExpressed) {
  const auto cases = testing_util::Cases();
  const Emitted e = EmitDeepSpeed(cases[1]);  // DeepSeek-V3: EP and FP8
  std::string all;
  for (const std::string& n : e.notes) all += n + "\n";
  EXPECT_NE(all.find("ep 64"), std::string::npos) << all;
  EXPECT_NE(all.find("fp8"), std::string::npos) << all;
}

// Issue 9, item 2 for DeepSpeed: its JSON carries no model (the model is the nn.Module handed to
// deepspeed.initialize); what depends on the model is the checkpoint count, layers per stage.
TEST(EmitDeepSpeed, EveryCatalogModelCarriesOnlyTheLayerCount) {
  for (const std::string& id : CatalogModelIds()) {
    SCOPED_TRACE(id);
    EmitInput in = testing_util::CatalogCase(id);
    in.layout.recompute = Recompute::kFull;
    const Emitted e = EmitDeepSpeed(in);
    const nlohmann::json j = nlohmann::json::parse(e.text);
    Check(j, "");  // only verified keys: none of them is a model dimension
    EXPECT_EQ(j["activation_checkpointing"]["number_checkpoints"], in.model.layers / in.layout.pp);
    std::string all;
    for (const std::string& n : e.notes) all += n + "\n";
    EXPECT_NE(all.find("carries no model"), std::string::npos) << all;
  }
}

// Issue 9, item 3: DeepSpeed has no FP8 key; the note names the one Transformer Engine recipe,
// the same as Megatron-LM's.
TEST(EmitDeepSpeed, Fp8NoteNamesTheRecipe) {
  for (const char* gpu : {"H100", "B300"}) {
    const Emitted e = EmitDeepSpeed(testing_util::CatalogCase("llama-3.1-8b", Precision::kFp8, gpu));
    std::string all;
    for (const std::string& n : e.notes) all += n + "\n";
    EXPECT_NE(all.find("Float8CurrentScaling(fp8_format=Format.HYBRID)"), std::string::npos) << all;
    EXPECT_NE(all.find("--fp8-format hybrid --fp8-recipe tensorwise"), std::string::npos) << all;
    EXPECT_EQ(nlohmann::json::parse(e.text)["bf16"]["enabled"], true);
  }
}

// Issue 32: ZeRO stage 2 with pipeline stages, which DeepSpeed's pipeline engine refuses
// (deepspeed/runtime/pipe/engine.py), was emitted with a note; now it is refused with the reason,
// and the same layout at ZeRO 1 is emitted.
TEST(EmitDeepSpeed, RefusesPipelineWithZeroTwo) {
  EmitInput in = testing_util::Cases()[2];  // Llama-3.1-405B: pp 9, ZeRO-2
  ASSERT_EQ(in.layout.pp, 9);
  ASSERT_EQ(in.layout.zero, 2);
  EXPECT_EQ(FrameworkRefuses(Framework::kDeepSpeed, in),
            "DeepSpeed's pipeline engine runs ZeRO stage 0 or 1 only (deepspeed/runtime/pipe/engine.py), and this "
            "layout has pp 9 with ZeRO stage 2");
  EXPECT_CONTAINS(InputErrorOf([&] { EmitSettings(Framework::kDeepSpeed, in); }),
                  "--emit deepspeed: DeepSpeed's pipeline engine runs ZeRO stage 0 or 1 only");
  EXPECT_EQ(FrameworkRefuses(Framework::kMegatronLm, in), "");
  in.layout.zero = 1;
  EXPECT_EQ(FrameworkRefuses(Framework::kDeepSpeed, in), "");
  EXPECT_EQ(nlohmann::json::parse(EmitSettings(Framework::kDeepSpeed, in).text)["zero_optimization"]["stage"], 1);
}

}  // namespace
}  // namespace paratune
