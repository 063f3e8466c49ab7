#include "validate/cross_validation.h"

#include <algorithm>

#include "util/error.h"

namespace paratune {
namespace {

// The runs with the fit's calibration for their generation (the starting one where the fit has
// none); the generations it lacked are returned.
std::vector<std::string> ApplyFit(const CalibrationFit& fit, std::vector<PublishedRun>& runs) {
  std::vector<std::string> lacked;
  for (PublishedRun& r : runs) {
    if (!r.modelable) continue;
    const auto it = fit.by_generation.find(r.cluster.gpu.generation);
    if (it != fit.by_generation.end())
      r.cluster.gpu.calibration = it->second;
    else if (std::find(lacked.begin(), lacked.end(), r.cluster.gpu.generation) == lacked.end())
      lacked.push_back(r.cluster.gpu.generation);
  }
  return lacked;
}

std::vector<double> Errors(const ValidationReport& rep) {
  std::vector<double> e;
  for (const RunPrediction& p : rep.rows)
    if (p.predicted) e.push_back(p.ape);
  return e;
}

}  // namespace

CrossValidation CrossValidateBySource(const std::vector<PublishedRun>& runs, int rounds, Progress* progress) {
  std::vector<std::string> sources;
  for (const PublishedRun& r : runs)
    if (r.modelable && std::find(sources.begin(), sources.end(), r.source) == sources.end())
      sources.push_back(r.source);
  if (sources.size() < 2)
    throw InputError("cross-validation by source needs rows of at least two sources, got " +
                     std::to_string(sources.size()));
  CrossValidation out;
  std::vector<PublishedRun> all = runs;
  ApplyFit(FitCalibration(runs, rounds, nullptr), all);
  const ValidationReport in_sample = Validate(all);
  out.in_sample = Summarize(Errors(in_sample));
  std::vector<double> held_errors;
  int64_t done = 0;
  for (const std::string& s : sources) {
    ReportProgress(progress, "leaving out one source", done++, static_cast<int64_t>(sources.size()));
    std::vector<PublishedRun> train, test;
    for (const PublishedRun& r : runs) (r.source == s ? test : train).push_back(r);
    SourceHoldout h;
    h.source = s;
    try {
      h.uncovered_generations = ApplyFit(FitCalibration(train, rounds, nullptr), test);
    } catch (const InputError&) {  // no other source has a usable row: the starting values stand
      for (const PublishedRun& r : test)
        if (r.modelable) h.uncovered_generations.push_back(r.cluster.gpu.generation);
      std::sort(h.uncovered_generations.begin(), h.uncovered_generations.end());
      h.uncovered_generations.erase(std::unique(h.uncovered_generations.begin(), h.uncovered_generations.end()),
                                    h.uncovered_generations.end());
    }
    const std::vector<double> held = Errors(Validate(test));
    held_errors.insert(held_errors.end(), held.begin(), held.end());
    h.held_out = Summarize(held);
    std::vector<double> own;
    for (const RunPrediction& p : in_sample.rows)
      if (p.predicted && p.run->source == s) own.push_back(p.ape);
    h.in_sample = Summarize(own);
    out.sources.push_back(std::move(h));
  }
  ReportProgress(progress, "leaving out one source", done, static_cast<int64_t>(sources.size()));
  out.held_out = Summarize(held_errors);
  return out;
}

}  // namespace paratune
