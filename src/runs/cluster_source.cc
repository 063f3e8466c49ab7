// paratune.cluster/1 (docs/json.md, cluster.md): the scheduling simulator's summary per policy,
// the figures of kPolicyMetrics (run_record.h) of each policy of the typed document
// (scheduling/cluster_json.h); the cluster's GPU count.
#include "runs/source_reader.h"
#include "scheduling/cluster_json.h"

namespace paratune {
namespace {

class ClusterSourceReader final : public SourceReader {
 public:
  std::string_view Kind() const override { return kClusterSchema; }
  bool Accepts(const SourceFile& f) const override { return f.HasSchema(Kind()); }

  void Read(const SourceFile& f, RunRecord& into) const override {
    const ClusterDocument d = ClusterDocumentFromJson(*f.json, f.path);
    into.gpus = d.cluster.gpus;
    for (const ClusterPolicySummary& p : d.policies) {
      PolicySummary s;
      s.policy = p.policy;
      for (const auto& m : kPolicyMetrics) s.figures.emplace_back(m.name, m.figure(p.metrics));
      into.policies.push_back(std::move(s));
    }
  }
};

}  // namespace

std::unique_ptr<SourceReader> MakeClusterSourceReader() { return std::make_unique<ClusterSourceReader>(); }

}  // namespace paratune
