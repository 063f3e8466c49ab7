#include "pipeline/simulator.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "pipeline/closed_form.h"
#include "timeline/breakdown.h"
#include "util/error.h"

namespace paratune {
namespace {

SimulationResult Simulate(ScheduleKind k, int pp, int vp, int64_t m, const PipelineInput& in) {
  return SimulatePipeline(BuildSchedule(k, pp, vp, m), in);
}

void ExpectRel(double got, double want, const std::string& what) {
  EXPECT_NEAR(got, want, 1e-9 * std::max(1e-300, std::abs(want))) << what;
}

// (a) Balanced stages, no communication: every rank idles (pp-1)/(m+pp-1) of the step under
// GPipe and 1F1B, (pp-1)/(vp*m+pp-1) under interleaving (Narayanan et al. 2021 Sec. 2.2).
TEST(Simulator, BalancedBubbleShareMatchesClosedForm) {
  const double F = 1.3, B = 2.1;
  for (int pp : {1, 2, 3, 4, 8, 16})
    for (int64_t m : {1, 2, 3, 5, 8, 16, 33, 64}) {
      const double want = (pp - 1.0) / (static_cast<double>(m) + pp - 1.0);
      for (ScheduleKind k : {ScheduleKind::kGpipe, ScheduleKind::k1F1B}) {
        const SimulationResult r = Simulate(k, pp, 1, m, BalancedInput(pp, 1, F, B));
        const std::string what = fmt::format("{} pp {} m {}", ScheduleName(k), pp, m);
        ExpectRel(r.step_time_s, (static_cast<double>(m) + pp - 1) * (F + B), what);
        for (const StageFigures& s : r.stages) ExpectRel(s.time.idle_pct() / 100 + 1, want + 1, what);
      }
    }
  for (int pp : {2, 3, 4, 8})
    for (int vp : {2, 3, 4})
      for (int64_t groups : {1, 2, 3, 8}) {
        const int64_t m = groups * pp;
        const SimulationResult r =
            Simulate(ScheduleKind::kInterleaved, pp, vp, m, BalancedInput(pp, vp, F / vp, B / vp));
        const double want = (pp - 1.0) / (static_cast<double>(vp * m) + pp - 1.0);
        const std::string what = fmt::format("interleaved pp {} vp {} m {}", pp, vp, m);
        ExpectRel(r.step_time_s, static_cast<double>(m) * (F + B) + (pp - 1) * (F + B) / vp, what);
        for (const StageFigures& s : r.stages) ExpectRel(s.time.idle_pct() / 100, want, what);
      }
}

// (b) Activations in flight: 1F1B rank r holds min(pp-r, m) micro-batches, GPipe all m;
// interleaved rank 0 holds 2(pp-1) + (vp-1)pp + 1 chunk activations, pp + (pp-1)/vp rank-equivalents.
TEST(Simulator, PeakInflightMicrobatches) {
  for (int pp : {1, 2, 4, 8})
    for (int64_t m : {1, 3, 4, 16}) {
      const SimulationResult f = Simulate(ScheduleKind::k1F1B, pp, 1, m, BalancedInput(pp, 1, 1, 2));
      const SimulationResult g = Simulate(ScheduleKind::kGpipe, pp, 1, m, BalancedInput(pp, 1, 1, 2));
      for (int r = 0; r < pp; ++r) {
        EXPECT_EQ(f.stages[static_cast<size_t>(r)].peak_inflight, std::min<int64_t>(pp - r, m))
            << pp << " " << m << " " << r;
        EXPECT_EQ(g.stages[static_cast<size_t>(r)].peak_inflight, m);
      }
    }
  const SimulationResult i = Simulate(ScheduleKind::kInterleaved, 4, 2, 16, BalancedInput(4, 2, 1, 2));
  EXPECT_EQ(i.stages[0].peak_inflight, 2 * 3 + 4 + 1);
  EXPECT_DOUBLE_EQ(i.stages[0].peak_inflight_microbatches, 4 + 3.0 / 2);
}

// (c) ZB-H1 with F = B = W = t (Qi et al. 2023, Table 2): 1F1B runs B+W as one backward of 2t
// and idles (pp-1)(F+B+W) = 3(pp-1)t; ZB-H1 idles (pp-1)(F+B-W) = (pp-1)t, exactly a third,
// so its step is (3m + pp - 1)t. Activation peak equals 1F1B's; rank r holds back up to r Ws.
TEST(Simulator, ZeroBubbleH1HasAThirdOfTheBubble) {
  const double t = 0.25;
  for (int pp : {2, 3, 4, 8})
    for (int64_t m : std::vector<int64_t>{pp, 2 * static_cast<int64_t>(pp), 16}) {
      const SimulationResult zb = Simulate(ScheduleKind::kZbH1, pp, 1, m, BalancedInput(pp, 1, t, 2 * t, t));
      const SimulationResult f = Simulate(ScheduleKind::k1F1B, pp, 1, m, BalancedInput(pp, 1, t, 2 * t, t));
      const std::string what = fmt::format("pp {} m {}", pp, m);
      ExpectRel(zb.step_time_s, (3.0 * static_cast<double>(m) + pp - 1) * t, what);
      ExpectRel(f.step_time_s, (3.0 * static_cast<double>(m) + 3.0 * (pp - 1)) * t, what);
      for (int r = 0; r < pp; ++r) {
        const StageFigures& z = zb.stages[static_cast<size_t>(r)];
        ExpectRel(z.time.idle_s, (pp - 1) * t, what);
        ExpectRel(z.time.idle_s * 3, f.stages[static_cast<size_t>(r)].time.idle_s, what);
        EXPECT_EQ(z.peak_inflight, f.stages[static_cast<size_t>(r)].peak_inflight) << what;
        EXPECT_LE(z.peak_pending_weight_grads, r + 1) << what;
      }
    }
}

// (d) Uneven stages by hand, pp = 2, m = 3, 1F1B. Stage 0: F 1, B 2; stage 1: F 2, B 3.
//   r0: F0 [0,1]  F1 [1,2]  B0 [6,8]  F2 [8,9]  B1 [11,13]  B2 [16,18]
//   r1: F0 [1,3]  B0 [3,6]  F1 [6,8]  B1 [8,11] F2 [11,13]  B2 [13,16]      step 18
// With a 0.5 s transfer each way (sent in the background):
//   r0: F0 [0,1] send->1.5  F1 [1,2] send [2,2.5]  B0 [7,9]  F2 [9,10] send->10.5  B1 [12,14]  B2 [17,19]
//   r1: F0 [1.5,3.5]  B0 [3.5,6.5] send->7  F1 [6.5,8.5]  B1 [8.5,11.5] send->12  F2 [11.5,13.5]
//       B2 [13.5,16.5] send->17                                                 step 19
TEST(Simulator, UnevenStagesByHand) {
  PipelineInput in;
  in.chunks = {{1, 2, 0}, {2, 3, 0}};
  in.record_timeline = true;
  SimulationResult r = Simulate(ScheduleKind::k1F1B, 2, 1, 3, in);
  EXPECT_DOUBLE_EQ(r.step_time_s, 18);
  EXPECT_DOUBLE_EQ(r.stages[0].time.compute_s, 9);
  EXPECT_DOUBLE_EQ(r.stages[1].time.window_s - r.stages[1].time.compute_s, 3);
  EXPECT_DOUBLE_EQ(ClosedFormPipeline({3, 5}, 3, 1).total(), 18);
  in.p2p_s = 0.5;
  r = Simulate(ScheduleKind::k1F1B, 2, 1, 3, in);
  EXPECT_DOUBLE_EQ(r.step_time_s, 19);
  EXPECT_DOUBLE_EQ(r.stages[1].time.comm_s, 1.5);
  // Blocking sends: the sender also waits out its transfer. r0: F0 [0,1] send [1,1.5],
  // F1 [1.5,2.5] send [2.5,3], B0: r1 F0 [1.5,3.5] B0 [3.5,6.5] send [6.5,7] -> r0 B0 [7,9] ...
  in.p2p_blocks_compute = true;
  r = Simulate(ScheduleKind::k1F1B, 2, 1, 3, in);
  EXPECT_GT(r.step_time_s, 19);
}

// (f) Balanced 1F1B and interleaved reproduce the closed form of pipeline/closed_form.h.
TEST(Simulator, BalancedMatchesClosedFormPipeline) {
  for (int pp : {2, 4, 8})
    for (int vp : {1, 2, 4})
      for (int64_t m : {8, 16, 64}) {
        const double per_rank = 3.7e-3;  // forward + backward of one micro-batch on one rank
        const SimulationResult r = Simulate(vp == 1 ? ScheduleKind::k1F1B : ScheduleKind::kInterleaved, pp, vp, m,
                                            BalancedInput(pp, vp, per_rank / 3 / vp, 2 * per_rank / 3 / vp));
        ExpectRel(r.pipeline_time_s,
                  ClosedFormPipeline(std::vector<double>(static_cast<size_t>(pp), per_rank), m, vp).total(),
                  fmt::format("pp {} vp {} m {}", pp, vp, m));
      }
}

// The simulator's own figures equal the shared breakdown of the timeline it writes.
TEST(Simulator, FiguresMatchTimelineBreakdown) {
  PipelineInput in = BalancedInput(4, 2, 1, 2, 0);
  in.p2p_s = 0.2;
  in.grad_reduce_s = {3, 3, 3, 3};
  in.optimizer_s = {0.5, 0.5, 0.5, 0.5};
  const SimulationResult r = Simulate(ScheduleKind::kInterleaved, 4, 2, 8, in);
  const TimelineBreakdown b = ComputeBreakdown(r.timeline);
  EXPECT_DOUBLE_EQ(b.step_time_s, r.step_time_s);
  for (int k = 0; k < 4; ++k) {
    const GpuTimeBreakdown& x = b.ranks[static_cast<size_t>(k)];
    const GpuTimeBreakdown& y = r.stages[static_cast<size_t>(k)].time;
    EXPECT_NEAR(x.compute_s, y.compute_s, 1e-12);
    EXPECT_NEAR(x.non_compute_s, y.non_compute_s, 1e-12);
    EXPECT_NEAR(x.idle_s, y.idle_s, 1e-12);
    EXPECT_NEAR(x.compute_s, 8 * 2 * 3 + 0.5, 1e-12);
  }
}

// DP reduction and optimizer: with overlap a chunk's reduction starts once that chunk is done,
// which never lengthens the step; rank 0 ends last and its tail is visible in the step.
TEST(Simulator, GradReduceAndOptimizer) {
  PipelineInput in = BalancedInput(2, 1, 1, 2);
  in.grad_reduce_s = {4, 4};
  in.optimizer_s = {1, 1};
  const SimulationResult r = Simulate(ScheduleKind::k1F1B, 2, 1, 4, in);
  EXPECT_DOUBLE_EQ(r.pipeline_time_s, (4 + 1) * 3);
  EXPECT_DOUBLE_EQ(r.step_time_s, 15 + 4 + 1);
  // Interleaved rank 0 finishes chunk 1 before chunk 0: half its reduction hides.
  PipelineInput vin = BalancedInput(2, 2, 0.5, 1);
  vin.grad_reduce_s = {4, 0};
  const SimulationResult over = Simulate(ScheduleKind::kInterleaved, 2, 2, 4, vin);
  EXPECT_DOUBLE_EQ(over.step_time_s, over.pipeline_time_s + 2);
  vin.overlap_grad_reduce = false;
  EXPECT_DOUBLE_EQ(Simulate(ScheduleKind::kInterleaved, 2, 2, 4, vin).step_time_s, over.pipeline_time_s + 4);
}

TEST(Simulator, BadInputIsAnInputError) {
  const Schedule s = BuildSchedule(ScheduleKind::k1F1B, 2, 1, 2);
  EXPECT_THROW(SimulatePipeline(s, BalancedInput(3, 1, 1, 1)), InputError);
  EXPECT_THROW(SimulatePipeline(s, BalancedInput(2, 1, -1, 1)), InputError);
  EXPECT_THROW(SimulatePipeline(s, BalancedInput(2, 1, 1, 1, 2)), InputError);
  PipelineInput in = BalancedInput(2, 1, 1, 1);
  in.optimizer_s = {1};
  EXPECT_THROW(SimulatePipeline(s, in), InputError);
}

}  // namespace
}  // namespace paratune

