// paratune.cluster/1 (docs/json.md, cluster.md): the scheduling simulator's summary per policy,
// the figures of kPolicyMetrics (run_record.h) read from policies[]; the cluster's GPU count
// from cluster.gpus.
#include "runs/source_reader.h"

namespace paratune {
namespace {

class ClusterSourceReader final : public SourceReader {
 public:
  std::string_view Kind() const override { return "paratune.cluster/1"; }
  bool Accepts(const SourceFile& f) const override { return f.json && f.json->value("schema", "") == Kind(); }

  void Read(const SourceFile& f, RunRecord& into) const override {
    using V = nlohmann::json::value_t;
    const std::string& w = f.path;
    const auto& cluster = JsonMember(*f.json, "cluster", w, "", V::object);
    into.gpus = static_cast<int64_t>(JsonNumber(cluster, "gpus", w, "cluster"));
    const auto& policies = JsonMember(*f.json, "policies", w, "", V::array);
    for (size_t i = 0; i < policies.size(); ++i) {
      const std::string p = "policies[" + std::to_string(i) + "]";
      PolicySummary s;
      s.policy = JsonMember(policies[i], "policy", w, p, V::string).get<std::string>();
      for (const auto& m : kPolicyMetrics) s.figures.emplace_back(m.name, JsonNumber(policies[i], m.name, w, p));
      into.policies.push_back(std::move(s));
    }
  }
};

}  // namespace

std::unique_ptr<SourceReader> MakeClusterSourceReader() { return std::make_unique<ClusterSourceReader>(); }

}  // namespace paratune
