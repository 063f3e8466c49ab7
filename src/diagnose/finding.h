// Finding: one verdict of a diagnosis rule: what is wrong (or, as `info`, what is fine), the
// numbers that triggered it and where they came from, the share of throughput it costs, and the
// change to make. Findings are ranked by loss_fraction; the JSON shape is paratune.diagnose/1
// (docs/json.md).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "util/enum_names.h"

namespace paratune {

enum class Severity { kCritical, kWarning, kInfo };
inline constexpr EnumNames<Severity, 3> kSeverityNames{
    {{{Severity::kCritical, "critical"}, {Severity::kWarning, "warning"}, {Severity::kInfo, "info"}}}};

// One number behind a finding: its name, value in SI units (or a ratio), the unit as printed,
// and where it was read ("train.log:1234", "telemetry.csv GPU 3", "cost model").
struct Evidence {
  std::string name;
  double value = std::numeric_limits<double>::quiet_NaN();
  std::string unit;  // "s", "B/s", "fraction", "Hz", "W", "C", "" for counts
  std::string source;
};

// Where the finding is located. Empty members are left out of the JSON.
struct FindingWhere {
  std::vector<int64_t> iterations;
  std::vector<std::pair<double, double>> time_ranges_s;  // epoch seconds; printed "YYYY-MM-DD HH:MM:SS"
  std::vector<int> gpus;
  std::vector<std::pair<int, int>> gpu_pairs;
  std::vector<std::string> lines;  // "path:line"
  int64_t period_iterations = 0;   // 0: none
  double period_s = std::numeric_limits<double>::quiet_NaN();
};

struct Finding {
  std::string rule;  // the rule's name (diagnose/rules.h)
  Severity severity = Severity::kInfo;
  std::string title;         // one line
  std::string message;       // the explanation with the numbers
  double loss_fraction = 0;  // estimated share of throughput lost, 0..1
  std::string fix;           // the concrete change: a flag, a setting, a layout
  std::vector<Evidence> evidence;
  FindingWhere where;
};

// Severity by the estimated share of throughput lost, the one convention every rule uses
// (docs/diagnose.md): critical from 10%, warning from 2%, info below. A rule may raise the
// severity for a hardware fault whose loss it cannot estimate.
inline constexpr double kCriticalLoss = 0.10;
inline constexpr double kWarningLoss = 0.02;
inline Severity SeverityForLoss(double loss) {
  return loss >= kCriticalLoss ? Severity::kCritical : loss >= kWarningLoss ? Severity::kWarning : Severity::kInfo;
}

// Sorted by severity (critical first), then loss_fraction descending, then rule name.
void RankFindings(std::vector<Finding>* findings);

}  // namespace paratune
