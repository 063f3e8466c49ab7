#include "plan/plan_json.h"

#include <utility>

#include "model/model_spec.h"
#include "step/estimate_fields.h"
#include "util/json_two_way.h"

namespace paratune {

using nlohmann::json;
using namespace estimate_fields;

namespace {

constexpr Presence kOmittedWhenEmpty = Presence::kOmittedWhenEmpty;

// "pinned": the request's pinned dimensions; "bounds": its upper bounds (those set).
std::pair<json, json> PinsAndBounds(const PlanRequest& r) {
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
  return {std::move(pinned), std::move(bounds)};
}

// "search": the objective, the limit, the counts of the search, and the request's pins and bounds.
template <class T, class V>
void SearchFields(T& d, V& v) {
  v("objective", d.objective, kObjectiveNames);
  v("headroom", d.headroom);
  v("memory_limit_bytes", d.result.memory_limit_bytes);
  v("candidates", d.result.candidates);
  v("rejected_by_rules", d.result.rejected_by_rules);
  v("estimated", d.result.estimated);
  v("skipped_memory", d.result.skipped_memory);
  v("pruned_by_bound", d.result.pruned_by_bound);
  v("fitting", d.result.fitting);
  v.Derived("pinned", d.pinned);
  v.Derived("bounds", d.bounds);
}

// One row of "ranked": the layout and its figures.
template <class T, class V>
void RankedFields(T& e, V& v) {
  v.Nested("layout", e, [](auto& x, auto& w) { LayoutFields(x.layout, x.training, w); });
  v("step_time_s", e.step_time_s);
  v("tokens_per_s_per_gpu", e.tokens_per_s_per_gpu);
  v("peak_memory_bytes", e.peak_memory_bytes);
  v("comm_share", e.comm_share);
  v("bubble_rate", e.bubble_rate);
  v.Nested("time", e.time, [](auto& t, auto& w) { TimeFields(t, w); });
  MfuFields(e, v);
}

// One value of the swept knob: the best layout that fits, or why none does.
template <class T, class V>
void SweepPointFields(T& p, V& v) {
  v("value", p.value);
  v("fits", p.fits);
  if (!p.fits) {
    v("reason", p.reason);
    return;
  }
  v("tokens_per_s_per_gpu", p.best.tokens_per_s_per_gpu);
  v("mfu", p.best.mfu);
  v("step_time_s", p.best.step_time_s);
  v("peak_memory_bytes", p.best.peak_memory_bytes);
  v.Nested("layout", p.best, [](auto& x, auto& w) { LayoutFields(x.layout, x.training, w); });
}

// The request the plan answers: model, cluster and training shape.
template <class T, class V>
void RequestFields(T& d, V& v) {
  v.Nested("model", d, [](auto& x, auto& w) {
    w("name", x.model);
    w("total_params", x.total_params);
    w("active_params", x.active_params);
  });
  v.Nested("cluster", d, [](auto& x, auto& w) {
    w("gpu", x.gpu);
    w("gpus", x.gpus);
    w("nodes", x.nodes);
  });
  v.Nested("training", d, [](auto& x, auto& w) {
    w("seq_len", x.seq_len);
    w("global_batch", x.global_batch);
    w("precision", x.precision);
  });
}

template <class T, class V>
void PlanFields(T& d, V& v) {
  RequestFields(d, v);
  v.Nested("search", d, [](auto& x, auto& w) { SearchFields(x, w); });
  int rank = 0;
  v.List("ranked", d.result.ranked, [&](auto& e, auto& w) {
    w.Derived("rank", ++rank);
    RankedFields(e, w);
    if constexpr (!kReading<T>) w.Derived("time_to_train", TimeToTrainToJson(d.budget, e));
  });
  v.List("rules", d.result.rules, [](auto& n, auto& w) {
    w("rule", n.rule);
    w("note", n.note);
  });
  v("explanation", d.result.explanation);
  v.Nested("winner", d.winner, [&](auto& e, auto& w) { WholeEstimateFields(e, w, d.budget); });
  v.Maybe(
      "sweep", d.sweep,
      [](auto& s, auto& w) {
        w("knob", s.knob, kSweepKnobNames);
        w.List("points", s.points, [](auto& p, auto& pw) { SweepPointFields(p, pw); });
      },
      kOmittedWhenEmpty);
}

}  // namespace

PlanDocument PlanDocumentOf(const PlanResult& result, const PlanRequest& r, const std::optional<TrainingBudget>& budget,
                            const std::optional<SweepResult>& sweep) {
  PlanDocument d;
  d.model = r.model.name;
  const ParamCounts pc = CountParams(r.model);
  d.total_params = static_cast<double>(pc.total());
  d.active_params = static_cast<double>(pc.active(r.model));
  d.gpu = r.cluster.gpu.name;
  d.gpus = r.cluster.gpus;
  d.nodes = r.cluster.nodes();
  d.seq_len = r.training.seq;
  d.global_batch = r.training.global_batch;
  d.precision = r.any_precision ? "any" : PrecisionName(r.training.precision);
  d.objective = r.objective;
  d.headroom = r.headroom;
  std::tie(d.pinned, d.bounds) = PinsAndBounds(r);
  d.result = result;
  d.winner = result.ranked.front();
  d.budget = budget;
  d.sweep = sweep;
  return d;
}

json PlanToJson(const PlanDocument& plan) {
  return WriteDocument(plan, kPlanSchema, [](const auto& d, JsonWriter& w) { PlanFields(d, w); });
}

json PlanToJson(const PlanResult& result, const PlanRequest& request, const std::optional<TrainingBudget>& budget,
                const std::optional<SweepResult>& sweep) {
  return PlanToJson(PlanDocumentOf(result, request, budget, sweep));
}

PlanDocument PlanFromJson(const json& doc, const std::string& where) {
  return ReadDocument<PlanDocument>(doc, where, kPlanSchema, [](PlanDocument& d, JsonReader& r) { PlanFields(d, r); });
}

}  // namespace paratune
