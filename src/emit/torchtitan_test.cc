// torchtitan job files: the TOML parses (toml++) and every section.key is a field of
// torchtitan's JobConfig with the right type (list below, checked against
// torchtitan/config/job_config.py at pytorch/torchtitan v0.2.2, 73a0e697, 2026-02-20); the
// degrees multiply to the world size and the batch fields give paratune's global batch.
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <set>
#include <toml++/toml.h>

#include "emit/emit.h"
#include "emit/emit_test_util.h"
#include "model/catalog.h"
#include "util/test_util.h"

namespace paratune {
namespace {

// section.key -> "int", "float", "bool", "string", "string-list", or "choice:a|b".
const std::map<std::string, std::string>& VerifiedTitanKeys() {
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
    const auto it = VerifiedTitanKeys().find(name);
    ASSERT_NE(it, VerifiedTitanKeys().end()) << "not a verified torchtitan key: " << name;
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
    const int64_t world =
        p["data_parallel_replicate_degree"].value_or<int64_t>(0) *
        p["data_parallel_shard_degree"].value_or<int64_t>(0) * p["context_parallel_degree"].value_or<int64_t>(0) *
        p["tensor_parallel_degree"].value_or<int64_t>(0) * p["pipeline_parallel_degree"].value_or<int64_t>(0);
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

// The file says which release it is for, and gives the same settings as the overrides later
// releases (no TOML) take (issue 32).
TEST(EmitTorchtitan, FileNamesItsReleaseAndTheOverridesOfLaterOnes) {
  const std::string text = EmitTorchtitan(testing_util::DefaultWinner()).text;
  EXPECT_TRUE(text.starts_with("# torchtitan job file for v0.2.2 (pytorch/torchtitan 73a0e69, 2026-02-20)"))
      << text.substr(0, 120);
  EXPECT_CONTAINS(text, "--model.name llama3 --model.flavor 70B");
  EXPECT_CONTAINS(text, "--training.seq_len 8192");
  EXPECT_EQ(text.find("--job.description"), std::string::npos);
  const toml::table t = toml::parse(text);  // the comments keep it TOML
  EXPECT_EQ(t["model"]["flavor"].value_or<std::string>(""), "70B");
}

TEST(EmitTorchtitan, ZeroOneIsNotedAsNotExpressible) {
  EmitInput in = testing_util::DefaultWinner();
  in.layout.zero = 1;
  const Emitted e = EmitTorchtitan(in);
  bool noted = false;
  for (const std::string& n : e.notes) noted = noted || n.find("no ZeRO-1") != std::string::npos;
  EXPECT_TRUE(noted);
}

std::string AllTitanNotes(const Emitted& e) {
  std::string all;
  for (const std::string& n : e.notes) all += n + "\n";
  return all;
}

// What torchtitan's TOML carries of the model: a registered name and flavor. For each catalog
// model it should name, the flavor it names and the fields in which that flavor's model
// (TorchtitanFlavorModel, torchtitan v0.2.2's registry) differs from the config, with why.
struct TitanExpectation {
  std::string name, flavor;
  std::set<std::string> differences;
  std::string why;
};

const std::map<std::string, TitanExpectation>& ExpectedFlavors() {
  static const std::set<std::string> llama3_scaling = {"rope_scaling.kind", "rope_scaling.factor",
                                                       "rope_scaling.original_max_positions",
                                                       "rope_scaling.low_freq_factor", "rope_scaling.high_freq_factor"};
  static const std::string llama3_why =
      "torchtitan's llama3 precompute_freqs_cis always applies the Llama-3.1 scaling; Llama 3 has none";
  static const std::map<std::string, TitanExpectation> e = {
      {"llama-3-8b", {"llama3", "8B", llama3_scaling, llama3_why}},
      {"llama-3-70b", {"llama3", "70B", llama3_scaling, llama3_why}},
      {"llama-3.1-8b", {"llama3", "8B", {}, ""}},
      {"llama-3.1-70b", {"llama3", "70B", {}, ""}},
      {"llama-3.1-405b", {"llama3", "405B", {}, ""}},
      {"qwen3-8b", {"qwen3", "8B", {}, ""}},
      {"qwen3-32b", {"qwen3", "32B", {}, ""}},
      {"qwen3-30b-a3b", {"qwen3", "30B-A3B", {}, ""}},
      {"qwen3-235b-a22b",
       {"qwen3", "235B-A22B", {"rope_theta"}, "torchtitan's flavor has rope_theta 5000000, the config 1000000"}},
      {"deepseek-v3", {"deepseek_v3", "671B", {"mtp_layers"}, "torchtitan v0.2.2 builds no multi-token prediction"}},
  };
  return e;
}

// Never carried by a flavor: the names, and the context (torchtitan sets it to training.seq_len).
const std::set<std::string> kTitanNeverCarried = {"name", "architecture", "max_position_embeddings"};

// Issue 9, item 2 for torchtitan: the flavor named for every catalog model builds the config's
// model but for the listed, noted differences; a model without a flavor gets a note with its
// dimensions.
TEST(EmitTorchtitan, EveryCatalogModelNamesItsFlavorOrNotes) {
  for (const std::string& id : CatalogModelIds()) {
    SCOPED_TRACE(id);
    const EmitInput in = testing_util::CatalogCase(id);
    const Emitted e = EmitTorchtitan(in);
    const toml::table t = toml::parse(e.text);
    const std::string name = t["model"]["name"].value_or<std::string>("");
    const std::string flavor = t["model"]["flavor"].value_or<std::string>("");
    const std::string notes = AllTitanNotes(e);
    const auto it = ExpectedFlavors().find(id);
    if (it == ExpectedFlavors().end()) {
      EXPECT_FALSE(TorchtitanFlavorModel(name, flavor).has_value()) << name << " " << flavor;
      EXPECT_CONTAINS(notes, "torchtitan has no flavor for '" + id + "'");
      EXPECT_CONTAINS(notes, std::to_string(in.model.layers) + " layers, hidden " + std::to_string(in.model.hidden));
      continue;
    }
    const TitanExpectation& x = it->second;
    EXPECT_EQ(name, x.name);
    EXPECT_EQ(flavor, x.flavor);
    const std::optional<ModelSpec> fm = TorchtitanFlavorModel(name, flavor);
    ASSERT_TRUE(fm.has_value());
    std::set<std::string> found, expected = kTitanNeverCarried;
    expected.insert(x.differences.begin(), x.differences.end());
    for (const std::string& d : ModelDifferences(*fm, in.model)) {
      const std::string field = d.substr(0, d.find(':'));
      found.insert(field);
      if (!kTitanNeverCarried.count(field)) {
        EXPECT_CONTAINS(notes, d);  // each difference is noted
      }
    }
    EXPECT_EQ(found, expected) << x.why;
    if (x.differences.empty()) {
      EXPECT_EQ(notes.find("differs from the config"), std::string::npos) << notes;
    }
  }
}

TEST(EmitTorchtitan, FlavorModelsAndDeepseekYarnNote) {
  // torchtitan's llama3 FFN rule (FeedForward: int(2 * 4 * dim / 3) * ffn_dim_multiplier, rounded
  // up to multiple_of) gives the Llama 3 widths.
  EXPECT_EQ(TorchtitanFlavorModel("llama3", "8B")->ffn_hidden, 14336);
  EXPECT_EQ(TorchtitanFlavorModel("llama3", "70B")->ffn_hidden, 28672);
  EXPECT_EQ(TorchtitanFlavorModel("llama3", "405B")->ffn_hidden, 53248);
  EXPECT_TRUE(TorchtitanFlavorModel("qwen3", "0.6B")->tied_embeddings);
  EXPECT_FALSE(TorchtitanFlavorModel("llama3", "13B").has_value());
  // DeepSeek-V3 at 4096 tokens: torchtitan skips YaRN up to original_seq_len.
  const Emitted short_seq = EmitTorchtitan(testing_util::CatalogCase("deepseek-v3"));
  EXPECT_CONTAINS(AllTitanNotes(short_seq), "applies YaRN only when training.seq_len exceeds original_seq_len 4096");
  EmitInput in = testing_util::CatalogCase("deepseek-v3");
  in.training.seq = 8192;
  EXPECT_EQ(AllTitanNotes(EmitTorchtitan(in)).find("applies YaRN only"), std::string::npos);
}

// Issue 9, item 3: one FP8 recipe (float8 tensorwise) on Hopper and Blackwell alike.
TEST(EmitTorchtitan, OneFp8RecipeOnEveryGpu) {
  for (const char* gpu : {"H100", "B200", "B300"}) {
    SCOPED_TRACE(gpu);
    const toml::table t =
        toml::parse(EmitTorchtitan(testing_util::CatalogCase("llama-3.1-8b", Precision::kFp8, gpu)).text);
    const toml::array* conv = t["model"]["converters"].as_array();
    ASSERT_NE(conv, nullptr);
    ASSERT_EQ(conv->size(), 1u);
    EXPECT_EQ((*conv)[0].value_or<std::string>(""), "quantize.linear.float8");
    EXPECT_EQ(t["quantize"]["linear"]["float8"]["recipe_name"].value_or<std::string>(""), "tensorwise");
    EXPECT_FALSE(t["quantize"]["linear"]["mx"]);
    const toml::table bf =
        toml::parse(EmitTorchtitan(testing_util::CatalogCase("llama-3.1-8b", Precision::kBf16, gpu)).text);
    EXPECT_FALSE(bf["model"]["converters"]);
    EXPECT_FALSE(bf["quantize"]);
  }
  EXPECT_STREQ(kTorchtitanFp8Recipe, "tensorwise");
}

}  // namespace
}  // namespace paratune
