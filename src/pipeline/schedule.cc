#include "pipeline/schedule.h"

#include <algorithm>
#include <fmt/format.h>
#include <limits>

#include "util/error.h"

namespace paratune {
namespace {

void Add(std::vector<PipelineOp>& ops, OpKind k, int64_t mb, int chunk) {
  ops.push_back({k, static_cast<int32_t>(chunk), static_cast<int32_t>(mb)});
}

// GPipe: every forward in micro-batch order, then every backward in micro-batch order (as
// PyTorch's torch.distributed.pipelining ScheduleGPipe).
void Gpipe(std::vector<PipelineOp>& ops, int64_t m) {
  for (int64_t j = 0; j < m; ++j) Add(ops, OpKind::kForward, j, 0);
  for (int64_t j = 0; j < m; ++j) Add(ops, OpKind::kBackward, j, 0);
}

// 1F1B, Megatron-LM forward_backward_pipelining_without_interleaving: rank r runs
// min(pp-r-1, m) warm-up forwards, then pairs (forward w+i, backward i), then the remaining
// backwards.
void OneFOneB(std::vector<PipelineOp>& ops, int pp, int r, int64_t m) {
  const int64_t w = std::min<int64_t>(pp - r - 1, m);
  for (int64_t j = 0; j < w; ++j) Add(ops, OpKind::kForward, j, 0);
  for (int64_t i = 0; i < m - w; ++i) {
    Add(ops, OpKind::kForward, w + i, 0);
    Add(ops, OpKind::kBackward, i, 0);
  }
  for (int64_t i = m - w; i < m; ++i) Add(ops, OpKind::kBackward, i, 0);
}

// Interleaved 1F1B, Megatron-LM forward_backward_pipelining_with_interleaving (get_schedule_table,
// microbatch_group_size_per_vp_stage = pp): forwards visit groups of pp micro-batches chunk by
// chunk; backwards visit the same table with the chunk
// order reversed. Warm-up: all forwards when m == pp, else 2(pp-r-1) + (vp-1)*pp, capped at
// m*vp; then pairs (forward k+warmup, backward k); then the remaining backwards.
void Interleaved(std::vector<PipelineOp>& ops, std::vector<PipelineOp>& table, int pp, int vp, int r, int64_t m) {
  const int64_t total = m * vp;
  table.clear();
  for (int64_t lo = 0; lo < m; lo += pp) {
    const int64_t hi = std::min(lo + pp, m);
    for (int c = 0; c < vp; ++c)
      for (int64_t j = lo; j < hi; ++j)
        table.push_back({OpKind::kForward, static_cast<int32_t>(c), static_cast<int32_t>(j)});
  }
  int64_t w = m == pp
                  ? total
                  : std::min<int64_t>(2 * static_cast<int64_t>(pp - r - 1) + static_cast<int64_t>(vp - 1) * pp, total);
  auto fwd = [&](int64_t k) {
    Add(ops, OpKind::kForward, table[static_cast<size_t>(k)].micro_batch, table[static_cast<size_t>(k)].virtual_stage);
  };
  auto bwd = [&](int64_t k) {
    Add(ops, OpKind::kBackward, table[static_cast<size_t>(k)].micro_batch,
        vp - 1 - table[static_cast<size_t>(k)].virtual_stage);
  };
  for (int64_t k = 0; k < w; ++k) fwd(k);
  for (int64_t k = 0; k < total - w; ++k) {
    fwd(k + w);
    bwd(k);
  }
  for (int64_t k = total - w; k < total; ++k) bwd(k);
}

// ZB-H1 (Qi et al. 2023, Fig. 3 top, "ZB-H1"): at step x rank r runs F(x), B(x-(pp-1-r)) and
// W(x-(pp-1)), skipping indices outside [0, m). This keeps 1F1B's pp-r forwards before the
// first B (same activation memory) and lets rank r hold back r weight gradients to fill the
// drain. Equal F, B, W times t give a bubble of (pp-1)(F+B-W) = (pp-1)t, a third of 1F1B's.
void ZbH1(std::vector<PipelineOp>& ops, int pp, int r, int64_t m) {
  for (int64_t x = 0; x < m + pp - 1; ++x) {
    if (x < m) Add(ops, OpKind::kForward, x, 0);
    const int64_t b = x - (pp - 1 - r), w = x - (pp - 1);
    if (b >= 0 && b < m) Add(ops, OpKind::kBackward, b, 0);
    if (w >= 0 && w < m) Add(ops, OpKind::kWeightGrad, w, 0);
  }
}

}  // namespace

Schedule BuildSchedule(ScheduleKind kind, int pp, int vp, int64_t m) {
  if (pp < 1) throw InputError(fmt::format("pipeline schedule: pp must be at least 1, got {}", pp));
  if (vp < 1) throw InputError(fmt::format("pipeline schedule: vp must be at least 1, got {}", vp));
  if (m < 1) throw InputError(fmt::format("pipeline schedule: needs at least one micro-batch, got {}", m));
  if (m * vp > std::numeric_limits<int32_t>::max())
    throw InputError(fmt::format("pipeline schedule: {} micro-batches x {} virtual stages is too many", m, vp));
  if (kind == ScheduleKind::kInterleaved) {
    if (vp < 2)
      throw InputError(
          fmt::format("interleaved schedule needs vp >= 2 virtual stages per rank, got vp {} (use 1f1b)", vp));
    if (m % pp != 0)
      throw InputError(fmt::format(
          "interleaved schedule needs the micro-batch count ({}) to be a multiple of pp ({}): Megatron-LM interleaves "
          "groups of pp micro-batches per virtual stage",
          m, pp));
  } else if (vp != 1) {
    throw InputError(fmt::format("{} schedule has one stage per rank; vp {} needs the interleaved schedule",
                                 ScheduleName(kind), vp));
  }
  Schedule s;
  s.kind = kind;
  s.pp = pp;
  s.vp = vp;
  s.m = m;
  s.split_backward = kind == ScheduleKind::kZbH1;
  const size_t per_rank = static_cast<size_t>(m * vp) * (s.split_backward ? 3 : 2);
  s.ops.reserve(per_rank * static_cast<size_t>(pp));
  s.rank_begin.reserve(static_cast<size_t>(pp) + 1);
  std::vector<PipelineOp> table;
  for (int r = 0; r < pp; ++r) {
    s.rank_begin.push_back(s.ops.size());
    switch (kind) {
      case ScheduleKind::kGpipe:
        Gpipe(s.ops, m);
        break;
      case ScheduleKind::k1F1B:
        OneFOneB(s.ops, pp, r, m);
        break;
      case ScheduleKind::kInterleaved:
        Interleaved(s.ops, table, pp, vp, r, m);
        break;
      case ScheduleKind::kZbH1:
        ZbH1(s.ops, pp, r, m);
        break;
    }
  }
  s.rank_begin.push_back(s.ops.size());
  return s;
}

}  // namespace paratune
