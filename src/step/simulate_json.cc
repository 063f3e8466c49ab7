#include "step/simulate_json.h"

#include <climits>
#include <cmath>

#include <nlohmann/json.hpp>

#include "pipeline/closed_form.h"
#include "step/estimate_fields.h"
#include "util/json_two_way.h"

namespace paratune {

using nlohmann::json;
using namespace estimate_fields;

ClosedFormReference ClosedFormOf(const Estimate& e) {
  std::vector<double> rank_s;
  for (const StageEstimate& st : e.stages) rank_s.push_back(st.forward_s + st.backward_s);
  const PipelineTime p = ClosedFormPipeline(rank_s, e.micro_batches, e.layout.vp);
  return {p.ideal_s, p.bubble_s};
}

namespace {

// The most pipeline stages a document's timeline may have (the report drew up to this before the
// document was typed; a simulation has at most a few hundred).
constexpr int64_t kMaxTimelineStages = 100000;

// One stage: the estimate's pass times and the simulated figures.
template <class T, class V>
void SimulatedStageFields(T& s, V& v) {
  v("stage", s.passes.index);
  v("forward_s", s.passes.forward_s);
  v("backward_s", s.passes.backward_s);
  v("weight_grad_s", s.passes.weight_grad_s);
  v("grad_reduce_s", s.passes.grad_reduce_s);
  v("param_gather_s", s.passes.param_gather_s);
  v("optimizer_s", s.passes.optimizer_s);
  v("compute_s", s.figures.time.compute_s);
  v("comm_s", s.figures.time.comm_s);
  v("non_compute_s", s.figures.time.non_compute_s);
  v("dp_non_compute_s", s.figures.dp_non_compute_s);
  v("idle_s", s.figures.time.idle_s);
  v.Derived("idle_pct", s.figures.time.idle_pct());
  v("peak_inflight", s.figures.peak_inflight);
  v("peak_inflight_microbatches", s.figures.peak_inflight_microbatches);
  v("peak_pending_weight_grads", s.figures.peak_pending_weight_grads);
}

template <class T, class V>
void SimulateFields(T& d, V& v) {
  v("model", d.model);
  v("gpu", d.gpu);
  v("gpus", d.gpus);
  v.Nested("layout", d, [](auto& x, auto& w) { LayoutFields(x.layout, x.training, w); });
  v("schedule", d.schedule);
  v("micro_batches", d.micro_batches);
  v("simulated_micro_batches", d.simulated_micro_batches);
  v("extrapolated", d.extrapolated);
  v("p2p_time_s", d.p2p_time_s);
  v("step_time_s", d.step_time_s);
  v("pipeline_time_s", d.pipeline_time_s);
  v.Nested("closed_form_reference", d.closed_form, [](auto& c, auto& w) {
    w("ideal_s", c.ideal_s);
    w("bubble_s", c.bubble_s);
  });
  v.Nested("time", d.time, [](auto& t, auto& w) { TimeFields(t, w); });
  v.Nullable("trace", d.trace);
  v.List("stages", d.stages, [](auto& s, auto& w) { SimulatedStageFields(s, w); });
  if constexpr (!kReading<T>)
    if (d.timeline) v.Derived("timeline", TimelineToJson(*d.timeline));
}

// One event of the timeline's table: [stage, stream, phase, micro_batch, start_s, end_s].
TimelineEvent TimelineEventOf(const JsonView& row, const Timeline& t) {
  const nlohmann::json& e = row.node();
  if (!e.is_array() || e.size() != 6 || !e[0].is_number_integer() || !e[1].is_number_integer() || !e[2].is_string() ||
      !e[3].is_number_integer() || !e[4].is_number() || !e[5].is_number())
    row.root().Fail(row.prefix(), "is not [stage, stream, phase, micro_batch, start_s, end_s]");
  TimelineEvent ev;
  const int64_t stage = e[0].get<int64_t>(), stream = e[1].get<int64_t>(), mb = e[3].get<int64_t>();
  if (stage < 0 || stage >= t.ranks) row.root().Fail(row.prefix(), "has a stage out of range");
  if (stream < 0 || stream >= static_cast<int64_t>(t.stream_names.size()))
    row.root().Fail(row.prefix(), "has a stream out of range");
  if (mb < -1 || mb > INT32_MAX) row.root().Fail(row.prefix(), "has a micro-batch out of range");
  const double start = e[4].get<double>(), end = e[5].get<double>();
  if (!std::isfinite(start) || !std::isfinite(end) || end < start)
    row.root().Fail(row.prefix(), "does not end after it starts");
  ev.rank = static_cast<int>(stage);
  ev.stream = static_cast<int>(stream);
  ev.phase = kPhaseNames.Parse(e[2].get<std::string>(), row.Where(), "phase");
  ev.micro_batch = static_cast<int32_t>(mb);
  ev.start_s = start;
  ev.duration_s = end - start;
  return ev;
}

// The "timeline" member back (the form TimelineToJson writes).
Timeline TimelineOf(const JsonView& tl) {
  Timeline t;
  const int64_t stages = tl.Integer("stages");
  if (stages < 0 || stages > kMaxTimelineStages) tl.Fail("stages", "is out of range");
  t.ranks = static_cast<int>(stages);
  JsonReader r(tl);
  r("streams", t.stream_names);
  const JsonView events = tl.Child("events");
  if (!events.node().is_array()) tl.Fail("events", "is not an array");
  t.events.reserve(events.node().size());
  for (size_t i = 0; i < events.node().size(); ++i) t.events.push_back(TimelineEventOf(events.Element(i), t));
  return t;
}

}  // namespace

SimulateDocument SimulateDocumentOf(const StepResult& r, const std::string& trace, bool timeline) {
  const Estimate& e = r.estimate;
  SimulateDocument d{.model = e.model,
                     .gpu = e.gpu,
                     .gpus = e.gpus,
                     .layout = e.layout,
                     .training = e.training,
                     .schedule = e.schedule,
                     .micro_batches = e.micro_batches,
                     .simulated_micro_batches = r.simulated_micro_batches,
                     .extrapolated = r.extrapolated,
                     .p2p_time_s = e.p2p_time_s,
                     .step_time_s = r.simulation.step_time_s,
                     .pipeline_time_s = r.simulation.pipeline_time_s,
                     .closed_form = ClosedFormOf(e),
                     .time = e.time,
                     .trace = trace,
                     .stages = {},
                     .timeline = {}};
  for (size_t k = 0; k < r.simulation.stages.size(); ++k) {
    d.stages.push_back({e.stages[k], r.simulation.stages[k]});
    d.stages.back().passes.index = static_cast<int>(k);  // the simulation's rank order
  }
  if (timeline) d.timeline = r.simulation.timeline;
  return d;
}

json SimulateToJson(const SimulateDocument& d) {
  return WriteDocument(d, kSimulateSchema, [](const auto& x, JsonWriter& w) { SimulateFields(x, w); });
}

json SimulateToJson(const StepResult& r, const std::string& trace) {
  return SimulateToJson(SimulateDocumentOf(r, trace, false));
}

SimulateDocument SimulateFromJson(const json& doc, const std::string& where) {
  SimulateDocument d = ReadDocument<SimulateDocument>(doc, where, kSimulateSchema,
                                                      [](SimulateDocument& x, JsonReader& r) { SimulateFields(x, r); });
  const JsonFields f(doc, where);
  if (const nlohmann::json* tl = f.Find("timeline"); tl && !tl->is_null())
    d.timeline = TimelineOf(JsonView(f, *tl, "timeline"));
  return d;
}

json TimelineToJson(const Timeline& t) {
  json events = json::array();
  for (const TimelineEvent& e : t.events)
    events.push_back({e.rank, e.stream, PhaseName(e.phase), e.micro_batch, e.start_s, e.end_s()});
  return {{"stages", t.ranks},
          {"streams", t.stream_names},
          {"columns", {"stage", "stream", "phase", "micro_batch", "start_s", "end_s"}},
          {"events", std::move(events)}};
}

}  // namespace paratune
