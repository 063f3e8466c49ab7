// paratune.plan/1 (docs/json.md): the planner's ranking; the run's prediction is its `winner`,
// a full paratune.estimate/1 document (plan/plan_json.h reads the plan).
#include "runs/source_reader.h"

#include "plan/plan_json.h"

namespace paratune {
namespace {

class PlanSourceReader final : public SourceReader {
 public:
  std::string_view Kind() const override { return kPlanSchema; }
  bool Accepts(const SourceFile& f) const override { return f.HasSchema(Kind()); }
  void Read(const SourceFile& f, RunRecord& into) const override {
    const PlanDocument plan = PlanFromJson(*f.json, f.path);
    RecordEstimate(plan.winner, f.json->at("winner").at("layout"), into);
  }
};

}  // namespace

std::unique_ptr<SourceReader> MakePlanSourceReader() { return std::make_unique<PlanSourceReader>(); }

}  // namespace paratune