namespace paratune {
namespace {

// DP collectives on their own stream, by hand (pp 1, m 2, F 1, B 2): F0 [0,1] B0 [1,3] F1 [3,4]
// B1 [4,6]. Megatron's bucketed reduction (3 s) starts with the last backward, at 4, so it ends
// at 7 and the optimizer (1 s) runs [7,8]; after the last backward it would run [6,9], [9,10].
TEST(Simulator, ReductionDuringTheLastBackward) {
  PipelineInput in = BalancedInput(1, 1, 1, 2);
  in.grad_reduce_s = {3};
  in.optimizer_s = {1};
  in.dp_stream = true;
  in.reduce_during_last_backward = true;
  SimulationResult r = Simulate(ScheduleKind::k1F1B, 1, 1, 2, in);
  EXPECT_DOUBLE_EQ(r.step_time_s, 8);
  EXPECT_DOUBLE_EQ(r.stages[0].reduce_tail_s, 1);
  EXPECT_DOUBLE_EQ(r.stages[0].dp_non_compute_s, 1);  // [6,7] with nothing computing
  EXPECT_DOUBLE_EQ(r.critical_path.compute_s, 6);
  EXPECT_DOUBLE_EQ(r.critical_path.reduce_tail_s, 1);
  EXPECT_DOUBLE_EQ(r.critical_path.optimizer_s, 1);
  EXPECT_EQ(r.timeline.stream_names, (std::vector<std::string>{"compute", "comm", "dp"}));
  in.reduce_during_last_backward = false;
  EXPECT_DOUBLE_EQ(Simulate(ScheduleKind::k1F1B, 1, 1, 2, in).step_time_s, 10);
}

// ZeRO-2/3 reduce every micro-batch's gradients, by hand (pp 1, m 3, F 1, B 2, 4 s per
// reduction, optimizer 1 s): F0 [0,1] B0 [1,3] F1 [3,4] B1 [4,6] F2 [6,7] B2 [7,9]. Each
// reduction is issued as its backward starts and queues on the DP stream: [1,5] [5,9] [9,13],
// then the optimizer [13,14]. Reducing once per step (ZeRO-1) it would be [7,11], [11,12].
// Without overlap each backward's reduction follows it and the rank waits: B0 [1,3] R [3,7]
// F1 [7,8] B1 [8,10] R [10,14] F2 [14,15] B2 [15,17] R [17,21], optimizer [21,22].
TEST(Simulator, ReductionEveryMicroBatch) {
  PipelineInput in = BalancedInput(1, 1, 1, 2);
  in.grad_reduce_s = {4};
  in.optimizer_s = {1};
  in.dp_stream = true;
  in.reduce_during_last_backward = true;
  in.reduce_every_micro_batch = true;
  SimulationResult r = Simulate(ScheduleKind::k1F1B, 1, 1, 3, in);
  EXPECT_DOUBLE_EQ(r.pipeline_time_s, 9);
  EXPECT_DOUBLE_EQ(r.step_time_s, 14);
  EXPECT_DOUBLE_EQ(r.critical_path.optimizer_s, 1);
  in.reduce_every_micro_batch = false;
  EXPECT_DOUBLE_EQ(Simulate(ScheduleKind::k1F1B, 1, 1, 3, in).step_time_s, 12);
  in.reduce_every_micro_batch = true;
  in.overlap_grad_reduce = false;
  r = Simulate(ScheduleKind::k1F1B, 1, 1, 3, in);
  EXPECT_DOUBLE_EQ(r.step_time_s, 22);
  EXPECT_DOUBLE_EQ(r.critical_path.compute_s, 9);
}

// ZeRO gathers by hand (pp 1, F 1, B 2). ZeRO-1 (one 1.5 s gather from the start): the first
// forward consumes it as it arrives, so it cannot end before 1.5: it runs [0.5,1.5]; without
// overlap it waits for the whole gather, [1.5,2.5].
TEST(Simulator, ZeroOneGatherAtTheStart) {
  PipelineInput in = BalancedInput(1, 1, 1, 2);
  in.dp_stream = true;
  in.param_gather_s = {1.5};
  SimulationResult r = Simulate(ScheduleKind::k1F1B, 1, 1, 1, in);
  EXPECT_DOUBLE_EQ(r.step_time_s, 0.5 + 1 + 2);
  EXPECT_DOUBLE_EQ(r.critical_path.gather_wait_s, 0.5);
  in.overlap_param_gather = false;
  r = Simulate(ScheduleKind::k1F1B, 1, 1, 1, in);
  EXPECT_DOUBLE_EQ(r.step_time_s, 1.5 + 1 + 2);
  EXPECT_DOUBLE_EQ(r.critical_path.gather_wait_s, 1.5);
}

// A DP collective the rank waits for has its port to itself; one that overlaps the passes runs
// at the rate their own collectives leave (here half). pp 1, m 1, F 1, B 2, a 1.5 s ZeRO-1
// gather: overlapped it takes 3 s and the forward ends with it, [2,3], B [3,5]; without overlap
// it takes 1.5 s, F [1.5,2.5], B [2.5,4.5]. The same for a reduction after the backward (2 s):
// F [0,1] B [1,3], reduction [3,5] at full rate.
TEST(Simulator, CollectivesTheRankWaitsForRunAtTheFullRate) {
  PipelineInput in = BalancedInput(1, 1, 1, 2);
  in.dp_stream = true;
  in.rates = {PipelineInput::StreamRates{1, 0.5, 0.5}};
  in.param_gather_s = {1.5};
  EXPECT_DOUBLE_EQ(Simulate(ScheduleKind::k1F1B, 1, 1, 1, in).step_time_s, 5);
  in.overlap_param_gather = false;
  EXPECT_DOUBLE_EQ(Simulate(ScheduleKind::k1F1B, 1, 1, 1, in).step_time_s, 4.5);
  PipelineInput red = BalancedInput(1, 1, 1, 2);
  red.dp_stream = true;
  red.rates = {PipelineInput::StreamRates{1, 0.5, 0.5}};
  red.grad_reduce_s = {2};
  red.overlap_grad_reduce = false;
  EXPECT_DOUBLE_EQ(Simulate(ScheduleKind::k1F1B, 1, 1, 1, red).step_time_s, 5);
  red.reduce_every_micro_batch = true;  // the same single reduction, queued by the backward
  EXPECT_DOUBLE_EQ(Simulate(ScheduleKind::k1F1B, 1, 1, 1, red).step_time_s, 5);
}

// ZeRO-3 (pp 1, m 2, a gather of 2.5 s before every forward and backward, prefetched from the
// start of the previous pass, each pass unable to end before its gather):
//   gathers [0,2.5] [2.5,5] [5,7.5] [7.5,10]; F0 [1.5,2.5] B0 [3,5] F1 [6.5,7.5] B1 [8,10].
// Waits 1.5 + 0.5 + 1.5 + 0.5 = 4 on top of 6 s of passes. With 0.5 s gathers nothing waits.
TEST(Simulator, ZeroThreeGathersPrefetched) {
  PipelineInput in = BalancedInput(1, 1, 1, 2);
  in.dp_stream = true;
  in.param_gather_s = {2.5};
  in.gathers_per_forward = 1;
  in.gathers_per_backward = 1;
  SimulationResult r = Simulate(ScheduleKind::k1F1B, 1, 1, 2, in);
  EXPECT_DOUBLE_EQ(r.step_time_s, 10);
  EXPECT_DOUBLE_EQ(r.critical_path.gather_wait_s, 4);
  EXPECT_DOUBLE_EQ(r.critical_path.compute_s, 6);
  in.param_gather_s = {0.5};
  r = Simulate(ScheduleKind::k1F1B, 1, 1, 2, in);
  EXPECT_DOUBLE_EQ(r.step_time_s, 6);
  EXPECT_DOUBLE_EQ(r.critical_path.gather_wait_s, 0);
}

// The critical path of the uneven 1F1B case with 0.5 s transfers (UnevenStagesByHand): from
// rank 0's B2 [17,19] back through rank 1's B2, F2, B1, F1, B0, F0 and rank 0's F0, with two
// transfers on it: passes 18 s + transfers 1 s = the step of 19 s.
TEST(Simulator, CriticalPathByHand) {
  PipelineInput in;
  in.chunks = {{1, 2, 0}, {2, 3, 0}};
  in.p2p_s = 0.5;
  const SimulationResult r = Simulate(ScheduleKind::k1F1B, 2, 1, 3, in);
  ASSERT_DOUBLE_EQ(r.step_time_s, 19);
  EXPECT_EQ(r.critical_path.end_rank, 0);
  EXPECT_DOUBLE_EQ(r.critical_path.compute_s, 18);
  EXPECT_DOUBLE_EQ(r.critical_path.transfer_s, 1);
  EXPECT_DOUBLE_EQ(r.critical_path.send_block_s, 0);
}

}  // namespace
}  // namespace paratune

