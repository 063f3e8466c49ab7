// The defects a new user hit (issue 9), one test each, through the binary: bounded work, no
// silent substitutions, plan says what left nothing, the small CLI contracts, units and names.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli/cli_test_util.h"

namespace paratune::cli_test {
namespace {

// simulate/plan with a global batch of 2,000,000 sequences finish in bounded work: the
// composer extends the periodic steady state instead of simulating every micro-batch.
TEST_F(Cli, HugeGlobalBatchIsBounded) {
  const Result s = Run({"simulate", "--global-batch", "2000000", "--pp", "4", "--json"});
  ASSERT_EQ(s.status, 0) << s.err;
  const nlohmann::json j = nlohmann::json::parse(s.out);
  EXPECT_EQ(j.at("micro_batches"), 2000000 / 2);  // tp 4 x pp 4 on 32 GPUs: dp 2
  EXPECT_TRUE(j.at("extrapolated").get<bool>());
  EXPECT_LE(j.at("simulated_micro_batches").get<int64_t>(), 512);
  const Result p = Run({"plan", "--global-batch", "2000000", "--top", "1", "--json", "--quiet"});
  ASSERT_EQ(p.status, 0) << p.err;
  EXPECT_CONTAINS(RunBad({"estimate", "--global-batch", "2000000000"}), "--global-batch must be at most 1000000000");
  // A timeline of a step too long to draw is refused on one line.
  EXPECT_CONTAINS(
      RunBad({"simulate", "--global-batch", "2000000", "--pp", "4", "--trace-out", (dir_ / "t.json").string()}),
      "a timeline of this step would run");
}

TEST_F(Cli, CalibrateRoundsAreBounded) {
  for (const char* r : {"0", "-1", "1000000"})
    EXPECT_CONTAINS(RunBad({"calibrate", "x.csv", "--rounds", r}), "--rounds");
}

// --precision fp16 is FP16 (its own peak and loss scaling), not BF16 in disguise.
TEST_F(Cli, Fp16IsNotBf16) {
  const Result fp = Run({"estimate", "--precision", "fp16", "--json"});
  const Result bf = Run({"estimate", "--precision", "bf16", "--json"});
  ASSERT_EQ(fp.status, 0) << fp.err;
  const nlohmann::json f = nlohmann::json::parse(fp.out), b = nlohmann::json::parse(bf.out);
  EXPECT_EQ(f.at("layout").at("precision"), "fp16");
  EXPECT_GT(f.at("throughput").at("step_time_s").get<double>(), b.at("throughput").at("step_time_s").get<double>());
  const std::string hw = Write("hw.toml",
                               "[X1]\ngeneration = \"hopper\"\nbf16_dense_tflops = 100.0\nhbm_gb = 80.0\n"
                               "hbm_tb_per_s = 2.0\ngpus_per_node = 8\nnvlink_domain = 8\nnvlink_gb_per_s = 100.0\n"
                               "net_gb_per_s = 10.0\n");
  EXPECT_CONTAINS(RunBad({"estimate", "--hardware", hw, "--gpu", "X1", "--precision", "fp16"}),
                  "X1 has no fp16 tensor cores");
}

TEST_F(Cli, EmptyNamesAreErrors) {
  EXPECT_CONTAINS(RunBad({"estimate", "--model", ""}), "--model: empty model name");
  EXPECT_CONTAINS(RunBad({"estimate", "--gpu", ""}), "--gpu: empty GPU name");
  EXPECT_CONTAINS(RunBad({"plan", "--model", ""}), "--model: empty model name");
}

TEST_F(Cli, HiddenNotDivisibleByHeadsIsRejected) {
  const std::string path = Write("odd/config.json", R"({"architectures": ["LlamaForCausalLM"], "num_hidden_layers": 2,
      "hidden_size": 4097, "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 32000,
      "intermediate_size": 11008})");
  EXPECT_CONTAINS(RunBad({"estimate", "--model", path}), "not divisible by 'num_attention_heads' (32)");
}

// plan says which constraint left nothing.
TEST_F(Cli, PlanSaysWhatLeftNothing) {
  EXPECT_CONTAINS(RunBad({"plan", "--tp", "3"}), "attention heads (64) are not divisible by tp (3)");
  const std::string odd = RunBad({"plan", "--gpus", "31"});
  EXPECT_CONTAINS(odd, "global batch 256 is not divisible by dp*mbs");
  EXPECT_CONTAINS(odd, "nearest valid global batches: 248, 279");
  EXPECT_CONTAINS(RunBad({"plan", "--gpus", "1000000000"}), "nearest valid global batches: 1562500");
}

TEST_F(Cli, UnknownCommandSuggestsTheNearest) {
  EXPECT_EQ(RunBad({"estimat"}), "unknown command 'estimat' (did you mean estimate?)");
  EXPECT_EQ(RunBad({"plna"}), "unknown command 'plna' (did you mean plan?)");
}

TEST_F(Cli, PipelineLayoutEntriesAreChecked) {
  EXPECT_CONTAINS(RunBad({"estimate", "--pp", "2", "--pp-layout", "-10,90"}), "--pp-layout entry 1 is -10");
  EXPECT_CONTAINS(RunBad({"estimate", "--pp", "2", "--pp-layout", "0,80"}), "--pp-layout entry 1 is 0");
  EXPECT_CONTAINS(RunBad({"estimate", "--pp", "2", "--pp-layout", "40,41"}), "must add up to the 80 layers, got 81");
}

TEST_F(Cli, SimulateTraceToStandardOutputAndExclusiveFlags) {
  const Result r = Run({"simulate", "--pp", "2", "--global-batch", "16", "--trace-out", "-"});
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json t = nlohmann::json::parse(r.out);  // the trace, and nothing else
  EXPECT_GT(t.at("traceEvents").size(), 32u);
  EXPECT_CONTAINS(RunBad({"simulate", "--json", "--ascii"}), "--json and --ascii exclude each other");
  EXPECT_CONTAINS(RunBad({"simulate", "--trace-out", "-", "--json"}),
                  "--trace-out - writes the trace to standard output");
}

// Issue 38: simulate --trace is now --trace-out, as analyze and cluster name their Chrome
// traces. The old name still works, hidden from --help, with one line on stderr.
TEST_F(Cli, SimulateOldTraceFlagStillWorks) {
  const std::vector<std::string> scenario = {"simulate", "--pp", "2", "--global-batch", "16"};
  const std::string file = (dir_ / "t.json").string();
  std::vector<std::string> args = scenario;
  args.insert(args.end(), {"--trace-out", file});
  const Result now = Run(args);
  ASSERT_EQ(now.status, 0) << now.err;
  EXPECT_EQ(now.err, "");
  const std::string written = Slurp(file);
  fs::remove(file);
  args[args.size() - 2] = "--trace";
  const Result old = Run(args);
  ASSERT_EQ(old.status, 0) << old.err;
  EXPECT_EQ(old.out, now.out);
  EXPECT_EQ(old.err, "paratune: --trace is deprecated; use --trace-out\n");
  EXPECT_EQ(Slurp(file), written);
  EXPECT_GT(written.size(), 1000u);

  args = scenario;
  args.insert(args.end(), {"--trace", "-"});
  const Result dash = Run(args);
  ASSERT_EQ(dash.status, 0) << dash.err;
  EXPECT_EQ(dash.out, written);  // the same trace, to standard output
  EXPECT_EQ(dash.err, "paratune: --trace is deprecated; use --trace-out\n");

  EXPECT_EQ(RunBad({"simulate", "--trace", file, "--trace-out", file}),
            "--trace is the old name of --trace-out; give only --trace-out");
  const Result help = Run({"simulate", "--help"});
  EXPECT_CONTAINS(help.out, "--trace-out TEXT");
  EXPECT_EQ(help.out.find("--trace "), std::string::npos) << help.out;
}

// plan's help does not show searched dimensions as if they had defaults; analyze's help shows
// no default model (a model asks for the prediction).
TEST_F(Cli, HelpShowsNoDefaultsForSearchedDimensions) {
  const Result plan = Run({"plan", "--help"});
  ASSERT_EQ(plan.status, 0);
  EXPECT_EQ(plan.out.find("--tp INT=4"), std::string::npos) << plan.out;
  EXPECT_CONTAINS(plan.out, "(searched unless given)");
  const Result est = Run({"estimate", "--help"});
  EXPECT_CONTAINS(est.out, "--tp INT=4");
  const Result an = Run({"analyze", "--help"});
  EXPECT_EQ(an.out.find("--model TEXT=llama-3.1-70b"), std::string::npos) << an.out;
}

// Units and names: GB is 1e9 bytes and says so; one node is "1 node"; GB200 "nodes" are 4-GPU
// trays inside a 72-GPU NVLink domain.
TEST_F(Cli, UnitsAndClusterNames) {
  const Result one = Run({"estimate", "--nodes", "1", "--tp", "8"});
  ASSERT_EQ(one.status, 0) << one.err;
  EXPECT_CONTAINS(one.out, "8 x B300 (1 node of 8)");
  EXPECT_CONTAINS(one.out, "GB = 1e9 bytes");
  const Result nvl = Run({"estimate", "--gpu", "GB200", "--gpus", "72", "--global-batch", "288"});
  ASSERT_EQ(nvl.status, 0) << nvl.err;
  EXPECT_CONTAINS(nvl.out, "72 x GB200 (18 trays of 4 GPUs in 1 NVLink domain of 72)");
  const Result plan = Run({"plan", "--nodes", "1", "--top", "1"});
  ASSERT_EQ(plan.status, 0) << plan.err;
  EXPECT_CONTAINS(plan.out, "(1 node of 8)");
  EXPECT_CONTAINS(plan.out, "GB = 1e9 bytes");
}

// A flag name never leaks from the library in its own spelling: every backquoted field is
// shown as the flag that sets it.
TEST_F(Cli, LibraryFieldsAreShownAsFlags) {
  const std::string msg = RunBad({"estimate", "--tp", "0", "--mbs", "0"});
  EXPECT_CONTAINS(msg, "--tp must be positive, got 0; --mbs must be positive, got 0");
  EXPECT_EQ(msg.find('`'), std::string::npos);
}

}  // namespace
}  // namespace paratune::cli_test

