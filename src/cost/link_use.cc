#include "cost/link_use.h"

namespace paratune {

PortTimes& PortTimes::operator+=(const PortTimes& o) {
  for (size_t i = 0; i < s.size(); ++i) s[i] += o.s[i];
  return *this;
}

PortTimes PortTimes::operator*(double k) const {
  PortTimes r = *this;
  for (double& x : r.s) x *= k;
  return r;
}

Port PortOf(const GroupLinks& links) { return links.crosses_domain ? Port::kScaleOut : Port::kScaleUp; }

void AddPortTime(PortTimes& t, const GroupLinks& links, double seconds) {
  if (seconds <= 0 || links.link == LinkClass::kNone) return;
  t[PortOf(links)] += seconds;
  if (links.link == LinkClass::kSpine) t[Port::kSpine] += seconds;
}

}  // namespace paratune
