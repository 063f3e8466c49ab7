#include "cost/memory.h"

namespace paratune {

ModelStateBytes ModelStates(double params, int zero, double n, const StateBytesPerParam& b) {
  if (n < 1) n = 1;
  ModelStateBytes s;
  s.params = b.param * params;
  s.grads = b.grad * params;
  s.optimizer = b.optimizer * params;
  if (zero >= 1) s.optimizer /= n;
  if (zero >= 2) s.grads /= n;
  if (zero >= 3) s.params /= n;
  return s;
}

int64_t PaddedVocab(int64_t vocab, int tp) {
  const int64_t multiple = 128 * static_cast<int64_t>(tp < 1 ? 1 : tp);
  return (vocab + multiple - 1) / multiple * multiple;
}

}  // namespace paratune
