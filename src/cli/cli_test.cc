// End-to-end tests of the paratune binary: exit status, stdout and stderr of real invocations.
// Bad input must exit with status 2, print exactly one line "paratune: error: ..." on stderr and
// nothing on stdout.
#include <gtest/gtest.h>
#include <zlib.h>

#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/cli_test_util.h"
#include "validate/published_runs_test_util.h"

namespace {

using namespace paratune::cli_test;
namespace fs = std::filesystem;

// ---------------------------------------------------------------------------------------------
// Working commands

TEST_F(Cli, EstimateDefaultScenario) {
  const Result r = Run({"estimate"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_CONTAINS(r.out, "llama-3.1-70b");
  EXPECT_CONTAINS(r.out, "B300");
  EXPECT_CONTAINS(r.out, "32 x B300");
  EXPECT_CONTAINS(r.out, ": fits");
  EXPECT_EQ(r.out.find("DOES NOT FIT"), std::string::npos);
  EXPECT_CONTAINS(r.out, "step time");
}

TEST_F(Cli, EstimateJson) {
  const Result r = Run({"estimate", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  nlohmann::json j;
  ASSERT_NO_THROW(j = nlohmann::json::parse(r.out)) << r.out;
  EXPECT_EQ(j.at("schema"), "paratune.estimate/1");
  ASSERT_TRUE(j.at("throughput").at("step_time_s").is_number());
  EXPECT_GT(j.at("throughput").at("step_time_s").get<double>(), 0.0);
  EXPECT_EQ(j.at("cluster").at("gpu"), "B300");
  EXPECT_EQ(j.at("cluster").at("gpus"), 32);
  EXPECT_EQ(j.at("cluster").at("nodes"), 4);
}

TEST_F(Cli, EstimateJsonFollowsFlags) {
  const Result r = Run({"estimate", "--json", "--model", "llama-3.1-8b", "--gpu", "h100", "--nodes", "2", "--tp", "2",
                        "--seq", "4096", "--global-batch", "64"});
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("cluster").at("gpu"), "H100");
  EXPECT_EQ(j.at("cluster").at("gpus"), 16);
  EXPECT_GT(j.at("throughput").at("step_time_s").get<double>(), 0.0);
}

// --grad-reduce-in-bf16: the layout says so in --json and the gradient buffer of every stage
// halves (4 -> 2 bytes per parameter held, ZeRO-1 leaving gradients unsharded), parameters and
// optimizer unchanged.
TEST_F(Cli, GradReduceInBf16HalvesTheGradientBuffer) {
  const std::vector<std::string> base = {
      "estimate", "--json", "--model", "llama-3.1-8b", "--gpu", "h100",           "--nodes",
      "1",        "--tp",   "2",       "--seq",        "4096",  "--global-batch", "64"};
  std::vector<std::string> with = base;
  with.push_back("--grad-reduce-in-bf16");
  const Result a = Run(base), b = Run(with);
  ASSERT_EQ(a.status, 0) << a.err;
  ASSERT_EQ(b.status, 0) << b.err;
  const nlohmann::json ja = nlohmann::json::parse(a.out), jb = nlohmann::json::parse(b.out);
  EXPECT_EQ(ja.at("layout").at("grad_reduce_in_fp32"), true);
  EXPECT_EQ(jb.at("layout").at("grad_reduce_in_fp32"), false);
  const nlohmann::json &ma = ja.at("stages").at(0).at("memory"), &mb = jb.at("stages").at(0).at("memory");
  EXPECT_DOUBLE_EQ(mb.at("grads_bytes").get<double>(), ma.at("grads_bytes").get<double>() / 2);
  EXPECT_DOUBLE_EQ(mb.at("params_bytes").get<double>(), ma.at("params_bytes").get<double>());
  EXPECT_DOUBLE_EQ(mb.at("optimizer_bytes").get<double>(), ma.at("optimizer_bytes").get<double>());
  EXPECT_LT(jb.at("memory").at("peak_bytes").get<double>(), ja.at("memory").at("peak_bytes").get<double>());
}

// --fp32-shards (PyTorch FSDP's mixed precision) under ZeRO-3: no 16-bit parameter shard; the
// FP32 gradient and optimizer shards are the same.
TEST_F(Cli, Fp32ShardsDropTheSixteenBitParameterShard) {
  const std::vector<std::string> base = {
      "estimate", "--json", "--model", "llama-3.1-8b", "--gpu", "h100",           "--nodes", "1", "--tp",
      "1",        "--zero", "3",       "--seq",        "4096",  "--global-batch", "64"};
  std::vector<std::string> with = base;
  with.push_back("--fp32-shards");
  const Result a = Run(base), b = Run(with);
  ASSERT_EQ(a.status, 0) << a.err;
  ASSERT_EQ(b.status, 0) << b.err;
  const nlohmann::json ja = nlohmann::json::parse(a.out), jb = nlohmann::json::parse(b.out);
  EXPECT_EQ(ja.at("layout").at("fp32_shards"), false);
  EXPECT_EQ(jb.at("layout").at("fp32_shards"), true);
  const nlohmann::json &ma = ja.at("stages").at(0).at("memory"), &mb = jb.at("stages").at(0).at("memory");
  EXPECT_GT(ma.at("params_bytes").get<double>(), 1.9e9);  // 2 bytes x 8.0e9 / 8
  EXPECT_EQ(mb.at("params_bytes").get<double>(), 0);
  EXPECT_DOUBLE_EQ(mb.at("grads_bytes").get<double>(), ma.at("grads_bytes").get<double>());
  EXPECT_DOUBLE_EQ(mb.at("optimizer_bytes").get<double>(), ma.at("optimizer_bytes").get<double>());
  // The allocator's reserve is a share of what is allocated, so the peak falls by a bit more.
  const double saved = ja.at("memory").at("peak_bytes").get<double>() - jb.at("memory").at("peak_bytes").get<double>();
  EXPECT_GT(saved, ma.at("params_bytes").get<double>());
  EXPECT_LT(saved, 1.1 * ma.at("params_bytes").get<double>());
}

// --optimizer-states: BF16 moments and no master copy are 4 of the 12 bytes per sharded parameter;
// the JSON names the choice; a name outside the list is one line and exit status 2.
TEST_F(Cli, OptimizerStatesSetTheOptimizerBytes) {
  const std::vector<std::string> base = {
      "estimate", "--json", "--model", "llama-3.1-8b", "--gpu", "h100",           "--nodes", "1", "--tp",
      "1",        "--zero", "1",       "--seq",        "4096",  "--global-batch", "64"};
  std::vector<std::string> with = base;
  with.insert(with.end(), {"--optimizer-states", "bf16"});
  const Result a = Run(base), b = Run(with);
  ASSERT_EQ(a.status, 0) << a.err;
  ASSERT_EQ(b.status, 0) << b.err;
  const nlohmann::json ja = nlohmann::json::parse(a.out), jb = nlohmann::json::parse(b.out);
  EXPECT_EQ(ja.at("layout").at("optimizer_states"), "fp32");
  EXPECT_EQ(jb.at("layout").at("optimizer_states"), "bf16");
  const nlohmann::json &ma = ja.at("stages").at(0).at("memory"), &mb = jb.at("stages").at(0).at("memory");
  EXPECT_GT(ma.at("optimizer_bytes").get<double>(), 11.9e9);  // 12 bytes x 8.0e9 / 8
  EXPECT_NEAR(mb.at("optimizer_bytes").get<double>(), ma.at("optimizer_bytes").get<double>() * 4 / 12,
              1e-9 * ma.at("optimizer_bytes").get<double>());
  EXPECT_DOUBLE_EQ(mb.at("grads_bytes").get<double>(), ma.at("grads_bytes").get<double>());
  with.back() = "fp16";
  const Result bad = Run(with);
  EXPECT_EQ(bad.status, 2);
  EXPECT_CONTAINS(bad.err, "--optimizer-states");
  EXPECT_CONTAINS(bad.err, "fp16");
}

// --offload-layers: the offloaded layers' activations leave the stage's memory (all but the one
// in flight) and the copies PCIe cannot hide show as time.offload_s; with pp 2 it is refused in
// one line, exit status 2.
TEST_F(Cli, OffloadLayersMoveActivationsToTheHost) {
  const std::vector<std::string> base = {
      "estimate", "--json", "--model", "llama-3.1-8b", "--gpu", "h100",           "--nodes", "1", "--tp",
      "1",        "--zero", "1",       "--seq",        "4096",  "--global-batch", "64"};
  std::vector<std::string> with = base;
  with.insert(with.end(), {"--offload-layers", "16"});
  const Result a = Run(base), b = Run(with);
  ASSERT_EQ(a.status, 0) << a.err;
  ASSERT_EQ(b.status, 0) << b.err;
  const nlohmann::json ja = nlohmann::json::parse(a.out), jb = nlohmann::json::parse(b.out);
  EXPECT_EQ(ja.at("layout").at("offload_layers"), 0);
  EXPECT_EQ(jb.at("layout").at("offload_layers"), 16);
  const double act_a = ja.at("stages").at(0).at("memory").at("activations_bytes").get<double>();
  const double act_b = jb.at("stages").at(0).at("memory").at("activations_bytes").get<double>();
  // 32 layers, one micro-batch in flight: 16 + 1 of 32 layers' activations stay.
  EXPECT_NEAR(act_b, act_a * 17 / 32, 0.01 * act_a);
  EXPECT_DOUBLE_EQ(ja.at("time").at("offload_s").get<double>(), 0);
  EXPECT_GT(jb.at("time").at("offload_s").get<double>(), 0);
  EXPECT_GT(jb.at("throughput").at("step_time_s").get<double>(), ja.at("throughput").at("step_time_s").get<double>());
  with.insert(with.end(), {"--pp", "2"});
  const Result bad = Run(with);
  EXPECT_EQ(bad.status, 2);
  EXPECT_CONTAINS(bad.err, "--offload-layers (16) needs pp 1");
}

TEST_F(Cli, EstimateFromConfigFile) {
  const std::string path = Write("tiny-llama/config.json", R"({"architectures": ["LlamaForCausalLM"],
      "num_hidden_layers": 8, "hidden_size": 1024, "num_attention_heads": 16,
      "num_key_value_heads": 8, "vocab_size": 32000, "intermediate_size": 4096})");
  const Result r = Run({"estimate", "--model", path, "--nodes", "1", "--tp", "8"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_CONTAINS(r.out, "tiny-llama");

  // A catalog file given by path is read from disk and named after its stem.
  const Result c =
      Run({"estimate", "--model", std::string(PARATUNE_SOURCE_DIR) + "/data/models/llama-3.1-8b.json", "--nodes", "1"});
  ASSERT_EQ(c.status, 0) << c.err;
  EXPECT_CONTAINS(c.out, "llama-3.1-8b on 8 x B300");
}

TEST_F(Cli, EstimateWithHardwareFileAddingGpu) {
  const std::string toml = Write("hw.toml", R"([X200]
generation = "hopper"
bf16_dense_tflops = 1000.0
hbm_gb = 200.0
hbm_tb_per_s = 5.0
gpus_per_node = 8
nvlink_domain = 8
nvlink_gb_per_s = 450.0
net_gb_per_s = 50.0
)");
  const Result r = Run({"estimate", "--hardware", toml, "--gpu", "X200"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_CONTAINS(r.out, "x X200");
}

TEST_F(Cli, ModelsListsCatalog) {
  const Result r = Run({"models"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_CONTAINS(r.out, "deepseek-v3");
  EXPECT_CONTAINS(r.out, "DeepseekV3ForCausalLM");
  EXPECT_CONTAINS(r.out, "llama-3.1-70b");
  EXPECT_CONTAINS(r.out, "8/256");  // deepseek-v3 experts column
}

TEST_F(Cli, ModelsJson) {
  const Result r = Run({"models", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("schema"), "paratune.models/1");
  bool found = false;
  for (const auto& m : j.at("models"))
    if (m.at("id") == "deepseek-v3") {
      found = true;
      EXPECT_EQ(m.at("experts"), 256);
      EXPECT_EQ(m.at("layers"), 61);
    }
  EXPECT_TRUE(found);
}

TEST_F(Cli, GpusJson) {
  const Result r = Run({"gpus", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  nlohmann::json j;
  ASSERT_NO_THROW(j = nlohmann::json::parse(r.out)) << r.out;
  EXPECT_EQ(j.at("schema"), "paratune.gpus/1");
  ASSERT_EQ(j.at("gpus").size(), 14u);  // HardwareCatalog.BuiltInHasAllGpus
  bool found = false;
  for (const auto& g : j.at("gpus"))
    if (g.at("name") == "H100") {
      found = true;
      EXPECT_DOUBLE_EQ(g.at("bf16_flops").get<double>(), 989.5e12);
      EXPECT_EQ(g.at("nvlink_domain"), 8);
    }
  EXPECT_TRUE(found);
}

TEST_F(Cli, GpusText) {
  const Result r = Run({"gpus"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_CONTAINS(r.out, "GB300");
  EXPECT_CONTAINS(r.out, "A100-40GB");
}

TEST_F(Cli, CrossDomainTpIsAllowedWithFlag) {
  // llama-2-7b: 32 heads, 32 KV heads, so tp 16 breaks only the NVLink-domain rule on B300.
  EXPECT_CONTAINS(RunBad({"estimate", "--model", "llama-2-7b", "--tp", "16"}),
                  "tp (16) exceeds the NVLink domain of B300 (8 GPUs)");
  const Result r = Run({"estimate", "--model", "llama-2-7b", "--tp", "16", "--allow-cross-domain-tp"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_CONTAINS(r.out, "crosses the NVLink domain");
}

// ---------------------------------------------------------------------------------------------
// Bad input: status 2, one line on stderr, nothing on stdout.

TEST_F(Cli, MissingModelFile) {
  const std::string path = (dir_ / "no-such-dir" / "config.json").string();
  const std::string msg = RunBad({"estimate", "--model", path});
  EXPECT_CONTAINS(msg, path);
  EXPECT_CONTAINS(msg, "cannot read");
}

TEST_F(Cli, MalformedConfigFile) {
  const std::string path = Write("bad.json", "{\n  \"architectures\": [\"LlamaForCausalLM\"],\n  oops\n}\n");
  const std::string msg = RunBad({"estimate", "--model", path});
  EXPECT_CONTAINS(msg, path + ":3:");
  EXPECT_CONTAINS(msg, "invalid JSON");
}

TEST_F(Cli, NumberOverflowInConfigFile) {
  const std::string path =
      Write("ovf.json", "{\"architectures\": [\"LlamaForCausalLM\"],\n \"rms_norm_eps\": 1e400}\n");
  const std::string msg = RunBad({"estimate", "--model", path});
  EXPECT_CONTAINS(msg, path);
  EXPECT_CONTAINS(msg, "number overflow");
}

TEST_F(Cli, UnknownArchitectureFile) {
  const std::string path = Write("falcon.json", R"({"architectures": ["FalconForCausalLM"]})");
  const std::string msg = RunBad({"estimate", "--model", path});
  EXPECT_CONTAINS(msg, path);
  EXPECT_CONTAINS(msg, "unsupported architecture 'FalconForCausalLM'");
  EXPECT_CONTAINS(msg, "LlamaForCausalLM");
}

TEST_F(Cli, UnknownCatalogModel) {
  const std::string msg = RunBad({"estimate", "--model", "llama-9-9000b"});
  EXPECT_CONTAINS(msg, "unknown model 'llama-9-9000b'");
  EXPECT_CONTAINS(msg, "deepseek-v3");
}

TEST_F(Cli, UnknownGpu) {
  const std::string msg = RunBad({"estimate", "--gpu", "Z100"});
  EXPECT_CONTAINS(msg, "unknown GPU 'Z100'");
  EXPECT_CONTAINS(msg, "H100");
}

TEST_F(Cli, BadSizes) {
  EXPECT_CONTAINS(RunBad({"estimate", "--nodes", "0"}), "--nodes must be positive, got 0");
  EXPECT_CONTAINS(RunBad({"estimate", "--nodes", "-2"}), "--nodes must be positive, got -2");
  EXPECT_CONTAINS(RunBad({"estimate", "--gpus", "0"}), "--gpus must be positive");
  EXPECT_CONTAINS(RunBad({"estimate", "--tp", "0"}), "--tp must be positive, got 0");
  EXPECT_CONTAINS(RunBad({"estimate", "--mbs", "-1"}), "--mbs must be positive, got -1");
  EXPECT_CONTAINS(RunBad({"estimate", "--seq", "0"}), "--seq must be positive, got 0");
  EXPECT_CONTAINS(RunBad({"estimate", "--global-batch", "0"}), "--global-batch must be positive, got 0");
  EXPECT_CONTAINS(RunBad({"estimate", "--zero", "4"}), "--zero must be 0, 1, 2 or 3");
  EXPECT_CONTAINS(RunBad({"estimate", "--nodes", "1", "--gpus", "8"}), "--nodes or --gpus");
}

TEST_F(Cli, TpNotDividingHeads) {
  const std::string msg = RunBad({"estimate", "--tp", "3"});
  EXPECT_CONTAINS(msg, "invalid layout");
  EXPECT_CONTAINS(msg, "attention heads (64) are not divisible by tp (3)");
}

TEST_F(Cli, PpNotDividingLayers) {
  // --gpus 28 keeps the world divisible by tp*pp = 28, leaving only the layer rule.
  const std::string msg = RunBad({"estimate", "--pp", "7", "--gpus", "28", "--global-batch", "7"});
  EXPECT_CONTAINS(msg, "layers (80) are not divisible by pp*vp = 7*1 = 7");
  EXPECT_EQ(msg.find("world size"), std::string::npos) << msg;
}

TEST_F(Cli, WorldNotDivisible) {
  const std::string msg = RunBad({"estimate", "--gpus", "12", "--tp", "8"});
  EXPECT_CONTAINS(msg, "world size 12 is not divisible by tp*pp*cp = 8*1*1 = 8");
}

TEST_F(Cli, GlobalBatchNotDivisible) {
  // 32 GPUs, tp 4: dp 8; 100 % (8 * 3) != 0.
  const std::string msg = RunBad({"estimate", "--global-batch", "100", "--mbs", "3"});
  EXPECT_CONTAINS(msg, "global batch (100) is not divisible by dp*mbs = 8*3 = 24");
}

TEST_F(Cli, EpOnDenseModel) {
  EXPECT_CONTAINS(RunBad({"estimate", "--ep", "2"}), "--ep 2 given but llama-3.1-70b has no experts");
}

TEST_F(Cli, UnsupportedPrecisionOnGpu) {
  EXPECT_CONTAINS(RunBad({"estimate", "--precision", "fp8", "--gpu", "A100-80GB"}),
                  "A100-80GB has no fp8 tensor cores");
  EXPECT_CONTAINS(RunBad({"estimate", "--precision", "fp4", "--gpu", "H100"}), "H100 has no fp4 tensor cores");
}

TEST_F(Cli, UnknownEnumValues) {
  EXPECT_CONTAINS(RunBad({"estimate", "--precision", "xyz"}), "--precision: unknown precision 'xyz'");
  EXPECT_CONTAINS(RunBad({"estimate", "--recompute", "bogus"}), "--recompute: unknown recompute mode 'bogus'");
  EXPECT_CONTAINS(RunBad({"estimate", "--attention-kernel", "fa9"}),
                  "--attention-kernel: unknown attention kernel 'fa9'");
}

TEST_F(Cli, ParseErrors) {
  EXPECT_CONTAINS(RunBad({"estimate", "--tp", "abc"}), "--tp");
  EXPECT_CONTAINS(RunBad({"estimate", "--no-such-flag"}), "--no-such-flag");
  EXPECT_CONTAINS(RunBad({"estimate", "--tp"}), "--tp");
  EXPECT_CONTAINS(RunBad({"estimate", "extra"}), "extra");
  EXPECT_CONTAINS(RunBad({}), "subcommand");
  // CLI11 reports an unknown subcommand as a missing one; the contract (status 2, one line) holds.
  EXPECT_CONTAINS(RunBad({"frobnicate"}), "subcommand");
}

TEST_F(Cli, BrokenHardwareToml) {
  const std::string path = Write("hw.toml", "[B300]\nhbm_gb = 300.0\n[H100\n");
  std::string msg = RunBad({"estimate", "--hardware", path});
  EXPECT_CONTAINS(msg, path + ":3:");
  EXPECT_CONTAINS(msg, "invalid TOML");
  msg = RunBad({"gpus", "--hardware", path});
  EXPECT_CONTAINS(msg, path + ":3:");

  const std::string unknown = Write("hw2.toml", "[B300]\n\nhbm_gib = 300.0\n");
  EXPECT_CONTAINS(RunBad({"estimate", "--hardware", unknown}), unknown + ":3:");
  EXPECT_CONTAINS(RunBad({"gpus", "--hardware", (dir_ / "missing.toml").string()}), "cannot read");
}

TEST_F(Cli, BadInlineModel) {
  EXPECT_CONTAINS(
      RunBad({"estimate", "--layers", "4", "--hidden", "1000", "--ffn", "4096", "--heads", "16", "--vocab", "32000"}),
      "--hidden (1000) is not divisible by --heads (16)");
  EXPECT_CONTAINS(RunBad({"estimate", "--layers", "4", "--hidden", "1024", "--heads", "16", "--vocab", "32000"}),
                  "--ffn must be a positive integer");
  EXPECT_CONTAINS(RunBad({"estimate", "--model", "llama-3.1-8b", "--layers", "4"}), "exclude each other");
}

TEST_F(Cli, ImpossibleLayoutReportsEveryRuleInOneLine) {
  const std::string msg = RunBad({"estimate", "--model", "llama-3.1-70b", "--tp", "3", "--pp", "7"});
  EXPECT_CONTAINS(msg, "heads");
  EXPECT_CONTAINS(msg, "layers");
  EXPECT_CONTAINS(msg, "attention heads (64) are not divisible by tp (3)");
  EXPECT_CONTAINS(msg, "layers (80) are not divisible by pp*vp = 7*1 = 7");
  EXPECT_CONTAINS(msg, "world size 32 is not divisible by tp*pp*cp = 3*7*1 = 21");
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// paratune analyze

// The two trace_filter ranks are committed under testdata/ (byte-for-byte copies of
// ../shared/traces/hta/trace_filter, testdata/README.md); tests of other shared traces skip when
// ../shared is absent (PARATUNE_SHARED_OR_SKIP, util/test_util.h).
const std::string kTraceFilter = paratune::TestDataPath("traces/hta/trace_filter");

TEST_F(Cli, AnalyzeTwoRanksMatchesHtaAndShowsStragglers) {
  const Result r = Run({"analyze", kTraceFilter});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  // HTA's figures (hta_reference/hta/trace_filter/sampled_ranks_0_1.json): rank 0 compute 17.71,
  // non-compute 28.74, idle 53.56, overlap 11.81; rank 1 22.57 / 22.72 / 54.72 / 20.05.
  EXPECT_CONTAINS(r.out, "      0     600.058     17.71         28.74   53.56      11.81   607.312");
  EXPECT_CONTAINS(r.out, "      1     600.674     22.57         22.72   54.72      20.05   607.904");
  EXPECT_CONTAINS(r.out, "Stragglers (5 collectives matched across ranks)");
  EXPECT_CONTAINS(r.out, "ProfilerStep#551..#551");
  EXPECT_CONTAINS(r.out, "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t");
}

TEST_F(Cli, AnalyzeJsonAndReducedTrace) {
  const std::string trace_out = (dir_ / "reduced.json").string();
  const Result r = Run({"analyze", "--json", "--trace-out", trace_out, kTraceFilter + "/sampled_rank-0.json.gz",
                        kTraceFilter + "/sampled_rank-1.json.gz"});
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("schema"), "paratune.analyze/1");
  ASSERT_EQ(j.at("ranks").size(), 2u);
  EXPECT_NEAR(j.at("ranks")[0].at("temporal").at("compute_pct").get<double>(), 17.71, 0.005);
  EXPECT_NEAR(j.at("ranks")[1].at("comm_overlap_pct").get<double>(), 20.05, 0.005);
  EXPECT_EQ(j.at("ranks")[0].at("gpu_events"), 602);  // HTA diagnostics: 602 and 577 GPU events
  EXPECT_EQ(j.at("ranks")[1].at("gpu_events"), 577);
  EXPECT_EQ(j.at("profiler_steps"), nlohmann::json::array({551}));
  // The cross-rank view: rank 0 computes least (17.71 %), rank 1 most (22.57 %); step 551 took
  // 607.312 ms on rank 0 and 607.904 ms on rank 1.
  const nlohmann::json& compute = j.at("cross_rank")[0];
  EXPECT_EQ(compute.at("metric"), "compute_pct");
  EXPECT_NEAR(compute.at("min").get<double>(), 17.71, 0.005);
  EXPECT_NEAR(compute.at("max").get<double>(), 22.57, 0.005);
  EXPECT_EQ(compute.at("min_rank"), 0);
  EXPECT_EQ(compute.at("max_rank"), 1);
  const nlohmann::json& step = j.at("iterations_across_ranks")[0];
  EXPECT_EQ(step.at("step"), 551);
  EXPECT_NEAR(step.at("min_s").get<double>(), 0.607312, 1e-12);
  EXPECT_NEAR(step.at("max_s").get<double>(), 0.607904, 1e-12);
  EXPECT_EQ(step.at("slowest_rank"), 1);
  EXPECT_TRUE(j.at("prediction").is_null());
  // The reduced trace: every analysed GPU event once, an iteration span and two counters per rank.
  const nlohmann::json t = nlohmann::json::parse(Slurp(trace_out));
  int kernels = 0, iterations = 0, counters = 0;
  for (const auto& e : t.at("traceEvents")) {
    if (e.at("ph") == "X" && e.at("cat") == "iteration")
      ++iterations;
    else if (e.at("ph") == "X")
      ++kernels;
    else if (e.at("ph") == "C")
      ++counters;
  }
  EXPECT_EQ(kernels, 602 + 577);
  EXPECT_EQ(iterations, 2);
  EXPECT_EQ(counters, 4);
}

// --critical-path with --trace-out: HTA's overlay in the reduced trace (critical_path_overlay.h):
// on simple_add's whole trace the 624 events HTA marked critical and its 192 arrows.
TEST_F(Cli, AnalyzeDrawsTheCriticalPathOverTheReducedTrace) {
  const std::string trace_out = (dir_ / "overlaid.json").string();
  const Result r = Run({"analyze", "--critical-path", "", "--data-load-events", "data_load", "--trace-out", trace_out,
                        paratune::TestDataPath("traces/hta/critical_path/simple_add.json.gz")});
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json t = nlohmann::json::parse(Slurp(trace_out));
  int critical = 0, starts = 0, ends = 0;
  for (const auto& e : t.at("traceEvents")) {
    if (e.at("ph") == "X" && e.at("args").value("critical", 0) == 1) ++critical;
    starts += e.at("ph") == "s";
    ends += e.at("ph") == "f";
  }
  EXPECT_EQ(critical, 624);
  EXPECT_EQ(starts, 192);
  EXPECT_EQ(ends, 192);
}

TEST_F(Cli, AnalyzePutsThePredictionBesideTheMeasurement) {
  const Result r = Run({"analyze", "--json", kTraceFilter, "--model", "llama-3.1-8b", "--gpu", "h100", "--gpus", "8",
                        "--seq", "4096", "--global-batch", "16"});
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json p = nlohmann::json::parse(r.out).at("prediction");
  ASSERT_TRUE(p.is_object());
  // Measured step: the mean over ranks of each rank's mean kept ProfilerStep (607.312, 607.904 ms).
  EXPECT_NEAR(p.at("measured_step_time_s").get<double>(), (0.607312 + 0.607904) / 2, 1e-9);
  // Same FLOPs, GPUs and peak: MFU scales with 1 / step time.
  EXPECT_NEAR(p.at("measured_mfu").get<double>(),
              p.at("predicted_mfu").get<double>() * p.at("predicted_step_time_s").get<double>() /
                  p.at("measured_step_time_s").get<double>(),
              1e-12);
  // Measured shares are the ranks' mean HTA breakdown: (17.71 + 22.57) / 2 compute.
  EXPECT_NEAR(p.at("measured").at("compute_pct").get<double>(), (17.7068 + 22.5660) / 2, 0.01);
  const double pred = p.at("predicted").at("compute_pct").get<double>() +
                      p.at("predicted").at("non_compute_pct").get<double>() +
                      p.at("predicted").at("idle_pct").get<double>();
  EXPECT_NEAR(pred, 100.0, 1e-6);
  const Result text = Run({"analyze", kTraceFilter, "--model", "llama-3.1-8b", "--gpu", "h100", "--gpus", "8"});
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_CONTAINS(text.out, "Measured against the cost model (llama-3.1-8b on 8 x H100");
}

TEST_F(Cli, AnalyzeLegacyAndNanosecondTraces) {
  PARATUNE_SHARED_OR_SKIP(resnet, "traces/kineto_tb_plugin/resnet50_num_workers_0");
  PARATUNE_SHARED_OR_SKIP(ns_trace, "traces/hta/ns_resolution_trace");
  const Result legacy = Run({"analyze", resnet});
  ASSERT_EQ(legacy.status, 0) << legacy.err;
  // HTA: idle 30.46, compute 68.29, non-compute 1.25; no communication, so no overlap figure.
  EXPECT_CONTAINS(legacy.out, "68.29          1.25   30.46          -");
  const Result ns = Run({"analyze", ns_trace});
  ASSERT_EQ(ns.status, 0) << ns.err;
  EXPECT_CONTAINS(ns.out, "96.75          0.62    2.63");  // HTA's rounded figures
  EXPECT_CONTAINS(ns.out, "(exact ns)");                   // and the exact ones beside them
}

// HTA's TraceDiff test (tests/test_trace_diff.py at f4d0062) through the CLI: its trace_compare
// traces, ProfilerStep#1010 of rank 1, CPU ops: 3 added, 1 deleted, 5 unchanged.
TEST_F(Cli, AnalyzeDiffAgainstAnotherRun) {
  const std::string compare = paratune::TestDataPath("traces/hta/trace_compare");
  const Result text = Run({"analyze", compare + "/test", "--diff-against", compare + "/base", "--diff-steps", "1010",
                           "--diff-device", "cpu"});
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_CONTAINS(text.out, "control: rank 1, ProfilerStep#1010 (6 events, steps 122.149 ms)");
  EXPECT_CONTAINS(text.out, "cpu events, full names: added 3, deleted 1, increased 0, decreased 0, unchanged 5");
  EXPECT_CONTAINS(text.out, "deleted            1         0        0.067        0.000       -0.067  nccl:all_reduce");
  const Result r = Run({"analyze", "--json", compare + "/test", "--diff-against", compare + "/base", "--diff-steps",
                        "1010", "--diff-short-names"});
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json d = nlohmann::json::parse(r.out).at("trace_diff");
  EXPECT_EQ(d.at("counts").at("deleted"), 2);  // nccl:all_reduce and its GPU kernel
  EXPECT_EQ(d.at("control").at("events"), 7);
  EXPECT_EQ(d.at("device"), "all");
  // Two step ranges of one run; a selection the traces lack is one line, status 2.
  const Result steps = Run({"analyze", "--json", compare + "/base", "--diff-steps", "1009:1010"});
  ASSERT_EQ(steps.status, 0) << steps.err;
  EXPECT_EQ(nlohmann::json::parse(steps.out).at("trace_diff").at("test").at("iterations"),
            nlohmann::json::array({1010}));
  EXPECT_EQ(nlohmann::json::parse(Run({"analyze", "--json", compare + "/base"}).out).at("trace_diff"), nullptr);
  EXPECT_CONTAINS(RunBad({"analyze", compare + "/base", "--diff-steps", "1011"}),
                  "ProfilerStep#1011 is not in the control traces (they hold 1009 to 1010)");
  EXPECT_CONTAINS(RunBad({"analyze", compare + "/base", "--diff-ranks", "0:1"}), "rank 0 is not in the control traces");
  EXPECT_CONTAINS(RunBad({"analyze", compare + "/base", "--diff-ranks", "9999999999"}), "rank 9999999999 is beyond");
  EXPECT_CONTAINS(RunBad({"analyze", compare + "/base", "--diff-against", (dir_ / "none").string()}), "none");
}

TEST_F(Cli, AnalyzeBadInput) {
  EXPECT_CONTAINS(RunBad({"analyze", (dir_ / "missing.json").string()}), "missing.json: no such file or directory");
  fs::create_directories(dir_ / "empty");
  EXPECT_CONTAINS(RunBad({"analyze", (dir_ / "empty").string()}), "no trace files");
  EXPECT_CONTAINS(RunBad({"analyze", Write("garbage.json", "hello")}), "garbage.json: not a Chrome-trace JSON file");
  EXPECT_CONTAINS(RunBad({"analyze", Write("empty.json", "")}), "empty.json: empty file");
  EXPECT_CONTAINS(RunBad({"analyze", Write("half.json", R"({"schemaVersion": 1, "trace)")}), "half.json: file ends");
  EXPECT_CONTAINS(RunBad({"analyze", "--rank", "7", kTraceFilter}), "--rank 7: no such rank");
  const std::string a = Write("a.json", R"({"distributedInfo": {"rank": 0}, "traceEvents": []})");
  const std::string b = Write("b.json", R"({"distributedInfo": {"rank": 0}, "traceEvents": []})");
  EXPECT_CONTAINS(RunBad({"analyze", a, b}), "rank 0 also comes from");
  const std::string c = Write("c.json", R"({"traceEvents": []})");
  EXPECT_CONTAINS(RunBad({"analyze", a, c}), "c.json: no rank in the trace");
  EXPECT_CONTAINS(RunBad({"analyze", "--top", "0", a}), "--top");
}

TEST_F(Cli, AnalyzeTruncatedTraceWarnsAndContinues) {
  const std::string events =
      R"({"ph": "X", "cat": "kernel", "name": "gemm_a", "ts": 10, "dur": 5, "args": {"stream": 7, "correlation": 1}},)"
      R"({"ph": "X", "cat": "kernel", "name": "gemm_b", "ts": 20, "dur": 5, "args": {"stream": 7, "correlation": 2}},)"
      R"({"ph": "X", "cat": "kernel", "name": "gemm_c", "ts": 3)";
  const std::string path = Write("rank3.json", R"({"traceEvents": [)" + events);
  const Result r = Run({"analyze", "--allow-partial", path});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_CONTAINS(r.out, "1 truncated");
  // Two 5 µs kernels over a 15 µs span: 66.67 % compute, 33.33 % idle; the rank from the file name.
  EXPECT_CONTAINS(r.out, "      3       0.015     66.67          0.00   33.33");
}

// Without --allow-partial the same truncated file is an error naming it; with it the FIRST line
// of the report says the analysis is partial, and the JSON lists the file under "partial".
TEST_F(Cli, AnalyzeTruncatedTraceIsAnErrorUnlessPartialIsAllowed) {
  const std::string events =
      R"({"ph": "X", "cat": "kernel", "name": "gemm_a", "ts": 10, "dur": 5, "args": {"stream": 7, "correlation": 1}},)"
      R"({"ph": "X", "cat": "kernel", "name": "gemm_b", "ts": 20, "dur": 5, "args": {"stream": 7, "correlation": 2}},)"
      R"({"ph": "X", "cat": "kernel", "name": "gemm_c", "ts": 3)";
  const std::string path = Write("rank3.json", R"({"traceEvents": [)" + events);
  EXPECT_EQ(RunBad({"analyze", path}), path +
                                           ": truncated: the file ends inside an event of \"traceEvents\" after 2 "
                                           "events (--allow-partial analyses the events read)");
  const Result r = Run({"analyze", "--allow-partial", path});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string first = r.out.substr(0, r.out.find('\n'));
  EXPECT_EQ(first, "PARTIAL ANALYSIS (--allow-partial): only what could be read is analysed: " + path +
                       " is truncated (the file ends inside an event of \"traceEvents\"; 2 events read)");
  const Result j = Run({"analyze", "--allow-partial", "--json", path});
  ASSERT_EQ(j.status, 0) << j.err;
  const nlohmann::json doc = nlohmann::json::parse(j.out);
  EXPECT_EQ(doc.at("partial"), nlohmann::json::array({path}));
  EXPECT_EQ(doc.at("ranks")[0].at("warnings").at("truncated_at"), "inside an event of \"traceEvents\"");
  // A complete file is not partial.
  const std::string whole = Write("rank4.json", R"({"traceEvents": [)" + events + R"(, "dur": 5}]})");
  const Result w = Run({"analyze", "--json", whole});
  ASSERT_EQ(w.status, 0) << w.err;
  EXPECT_EQ(nlohmann::json::parse(w.out).at("partial"), nlohmann::json::array());
}

// A truncated .json.gz is an error too, and one that ends before any event stays one with
// --allow-partial; so does an empty "traceEvents", alone or beside a good rank.
TEST_F(Cli, AnalyzeTruncatedGzipOrEmptyTraceIsAnError) {
  std::string json = R"({"traceEvents": [)";
  for (int i = 0; i < 3000; ++i)
    json += (i ? "," : "") + std::string(R"({"ph": "X", "cat": "kernel", "name": "k)") + std::to_string(i % 7) +
            R"(", "ts": )" + std::to_string(1000 + 10 * i) + R"(, "dur": 5, "args": {"stream": 7, "correlation": )" +
            std::to_string(i) + "}}";
  json += "]}";
  const std::string gz = (dir_ / "full.json.gz").string();
  gzFile f = gzopen(gz.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  gzwrite(f, json.data(), static_cast<unsigned>(json.size()));
  gzclose(f);
  const std::string bytes = Slurp(gz);
  const std::string cut = Write("rank0.json.gz", bytes.substr(0, bytes.size() / 2));
  EXPECT_CONTAINS(RunBad({"analyze", cut}), cut + ": truncated: the file ends inside");
  const Result partial = Run({"analyze", "--allow-partial", cut});
  ASSERT_EQ(partial.status, 0) << partial.err;
  EXPECT_EQ(partial.out.rfind(
                "PARTIAL ANALYSIS (--allow-partial): only what could be read is analysed: " + cut + " is truncated", 0),
            0u)
      << partial.out;
  const std::string stub = Write("rank1.json.gz", bytes.substr(0, 40));
  EXPECT_CONTAINS(RunBad({"analyze", "--allow-partial", stub}), stub + ": ");
  EXPECT_CONTAINS(RunBad({"analyze", "--allow-partial", stub}), "no trace events to analyse");
  const std::string empty = Write("rank2.json", R"({"traceEvents":[]})");
  EXPECT_EQ(RunBad({"analyze", empty}), empty + ": no trace events to analyse (\"traceEvents\" is empty)");
  const std::string good = Write("rank5.json", json);
  EXPECT_EQ(RunBad({"analyze", good, empty}), empty + ": no trace events to analyse (\"traceEvents\" is empty)");
  EXPECT_EQ(Run({"analyze", good}).status, 0);
}

// An unusable number is an error naming the file, line and field unless --allow-partial skips it.
TEST_F(Cli, AnalyzeUnusableNumberIsALocatedError) {
  const std::string path = Write("rank0.json",
                                 "{\"traceEvents\": [\n"
                                 R"({"ph": "X", "cat": "kernel", "name": "a", "ts": 10, "dur": 5},)"
                                 "\n"
                                 R"({"ph": "X", "cat": "kernel", "name": "b", "ts": 20, "dur": 1e400}]})");
  // Line 3 starts at byte 18 + 63 = 81.
  EXPECT_EQ(RunBad({"analyze", path}),
            path + ":3: event 'b': field 'dur': 1e400 us does not fit 64-bit ns (byte 81); --allow-partial skips them");
  const Result r = Run({"analyze", "--allow-partial", path});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.substr(0, r.out.find('\n')),
            "PARTIAL ANALYSIS (--allow-partial): only what could be read is analysed: " + path +
                ": 1 event or value with unusable numbers skipped");
}

// A model, GPU count or batch that does not match the trace gives a measured MFU above 100 %: it
// is flagged as impossible with the likely cause, in the report and the JSON. The trace: two
// 1 ms ProfilerSteps of a 64-rank job, so the 8-GPU Llama-3.1-8B prediction (a step of seconds)
// puts the measured MFU in the thousands of percent.
TEST_F(Cli, AnalyzeFlagsAnImpossibleMfu) {
  std::string events;
  for (int s = 0; s < 3; ++s) {
    const int t0 = 1000 * s;
    events += R"({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#)" + std::to_string(s + 1) +
              R"(", "ts": )" + std::to_string(t0) + R"(, "dur": 1000},)";
    events += R"({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": )" + std::to_string(t0 + 10) +
              R"(, "dur": 5, "args": {"correlation": )" + std::to_string(s + 1) + "}},";
    events += R"({"ph": "X", "cat": "kernel", "name": "gemm", "ts": )" + std::to_string(t0 + 20) +
              R"(, "dur": 900, "args": {"stream": 7, "correlation": )" + std::to_string(s + 1) + "}}" +
              (s < 2 ? "," : "");
  }
  const std::string path =
      Write("rank0.json", R"({"distributedInfo": {"rank": 0, "world_size": 64}, "traceEvents": [)" + events + "]}");
  const std::vector<std::string> model = {"--model", "llama-3.1-8b", "--gpu", "H100",           "--gpus",
                                          "8",       "--seq",        "4096",  "--global-batch", "16"};
  std::vector<std::string> args = {"analyze", path};
  args.insert(args.end(), model.begin(), model.end());
  const Result text = Run(args);
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_CONTAINS(text.out, "IMPOSSIBLE (above 100%)");
  EXPECT_CONTAINS(text.out, "warning: measured MFU ");
  EXPECT_CONTAINS(text.out,
                  "is impossible (above 100%): the model (llama-3.1-8b), GPU count (8) or global batch (16 sequences "
                  "of 4096 tokens)");
  EXPECT_CONTAINS(text.out, "the traces come from a job of 64 ranks, the prediction is for 8 GPUs");
  args.push_back("--json");
  const Result json = Run(args);
  ASSERT_EQ(json.status, 0) << json.err;
  const nlohmann::json p = nlohmann::json::parse(json.out).at("prediction");
  EXPECT_NEAR(p.at("measured_step_time_s").get<double>(), 1e-3, 1e-12);  // steps 1 and 2 (the last is dropped)
  EXPECT_GT(p.at("measured_mfu").get<double>(), 1.0);
  EXPECT_EQ(p.at("mfu_impossible"), true);
  EXPECT_CONTAINS(p.at("mfu_warning").get<std::string>(), "64 ranks");
  // A model small enough for the trace's 1 ms step: no flag.
  const Result small =
      Run({"analyze", "--json",  path,  "--layers",       "2",    "--hidden", "256",  "--ffn",
           "1024",    "--heads", "4",   "--vocab",        "1000", "--gpu",    "H100", "--gpus",
           "64",      "--seq",   "512", "--global-batch", "64",   "--tp",     "1"});  // the trace's 64 ranks
  ASSERT_EQ(small.status, 0) << small.err;
  const nlohmann::json q = nlohmann::json::parse(small.out).at("prediction");
  EXPECT_LT(q.at("measured_mfu").get<double>(), 1.0);
  EXPECT_EQ(q.at("mfu_impossible"), false);
  EXPECT_TRUE(q.at("mfu_warning").is_null());
}

// ---------------------------------------------------------------------------------------------
// paratune validate / calibrate

namespace {

const char* const kRunsHeader = paratune::test::kPublishedRunsHeader;

}  // namespace

TEST_F(Cli, ValidateAndCalibrateRejectAHeaderOnlyCsv) {
  const std::string path = Write("runs.csv", kRunsHeader);
  EXPECT_EQ(RunBad({"validate", path}), path + ": no data rows (only the header)");
  EXPECT_EQ(RunBad({"validate", "--json", path}), path + ": no data rows (only the header)");
  EXPECT_EQ(RunBad({"calibrate", path}), path + ": no data rows (only the header)");
}

TEST_F(Cli, ValidateHugeGpuCountIsAnErrorNotAWrappedNumber) {
  const std::string path = Write("runs.csv", std::string(kRunsHeader) +
                                                 "A,s,t,m,dense,32,4096,14336,32,8,128256,8192,,,H100-SXM,,"
                                                 "1000000000000,8,1,1,,8,1,,,,1,128,,bf16,,,,1000,,,,high,,\n");
  const std::string msg = RunBad({"validate", path});
  EXPECT_EQ(msg,
            path + ":2: column 'num_gpus' must be a non-negative integer of at most 16777216, got '1000000000000'");
  EXPECT_EQ(msg.find("-727379968"), std::string::npos);
  EXPECT_CONTAINS(RunBad({"calibrate", path}), path + ":2: column 'num_gpus'");
}
