// paratune.estimate/1 (docs/json.md): the cost model's prediction for one layout. Predicted
// figures: throughput.{mfu, hfu, tokens_per_s_per_gpu, step_time_s, comm_share, bubble_rate},
// tokens per hour = throughput.tokens_per_s x 3600, memory.peak_bytes, and the step-time
// breakdown time.{compute_s, recompute_s, tp/dp/pp/ep/cp_comm_s (exposed), bubble_s,
// optimizer_s, other_s}.
#include "runs/source_reader.h"

namespace paratune {

void ReadEstimateJson(const nlohmann::json& doc, const std::string& where, const std::string& json_path, RunRecord& into) {
  using V = nlohmann::json::value_t;
  auto path = [&](const char* k) { return json_path.empty() ? std::string(k) : json_path + "." + k; };
  const auto& model = JsonMember(doc, "model", where, json_path, V::object);
  into.model = JsonMember(model, "name", where, path("model"), V::string).get<std::string>();
  const auto& cluster = JsonMember(doc, "cluster", where, json_path, V::object);
  into.gpu = JsonMember(cluster, "gpu", where, path("cluster"), V::string).get<std::string>();
  into.gpus = static_cast<int64_t>(JsonNumber(cluster, "gpus", where, path("cluster")));
  into.layout_json = JsonMember(doc, "layout", where, json_path, V::object).dump();
  const auto& t = JsonMember(doc, "throughput", where, json_path, V::object);
  const std::string tp = path("throughput");
  auto predict = [&](Metric m, double v) { into[m].predicted = v; };
  predict(Metric::kMfu, JsonNumber(t, "mfu", where, tp));
  predict(Metric::kHfu, JsonNumber(t, "hfu", where, tp));
  predict(Metric::kTokensPerSPerGpu, JsonNumber(t, "tokens_per_s_per_gpu", where, tp));
  predict(Metric::kTokensPerHour, JsonNumber(t, "tokens_per_s", where, tp) * 3600.0);
  predict(Metric::kStepTime, JsonNumber(t, "step_time_s", where, tp));
  predict(Metric::kCommShare, JsonNumber(t, "comm_share", where, tp));
  predict(Metric::kBubbleShare, JsonNumber(t, "bubble_rate", where, tp));
  const auto& mem = JsonMember(doc, "memory", where, json_path, V::object);
  predict(Metric::kPeakMemory, JsonNumber(mem, "peak_bytes", where, path("memory")));
  const auto& time = JsonMember(doc, "time", where, json_path, V::object);
  const std::string tm = path("time");
  struct Term {
    Metric metric;
    const char* key;
  };
  static constexpr Term kTerms[] = {
      {Metric::kComputeTime, "compute_s"},     {Metric::kRecomputeTime, "recompute_s"},
      {Metric::kExposedTpComm, "tp_comm_s"},   {Metric::kExposedDpComm, "dp_comm_s"},
      {Metric::kExposedPpComm, "pp_comm_s"},   {Metric::kExposedEpComm, "ep_comm_s"},
      {Metric::kExposedCpComm, "cp_comm_s"},   {Metric::kBubbleTime, "bubble_s"},
      {Metric::kOptimizerTime, "optimizer_s"},
  };
  for (const auto& term : kTerms) predict(term.metric, JsonNumber(time, term.key, where, tm));
  // The run history has no metric of its own for exposed activation offloading (rare, and
  // absent from estimates before 2026-12-04): it is counted in the remainder, so that the terms
  // still add up to the step.
  const double offload_s = time.contains("offload_s") ? JsonNumber(time, "offload_s", where, tm) : 0.0;
  predict(Metric::kOtherTime, JsonNumber(time, "other_s", where, tm) + offload_s);
}

namespace {

class EstimateSourceReader final : public SourceReader {
 public:
  std::string_view Kind() const override { return "paratune.estimate/1"; }
  bool Accepts(const SourceFile& f) const override { return f.json && f.json->value("schema", "") == Kind(); }
  void Read(const SourceFile& f, RunRecord& into) const override { ReadEstimateJson(*f.json, f.path, "", into); }
};

}  // namespace

std::unique_ptr<SourceReader> MakeEstimateSourceReader() { return std::make_unique<EstimateSourceReader>(); }

}  // namespace paratune
