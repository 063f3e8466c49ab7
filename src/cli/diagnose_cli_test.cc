// `paratune diagnose` end to end: bad input follows the contract (status 2, one line), findings
// are not errors (status 0), the report ranks findings, and the JSON has the documented shape.
#include <nlohmann/json.hpp>

#include "cli/cli_test_util.h"

namespace paratune::cli_test {
namespace {

using nlohmann::json;

// A tab-separated `nvidia-smi topo -m` with GPU 1 and GPU 2 connected only across the sockets.
const char* kSysPair =
    "\tGPU0\tGPU1\tGPU2\tGPU3\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n"
    "GPU0\t X \tNV18\tNV18\tNV18\t0-51\t0\t\tN/A\n"
    "GPU1\tNV18\t X \tSYS\tNV18\t0-51\t0\t\tN/A\n"
    "GPU2\tNV18\tSYS\t X \tNV18\t52-103\t1\t\tN/A\n"
    "GPU3\tNV18\tNV18\tNV18\t X \t52-103\t1\t\tN/A\n"
    "\nLegend:\n\n  X    = Self\n  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA "
    "nodes\n"
    "  NV#  = Connection traversing a bonded set of # NVLinks\n";

TEST_F(Cli, DiagnoseBadInputIsOneLine) {
  EXPECT_EQ(RunBad({"diagnose", Write("x.txt", "nothing here\n")})
                .rfind((dir_ / "x.txt").string() + ": not a file diagnose reads", 0),
            0u);
  EXPECT_EQ(RunBad({"diagnose", (dir_ / "missing.log").string()}), (dir_ / "missing.log").string() + ": no such file");
  EXPECT_NE(RunBad({"diagnose"}).find("no inputs"), std::string::npos);
  EXPECT_NE(RunBad({"diagnose", Write("e.txt", "")}).find("empty file"), std::string::npos);
}

TEST_F(Cli, DiagnoseFindingsAreNotErrors) {
  const std::string topo = Write("topo.txt", kSysPair);
  const Result r = Run({"diagnose", "--json", topo});
  ASSERT_EQ(r.status, 0) << r.err;
  const json d = json::parse(r.out);
  EXPECT_EQ(d["schema"], "paratune.diagnose/1");
  ASSERT_EQ(d["inputs"].size(), 1u);
  EXPECT_EQ(d["inputs"][0]["kind"], "topology");
  EXPECT_EQ(d["inputs"][0]["path"], topo);
  ASSERT_FALSE(d["findings"].empty());
  const json& f = d["findings"][0];
  EXPECT_EQ(f["rule"], "topology_missing_nvlink");
  EXPECT_EQ(f["severity"], "critical");
  EXPECT_EQ(f["where"]["gpu_pairs"], json::parse("[[1, 2]]"));
  for (const char* key : {"title", "message", "loss_fraction", "fix", "evidence", "where"})
    EXPECT_TRUE(f.contains(key)) << key;
  EXPECT_FALSE(f["where"].contains("iterations")) << "keys that do not apply are left out";

  const Result text = Run({"diagnose", topo});
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("critical"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("GPU pairs 1-2"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("fix: "), std::string::npos) << text.out;
}

TEST_F(Cli, DiagnoseListsEveryRule) {
  const Result r = Run({"diagnose", "--list-rules"});
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* rule :
       {"data_starvation", "slow_kernels", "tp_too_large", "network_bottleneck", "throughput_change_point",
        "checkpoint_stall", "thermal_throttling", "power_throttling", "topology_missing_nvlink", "pipeline_bubble",
        "recompute_unneeded", "straggler", "expert_imbalance"})
    EXPECT_NE(r.out.find(std::string(rule) + " "), std::string::npos) << rule;
}

}  // namespace
}  // namespace paratune::cli_test