namespace paratune {
namespace {

// Link occupancy by hand (pp 1, m 1, F 1, B 2: F [0,1], B [1,3]). The reduction (1.5 s of port
// work) starts with the backward; the backward's own collectives hold half the port, so it
// progresses at 0.5 until 3 (1 s done) and the rest at full rate: it ends at 3.5, not 2.5.
TEST(Simulator, ReductionSharesThePortWithTheBackward) {
  PipelineInput in = BalancedInput(1, 1, 1, 2);
  in.grad_reduce_s = {1.5};
  in.dp_stream = true;
  in.reduce_during_last_backward = true;
  EXPECT_DOUBLE_EQ(Simulate(ScheduleKind::k1F1B, 1, 1, 1, in).step_time_s, 3);
  in.rates = {{1, 1, 0.5}};
  const SimulationResult r = Simulate(ScheduleKind::k1F1B, 1, 1, 1, in);
  EXPECT_DOUBLE_EQ(r.step_time_s, 3.5);
  EXPECT_DOUBLE_EQ(r.stages[0].reduce_tail_s, 0.5);
  in.rates = {{1, 1, 0}};
  EXPECT_THROW(Simulate(ScheduleKind::k1F1B, 1, 1, 1, in), InputError);
}

// Pipeline sends and the reduction on one port, by hand (pp 2, m 1, F 1, B 2, send 0.5):
// rank 0 F [0,1], send [1,1.5]; rank 1 F [1.5,2.5], B [2.5,4.5], send [4.5,5]; rank 0 B [5,7].
// Rank 1's reduction (2.5 s) starts with its backward at 2.5: on its own port it ends at 5; on
// the port of the sends it pauses for the send [4.5,5] and ends at 5.5. Sends run at the rate
// the passes leave them.
TEST(Simulator, ReductionFillsAroundTheSendsOfItsPort) {
  PipelineInput in = BalancedInput(2, 1, 1, 2);
  in.p2p_s = 0.5;
  in.grad_reduce_s = {0, 2.5};
  in.dp_stream = true;
  in.reduce_during_last_backward = true;
  EXPECT_DOUBLE_EQ(Simulate(ScheduleKind::k1F1B, 2, 1, 1, in).stages[1].last_event_end_s, 5);
  in.dp_shares_pp_port = true;
  const SimulationResult r = Simulate(ScheduleKind::k1F1B, 2, 1, 1, in);
  EXPECT_DOUBLE_EQ(r.stages[1].last_event_end_s, 5.5);
  EXPECT_DOUBLE_EQ(r.stages[1].reduce_tail_s, 1);
  EXPECT_DOUBLE_EQ(r.step_time_s, 7);
  int pieces = 0;
  for (const TimelineEvent& ev : r.timeline.events)
    if (ev.rank == 1 && ev.phase == Phase::kAllReduce) ++pieces;
  EXPECT_EQ(pieces, 2);  // [2.5,4.5] and [5,5.5]
  // A send during a pass whose collectives hold a quarter of the port takes 0.5 / 0.75.
  in.rates = {{0.75, 1, 1}, {0.75, 1, 1}};
  EXPECT_DOUBLE_EQ(Simulate(ScheduleKind::k1F1B, 2, 1, 1, in).pipeline_time_s, 7 + 2 * (0.5 / 0.75 - 0.5));
}

}  // namespace
}  // namespace paratune
