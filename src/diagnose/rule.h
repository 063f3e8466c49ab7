// Rule: one check of the tuning checklist or troubleshooting playbook, over whatever inputs a
// diagnosis has. A rule looks only at the inputs it needs, says nothing when they are absent, and
// appends its findings. Each rule is its own file (diagnose/<name>.cc); the one list of rules is
// diagnose/rules.cc.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "diagnose/finding.h"
#include "diagnose/inputs.h"

namespace paratune {

class Rule {
 public:
  virtual ~Rule() = default;
  virtual const char* Name() const = 0;     // "data_starvation"
  virtual const char* Summary() const = 0;  // one line for `diagnose --list-rules` and docs
  virtual void Check(const DiagnoseInputs& in, std::vector<Finding>* out) const = 0;
};

// Every rule, in the order of docs/diagnose.md.
const std::vector<std::unique_ptr<Rule>>& AllRules();

}  // namespace paratune
