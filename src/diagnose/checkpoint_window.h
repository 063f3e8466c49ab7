// How many logged intervals a checkpoint save disturbs, the one figure that checkpoint_stall
// (which charges them to the save) and throughput_change_point (which leaves them out of the
// throughput series) share.
#pragma once

namespace paratune {

// An asynchronous save slows the iterations after it while its writer drains the copies
// (megatron/core/dist_checkpointing/strategies/async_utils.py): the interval that holds the save
// and up to this many logged intervals after it.
inline constexpr int kAsyncSaveSlowIntervals = 3;

}  // namespace paratune
