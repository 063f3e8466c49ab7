#include "cost/memory.h"

namespace paratune {

double OptimizerStateBytesPerParam(OptimizerStates o) {
  switch (o) {
    case OptimizerStates::kFp32Remainders:
      return 10;  // m 4 + v 4 + remainder 2
    case OptimizerStates::kBf16:
      return 4;  // m 2 + v 2
    case OptimizerStates::kFp32:
      break;
  }
  return 12;  // master 4 + m 4 + v 4
}

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
