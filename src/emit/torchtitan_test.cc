// torchtitan job files: the TOML parses (toml++) and every section.key is a field of
// torchtitan's JobConfig with the right type (list below, checked against
// torchtitan/config/job_config.py at pytorch/torchtitan v0.2.2, 73a0e697, 2026-02-20); the
// degrees multiply to the world size and the batch fields give paratune's global batch.
#include <gtest/gtest.h>

#include <map>
#include <toml++/toml.h>

#include "emit/emit.h"
#include "emit/emit_test_util.h"

namespace paratune {
namespace {

// section.key -> "int", "float", "bool", "string", "string-list", or "choice:a|b".
const std::map<std::string, std::string>& VerifiedKeys() {
  static const std::map<std::string, std::string> k = {
      {"job.description", "string"},
      {"job.dump_folder", "string"},
      {"model.name", "string"},
      {"model.flavor", "string"},
      {"model.converters", "string-list"},
      {"training.local_batch_size", "int"},
      {"training.global_batch_size", "int"},
      {"training.seq_len", "int"},
      {"training.steps", "int"},
      {"training.dtype", "choice:bfloat16|float32"},
      {"training.mixed_precision_param", "choice:bfloat16|float32"},
      {"parallelism.data_parallel_replicate_degree", "int"},
      {"parallelism.data_parallel_shard_degree", "int"},
      {"parallelism.fsdp_reshard_after_forward", "choice:default|always|never"},
      {"parallelism.tensor_parallel_degree", "int"},
      {"parallelism.enable_async_tensor_parallel", "bool"},
      {"parallelism.pipeline_parallel_degree", "int"},
      {"parallelism.pipeline_parallel_schedule", "string"},
      {"parallelism.pipeline_parallel_layers_per_stage", "int"},
      {"parallelism.pipeline_parallel_microbatch_size", "int"},
      {"parallelism.context_parallel_degree", "int"},
      {"parallelism.expert_parallel_degree", "int"},
      {"parallelism.expert_tensor_parallel_degree", "int"},
      {"activation_checkpoint.mode", "choice:selective|full|memory_budget|none"},
      {"activation_checkpoint.selective_ac_option", "string"},
      {"compile.enable", "bool"},
      {"compile.components", "string-list"},
      {"quantize.linear.float8.recipe_name", "choice:tensorwise|rowwise|rowwise_with_gw_hp"},
      {"quantize.linear.float8.enable_fsdp_float8_all_gather", "bool"},
      {"quantize.linear.mx.recipe_name", "string"},
  };
  return k;
}

void CheckTable(const toml::table& t, const std::string& prefix) {
  for (const auto& [key, node] : t) {
    const std::string name = prefix.empty() ? std::string(key.str()) : prefix + "." + std::string(key.str());
    if (node.is_table()) {
      CheckTable(*node.as_table(), name);
      continue;
    }
    const auto it = VerifiedKeys().find(name);
    ASSERT_NE(it, VerifiedKeys().end()) << "not a verified torchtitan key: " << name;
    const std::string& type = it->second;
    if (type == "int") {
      EXPECT_TRUE(node.is_integer()) << name;
    } else if (type == "bool") {
      EXPECT_TRUE(node.is_boolean()) << name;
    } else if (type == "string") {
      EXPECT_TRUE(node.is_string()) << name;
    } else if (type == "string-list") {
      ASSERT_TRUE(node.is_array()) << name;
      for (const auto& e : *node.as_array()) EXPECT_TRUE(e.is_string()) << name;
    } else {
      ASSERT_TRUE(node.is_string()) << name;
      // Appended piecewise: GCC 12 reports a false -Wrestrict for "literal" + string&&.
      std::string choices = "|", needle = "|";
      choices.append(type, 7).append("|");
      needle.append(node.as_string()->get()).append("|");
      EXPECT_NE(choices.find(needle), std::string::npos) << name;
    }
  }
}

TEST(EmitTorchtitan, ParsesWithKnownTypedKeys) {
  for (const EmitInput& in : testing_util::Cases()) {
    SCOPED_TRACE(in.model.name);
    const std::string text = EmitTorchtitan(in).text;
    toml::table t;
    try {
      t = toml::parse(text);
    } catch (const toml::parse_error& e) {
      FAIL() << e.what() << "\n" << text;
    }
    CheckTable(t, "");
    // torchtitan/distributed/parallel_dims.py: replicate * shard * cp * tp * pp == world.
    const auto p = t["parallelism"];
    const int64_t world = p["data_parallel_replicate_degree"].value_or<int64_t>(0) *
                          p["data_parallel_shard_degree"].value_or<int64_t>(0) *
                          p["context_parallel_degree"].value_or<int64_t>(0) *
                          p["tensor_parallel_degree"].value_or<int64_t>(0) *
                          p["pipeline_parallel_degree"].value_or<int64_t>(0);
    EXPECT_EQ(world, in.cluster.gpus);
    // torchtitan/train.py: accumulation = global / (local * dp) must be a whole number.
    const int64_t local = t["training"]["local_batch_size"].value_or<int64_t>(0);
    const int64_t global = t["training"]["global_batch_size"].value_or<int64_t>(0);
    EXPECT_EQ(global, in.training.global_batch);
    EXPECT_EQ(global % (local * in.layout.dp), 0);
    EXPECT_EQ(t["activation_checkpoint"]["mode"].value_or<std::string>(""), RecomputeName(in.layout.recompute));
  }
}

TEST(EmitTorchtitan, DefaultScenarioNamesTheFlavor) {
  const EmitInput in = testing_util::DefaultWinner();
  const toml::table t = toml::parse(EmitTorchtitan(in).text);
  EXPECT_EQ(t["model"]["name"].value_or<std::string>(""), "llama3");
  EXPECT_EQ(t["model"]["flavor"].value_or<std::string>(""), "70B");
  EXPECT_EQ(t["training"]["seq_len"].value_or<int64_t>(0), 8192);
}

TEST(EmitTorchtitan, ZeroOneIsNotedAsNotExpressible) {
  EmitInput in = testing_util::DefaultWinner();
  in.layout.zero = 1;
  const Emitted e = EmitTorchtitan(in);
  bool noted = false;
  for (const std::string& n : e.notes) noted = noted || n.find("no ZeRO-1") != std::string::npos;
  EXPECT_TRUE(noted);
}

}  // namespace
}  // namespace paratune
