// paratune.plan/1 (docs/json.md): the planner's ranking; the run's prediction is its `winner`,
// a full paratune.estimate/1 document.
#include "runs/source_reader.h"

#include "util/error.h"

namespace paratune {
namespace {

class PlanSourceReader final : public SourceReader {
 public:
  std::string_view Kind() const override { return "paratune.plan/1"; }
  bool Accepts(const SourceFile& f) const override { return f.json && f.json->value("schema", "") == Kind(); }
  void Read(const SourceFile& f, RunRecord& into) const override {
    const auto it = f.json->find("winner");
    if (it == f.json->end() || !it->is_object())
      throw InputError(f.path + ": winner: missing (a plan where no layout fits has no prediction to record)");
    ReadEstimateJson(*it, f.path, "winner", into);
  }
};

}  // namespace

std::unique_ptr<SourceReader> MakePlanSourceReader() { return std::make_unique<PlanSourceReader>(); }

}  // namespace paratune
