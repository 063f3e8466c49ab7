#include "plan/plan_json.h"

#include <nlohmann/json.hpp>
#include <utility>

#include "step/estimate_fields.h"
#include "step/estimate_json.h"
#include "model/model_spec.h"

namespace paratune {

using nlohmann::json;

namespace {

// "search": the objective, the limit, the counts of the search, and the request's pins and bounds.
json SearchToJson(const PlanResult& res, const PlanRequest& r) {
  json pinned = json::object();
  auto pin = [&](const char* k, const std::optional<int>& v) {
    if (v) pinned[k] = *v;
  };
  pin("tp", r.tp);
  pin("pp", r.pp);
  pin("vp", r.vp);
  pin("cp", r.cp);
  pin("ep", r.ep);
  pin("etp", r.etp);
  pin("zero", r.zero);
  pin("mbs", r.mbs);
  if (r.recompute) pinned["recompute"] = RecomputeName(*r.recompute);
  json bounds = json::object();
  for (auto [k, v] : {std::pair{"max_tp", r.max_tp},
                      {"max_pp", r.max_pp},
                      {"max_vp", r.max_vp},
                      {"max_cp", r.max_cp},
                      {"max_ep", r.max_ep},
                      {"max_mbs", r.max_mbs}})
    if (v > 0) bounds[k] = v;
  return {{"objective", ObjectiveName(r.objective)},
          {"headroom", r.headroom},
          {"memory_limit_bytes", res.memory_limit_bytes},
          {"candidates", res.candidates},
          {"rejected_by_rules", res.rejected_by_rules},
          {"estimated", res.estimated},
          {"skipped_memory", res.skipped_memory},
          {"pruned_by_bound", res.pruned_by_bound},
          {"fitting", res.fitting},
          {"pinned", pinned},
          {"bounds", bounds}};
}

// "ranked": one row per ranked layout.
json RankedToJson(const std::vector<Estimate>& list, const std::optional<TrainingBudget>& budget) {
  json ranked = json::array();
  for (size_t i = 0; i < list.size(); ++i) {
    const Estimate& e = list[i];
    json row = {{"rank", i + 1},
                {"layout", LayoutToJson(e.layout, e.training)},
                {"step_time_s", e.step_time_s},
                {"tokens_per_s_per_gpu", e.tokens_per_s_per_gpu},
                {"peak_memory_bytes", e.peak_memory_bytes},
                {"comm_share", e.comm_share},
                {"bubble_rate", e.bubble_rate},
                {"time", TimeBreakdownToJson(e.time)}};
    JsonWriter w(row);
    estimate_fields::MfuFields(e, w);
    row["time_to_train"] = TimeToTrainToJson(budget, e);
    ranked.push_back(std::move(row));
  }
  return ranked;
}

}  // namespace

nlohmann::json PlanToJson(const PlanResult& res, const PlanRequest& r, const std::optional<TrainingBudget>& budget) {
  json j;
  j["schema"] = kPlanSchema;
  const ParamCounts pc = CountParams(r.model);
  j["model"] = {{"name", r.model.name},
                {"total_params", static_cast<double>(pc.total())},
                {"active_params", static_cast<double>(pc.active(r.model))}};
  j["cluster"] = {{"gpu", r.cluster.gpu.name}, {"gpus", r.cluster.gpus}, {"nodes", r.cluster.nodes()}};
  j["training"] = {{"seq_len", r.training.seq},
                   {"global_batch", r.training.global_batch},
                   {"precision", r.any_precision ? "any" : PrecisionName(r.training.precision)}};
  j["search"] = SearchToJson(res, r);
  j["ranked"] = RankedToJson(res.ranked, budget);
  json rules = json::array();
  for (const RuleNote& n : res.rules) rules.push_back({{"rule", n.rule}, {"note", n.note}});
  j["rules"] = rules;
  j["explanation"] = res.explanation;
  j["winner"] = EstimateToJson(res.ranked.front(), budget);
  return j;
}

nlohmann::json SweepToJson(const SweepResult& sweep) {
  nlohmann::json points = nlohmann::json::array();
  for (const SweepPoint& p : sweep.points) {
    if (!p.fits) {
      points.push_back({{"value", p.value}, {"fits", false}, {"reason", p.reason}});
      continue;
    }
    const Estimate& e = p.best;
    points.push_back({{"value", p.value},
                      {"fits", true},
                      {"tokens_per_s_per_gpu", e.tokens_per_s_per_gpu},
                      {"mfu", e.mfu},
                      {"step_time_s", e.step_time_s},
                      {"peak_memory_bytes", e.peak_memory_bytes},
                      {"layout", LayoutToJson(e.layout, e.training)}});
  }
  return {{"knob", kSweepKnobNames.Name(sweep.knob)}, {"points", std::move(points)}};
}

}  // namespace paratune
