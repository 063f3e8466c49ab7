// memory_fragmentation (issue 35): the caching allocator holds much more GPU memory than the run
// ever has allocated at once, from the profiler's memory events (analysis/memory_timeline.h).
//
// PyTorch's caching allocator keeps freed blocks reserved for reuse; when the sizes a run
// allocates change (variable sequence lengths, MoE token counts, activation recomputation), the
// cached blocks fragment and reserved memory climbs above what is ever allocated at once, until
// an allocation fails with "CUDA out of memory" while gigabytes are reserved but free (PyTorch,
// "CUDA semantics: Memory management" and "Optimizing memory usage with PYTORCH_CUDA_ALLOC_CONF":
// expandable_segments lets the allocator grow a segment instead of caching many, which the docs
// recommend against fragmentation). The rule compares, per rank with the allocator's totals, the
// largest reserved figure with the peak allocated: a finding when at least kMinUnusedShare of the
// reserved memory and at least kMinUnusedBytes were never allocated at the peak. It costs no
// throughput while the memory lasts (info); with the GPU given (--gpu) and the reserved peak
// within kNearCapacity of its memory, the next larger batch or sequence fails: a warning.
#include <algorithm>
#include <memory>

#include <fmt/format.h>

#include "diagnose/rules.h"

namespace paratune {
namespace {

// Unused reserved memory worth a finding: a quarter of what is reserved, and 2 GB (below that the
// allocator's rounding to 2 MB blocks and 20 MB segments accounts for it).
constexpr double kMinUnusedShare = 0.25;
constexpr double kMinUnusedBytes = 2e9;
// Reserved within 5% of the GPU's memory: the next allocation that does not fit a cached block fails.
constexpr double kNearCapacity = 0.95;

struct RankMemory {
  int rank = 0;
  double allocated = 0, reserved = 0;
};

class MemoryFragmentationRule final : public Rule {
 public:
  const char* Name() const override { return "memory_fragmentation"; }
  const char* Summary() const override {
    return "GPU memory reserved by the caching allocator far above the peak allocated (traces with memory events)";
  }

  void Check(const DiagnoseInputs& in, std::vector<Finding>* out) const override {
    if (!in.analysis) return;
    std::vector<RankMemory> hit;
    for (const RankAnalysis& r : in.analysis->ranks) {
      if (!r.memory || !r.memory->absolute || r.memory->peak_reserved_bytes <= 0) continue;
      const double reserved = static_cast<double>(r.memory->peak_reserved_bytes);
      const double allocated = static_cast<double>(r.memory->peak.allocated_bytes);
      const double unused = reserved - allocated;
      if (unused >= kMinUnusedBytes && unused >= kMinUnusedShare * reserved)
        hit.push_back({r.rank, allocated, reserved});
    }
    if (hit.empty()) return;
    const auto worst = std::max_element(hit.begin(), hit.end(), [](const RankMemory& a, const RankMemory& b) {
      return a.reserved - a.allocated < b.reserved - b.allocated;
    });
    const double capacity = in.cluster ? in.cluster->gpu.hbm_bytes : 0;
    const bool near_full = capacity > 0 && worst->reserved >= kNearCapacity * capacity;
    Finding f;
    f.rule = Name();
    f.severity = near_full ? Severity::kWarning : Severity::kInfo;
    f.title = fmt::format("allocator holds {:.1f} GB reserved above a {:.1f} GB peak allocated (rank {})",
                          (worst->reserved - worst->allocated) / 1e9, worst->allocated / 1e9, worst->rank);
    f.message = fmt::format(
        "On {} of {} ranks the caching allocator reserved at least {:.0f}% more than the run ever allocated at once; "
        "worst rank {}: {:.2f} GB reserved, peak allocated {:.2f} GB ({:.0f}% of the reserved memory never in use at "
        "the peak). Fragmented cached blocks end in out-of-memory errors with memory reserved but free{}.",
        hit.size(), in.analysis->ranks.size(), 100 * kMinUnusedShare / (1 - kMinUnusedShare), worst->rank,
        worst->reserved / 1e9, worst->allocated / 1e9, 100 * (1 - worst->allocated / worst->reserved),
        near_full ? fmt::format("; the reserved peak is {:.0f}% of the GPU's {:.0f} GB",
                                100 * worst->reserved / capacity, capacity / 1e9)
                  : std::string());
    f.fix =
        "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (one growing segment instead of many cached ones); keep "
        "allocation sizes steady (pad variable sequence lengths, fixed MoE capacity)";
    for (const RankMemory& r : hit) f.where.gpus.push_back(r.rank);
    const std::string source = fmt::format("trace memory events, rank {}", worst->rank);
    f.evidence = {{"peak reserved", worst->reserved, "B", source}, {"peak allocated", worst->allocated, "B", source}};
    if (capacity > 0) f.evidence.push_back({"GPU memory", capacity, "B", "hardware catalog"});
    out->push_back(std::move(f));
  }
};

}  // namespace

std::unique_ptr<Rule> MakeMemoryFragmentationRule() { return std::make_unique<MemoryFragmentationRule>(); }

}  // namespace paratune
