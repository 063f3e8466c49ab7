// paratune_gen_faults OUTDIR: writes every fault-injection case of tools/gen_faults/cases.h
// under OUTDIR and the manifest OUTDIR/cases.json (docs/diagnose.md, "Fault fixtures").
#include <cstdio>
#include <fstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "cases.h"

namespace paratune::faults {

FaultCase& CaseWriter::Add(std::string name, std::string rule, bool fault) {
  for (const auto& c : cases_)
    if (c.name == name) throw std::logic_error("duplicate fault case " + name);
  cases_.push_back({std::move(name), std::move(rule), fault, {}, {}, {}});
  std::filesystem::create_directories(root_ / cases_.back().name);
  return cases_.back();
}

void CaseWriter::Write(FaultCase& c, const std::string& file, const std::string& content) {
  const auto path = root_ / c.name / file;
  std::ofstream out(path, std::ios::binary);
  out << content;
  if (!out) throw std::runtime_error("cannot write " + path.string());
  c.files.push_back(file);
}

}  // namespace paratune::faults

int main(int argc, char** argv) {
  using namespace paratune::faults;
  if (argc != 2) {
    std::fprintf(stderr, "usage: paratune_gen_faults OUTDIR\n");
    return 2;
  }
  try {
    const std::filesystem::path root = argv[1];
    std::filesystem::create_directories(root);
    CaseWriter w(root);
    AddLogCases(w);
    AddSeriesCases(w);
    AddTelemetryCases(w);
    AddNetworkCases(w);
    AddPlanCases(w);
    nlohmann::json manifest = nlohmann::json::array();
    for (const auto& c : w.cases()) {
      nlohmann::json e = {{"iteration_tolerance", c.expect.iteration_tolerance}};
      if (!c.expect.iterations.empty()) e["iterations"] = c.expect.iterations;
      if (!c.expect.time_ranges.empty()) e["time_ranges"] = c.expect.time_ranges;
      if (!c.expect.gpus.empty()) e["gpus"] = c.expect.gpus;
      if (!c.expect.gpu_pairs.empty()) e["gpu_pairs"] = c.expect.gpu_pairs;
      if (c.expect.period_iterations) e["period_iterations"] = c.expect.period_iterations;
      if (c.expect.period_s > 0) e["period_s"] = c.expect.period_s;
      if (c.expect.min_loss_fraction > 0) e["min_loss_fraction"] = c.expect.min_loss_fraction;
      manifest.push_back({{"name", c.name},
                          {"rule", c.rule},
                          {"fault", c.fault},
                          {"files", c.files},
                          {"flags", c.flags},
                          {"expect", e}});
    }
    std::ofstream out(root / "cases.json");
    out << manifest.dump(1) << "\n";
    if (!out) throw std::runtime_error("cannot write cases.json");
    std::printf("wrote %zu cases under %s\n", w.cases().size(), root.string().c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "paratune_gen_faults: %s\n", e.what());
    return 1;
  }
  return 0;
}
