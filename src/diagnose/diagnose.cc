#include "diagnose/diagnose.h"

#include <fmt/format.h>

#include "diagnose/rule.h"

namespace paratune {

Diagnosis Diagnose(const DiagnoseInputs& inputs) {
  Diagnosis d;
  d.inputs = inputs.files;
  for (const auto& rule : AllRules()) {
    d.rules_run.push_back(rule->Name());
    rule->Check(inputs, &d.findings);
  }
  bool warned = false;
  for (const Finding& f : d.findings) warned = warned || f.severity != Severity::kInfo;
  if (!warned) {
    Finding f;
    f.rule = "all_clear";
    f.severity = Severity::kInfo;
    std::string kinds;
    for (const InputFile& in : inputs.files) {
      if (!kinds.empty()) kinds += ", ";
      kinds += kInputKindNames.Name(in.kind);
    }
    if (inputs.plan) kinds += kinds.empty() ? "the plan" : ", the plan";
    f.title = "no rule found a problem";
    f.message = fmt::format("{} rules looked at {} input(s) ({}) and none warns.", d.rules_run.size(),
                            inputs.files.size() + (inputs.plan ? 1 : 0), kinds);
    d.findings.push_back(std::move(f));
  }
  RankFindings(&d.findings);
  d.series = SeriesOf(inputs);
  return d;
}

}  // namespace paratune
