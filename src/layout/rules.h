// The validity rules of a layout. Each rule is a named check; CheckLayout returns every rule
// the layout breaks, so the user sees them all at once. FinalizeLayout derives dp.
#pragma once

#include <string>
#include <vector>

#include "hardware/gpu_spec.h"
#include "layout/layout.h"
#include "model/model_spec.h"

namespace paratune {

struct RuleViolation {
  std::string rule;     // short id, e.g. "tp-divides-heads"
  std::string message;  // one line: what is wrong, with the numbers
};

struct RuleOptions {
  bool allow_cross_domain_tp = false;
};

// Fills layout.dp (world / (tp*pp*cp), 0 if not divisible) and returns every violated rule.
std::vector<RuleViolation> CheckLayout(const ModelSpec& model, const ClusterSpec& cluster,
                                       const Training& training, Layout& layout,
                                       const RuleOptions& options = {});

// Joins violations into one line: "invalid layout: A; B; C".
std::string DescribeViolations(const std::vector<RuleViolation>& v);

}  // namespace paratune
