// One layout, one step time: `estimate`, `simulate` and `plan` (every dimension pinned) give the
// bit-identical step time for random valid layouts, through the real binary and its JSON.
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "hardware/hardware_catalog.h"
#include "layout/constraints.h"
#include "model/catalog.h"

namespace paratune {
namespace {

// Standard output of the binary with `args` (quoted for the shell), or "" when it fails.
std::string Stdout(const std::vector<std::string>& args) {
  std::string cmd = PARATUNE_BINARY;
  for (const std::string& a : args) cmd += " '" + a + "'";
  cmd += " 2>/dev/null";
  std::unique_ptr<FILE, int (*)(FILE*)> p(popen(cmd.c_str(), "r"), pclose);
  std::string out;
  char buf[4096];
  for (size_t n; p && (n = fread(buf, 1, sizeof buf, p.get())) > 0;) out.append(buf, n);
  return out;
}

double StepTime(const std::string& json, const std::vector<const char*>& path) {
  nlohmann::json j = nlohmann::json::parse(json);
  for (const char* k : path) j = j.at(k);
  return j.get<double>();
}

TEST(StepTimeAgreement, EstimateSimulateAndPlanAgreeBitForBit) {
  std::mt19937 rng(20261201);
  auto pick = [&](std::initializer_list<int> v) {
    return *(v.begin() + std::uniform_int_distribution<size_t>(0, v.size() - 1)(rng));
  };
  const HardwareCatalog hw = HardwareCatalog::BuiltIn();
  const char* models[] = {"llama-3.1-8b", "qwen3-30b-a3b", "mixtral-8x7b", "gpt-1.7b"};
  const char* gpus[] = {"H100", "B300", "A100-80GB", "GB200"};
  int compared = 0;
  for (int iter = 0; iter < 400 && compared < 12; ++iter) {
    const std::string model = models[std::uniform_int_distribution<int>(0, 3)(rng)];
    const std::string gpu = gpus[std::uniform_int_distribution<int>(0, 3)(rng)];
    const ModelSpec m = LoadModel(model);
    const int n = pick({8, 16, 32});
    const ClusterSpec c = hw.Cluster(gpu, n);
    Layout l;
    l.tp = pick({1, 2, 4});
    l.pp = pick({1, 2, 4});
    l.vp = l.pp > 1 ? pick({1, 2}) : 1;
    l.ep = m.is_moe() ? pick({1, 2, 4, 8}) : 1;
    l.etp = m.is_moe() ? pick({1, 2}) : 0;
    l.zero = pick({0, 1, 2, 3});
    l.recompute = static_cast<Recompute>(pick({0, 1, 2}));
    l.mbs = pick({1, 2});
    if (l.vp == 1 && l.pp > 1 && pick({0, 1})) l.schedule = pick({0, 1}) ? ScheduleKind::kZbH1 : ScheduleKind::kGpipe;
    const Training t{pick({2048, 4096}), pick({32, 64, 512}), Precision::kBf16};
    Layout checked = l;
    if (!CheckLayout(m, c, t, checked).empty()) continue;
    std::vector<std::string> args = {"--model",        model,
                                     "--gpu",          gpu,
                                     "--gpus",         std::to_string(n),
                                     "--seq",          std::to_string(t.seq),
                                     "--global-batch", std::to_string(t.global_batch),
                                     "--tp",           std::to_string(l.tp),
                                     "--pp",           std::to_string(l.pp),
                                     "--vp",           std::to_string(l.vp),
                                     "--ep",           std::to_string(l.ep),
                                     "--zero",         std::to_string(l.zero),
                                     "--recompute",    RecomputeName(l.recompute),
                                     "--mbs",          std::to_string(l.mbs),
                                     "--cp",           "1",
                                     "--json"};
    if (l.etp > 0) args.insert(args.end(), {"--etp", std::to_string(l.etp)});
    // The schedule is pinned too: plan searches it (1f1b and zb-h1 for vp 1) when it is not.
    args.insert(args.end(), {"--schedule", ScheduleName(l.pipeline_schedule())});
    auto with = [&](const char* command) {
      std::vector<std::string> a = {command};
      a.insert(a.end(), args.begin(), args.end());
      return a;
    };
    const std::string est = Stdout(with("estimate"));
    ASSERT_FALSE(est.empty()) << "estimate failed for a valid layout";
    if (!nlohmann::json::parse(est).at("memory").at("fits").get<bool>()) continue;  // plan would reject it
    std::vector<std::string> plan = with("plan");
    plan.insert(plan.end(), {"--headroom", "0"});
    const std::string sim = Stdout(with("simulate")), pl = Stdout(plan);
    ASSERT_FALSE(sim.empty());
    ASSERT_FALSE(pl.empty());
    const double e = StepTime(est, {"throughput", "step_time_s"});
    EXPECT_EQ(StepTime(sim, {"step_time_s"}), e) << est;
    EXPECT_EQ(nlohmann::json::parse(pl).at("ranked").size(), 1u);
    EXPECT_EQ(StepTime(pl, {"winner", "throughput", "step_time_s"}), e);
    ++compared;
  }
  EXPECT_GE(compared, 12);
}

}  // namespace
}  // namespace paratune
