// paratune.estimate/1 (docs/json.md): the cost model's prediction for one layout. Predicted
// figures: throughput.{mfu, hfu, tokens_per_s_per_gpu, step_time_s, comm_share, bubble_rate},
// tokens per hour = throughput.tokens_per_s x 3600, memory.peak_bytes, and the step-time
// breakdown time.* (the terms of schema/step_time.h, each into the metric it names).
#include <map>
#include <optional>
#include <stdexcept>

#include "runs/source_reader.h"
#include "schema/step_time.h"

namespace paratune {

void ReadEstimateJson(const nlohmann::json& doc, const std::string& where, const std::string& json_path,
                      RunRecord& into) {
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
  // Each step-time term into the metric schema/step_time.h names for it, summed where terms
  // share one (offload has no metric of its own: it is counted in "other", so the terms still
  // add up to the step). A term added after the schema's first version is 0 where absent.
  std::map<Metric, double> terms;
  for (const StepTerm& term : kStepTerms) {
    const std::optional<Metric> m = MetricByName(term.registry_metric);
    if (!m) throw std::logic_error(std::string("step term ") + term.key + " names no registry metric");
    double& sum = terms[*m];
    if (!term.added || time.contains(term.key)) sum += JsonNumber(time, term.key, where, tm);
  }
  for (const auto& [m, v] : terms) predict(m, v);
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
