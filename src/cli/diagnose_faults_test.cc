// Replays every fault-injection case of tools/gen_faults (paratune_gen_faults writes the inputs
// in the real formats and a manifest, cases.json) through `paratune diagnose --json`: each fault
// case must raise its rule (warning or critical) at the stated iterations, time range, GPUs or
// GPU pairs; on each clean control no rule may warn; and every rule has a fault and a control.
#include <nlohmann/json.hpp>

#include <cmath>
#include <set>

#include "cli/cli_test_util.h"
#include "util/timestamp.h"

#ifndef PARATUNE_GEN_FAULTS
#error "PARATUNE_GEN_FAULTS must name the fault-case generator"
#endif

namespace paratune::cli_test {
namespace {

using nlohmann::json;

class DiagnoseFaults : public Cli {
 protected:
  json Generate() {
    const fs::path out = dir_ / "faults";
    const std::string cmd = Quote(PARATUNE_GEN_FAULTS) + " " + Quote(out.string()) + " >/dev/null";
    EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
    root_ = out;
    return json::parse(Slurp(out / "cases.json"));
  }
  fs::path root_;
};

bool Severe(const json& f) { return f["severity"] == "warning" || f["severity"] == "critical"; }

// Whether finding `f` satisfies the case's expectation; the reason when it does not.
std::string Mismatch(const json& f, const json& e) {
  const json& w = f["where"];
  if (e.contains("iterations")) {
    const int64_t tol = e["iteration_tolerance"].get<int64_t>();
    if (!w.contains("iterations")) return "no where.iterations";
    for (int64_t want : e["iterations"].get<std::vector<int64_t>>()) {
      bool hit = false;
      for (int64_t got : w["iterations"].get<std::vector<int64_t>>()) hit = hit || std::llabs(got - want) <= tol;
      if (!hit)
        return "iteration " + std::to_string(want) + " (±" + std::to_string(tol) + ") not in " + w["iterations"].dump();
    }
  }
  if (e.contains("time_ranges")) {
    if (!w.contains("time_ranges")) return "no where.time_ranges";
    for (const json& want : e["time_ranges"]) {
      const double a = *ParseTimestamp(want[0].get<std::string>()), b = *ParseTimestamp(want[1].get<std::string>());
      bool hit = false;
      for (const json& got : w["time_ranges"]) {
        const auto ga = ParseTimestamp(got[0].get<std::string>()), gb = ParseTimestamp(got[1].get<std::string>());
        hit = hit || (ga && gb && *ga <= b && *gb >= a);
      }
      if (!hit) return "time range " + want.dump() + " overlaps none of " + w["time_ranges"].dump();
    }
  }
  if (e.contains("gpus")) {
    if (!w.contains("gpus")) return "no where.gpus";
    const auto want = e["gpus"].get<std::set<int>>(), got = w["gpus"].get<std::set<int>>();
    if (want != got) return "gpus " + w["gpus"].dump() + ", expected " + e["gpus"].dump();
  }
  if (e.contains("gpu_pairs")) {
    if (!w.contains("gpu_pairs")) return "no where.gpu_pairs";
    auto norm = [](const json& pairs) {
      std::set<std::pair<int, int>> s;
      for (const json& p : pairs)
        s.insert({std::min(p[0].get<int>(), p[1].get<int>()), std::max(p[0].get<int>(), p[1].get<int>())});
      return s;
    };
    if (norm(e["gpu_pairs"]) != norm(w["gpu_pairs"]))
      return "gpu_pairs " + w["gpu_pairs"].dump() + ", expected " + e["gpu_pairs"].dump();
  }
  if (e.contains("period_iterations")) {
    if (!w.contains("period_iterations")) return "no where.period_iterations";
    const double want = e["period_iterations"].get<double>(), got = w["period_iterations"].get<double>();
    if (std::fabs(got - want) > 0.1 * want)
      return "period_iterations " + std::to_string(got) + ", expected " + std::to_string(want);
  }
  if (e.contains("period_s")) {
    if (!w.contains("period_s")) return "no where.period_s";
    const double want = e["period_s"].get<double>(), got = w["period_s"].get<double>();
    if (std::fabs(got - want) > 0.1 * want)
      return "period_s " + std::to_string(got) + ", expected " + std::to_string(want);
  }
  if (e.contains("min_loss_fraction") &&
      !(f["loss_fraction"].is_number() && f["loss_fraction"].get<double>() >= e["min_loss_fraction"].get<double>()))
    return "loss_fraction " + f["loss_fraction"].dump() + " below " + e["min_loss_fraction"].dump();
  return "";
}

TEST_F(DiagnoseFaults, EveryCaseFiresItsRuleAndNoControlWarns) {
  const json cases = Generate();
  for (const json& c : cases) {
    SCOPED_TRACE(c["name"].get<std::string>());
    std::vector<std::string> args = {"diagnose", "--json"};
    for (const json& fl : c["files"])
      args.push_back((root_ / c["name"].get<std::string>() / fl.get<std::string>()).string());
    for (const json& fl : c["flags"]) args.push_back(fl.get<std::string>());
    const Result r = Run(args);
    ASSERT_EQ(r.status, 0) << r.err;
    const json d = json::parse(r.out);
    ASSERT_EQ(d["schema"], "paratune.diagnose/1");
    if (c["fault"].get<bool>()) {
      std::string why = "no finding of rule " + c["rule"].get<std::string>();
      bool ok = false;
      for (const json& f : d["findings"]) {
        if (f["rule"] != c["rule"]) continue;
        if (!Severe(f)) {
          why = "finding is only " + f["severity"].get<std::string>();
          continue;
        }
        const std::string m = Mismatch(f, c["expect"]);
        if (m.empty())
          ok = true;
        else
          why = m;
      }
      EXPECT_TRUE(ok) << why << "\n" << r.out;
    } else {
      for (const json& f : d["findings"])
        EXPECT_FALSE(Severe(f)) << "control warns: " << f["rule"] << ": " << f["title"] << "\n" << f.dump(1);
    }
  }
}

TEST_F(DiagnoseFaults, EveryRuleHasAFaultAndAControl) {
  const json cases = Generate();
  const Result r = Run({"diagnose", "--list-rules"});
  ASSERT_EQ(r.status, 0) << r.err;
  std::istringstream lines(r.out);
  std::string line;
  int rules = 0;
  while (std::getline(lines, line)) {
    const std::string rule = line.substr(0, line.find(' '));
    ++rules;
    bool fault = false, control = false;
    for (const json& c : cases) {
      if (c["rule"] != rule) continue;
      (c["fault"].get<bool>() ? fault : control) = true;
    }
    EXPECT_TRUE(fault) << rule << " has no fault case";
    EXPECT_TRUE(control) << rule << " has no clean control";
  }
  EXPECT_EQ(rules, 16) << "rules listed by diagnose --list-rules";
}

}  // namespace
}  // namespace paratune::cli_test
