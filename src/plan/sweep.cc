#include "plan/sweep.h"

#include <fmt/format.h>

#include "plan/planner.h"
#include "util/error.h"

namespace paratune {

namespace {

// The plan requests of a sweep: the request with the knob pinned to each of its values (and
// top 1, no progress), each named by its value.
std::vector<std::pair<std::string, PlanRequest>> SweepCases(const PlanRequest& request, SweepKnob knob) {
  std::vector<std::pair<std::string, PlanRequest>> cases;
  auto base = [&] {
    PlanRequest r = request;
    r.top = 1;
    r.progress = nullptr;
    return r;
  };
  const int gpus = request.cluster.gpus;
  switch (knob) {
    case SweepKnob::kTp:
    case SweepKnob::kPp:
      for (int v = 1; v <= gpus; v *= 2) {
        if (knob == SweepKnob::kPp && v > request.model.layers) break;
        PlanRequest r = base();
        (knob == SweepKnob::kTp ? r.tp : r.pp) = v;
        cases.push_back({fmt::format("{}", v), r});
        if (v > (1 << 20)) break;
      }
      break;
    case SweepKnob::kMbs:
      for (int v : {1, 2, 4, 8, 16}) {
        PlanRequest r = base();
        r.mbs = v;
        cases.push_back({fmt::format("{}", v), r});
      }
      break;
    case SweepKnob::kRecompute:
      for (Recompute rc : {Recompute::kNone, Recompute::kSelective, Recompute::kFull}) {
        PlanRequest r = base();
        r.recompute = rc;
        cases.push_back({RecomputeName(rc), r});
      }
      break;
    case SweepKnob::kPrecision:
      for (Precision p : {Precision::kBf16, Precision::kFp8, Precision::kFp4}) {
        if (request.cluster.gpu.peak_flops(p) <= 0) continue;
        PlanRequest r = base();
        r.any_precision = false;
        r.training.precision = p;
        cases.push_back({PrecisionName(p), r});
      }
      break;
  }
  return cases;
}

}  // namespace

SweepResult Sweep(const PlanRequest& request, SweepKnob knob) {
  SweepResult out;
  out.knob = knob;
  for (auto& [value, r] : SweepCases(request, knob)) {
    SweepPoint pt;
    pt.value = value;
    try {
      PlanResult res = Plan(r);
      if (!res.ranked.empty()) {
        pt.fits = true;
        pt.best = std::move(res.ranked.front());
      } else {
        pt.reason = "no layout fits";
      }
    } catch (const InputError& e) {
      pt.reason = e.what();
    }
    out.points.push_back(std::move(pt));
  }
  return out;
}

}  // namespace paratune