namespace paratune::cli_test {
namespace {

// Long runs show progress on a terminal (stderr), never in a pipe or file, and --quiet hides it.
// The terminal is a pseudo-terminal from util-linux `script`.
TEST_F(Cli, ProgressOnATerminalOnly) {
  if (std::system("command -v script >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "no `script` (util-linux) to make a terminal";
  const std::string plan = std::string(PARATUNE_BINARY) + " plan --nodes 1";
  const std::string out = (dir_ / "tty.txt").string();
  auto on_tty = [&](const std::string& cmd) {
    const std::string s = "script -qec " + Quote(cmd) + " /dev/null > " + Quote(out) + " 2>&1";
    EXPECT_EQ(std::system(s.c_str()), 0);
    return Slurp(out);
  };
  const std::string shown = on_tty(plan);
  EXPECT_CONTAINS(shown, "paratune: planning, layouts estimated");
  EXPECT_CONTAINS(shown, "\r\033[Kplan: ");  // erased before the report
  EXPECT_EQ(on_tty(plan + " --quiet").find("planning, layouts"), std::string::npos);
  const Result piped = Run({"plan", "--nodes", "1"});
  ASSERT_EQ(piped.status, 0);
  EXPECT_EQ(piped.err, "");
}

}  // namespace
}  // namespace paratune::cli_test
