// Training logs (Megatron-LM / NeMo iteration lines, torchtitan metric lines, a tokens/s CSV),
// read by trace/training_log.h and recognised by its LooksLikeTrainingLog. Series over the
// logged iterations (x = the iteration, or the line's timestamp where the format has none):
// step_time_s (elapsed time per iteration), tflops_per_gpu, tokens_per_s_per_gpu, mfu, as the
// log gives them. Measured figures: the median over the logged lines of the step time,
// tokens/s per GPU and MFU (the median keeps the warm-up and checkpoint iterations out).
#include "runs/source_reader.h"

#include <cmath>

#include "trace/training_log.h"
#include "util/stats.h"

namespace paratune {
namespace {

class TrainingLogSourceReader final : public SourceReader {
 public:
  std::string_view Kind() const override { return "training_log"; }
  bool Accepts(const SourceFile& f) const override {
    return !f.json && LooksLikeTrainingLog(std::string_view(f.text).substr(0, 64 * 1024));
  }

  void Read(const SourceFile& f, RunRecord& into) const override {
    const TrainingLog log = ParseTrainingLog(f.text, f.path);
    struct Quantity {
      const char* kind;
      double IterationRecord::*field;
      Metric metric;
      bool has_metric;
    };
    static constexpr Quantity kQuantities[] = {
        {"step_time_s", &IterationRecord::elapsed_per_iteration_s, Metric::kStepTime, true},
        {"tflops_per_gpu", &IterationRecord::tflops_per_gpu, Metric::kStepTime, false},
        {"tokens_per_s_per_gpu", &IterationRecord::tokens_per_s_per_gpu, Metric::kTokensPerSPerGpu, true},
        {"mfu", &IterationRecord::mfu_fraction, Metric::kMfu, true},
    };
    for (const auto& q : kQuantities) {
      RunSeries s;
      s.kind = q.kind;
      for (const auto& it : log.iterations) {
        const double v = it.*q.field;
        if (std::isnan(v)) continue;
        const double x = it.iteration >= 0 ? static_cast<double>(it.iteration) : it.time_s;
        if (std::isnan(x)) continue;
        s.x.push_back(x);
        s.y.push_back(v);
      }
      if (s.y.empty()) continue;
      if (q.has_metric) into[q.metric].measured = Median(s.y);
      into.series.push_back(std::move(s));
    }
  }
};

}  // namespace

std::unique_ptr<SourceReader> MakeTrainingLogSourceReader() { return std::make_unique<TrainingLogSourceReader>(); }

}  // namespace paratune
