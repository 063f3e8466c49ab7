// paratune.diagnose/1 (docs/json.md): the findings (rule, severity, title, loss_fraction) and
// the throughput series over iterations (series.throughput[]: one per training log, kind
// "QUANTITY (PATH)" so that two logs' series stay apart).
#include "diagnose/diagnose_json.h"
#include "runs/source_reader.h"
#include "util/error.h"

namespace paratune {
namespace {

class DiagnoseSourceReader final : public SourceReader {
 public:
  std::string_view Kind() const override { return kDiagnoseSchema; }
  bool Accepts(const SourceFile& f) const override { return f.HasSchema(Kind()); }

  // The typed document (diagnose/diagnose_json.h): each finding, and each throughput series.
  void Read(const SourceFile& f, RunRecord& into) const override {
    const Diagnosis d = DiagnosisFromJson(*f.json, f.path);
    for (const Finding& finding : d.findings)
      into.findings.push_back(
          {finding.rule, kSeverityNames.Name(finding.severity), finding.title, finding.loss_fraction});
    for (const ThroughputSeries& t : d.series.throughput) {
      if (t.iterations.size() != t.values.size())
        throw InputError(f.path + ": field 'series.throughput' has iterations and values of different lengths");
      RunSeries s;
      s.kind = t.quantity + " (" + t.path + ")";
      s.x = t.iterations;
      s.y = t.values;
      into.series.push_back(std::move(s));
    }
  }
};

}  // namespace

std::unique_ptr<SourceReader> MakeDiagnoseSourceReader() { return std::make_unique<DiagnoseSourceReader>(); }

}  // namespace paratune
