// SlurmProfile (slurm_profile.h) against the plain reading of what it answers, on random holds:
// for each candidate start (now and every hold's end, as Slurm's backfill tries them), the GPUs
// held at the start and at every hold's start inside the run, node by node; the earliest start,
// the lowest-numbered nodes, the lowest-numbered leaf among equals. The profile reaches the same
// answers through cached step views carried between passes, holds added in place, bounds that
// pass nodes and leaves over, and a caller's lower bound; this test is what keeps them exact.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "scheduling/cluster_test_util.h"
#include "scheduling/slurm_profile.h"

namespace paratune {
namespace {

using testing::SmallCluster;

struct PlainHold {
  int node, gpus;
  double from_s, to_s;
};

// The profile as a list of holds, read the plain way.
class PlainProfile {
 public:
  PlainProfile(const ClusterTopology& topo, double now) : topo_(topo), now_(now) {}
  void Hold(int node, int gpus, double from_s, double to_s) {
    if (to_s > from_s && gpus > 0) holds_.push_back({node, gpus, from_s, to_s});
  }
  int Per(int node) const { return topo_.types[topo_.nodes[node].type].fabric.gpus_per_node; }
  bool FreeOver(int node, int gpus, double from_s, double to_s) const {
    const auto held_at = [&](double t) {
      int n = 0;
      for (const PlainHold& h : holds_)
        if (h.node == node && h.from_s <= t && t < h.to_s) n += h.gpus;
      return n;
    };
    if (held_at(from_s) + gpus > Per(node)) return false;
    for (const PlainHold& h : holds_)
      if (h.node == node && h.from_s > from_s && h.from_s < to_s && held_at(h.from_s) + gpus > Per(node)) return false;
    return true;
  }
  std::vector<double> Candidates(double from_s) const {
    std::vector<double> c{from_s};
    for (const PlainHold& h : holds_)
      if (h.to_s > from_s) c.push_back(h.to_s);
    std::sort(c.begin(), c.end());
    return c;
  }
  std::vector<char> Excluded(int gpus, double duration_s) const {
    std::vector<char> out(topo_.nodes.size());
    for (size_t n = 0; n < out.size(); ++n) {
      const int node = static_cast<int>(n);
      out[n] = !FreeOver(node, std::min(gpus, Per(node)), now_, now_ + duration_s);
    }
    return out;
  }
  std::optional<SlurmProfile::Slot> Earliest(int gpus, double duration_s, double horizon_s, bool within_leaf) const {
    const int per = Per(0);
    const int need = (gpus + per - 1) / per;
    int largest_leaf = 0;
    for (int l = 0; l < topo_.leaves; ++l) largest_leaf = std::max(largest_leaf, static_cast<int>(Leaf(l).size()));
    for (double t : Candidates(now_)) {
      if (t >= horizon_s) break;
      if (gpus <= per) {
        for (size_t n = 0; n < topo_.nodes.size(); ++n)
          if (FreeOver(static_cast<int>(n), gpus, t, t + duration_s))
            return SlurmProfile::Slot{t, Placement{{{static_cast<int>(n), gpus}}}};
        continue;
      }
      const bool leaves = within_leaf && need <= largest_leaf;
      for (int l = 0; l < (leaves ? topo_.leaves : 1); ++l) {
        Placement p;
        for (size_t n = 0; n < topo_.nodes.size() && static_cast<int>(p.shares.size()) < need; ++n)
          if ((!leaves || topo_.nodes[n].leaf == l) && FreeOver(static_cast<int>(n), per, t, t + duration_s))
            p.shares.push_back({static_cast<int>(n), per});
        if (static_cast<int>(p.shares.size()) == need) {
          p.shares.back().gpus = gpus - per * (need - 1);
          return SlurmProfile::Slot{t, p};
        }
      }
    }
    return std::nullopt;
  }

 private:
  std::vector<int> Leaf(int l) const {
    std::vector<int> out;
    for (size_t n = 0; n < topo_.nodes.size(); ++n)
      if (topo_.nodes[n].leaf == l) out.push_back(static_cast<int>(n));
    return out;
  }
  const ClusterTopology& topo_;
  double now_;
  std::vector<PlainHold> holds_;
};

std::string Describe(const std::optional<SlurmProfile::Slot>& s) {
  if (!s) return "none";
  std::string out = std::to_string(s->start_s) + " on";
  for (const NodeShare& n : s->placement.shares) out += " " + std::to_string(n.node) + ":" + std::to_string(n.gpus);
  return out;
}

// Passes of a backfill over a cluster of 12 nodes in 3 leaves: the running jobs' holds (some
// carried from pass to pass, some ended, some new), then reservations asked and added one by one
// as the policy does, each answer compared with the plain reading, with and without a lower bound
// the caller knows.
TEST(SlurmProfile, AnswersAsThePlainReadingOnRandomHolds) {
  const ClusterTopology topo = SmallCluster(12, 8, 4);
  SlurmProfile profile(topo);
  std::mt19937 rng(7);
  const auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  std::vector<PlainHold> running;
  double now = 0;
  int compared = 0;
  for (int pass = 0; pass < 300; ++pass) {
    now += 10 * uniform(0, 6);
    std::erase_if(running, [&](const PlainHold& h) { return h.to_s <= now || uniform(0, 9) == 0; });
    std::vector<int> used(topo.nodes.size(), 0);
    for (const PlainHold& h : running) used[h.node] += h.gpus;
    for (int k = uniform(0, 4); k > 0; --k) {
      const int node = uniform(0, 11);
      const int gpus = std::min(8 - used[node], uniform(1, 8));
      if (gpus <= 0) continue;
      used[node] += gpus;
      running.push_back({node, gpus, now, now + 10 * uniform(1, 60)});
    }
    profile.Reset(now);
    PlainProfile plain(topo, now);
    for (const PlainHold& h : running) {
      profile.Hold(h.node, h.gpus, now, h.to_s);
      plain.Hold(h.node, h.gpus, now, h.to_s);
    }
    for (int q = 0; q < 12; ++q) {
      const int gpus = uniform(0, 2) ? uniform(1, 8) : 8 * uniform(1, 5) - uniform(0, 1) * 4;
      const double duration_s = 10 * uniform(1, 40);
      const double horizon_s = now + 10 * uniform(20, 200);
      const bool within_leaf = uniform(0, 1);
      const auto expected = plain.Earliest(gpus, duration_s, horizon_s, within_leaf);
      const auto got = profile.Earliest({0}, gpus, duration_s, horizon_s, within_leaf);
      ASSERT_EQ(Describe(got), Describe(expected))
          << "pass " << pass << " query " << q << ": " << gpus << " GPUs for " << duration_s << " s";
      if (expected) {  // the same answer from a lower bound at or before it
        const double bound = expected->start_s - 10 * uniform(0, 3);
        EXPECT_EQ(Describe(profile.Earliest({0}, gpus, duration_s, horizon_s, within_leaf, bound)), Describe(expected));
        profile.Hold(got->placement, got->start_s, got->start_s + duration_s);
        for (const NodeShare& n : expected->placement.shares)
          plain.Hold(n.node, n.gpus, expected->start_s, expected->start_s + duration_s);
      }
      EXPECT_EQ(profile.Excluded({0}, gpus, duration_s), plain.Excluded(gpus, duration_s));
      ++compared;
    }
  }
  EXPECT_EQ(compared, 3600);
}

}  // namespace
}  // namespace paratune
