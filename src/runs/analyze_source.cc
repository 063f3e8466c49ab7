// paratune.analyze/1 (docs/json.md, analysis.md): a profiler trace's measured figures, as the
// mean over its ranks of each rank's per-step figure:
//   step_time_s          ranks[].step_time.mean_s (ProfilerStep iterations)
//   compute_s            ranks[].temporal.compute_pct / 100 x the rank's step time (HTA's
//                        temporal breakdown: shares of the analysed GPU time)
//   exposed comm by kind ranks[].collectives[].exposed_s / ranks[].step_time.count: send_recv
//                        kernels are pipeline-parallel (Megatron-LM's p2p_communication.py),
//                        all_to_all expert-parallel (token dispatch); the other collectives'
//                        groups (TP, DP or CP) are not in the trace: exposed_other_comm_s
//   data_loader_share    ranks[].dataloader_share; data_loader_s = share x step time
//   other_s              the step time less the terms above (idle GPU time and memory ops)
//   comm_share           exposed communication over the step time
// With the `prediction` block (analyze given the run's model): measured and predicted MFU, the
// predicted step time and the predicted compute share (compute_s = compute_pct / 100 x step).
#include "runs/source_reader.h"

#include "util/error.h"

namespace paratune {
namespace {

class AnalyzeSourceReader final : public SourceReader {
 public:
  std::string_view Kind() const override { return "paratune.analyze/1"; }
  bool Accepts(const SourceFile& f) const override { return f.json && f.json->value("schema", "") == Kind(); }

  void Read(const SourceFile& f, RunRecord& into) const override {
    using V = nlohmann::json::value_t;
    const std::string& w = f.path;
    const auto& ranks = JsonMember(*f.json, "ranks", w, "", V::array);
    double step = 0, compute = 0, pp = 0, ep = 0, other_comm = 0, loader_share = 0;
    int n = 0;
    for (size_t i = 0; i < ranks.size(); ++i) {
      const std::string rp = "ranks[" + std::to_string(i) + "]";
      const auto& r = ranks[i];
      const auto& st = JsonMember(r, "step_time", w, rp, V::object);
      const double count = JsonNumber(st, "count", w, rp + ".step_time");
      if (i == 0) {
        const auto world = r.find("world_size");
        if (world != r.end() && world->is_number_integer() && world->get<int64_t>() > 0)
          into.gpus = world->get<int64_t>();
        const auto dev = r.find("device");
        if (dev != r.end() && dev->is_string()) into.gpu = dev->get<std::string>();
      }
      if (count <= 0) continue;  // no ProfilerStep: no per-step figure
      const double s = JsonNumber(st, "mean_s", w, rp + ".step_time");
      const auto& temporal = JsonMember(r, "temporal", w, rp, V::object);
      step += s;
      compute += JsonNumber(temporal, "compute_pct", w, rp + ".temporal") / 100.0 * s;
      const auto& colls = JsonMember(r, "collectives", w, rp, V::array);
      for (size_t c = 0; c < colls.size(); ++c) {
        const std::string cp = rp + ".collectives[" + std::to_string(c) + "]";
        const std::string kind = JsonMember(colls[c], "kind", w, cp, V::string).get<std::string>();
        const double exposed = JsonNumber(colls[c], "exposed_s", w, cp) / count;
        (kind == "send_recv" ? pp : kind == "all_to_all" ? ep : other_comm) += exposed;
      }
      loader_share += JsonNumber(r, "dataloader_share", w, rp);
      ++n;
    }
    if (n > 0) {
      step /= n, compute /= n, pp /= n, ep /= n, other_comm /= n, loader_share /= n;
      auto measure = [&](Metric m, double v) { into[m].measured = v; };
      measure(Metric::kStepTime, step);
      measure(Metric::kComputeTime, compute);
      measure(Metric::kExposedPpComm, pp);
      measure(Metric::kExposedEpComm, ep);
      measure(Metric::kExposedOtherComm, other_comm);
      measure(Metric::kDataLoaderShare, loader_share);
      measure(Metric::kDataLoaderTime, loader_share * step);
      measure(Metric::kOtherTime, step - compute - pp - ep - other_comm - loader_share * step);
      measure(Metric::kCommShare, step > 0 ? (pp + ep + other_comm) / step : kNoFigure);
    }
    const auto pred = f.json->find("prediction");
    if (pred != f.json->end() && pred->is_object()) {
      const std::string pp_path = "prediction";
      into[Metric::kMfu].measured = JsonNumber(*pred, "measured_mfu", w, pp_path);
      into[Metric::kMfu].predicted = JsonNumber(*pred, "predicted_mfu", w, pp_path);
      const double ps = JsonNumber(*pred, "predicted_step_time_s", w, pp_path);
      into[Metric::kStepTime].predicted = ps;
      const auto& p = JsonMember(*pred, "predicted", w, pp_path, V::object);
      into[Metric::kComputeTime].predicted = JsonNumber(p, "compute_pct", w, pp_path + ".predicted") / 100.0 * ps;
    } else if (pred != f.json->end() && !pred->is_null()) {
      throw InputError(w + ": prediction: expected an object or null");
    }
  }
};

}  // namespace

std::unique_ptr<SourceReader> MakeAnalyzeSourceReader() { return std::make_unique<AnalyzeSourceReader>(); }

}  // namespace paratune
