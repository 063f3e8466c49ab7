// Fault cases of the training-log area (tools/gen_faults/cases.h): Megatron-LM logs with
// synchronous and with asynchronous checkpoint stalls, a clean resumed log with a final save, a
// clean torchtitan log, and StragglerDetector logs with one slow rank and without. Every line is
// printed in the format of the code that writes it (src/trace/training_log.cc names the sources).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cases.h"
#include "util/timestamp.h"

namespace paratune::faults {
namespace {

constexpr double kStart = 1714564800.0;  // 2024-05-01 12:00:00 (printed as local time, read as UTC)

// Megatron's timestamp: "%Y-%m-%d %H:%M:%S", with ".%f" in the 2026 form.
std::string MegatronTime(double t, bool micro) {
  std::string s = FormatTimestamp(t);
  if (micro) s += fmt::format(".{:06d}", static_cast<int>(std::floor((t - std::floor(t)) * 1e6)));
  return s;
}

struct MegatronRun {
  int64_t world = 64, global_batch = 256, seq = 4096;
  double params = 7e9;
  int64_t train_iters = 3000, first = 1, log_interval = 10;
  bool micro = false;  // 2026 timestamps
  double pace_s = 1.7;
  double noise = 0.004;  // relative, per logged interval
};

// training.py training_log(): one line per log interval.
std::string IterationLine(const MegatronRun& run, double t, int64_t it, double elapsed_s, double loss) {
  // 6 N FLOP per token (Kaplan et al. 2020, "Scaling Laws for Neural Language Models", 2.1).
  const double flops = 6.0 * run.params * static_cast<double>(run.global_batch * run.seq);
  const double tflops = flops / (elapsed_s * static_cast<double>(run.world)) / 1e12;
  return fmt::format(
      " [{}] iteration {:8d}/{:8d} | consumed samples: {:12d} | elapsed time per iteration (ms): {:.1f} | "
      "throughput per GPU (TFLOP/s/GPU): {:.1f} | learning rate: {:.6E} | global batch size: {:5d} | lm loss: {:.6E} | "
      "loss scale: 1.0 | grad norm: {:.3f} | number of skipped iterations: {:3d} | number of nan iterations: {:3d} |\n",
      MegatronTime(t, run.micro), it, run.train_iters, it * run.global_batch, elapsed_s * 1e3, tflops, 3.0e-4,
      run.global_batch, loss, 0.25 + 0.1 / std::sqrt(static_cast<double>(it)), 0, 0);
}

std::string Preamble(const MegatronRun& run) {
  return fmt::format(
      "using world size: {}, data-parallel size: {}, context-parallel size: 1, tensor-model-parallel size: 8, "
      "pipeline-model-parallel size: 1\n"
      "> building GPT model ...\n"
      "[after dataloaders are built] datetime: {}\n"
      "training ...\n",
      run.world, run.world / 8, MegatronTime(kStart - 5, false));
}

std::string TimerBlock(const std::string& name, double min_s, double max_s) {
  std::string padded = name + " ";
  while (padded.size() < 48) padded += '.';
  return fmt::format("(min, max) time across ranks (ms):\n    {}: ({:.2f}, {:.2f})\n", padded, min_s * 1e3,
                     max_s * 1e3);
}

enum class SaveMode { kNone, kSync, kAsync };

struct StallPlan {
  SaveMode mode = SaveMode::kNone;
  int64_t save_interval = 500;
  double sync_save_s = 60;      // synchronous: the gap (Megatron stops its timer meanwhile)
  double async_schedule_s = 2;  // asynchronous: the blocking part
  int64_t async_slow_iterations = 30;
  double async_slowdown = 0.7;  // iterations after an async save take this much longer
  double final_save_s = 75;     // the save when training ends (not a stall)
};

// A Megatron log of one run (or its resumed part) with checkpoint saves as planned.
std::string MegatronLog(const MegatronRun& run, const StallPlan& plan, uint64_t seed, std::string head) {
  Rng rng(seed);
  std::string out = std::move(head);
  double t = kStart;
  int64_t prev = run.first - 1;
  int64_t slow_until = -1;
  std::vector<int64_t> pending_async;  // saves whose "successfully saved" line is still to come
  const std::string dir = "/lustre/ckpt/gpt7b";
  auto iterations = [&] {
    std::vector<int64_t> v{run.first};
    for (int64_t it = (run.first / run.log_interval + 1) * run.log_interval; it <= run.train_iters;
         it += run.log_interval)
      v.push_back(it);
    return v;
  }();
  for (int64_t it : iterations) {
    const int64_t n = it - prev;
    // Warm-up: the first logged iteration of a (re)start carries the set-up of the step.
    double per = run.pace_s * (1.0 + run.noise * rng.Normal());
    if (it == run.first) per = 4.5 * run.pace_s;
    double elapsed = per * static_cast<double>(n);
    if (slow_until >= 0) {
      const int64_t slowed = std::max<int64_t>(0, std::min(it, slow_until) - prev);
      elapsed += static_cast<double>(slowed) * run.pace_s * plan.async_slowdown;
      if (it >= slow_until) slow_until = -1;
    }
    t += elapsed;
    out += IterationLine(run, t, it, elapsed / static_cast<double>(n), 2.1 + 8.0 / std::sqrt(static_cast<double>(it)));
    prev = it;
    // The async saves finalize some intervals later (async_utils: checked at each iteration).
    while (!pending_async.empty() && it >= pending_async.front() + 4 * run.log_interval) {
      out += fmt::format("  [{}] successfully saved checkpoint from iteration {:7d} to {} [ t 0/8, p 0/1 ]\n",
                         MegatronTime(t, run.micro), pending_async.front(), dir);
      pending_async.erase(pending_async.begin());
    }
    const bool final_save = it == run.train_iters;
    if (plan.mode == SaveMode::kNone || (it % plan.save_interval != 0 && !final_save)) continue;
    const std::string ts = run.micro ? fmt::format("[{}] ", MegatronTime(t, true)) : std::string();
    out += fmt::format("{}saving checkpoint at iteration {:7d} to {} in torch_dist format\n", ts, it, dir);
    if (plan.mode == SaveMode::kAsync && !final_save) {
      t += plan.async_schedule_s;
      out += fmt::format("  {}scheduled an async checkpoint save at iteration {:7d} to {}\n",
                         run.micro ? fmt::format("[{}] ", MegatronTime(t, true)) : std::string(), it, dir);
      out += TimerBlock("save-checkpoint", plan.async_schedule_s * 0.97, plan.async_schedule_s);
      pending_async.push_back(it);
      slow_until = it + plan.async_slow_iterations;
      continue;
    }
    const double save_s = final_save ? plan.final_save_s : plan.sync_save_s * (1.0 + 0.02 * rng.Normal());
    t += save_s;
    out += fmt::format("  {}successfully saved checkpoint from iteration {:7d} to {} [ t 0/8, p 0/1 ]\n",
                       run.micro ? fmt::format("[{}] ", MegatronTime(t, true)) : std::string(), it, dir);
    out += TimerBlock("save-checkpoint", save_s * 0.985, save_s);
  }
  out += fmt::format("[after training is done] datetime: {}\n", MegatronTime(t + 1, false));
  return out;
}

// torchtitan: torchtitan/components/metrics.py MetricsProcessor.log() through the "[titan]"
// formatter of torchtitan/tools/logging.py, with the colours of torchtitan/tools/utils.py Color.
std::string TorchtitanLog(uint64_t seed) {
  Rng rng(seed);
  constexpr const char* red = "\033[31m";
  constexpr const char* green = "\033[32m";
  constexpr const char* orange = "\033[38;2;180;60;0m";
  constexpr const char* turquoise = "\033[38;2;54;234;195m";
  constexpr const char* blue = "\033[34m";
  constexpr const char* cyan = "\033[36m";
  constexpr const char* magenta = "\033[35m";
  constexpr const char* reset = "\033[39m";
  auto stamp = [](double t) {
    return FormatTimestamp(t) + fmt::format(",{:03d}", static_cast<int>(std::floor((t - std::floor(t)) * 1e3)));
  };
  auto info = [&](double t, const std::string& msg) {
    return fmt::format("[rank0]:[titan] {} - root - INFO - {}\n", stamp(t), msg);
  };
  double t = kStart + 0.25;
  std::string out = info(t - 30, "Starting job: Llama 3 8B training");
  out += info(t - 20, "Building llama3 8B with TransformerModelArgs(dim=4096, n_layers=32, n_heads=32, n_kv_heads=8)");
  out += info(t - 1, "Training starts at step 1");
  // Llama 3 8B, seq 8192, local batch 1 on 8 H100: about 6,500 tokens/s per GPU.
  constexpr double kTps = 6500, kFlopsPerToken = 6 * 8.03e9 + 12 * 32 * 4096 * 8192.0;
  constexpr double kPeak = 989e12;  // H100 SXM dense BF16
  int64_t prev = 0;
  for (int64_t step = 1; step <= 1000; step = step == 1 ? 10 : step + 10) {
    const double tps = kTps * (1.0 + 0.004 * rng.Normal());
    const int64_t n = step - prev;
    t += static_cast<double>(n) * 8192.0 / tps + (step == 1 ? 25.0 : 0.0);
    prev = step;
    const double tflops = kFlopsPerToken * tps / 1e12;
    const double loss = 2.2 + 9.0 / std::sqrt(static_cast<double>(step));
    out += info(t, fmt::format(
                       "{}step: {:2}  {}loss: {:8.5f}  {}grad_norm: {:7.4f}  {}memory: {:5.2f}GiB({:.2f}%)  "
                       "{}tps: {}  {}tflops: {:.2f}  {}mfu: {:.2f}%{}",
                       red, step, green, loss, orange, 0.9 + 0.1 * rng.Uniform(), turquoise, 61.27, 77.43, blue,
                       [&] {
                         // Python's "{:,}" thousands separators.
                         std::string d = std::to_string(std::llround(tps)), r;
                         for (size_t i = 0; i < d.size(); ++i) {
                           if (i > 0 && (d.size() - i) % 3 == 0) r += ',';
                           r += d[i];
                         }
                         return r;
                       }(),
                       cyan, tflops, magenta, 100 * tflops * 1e12 / kPeak, reset));
  }
  out += info(t + 1, "Training completed");
  return out;
}

// A Megatron log with --log-straggler: after each iteration line, StragglerDetector.report()
// prints the min/max over ranks ("{:.2f}{unit}/{rank}"; power from torch.cuda.power_draw(), mW).
std::string StragglerLog(int slow_rank, double slowdown, uint64_t seed) {
  Rng rng(seed);
  MegatronRun run;
  run.world = 16;
  run.global_batch = 64;
  run.train_iters = 2000;
  run.params = 7e9;
  std::string out = Preamble(run);
  double t = kStart;
  int64_t prev = 0;
  const int world = static_cast<int>(run.world);
  for (int64_t it = 10; it <= run.train_iters; it += 10) {
    std::vector<double> rtt(world), power(world), temp(world), util(world), clock(world), drtt(world);
    for (int r = 0; r < world; ++r) {
      const bool slow = r == slow_rank;
      rtt[r] = 1.45 * (1.0 + 0.004 * rng.Normal()) * (slow ? 1.0 + slowdown : 1.0);
      power[r] = 655e3 + 15e3 * rng.Normal() - (slow ? 120e3 : 0);  // mW
      temp[r] = 62 + 2 * rng.Normal() + (slow ? 19 : 0);
      util[r] = std::min(100.0, 99 + rng.Uniform());
      clock[r] = slow ? 1575 + 30 * rng.Uniform() : 1980;
      drtt[r] = 1.5 + 0.5 * rng.Uniform();
    }
    const double elapsed = *std::max_element(rtt.begin(), rtt.end()) * 1.02;  // the job runs at the slowest rank
    t += elapsed * static_cast<double>(it - prev);
    prev = it;
    out += IterationLine(run, t, it, elapsed, 2.0 + 8.0 / std::sqrt(static_cast<double>(it)));
    auto lo = [&](const std::vector<double>& v) {
      return static_cast<int>(std::min_element(v.begin(), v.end()) - v.begin());
    };
    auto hi = [&](const std::vector<double>& v) {
      return static_cast<int>(std::max_element(v.begin(), v.end()) - v.begin());
    };
    // Estimated throughput: the rank's FLOPs over its own time, divided by amp = 3 (forward only).
    const double flops = 6.0 * run.params * static_cast<double>(run.global_batch * run.seq) / 3.0;
    auto etpt = [&](int r) { return flops / (rtt[r] * 1e12 * static_cast<double>(world)); };
    out += fmt::format(
        "[{}] | MnRtt/Rnk: {:.2f}ms/{} | MxRtt/Rnk: {:.2f}ms/{} | MnPwr/Rnk: {:.2f}W/{} | MxPwr/Rnk: {:.2f}W/{} | "
        "MnTmp/Rnk: {:.2f}C/{} | MxTmp/Rnk: {:.2f}C/{} | MnUtl/Rnk: {:.2f}%/{} | MxUtl/Rnk: {:.2f}%/{} | "
        "MnClk/Rnk: {:.2f}MHz/{} | MxClk/Rnk: {:.2f}MHz/{} | MnDRtt/Rnk: {:.2f}ms/{} | MxDRtt/Rnk: {:.2f}ms/{} | "
        "MnEtpt/Rnk: {:.2f}TF/{} | MxEtpt/Rnk: {:.2f}TF/{}\n",
        FormatTimestamp(t), rtt[lo(rtt)] * 1e3, lo(rtt), rtt[hi(rtt)] * 1e3, hi(rtt), power[lo(power)], lo(power),
        power[hi(power)], hi(power), temp[lo(temp)], lo(temp), temp[hi(temp)], hi(temp), util[lo(util)], lo(util),
        util[hi(util)], hi(util), clock[lo(clock)], lo(clock), clock[hi(clock)], hi(clock), drtt[lo(drtt)], lo(drtt),
        drtt[hi(drtt)], hi(drtt), etpt(hi(rtt)), hi(rtt), etpt(lo(rtt)), lo(rtt));
  }
  return out;
}

}  // namespace

void AddLogCases(CaseWriter& w) {
  {
    // Synchronous saves every 500 iterations, 60 s each, with Megatron's timer stopped meanwhile:
    // visible only in the timestamp gaps and the save-checkpoint timer. 2024 log format.
    MegatronRun run;
    StallPlan plan;
    plan.mode = SaveMode::kSync;
    FaultCase& c = w.Add("checkpoint_stall_sync", "checkpoint_stall", true);
    w.Write(c, "train.log", MegatronLog(run, plan, 101, Preamble(run)));
    c.expect.iterations = {500, 1000, 1500, 2000, 2500};
    c.expect.iteration_tolerance = run.log_interval;
    c.expect.period_iterations = 500;
    c.expect.period_s = 500 * run.pace_s + plan.sync_save_s;  // 910 s
    c.expect.min_loss_fraction = 0.04;                        // 5 x 60 s over about 5,400 s
  }
  {
    // Asynchronous saves every 500 iterations: 2 s blocking, then 30 iterations 70% slower.
    // 2026 log format (fractional seconds).
    MegatronRun run;
    run.micro = true;
    StallPlan plan;
    plan.mode = SaveMode::kAsync;
    FaultCase& c = w.Add("checkpoint_stall_async", "checkpoint_stall", true);
    w.Write(c, "train.log", MegatronLog(run, plan, 202, Preamble(run)));
    c.expect.iterations = {500, 1000, 1500, 2000, 2500};
    c.expect.iteration_tolerance = run.log_interval;
    c.expect.period_iterations = 500;
    c.expect.period_s = 500 * run.pace_s + plan.async_schedule_s + 30 * run.pace_s * plan.async_slowdown;  // 886 s
    c.expect.min_loss_fraction = 0.02;  // 5 x 37.7 s over about 5,300 s
  }
  {
    // Control: resumed at iteration 12000 (no argument dump), async saves that cost nothing, and a
    // long final save after the last iteration. 2026 format.
    MegatronRun run;
    run.micro = true;
    run.first = 12001;
    run.train_iters = 15000;
    StallPlan plan;
    plan.mode = SaveMode::kAsync;
    plan.async_schedule_s = 0.3;
    plan.async_slowdown = 0;
    plan.final_save_s = 95;
    const std::string head = fmt::format(
        " loading distributed checkpoint from /lustre/ckpt/gpt7b at iteration 12000\n"
        "  successfully loaded checkpoint from /lustre/ckpt/gpt7b [ t 0/8, p 0/1 ] at iteration 12000\n"
        "(min, max) time across ranks (ms):\n    load-checkpoint ................................: (41234.56, "
        "41240.12)\n"
        "training ...\n");
    FaultCase& c = w.Add("training_log_resumed_clean", "checkpoint_stall", false);
    w.Write(c, "train.log", MegatronLog(run, plan, 303, head));
  }
  {
    FaultCase& c = w.Add("torchtitan_clean", "checkpoint_stall", false);
    w.Write(c, "torchtitan.log", TorchtitanLog(404));
  }
  {
    // Rank 5 runs 9% slower (a clock-throttled, hot GPU): the others wait for it every step.
    FaultCase& c = w.Add("straggler_rank5", "straggler", true);
    w.Write(c, "train.log", StragglerLog(5, 0.09, 505));
    c.expect.gpus = {5};
    c.expect.min_loss_fraction = 0.05;  // 1 - 1/1.09 = 8.3%
  }
  {
    FaultCase& c = w.Add("straggler_clean", "straggler", false);
    w.Write(c, "train.log", StragglerLog(-1, 0, 606));
  }
}

}  // namespace paratune::faults
