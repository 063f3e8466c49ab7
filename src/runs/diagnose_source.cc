// paratune.diagnose/1 (docs/json.md): the findings (rule, severity, title, loss_fraction) and
// the throughput series over iterations (series.throughput[]: one per training log, kind
// "QUANTITY (PATH)" so that two logs' series stay apart).
#include "runs/source_reader.h"

#include "util/error.h"

namespace paratune {
namespace {

class DiagnoseSourceReader final : public SourceReader {
 public:
  std::string_view Kind() const override { return "paratune.diagnose/1"; }
  bool Accepts(const SourceFile& f) const override { return f.json && f.json->value("schema", "") == Kind(); }

  void Read(const SourceFile& f, RunRecord& into) const override {
    using V = nlohmann::json::value_t;
    const std::string& w = f.path;
    const auto& findings = JsonMember(*f.json, "findings", w, "", V::array);
    for (size_t i = 0; i < findings.size(); ++i) {
      const std::string p = "findings[" + std::to_string(i) + "]";
      RunFinding rf;
      rf.rule = JsonMember(findings[i], "rule", w, p, V::string).get<std::string>();
      rf.severity = JsonMember(findings[i], "severity", w, p, V::string).get<std::string>();
      rf.title = JsonMember(findings[i], "title", w, p, V::string).get<std::string>();
      rf.loss_fraction = JsonNumber(findings[i], "loss_fraction", w, p);
      into.findings.push_back(std::move(rf));
    }
    const auto series = f.json->find("series");
    if (series == f.json->end() || series->is_null()) return;
    const auto& throughput = JsonMember(*series, "throughput", w, "series", V::array);
    for (size_t i = 0; i < throughput.size(); ++i) {
      const std::string p = "series.throughput[" + std::to_string(i) + "]";
      const auto& t = throughput[i];
      RunSeries s;
      s.kind = JsonMember(t, "quantity", w, p, V::string).get<std::string>() + " (" +
               JsonMember(t, "path", w, p, V::string).get<std::string>() + ")";
      const auto& xs = JsonMember(t, "iterations", w, p, V::array);
      const auto& ys = JsonMember(t, "values", w, p, V::array);
      if (xs.size() != ys.size()) throw InputError(w + ": " + p + ": iterations and values differ in length");
      for (size_t k = 0; k < xs.size(); ++k) {
        if (!xs[k].is_number() || !ys[k].is_number())
          throw InputError(w + ": " + p + ": point " + std::to_string(k) + ": expected numbers");
        s.x.push_back(xs[k].get<double>());
        s.y.push_back(ys[k].get<double>());
      }
      into.series.push_back(std::move(s));
    }
  }
};

}  // namespace

std::unique_ptr<SourceReader> MakeDiagnoseSourceReader() { return std::make_unique<DiagnoseSourceReader>(); }

}  // namespace paratune
