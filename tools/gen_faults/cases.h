// The fault-injection cases for `paratune diagnose`: each case writes inputs in the real formats
// (Megatron-LM and torchtitan logs, nvidia-smi and dcgmi captures, nccl-tests output,
// `nvidia-smi topo -m`, expert token counts) with one known fault, or a clean control, and says
// which rule must fire and where. paratune_gen_faults writes them all under a folder with a
// manifest (cases.json) that src/cli/diagnose_faults_test.cc replays. Deterministic: every random
// draw comes from a fixed seed through Rng below (not std::normal_distribution, whose output
// differs between standard libraries).
#pragma once

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace paratune::faults {

// splitmix64 (Steele, Lea & Flood, "Fast splittable pseudorandom number generators", 2014) and
// Box-Muller normals: the same numbers on every platform.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  double Uniform() { return (Next() >> 11) * 0x1.0p-53; }  // [0, 1)
  double Normal() {
    const double u1 = 1.0 - Uniform(), u2 = Uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }

 private:
  uint64_t state_;
};

// What the test expects of the finding of a fault case (empty members are not checked).
struct Expectation {
  std::vector<int64_t> iterations;  // each must appear in where.iterations within iteration_tolerance
  int64_t iteration_tolerance = 0;
  std::vector<std::pair<std::string, std::string>> time_ranges;  // each must overlap one of where.time_ranges
  std::vector<int> gpus;                                         // must equal where.gpus as a set
  std::vector<std::pair<int, int>> gpu_pairs;  // must equal where.gpu_pairs as a set (unordered pairs)
  int64_t period_iterations = 0;               // where.period_iterations within 10%
  double period_s = 0;                         // where.period_s within 10%
  double min_loss_fraction = 0;                // the finding's loss_fraction at least this
};

struct FaultCase {
  std::string name;                // folder name: "<rule>_<what>" or "<kind>_clean"
  std::string rule;                // the rule that must fire; for a control, the rule it controls
  bool fault = true;               // false: a clean control, on which no rule may warn
  std::vector<std::string> files;  // relative to the case folder
  std::vector<std::string> flags;  // extra diagnose flags (the plan: --model, --gpu, --tp, ...)
  Expectation expect;
};

// Collects the cases and writes their files.
class CaseWriter {
 public:
  explicit CaseWriter(std::filesystem::path root) : root_(std::move(root)) {}
  FaultCase& Add(std::string name, std::string rule, bool fault);
  // Writes `content` to <root>/<case>/<file> and lists the file in the case.
  void Write(FaultCase& c, const std::string& file, const std::string& content);
  const std::vector<FaultCase>& cases() const { return cases_; }

 private:
  std::filesystem::path root_;
  std::vector<FaultCase> cases_;
};

// One function per area, each in its own file.
void AddLogCases(CaseWriter& w);        // logs.cc: checkpoint stalls, stragglers, resumed and torchtitan logs
void AddSeriesCases(CaseWriter& w);     // series.cc: throughput change points and drift
void AddTelemetryCases(CaseWriter& w);  // telemetry.cc: throttling, saw-tooth utilisation, data starvation
void AddNetworkCases(CaseWriter& w);    // network.cc: nccl-tests, topology matrices
void AddPlanCases(
    CaseWriter& w);  // plan.cc: tp_too_large, pipeline_bubble, recompute_unneeded, expert_imbalance, slow_kernels

}  // namespace paratune::faults
