// paratune.analyze/1 (docs/json.md, analysis.md): a profiler trace's measured figures, read as
// the typed document (compare/analyze_document.h), recorded as the mean over its ranks of each
// rank's per-step figure (analysis/rank_means.h MeanStepFigures): the step time, compute, the
// exposed communication by the parallelism it serves (pipeline: send/recv, expert: all-to-all,
// other), the data-loader share and time, the rest as other_s, and the exposed communication's
// share of the step. With the `prediction` member (analyze given the run's model): measured and
// predicted MFU, the predicted step time and the predicted compute (compute_pct / 100 x step).
#include "analysis/analysis_json.h"
#include "analysis/rank_means.h"
#include "compare/analyze_document.h"
#include "runs/source_reader.h"

namespace paratune {
namespace {

class AnalyzeSourceReader final : public SourceReader {
 public:
  std::string_view Kind() const override { return kAnalyzeSchema; }
  bool Accepts(const SourceFile& f) const override { return f.HasSchema(Kind()); }

  void Read(const SourceFile& f, RunRecord& into) const override {
    const AnalyzeDocument d = AnalyzeDocumentFromJson(*f.json, f.path);
    const TraceAnalysis& a = d.analysis;
    if (!a.ranks.empty()) {
      if (a.ranks[0].world_size > 0) into.gpus = a.ranks[0].world_size;
      into.gpu = a.ranks[0].device_name;
    }
    if (const StepMeans m = MeanStepFigures(a); m.ranks > 0) {
      auto measure = [&](Metric metric, double v) { into[metric].measured = v; };
      measure(Metric::kStepTime, m.step_s);
      measure(Metric::kComputeTime, m.compute_s);
      measure(Metric::kExposedPpComm, m.pp_comm_s);
      measure(Metric::kExposedEpComm, m.ep_comm_s);
      measure(Metric::kExposedOtherComm, m.other_comm_s);
      measure(Metric::kDataLoaderShare, m.dataloader_share);
      measure(Metric::kDataLoaderTime, m.dataloader_share * m.step_s);
      measure(Metric::kOtherTime,
              m.step_s - m.compute_s - m.pp_comm_s - m.ep_comm_s - m.other_comm_s - m.dataloader_share * m.step_s);
      measure(Metric::kCommShare, m.step_s > 0 ? m.exposed_comm_s() / m.step_s : kNoFigure);
    }
    if (const auto& p = d.prediction) {
      into[Metric::kMfu].measured = p->measured_mfu;
      into[Metric::kMfu].predicted = p->predicted_mfu;
      into[Metric::kStepTime].predicted = p->predicted_step_time_s;
      into[Metric::kComputeTime].predicted = p->predicted.compute_pct / 100.0 * p->predicted_step_time_s;
    }
  }
};

}  // namespace

std::unique_ptr<SourceReader> MakeAnalyzeSourceReader() { return std::make_unique<AnalyzeSourceReader>(); }

}  // namespace paratune
