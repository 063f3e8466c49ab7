// The network area's fault cases (tools/gen_faults/network.cc) through its own readers and rules,
// without the rest of `diagnose`: each fault gets a warning or critical finding of its rule at the
// expected GPUs or pairs, and no control gets any warning. (src/cli/diagnose_faults_test.cc
// replays every area's cases through the command.)
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "diagnose/rules.h"
#include "util/file.h"

namespace paratune {
namespace {

TEST(NetworkFaultCases, EachFaultFiresAndNoControlWarns) {
  const std::string dir = testing::TempDir() + "/paratune_network_faults";
  std::filesystem::remove_all(dir);
  ASSERT_EQ(std::system((std::string(PARATUNE_GEN_FAULTS) + " " + dir + " > /dev/null").c_str()), 0);
  const auto cases = nlohmann::json::parse(ReadFile(dir + "/cases.json"));
  int seen = 0;
  for (const auto& c : cases) {
    const std::string rule = c["rule"];
    if (rule != "network_bottleneck" && rule != "topology_missing_nvlink") continue;
    ++seen;
    DiagnoseInputs in;
    for (const std::string file : c["files"]) {
      const std::string path = dir + "/" + std::string(c["name"]) + "/" + file;
      const std::string text = ReadFile(path);
      if (LooksLikeNcclTests(text))
        in.nccl_tests.push_back(ParseNcclTests(text, path));
      else if (LooksLikeTopologyMatrix(text))
        in.topologies.push_back(ParseTopologyMatrix(text, path));
      else
        FAIL() << path << " is neither nccl-tests output nor a topology matrix";
    }
    std::vector<Finding> out;
    MakeNetworkBottleneckRule()->Check(in, &out);
    MakeTopologyMissingNvlinkRule()->Check(in, &out);
    SCOPED_TRACE(std::string(c["name"]));
    if (!c["fault"]) {
      for (const auto& f : out) EXPECT_EQ(f.severity, Severity::kInfo) << f.title;
      continue;
    }
    bool fired = false;
    for (const auto& f : out) {
      if (f.rule != rule || f.severity == Severity::kInfo) continue;
      const auto& e = c["expect"];
      if (e.contains("gpus")) {
        std::set<int> want;
        for (const auto& g : e["gpus"]) want.insert(g.get<int>());
        if (std::set<int>(f.where.gpus.begin(), f.where.gpus.end()) != want) continue;
      }
      if (e.contains("gpu_pairs")) {
        std::set<std::pair<int, int>> want, got;
        for (const auto& p : e["gpu_pairs"]) {
          const int a = p[0].get<int>(), b = p[1].get<int>();
          want.insert({std::min(a, b), std::max(a, b)});
        }
        for (const auto& [a, b] : f.where.gpu_pairs) got.insert({std::min(a, b), std::max(a, b)});
        if (want != got) continue;
      }
      fired = true;
    }
    EXPECT_TRUE(fired) << "no matching " << rule << " finding";
  }
  EXPECT_EQ(seen, 6);
}

}  // namespace
}  // namespace paratune
