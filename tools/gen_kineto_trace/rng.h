// Random numbers of the generator: splitmix64 (Steele, Lea and Flood, OOPSLA 2014), seeded per
// step so each step is independent of the ones before.
#pragma once

#include <cstdint>

namespace gen_trace {
// ---------------------------------------------------------------------------------------------
// Random numbers: splitmix64, seeded per step so each step is independent of the ones before.

inline uint64_t Mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

struct Rng {
  uint64_t s = 0;
  void Seed(uint64_t a, uint64_t b, uint64_t c) { s = Mix(Mix(Mix(a) ^ b) ^ c); }
  uint64_t Next() { return Mix(s += 0x9e3779b97f4a7c15ULL); }
  int64_t Range(int64_t lo, int64_t hi) {  // [lo, hi]
    return lo + static_cast<int64_t>(Next() % static_cast<uint64_t>(hi - lo + 1));
  }
  double Unit() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }
  bool Chance(double p) { return Unit() < p; }
};

}  // namespace gen_trace
