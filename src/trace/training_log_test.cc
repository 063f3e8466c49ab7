#include "trace/training_log.h"

#include <gtest/gtest.h>

#include <zlib.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "util/error.h"
#include "util/test_util.h"
#include "util/timestamp.h"

namespace paratune {
namespace {

// Lines as Megatron-LM prints them (megatron/training/training.py training_log(), 2024 form).
constexpr const char* kMegatron2024 =
    "using world size: 64, data-parallel size: 8\n"
    " [2024-05-01 12:00:00] iteration    12010/  500000 | consumed samples:      6149120 | elapsed time per iteration "
    "(ms): 1234.5 | "
    "throughput per GPU (TFLOP/s/GPU): 412.3 | learning rate: 1.000000E-04 | global batch size:   512 | lm loss: "
    "2.345678E+00 | "
    "loss scale: 1.0 | grad norm: 0.321 | number of skipped iterations:   0 | number of nan iterations:   0 |\n"
    " [2024-05-01 12:00:12] iteration    12020/  500000 | consumed samples:      6154240 | elapsed time per iteration "
    "(ms): 1200.0 | "
    "throughput per GPU (TFLOP/s/GPU): 424.1 | learning rate: 1.000000E-04 | global batch size:   512 | lm loss: "
    "2.300000E+00 | "
    "loss scale: 1.0 | grad norm: 0.300 | number of skipped iterations:   0 | number of nan iterations:   0 |\n";

TEST(TrainingLog, ReadsMegatronIterationLines) {
  const TrainingLog log = ParseTrainingLog(kMegatron2024, "train.log");
  EXPECT_EQ(log.format, TrainingLogFormat::kMegatron);
  ASSERT_EQ(log.iterations.size(), 2u);
  const IterationRecord& a = log.iterations[0];
  EXPECT_EQ(a.line, 2);
  EXPECT_EQ(a.iteration, 12010);
  EXPECT_EQ(a.train_iterations, 500000);
  EXPECT_EQ(a.interval_iterations, 0);  // the first line of a resumed log: interval unknown
  EXPECT_DOUBLE_EQ(a.time_s, *ParseTimestamp("2024-05-01 12:00:00"));
  EXPECT_DOUBLE_EQ(a.elapsed_per_iteration_s, 1.2345);
  EXPECT_DOUBLE_EQ(a.tflops_per_gpu, 412.3);
  EXPECT_DOUBLE_EQ(a.loss, 2.345678);
  EXPECT_EQ(a.global_batch_size, 512);
  EXPECT_EQ(a.consumed_samples, 6149120);
  EXPECT_TRUE(std::isnan(a.tokens_per_s_per_gpu));
  EXPECT_EQ(log.iterations[1].interval_iterations, 10);
  EXPECT_DOUBLE_EQ(log.iterations[1].time_s - a.time_s, 12.0);
  EXPECT_EQ(log.lines, 3);
  EXPECT_EQ(log.skipped_lines, 1);
}

TEST(TrainingLog, Reads2026FractionalSecondsAndLauncherPrefixes) {
  const std::string text =
      "[rank7]: [2026-03-01 12:00:00.123456] iteration      100/    1000 | consumed samples:        51200 | "
      "elapsed time per iteration (ms): 999.9 | global batch size:   512 | lm loss: 7.000000E+00 | loss scale: 1.0 | "
      "number of skipped iterations:   0 | number of nan iterations:   0 |\n"
      "3:  [2026-03-01 12:00:10.623456] iteration      110/    1000 | consumed samples:        56320 | "
      "elapsed time per iteration (ms): 1050.0 | global batch size:   512 | loss scale: 1.0 | "
      "number of skipped iterations:   0 | number of nan iterations:   0 |\n";
  const TrainingLog log = ParseTrainingLog(text, "t.log");
  ASSERT_EQ(log.iterations.size(), 2u);
  EXPECT_NEAR(log.iterations[0].time_s, *ParseTimestamp("2026-03-01 12:00:00") + 0.123456, 1e-6);
  EXPECT_NEAR(log.iterations[1].time_s - log.iterations[0].time_s, 10.5, 1e-6);
  EXPECT_TRUE(std::isnan(log.iterations[0].tflops_per_gpu));  // --log-throughput off
  EXPECT_TRUE(std::isnan(log.iterations[1].loss));
  EXPECT_EQ(log.iterations[1].interval_iterations, 10);
}

TEST(TrainingLog, ReadsTimerBlocksAndCheckpointLines) {
  const std::string text =
      std::string(kMegatron2024) +
      "saving checkpoint at iteration   12020 to /ckpt in torch_dist format\n"
      "  successfully saved checkpoint from iteration   12020 to /ckpt [ t 0/8, p 0/1 ]\n"
      "(min, max) time across ranks (ms):\n"
      "    save-checkpoint ................................: (12345.67, 12350.12)\n"
      "[2026-03-01 12:10:00.500000] saving checkpoint at iteration   12500 to /ckpt in torch_dist format\n"
      "  [2026-03-01 12:10:01.000000] scheduled an async checkpoint save at iteration   12500 to /ckpt\n"
      "[rank0]:max time across ranks (ms):\n"
      "[rank0]:    forward-backward ...............................: 1100.25\n"
      "  successfully saved checkpoint at iteration     900 to /old\n"
      "some other line\n";
  const TrainingLog log = ParseTrainingLog(text, "t.log");
  ASSERT_EQ(log.checkpoints.size(), 5u);
  EXPECT_EQ(log.checkpoints[0].kind, CheckpointEventKind::kSaveStarted);
  EXPECT_EQ(log.checkpoints[0].iteration, 12020);
  EXPECT_EQ(log.checkpoints[0].line, 4);
  // No timestamp of its own: the last one seen (the iteration line before it).
  EXPECT_DOUBLE_EQ(log.checkpoints[0].time_s, *ParseTimestamp("2024-05-01 12:00:12"));
  EXPECT_EQ(log.checkpoints[1].kind, CheckpointEventKind::kSaved);
  EXPECT_EQ(log.checkpoints[1].iteration, 12020);
  EXPECT_DOUBLE_EQ(log.checkpoints[2].time_s, *ParseTimestamp("2026-03-01 12:10:00") + 0.5);
  EXPECT_EQ(log.checkpoints[3].kind, CheckpointEventKind::kAsyncScheduled);
  EXPECT_EQ(log.checkpoints[3].iteration, 12500);
  EXPECT_DOUBLE_EQ(log.checkpoints[3].time_s, *ParseTimestamp("2026-03-01 12:10:01"));
  EXPECT_EQ(log.checkpoints[4].kind, CheckpointEventKind::kSaved);
  EXPECT_EQ(log.checkpoints[4].iteration, 900);
  ASSERT_EQ(log.timers.size(), 2u);
  EXPECT_EQ(log.timers[0].name, "save-checkpoint");
  EXPECT_DOUBLE_EQ(log.timers[0].min_s, 12.34567);
  EXPECT_DOUBLE_EQ(log.timers[0].max_s, 12.35012);
  EXPECT_EQ(log.timers[0].iteration, 12020);
  EXPECT_EQ(log.timers[0].line, 7);
  EXPECT_EQ(log.timers[1].name, "forward-backward");
  EXPECT_TRUE(std::isnan(log.timers[1].min_s));
  EXPECT_DOUBLE_EQ(log.timers[1].max_s, 1.10025);
  EXPECT_EQ(log.skipped_lines, 2);  // "using world size" and "some other line"
}

// megatron/core/utils.py StragglerDetector.report(): values "{:.2f}{unit}/{rank}".
constexpr const char* kStragglerLine =
    "[2024-05-01 12:00:30] | MnRtt/Rnk: 1180.25ms/2 | MxRtt/Rnk: 1395.50ms/5 | MnPwr/Rnk: 590000.00W/5 | "
    "MxPwr/Rnk: 700000.00W/1 | MnTmp/Rnk: 55.00C/3 | MxTmp/Rnk: 71.00C/5 | MnUtl/Rnk: 97.00%/5 | MxUtl/Rnk: 100.00%/0 "
    "| "
    "MnClk/Rnk: 1410.00MHz/5 | MxClk/Rnk: 1980.00MHz/0 | MnDRtt/Rnk: 1.25ms/4 | MxDRtt/Rnk: 9.50ms/7 | "
    "MnEtpt/Rnk: 120.50TF/5 | MxEtpt/Rnk: 142.25TF/2\n";

TEST(TrainingLog, ReadsStragglerDetectorLines) {
  const std::string text = std::string(kMegatron2024) + "INFO:megatron.core.utils:" + kStragglerLine +
                           "^^^^ Bottom 2 Ranks with lowest  Etpt(TF): 120.50TF/5, 130.00TF/1,\n";
  const TrainingLog log = ParseTrainingLog(text, "t.log");
  ASSERT_EQ(log.stragglers.size(), 1u);
  const StragglerDetectorLine& d = log.stragglers[0];
  EXPECT_EQ(d.line, 4);
  EXPECT_EQ(d.iteration, 12020);
  EXPECT_DOUBLE_EQ(d.time_s, *ParseTimestamp("2024-05-01 12:00:30"));
  EXPECT_DOUBLE_EQ(d.min_rtt_s, 1.18025);
  EXPECT_EQ(d.min_rtt_rank, 2);
  EXPECT_DOUBLE_EQ(d.max_rtt_s, 1.3955);
  EXPECT_EQ(d.max_rtt_rank, 5);
  EXPECT_DOUBLE_EQ(d.min_power_w, 590.0);  // torch.cuda.power_draw() is in mW
  EXPECT_EQ(d.min_power_rank, 5);
  EXPECT_DOUBLE_EQ(d.max_temp_c, 71.0);
  EXPECT_DOUBLE_EQ(d.min_util_fraction, 0.97);
  EXPECT_DOUBLE_EQ(d.min_clock_hz, 1.41e9);
  EXPECT_EQ(d.min_clock_rank, 5);
  EXPECT_DOUBLE_EQ(d.max_data_rtt_s, 0.0095);
  EXPECT_DOUBLE_EQ(d.min_etpt_flops, 120.5e12);
  EXPECT_EQ(d.min_etpt_rank, 5);
  EXPECT_DOUBLE_EQ(d.max_etpt_flops, 142.25e12);
  EXPECT_EQ(d.max_etpt_rank, 2);
}

TEST(TrainingLog, ReadsTorchtitanWithAndWithoutColours) {
  // torchtitan/components/metrics.py MetricsProcessor.log(), colours from torchtitan/tools/utils.py.
  const std::string text =
      "[rank0]:[titan] 2025-01-01 12:00:00,123 - root - INFO - Training starts at step 1\n"
      "[rank0]:[titan] 2025-01-01 12:00:00,123 - root - INFO - \x1b[31mstep:  1  \x1b[32mloss: 12.25000  "
      "\x1b[38;2;180;60;0mgrad_norm:  3.5000  \x1b[36mmemory: 30.12GiB(38.05%)  \x1b[34mtps: 1,234  "
      "\x1b[36mtflops: 71.50  \x1b[35mmfu: 7.23%\x1b[39m\n"
      "[rank0]:[titan] 2025-01-01 12:00:10,623 - root - INFO - step: 10  loss:  7.1234  memory: 30.12GiB(38.05%)  "
      "tps: 6,543  tflops: 1,300.12  mfu: N/A\n"
      "[rank0]:[titan] 2025-01-01 12:00:11,000 - root - INFO - validate step: 10  loss:  7.5  memory: 30.12GiB(38.05%) "
      " tps: 9,000\n"
      "[titan] 2024-06-01 00:00:00,000 - root - INFO - step: 20  loss:  6.5000  memory: 30.12GiB(38.05%)  wps: 6,000  "
      "mfu: 30.35%\n";
  const TrainingLog log = ParseTrainingLog(text, "titan.log");
  EXPECT_EQ(log.format, TrainingLogFormat::kTorchtitan);
  ASSERT_EQ(log.iterations.size(), 3u);
  const auto& a = log.iterations[0];
  EXPECT_EQ(a.iteration, 1);
  EXPECT_DOUBLE_EQ(a.loss, 12.25);
  EXPECT_DOUBLE_EQ(a.tokens_per_s_per_gpu, 1234);
  EXPECT_DOUBLE_EQ(a.tflops_per_gpu, 71.5);
  EXPECT_DOUBLE_EQ(a.mfu_fraction, 0.0723);
  EXPECT_NEAR(a.time_s, *ParseTimestamp("2025-01-01 12:00:00") + 0.123, 1e-9);
  const auto& b = log.iterations[1];
  EXPECT_EQ(b.iteration, 10);
  EXPECT_EQ(b.interval_iterations, 9);
  EXPECT_DOUBLE_EQ(b.tokens_per_s_per_gpu, 6543);
  EXPECT_DOUBLE_EQ(b.tflops_per_gpu, 1300.12);
  EXPECT_TRUE(std::isnan(b.mfu_fraction));
  EXPECT_NEAR(b.time_s - a.time_s, 10.5, 1e-9);
  EXPECT_EQ(log.iterations[2].iteration, 20);  // the validation line is not a training step
  EXPECT_DOUBLE_EQ(log.iterations[2].tokens_per_s_per_gpu, 6000);
  EXPECT_DOUBLE_EQ(log.iterations[2].mfu_fraction, 0.3035);
}

TEST(TrainingLog, ReadsThroughputCsv) {
  const TrainingLog a =
      ParseTrainingLog("timestamp,tokens_per_s\n2024-05-01 12:00:00,1000.5\n2024-05-01 12:00:01.5,990\n", "t.csv");
  EXPECT_EQ(a.format, TrainingLogFormat::kThroughputCsv);
  ASSERT_EQ(a.iterations.size(), 2u);
  EXPECT_EQ(a.iterations[0].line, 2);
  EXPECT_EQ(a.iterations[0].iteration, -1);
  EXPECT_DOUBLE_EQ(a.iterations[0].tokens_per_s_per_gpu, 1000.5);
  EXPECT_DOUBLE_EQ(a.iterations[1].time_s - a.iterations[0].time_s, 1.5);
  const TrainingLog b = ParseTrainingLog("Step, Time , Tokens/s\n100,1714521600,5\n110,1714521612,6\n", "u.csv");
  ASSERT_EQ(b.iterations.size(), 2u);
  EXPECT_EQ(b.iterations[1].iteration, 110);
  EXPECT_EQ(b.iterations[1].interval_iterations, 10);
  EXPECT_DOUBLE_EQ(b.iterations[1].time_s, 1714521612.0);
}

TEST(TrainingLog, LooksLikeDetectsByContent) {
  EXPECT_TRUE(LooksLikeTrainingLog(kMegatron2024));
  EXPECT_TRUE(LooksLikeTrainingLog(
      "[titan] 2025-01-01 12:00:00,123 - root - INFO - step: 10  loss:  7.1  memory: 1GiB(1%)  tps: 6,543\n"));
  EXPECT_TRUE(LooksLikeTrainingLog("timestamp,tokens/s\n"));
  // A head cut in the middle of an iteration line still counts when an earlier one is whole.
  const std::string cut = std::string(kMegatron2024).substr(0, std::string(kMegatron2024).size() - 40);
  EXPECT_TRUE(LooksLikeTrainingLog(cut));
  EXPECT_FALSE(LooksLikeTrainingLog("timestamp, index, utilization.gpu [%]\n2024/05/01 12:00:00.000, 0, 100 %\n"));
  EXPECT_FALSE(LooksLikeTrainingLog("#  out-of-place                       in-place\n"));
  EXPECT_FALSE(LooksLikeTrainingLog(""));
  // A long argument dump: the head ends before the first iteration line.
  EXPECT_TRUE(
      LooksLikeTrainingLog("------------------------ arguments ------------------------\n  "
                           "accumulate_allreduce_grads_in_fp32 .............. True\n"));
  EXPECT_TRUE(LooksLikeTrainingLog("[rank0]:using world size: 64, data-parallel size: 8, context-parallel size: 1\n"));
  EXPECT_TRUE(
      LooksLikeTrainingLog("[titan] 2025-01-01 12:00:00,123 - root - INFO - Starting job: Llama 3 8B training\n"));
  EXPECT_FALSE(LooksLikeTrainingLog("[titan] is a word\n"));
  EXPECT_FALSE(LooksLikeTrainingLog("saving checkpoint at iteration 100 to /x\n"));
}

// ---- broken input: one InputError line naming file, line and field ----

TEST(TrainingLogBroken, TruncatedIterationLine) {
  const std::string line =
      " [2024-05-01 12:00:00] iteration      100/  500000 | consumed samples:        51200 | elapsed time per iter";
  const std::string msg = InputErrorOf([&] { ParseTrainingLog(line, "t.log"); });
  EXPECT_CONTAINS(msg, "t.log:1:");
  EXPECT_CONTAINS(msg, "truncated");
  EXPECT_CONTAINS(InputErrorOf([] { ParseTrainingLog(" iteration 100/", "t.log"); }), "t.log:1: iteration: no total");
}

// A job killed mid-write leaves its last line cut (no newline): the line is ignored with a note
// (issue 32: the whole log was rejected); --allow-partial also skips malformed lines elsewhere.
TEST(TrainingLog, CutLastLineIsIgnoredWithANote) {
  const std::string cut =
      std::string(kMegatron2024) +
      " [2024-05-01 12:00:24] iteration    12030/  500000 | consumed samples:      6159360 | elapsed time per it";
  const TrainingLog log = ParseTrainingLog(cut, "train.log");
  EXPECT_EQ(log.iterations.size(), 2u);
  EXPECT_EQ(log.cut_last_line, 4);
  ASSERT_EQ(TrainingLogNotes(log).size(), 1u);
  EXPECT_EQ(TrainingLogNotes(log)[0],
            "train.log:4: the file ends inside this line (the job stopped mid-write); it is ignored");
  // The same line with its newline is malformed, not cut: an error unless allow_partial.
  const std::string bad = cut + "\n";
  EXPECT_CONTAINS(InputErrorOf([&] { ParseTrainingLog(bad, "train.log"); }), "train.log:4:");
  const TrainingLog partial = ParseTrainingLog(
      bad + std::string(kMegatron2024).substr(std::string(kMegatron2024).find('\n') + 1), "train.log", true);
  EXPECT_EQ(partial.iterations.size(), 4u);
  EXPECT_EQ(partial.malformed_lines, 1);
  EXPECT_CONTAINS(TrainingLogNotes(partial)[0],
                  "train.log: 1 malformed line(s) skipped (--allow-partial); the first: train.log:4:");
  EXPECT_TRUE(TrainingLogNotes(ParseTrainingLog(kMegatron2024, "train.log")).empty());
}

TEST(TrainingLogBroken, NonNumberAndNanAndOverflow) {
  EXPECT_CONTAINS(InputErrorOf([] {
                    ParseTrainingLog("x\n iteration 100/ 200 | elapsed time per iteration (ms): abc |\n", "t.log");
                  }),
                  "t.log:2: elapsed time per iteration (ms): 'abc' is not a number");
  EXPECT_CONTAINS(
      InputErrorOf([] { ParseTrainingLog(" iteration 100/ 200 | elapsed time per iteration (ms): nan |\n", "t.log"); }),
      "t.log:1: elapsed time per iteration (ms): 'nan' is not a finite number >= 0");
  EXPECT_CONTAINS(InputErrorOf([] {
                    ParseTrainingLog(" iteration 99999999999999999999/ 200 | elapsed time per iteration (ms): 1 |\n",
                                     "t.log");
                  }),
                  "t.log:1: iteration: '99999999999999999999' overflows a 64-bit integer");
  EXPECT_CONTAINS(
      InputErrorOf([] { ParseTrainingLog(" iteration 1/ 2 | elapsed time per iteration (ms): 1e999 |\n", "t.log"); }),
      "out of range");
  EXPECT_CONTAINS(InputErrorOf([] { ParseTrainingLog(" iteration 1/ 2 | consumed samples: 10 |\n", "t.log"); }),
                  "t.log:1: elapsed time per iteration (ms): missing");
  EXPECT_CONTAINS(InputErrorOf([] {
                    ParseTrainingLog(
                        " iteration 1/ 2 | elapsed time per iteration (ms): 1 |\nsaving checkpoint at iteration x\n",
                        "t.log");
                  }),
                  "t.log:2: saving checkpoint at iteration: no iteration number");
  EXPECT_CONTAINS(InputErrorOf([] {
                    ParseTrainingLog(
                        " iteration 1/ 2 | elapsed time per iteration (ms): 1 |\n(min, max) time across ranks (ms):\n"
                        "    save-checkpoint ................: (1.0, x)\n",
                        "t.log");
                  }),
                  "t.log:3: timer save-checkpoint: 'x' is not a number");
  EXPECT_CONTAINS(InputErrorOf([] {
                    ParseTrainingLog("[titan] 2025-01-01 12:00:00,123 - root - INFO - step: x  loss: 1  tps: 5\n",
                                     "t.log");
                  }),
                  "t.log:1: step: 'x' is not an integer");
}

// Issue 32: a timestamp that is no date, and iterations of 0 ms or 1e308 ms, were read.
TEST(TrainingLogBroken, ImpossibleTimestampsAndIterationTimes) {
  EXPECT_EQ(InputErrorOf([] {
              ParseTrainingLog(" [2024-13-45 99:99:99] iteration 1/ 2 | elapsed time per iteration (ms): 1 |\n",
                               "t.log");
            }),
            "t.log:1: timestamp: '2024-13-45 99:99:99' is not a date and time");
  EXPECT_CONTAINS(
      InputErrorOf([] { ParseTrainingLog(" iteration 1/ 2 | elapsed time per iteration (ms): 0 |\n", "t.log"); }),
      "t.log:1: elapsed time per iteration (ms): '0' is not an iteration time (above 0, at most a day)");
  EXPECT_CONTAINS(
      InputErrorOf([] { ParseTrainingLog(" iteration 1/ 2 | elapsed time per iteration (ms): 1e308 |\n", "t.log"); }),
      "'1e308' is not an iteration time");
  EXPECT_EQ(
      ParseTrainingLog(" [2024-02-29 23:59:59] iteration 1/ 2 | elapsed time per iteration (ms): 86400000 |\n", "t.log")
          .iterations.size(),
      1u);
}

TEST(TrainingLogBroken, TruncatedStragglerLine) {
  const std::string line = std::string(kStragglerLine).substr(0, 200);
  const std::string text = std::string(kMegatron2024) + line + "\n";
  const std::string msg = InputErrorOf([&] { ParseTrainingLog(text, "t.log"); });
  EXPECT_CONTAINS(msg, "t.log:4: 'MxUtl/Rn'");
  EXPECT_CONTAINS(msg, "truncated line?");
  const std::string whole_fields =
      std::string(kMegatron2024) +
      std::string(kStragglerLine).substr(0, std::string(kStragglerLine).find(" | MnEtpt")) + "\n";
  EXPECT_CONTAINS(InputErrorOf([&] { ParseTrainingLog(whole_fields, "t.log"); }),
                  "t.log:4: MnEtpt/Rnk: missing from the StragglerDetector line");
  const std::string bad = std::string(kMegatron2024) + "| MnRtt/Rnk: 12.00s/1 | MxRtt/Rnk: 1.00ms/2 |\n";
  EXPECT_CONTAINS(InputErrorOf([&] { ParseTrainingLog(bad, "t.log"); }),
                  "t.log:4: MnRtt/Rnk: '12.00s/1' does not have the unit \"ms\"");
}

TEST(TrainingLogBroken, EmptyGarbageAndWrongHeader) {
  EXPECT_CONTAINS(InputErrorOf([] { ParseTrainingLog("", "t.log"); }), "t.log: no training iteration line");
  std::string garbage;
  for (int i = 0; i < 4096; ++i) garbage += static_cast<char>((i * 7919) % 256);
  EXPECT_CONTAINS(InputErrorOf([&] { ParseTrainingLog(garbage, "g.bin"); }), "g.bin: no training iteration line");
  // A CSV header without a tokens/s column is not a throughput CSV.
  EXPECT_CONTAINS(InputErrorOf([] { ParseTrainingLog("timestamp,loss\n2024-05-01 12:00:00,1\n", "w.csv"); }),
                  "w.csv: no training iteration line");
  EXPECT_CONTAINS(InputErrorOf([] { ParseTrainingLog("timestamp,tokens_per_s\n2024-05-01 12:00:00,fast\n", "w.csv"); }),
                  "w.csv:2: tokens_per_s: 'fast' is not a number");
  EXPECT_CONTAINS(InputErrorOf([] { ParseTrainingLog("timestamp,tokens_per_s\nyesterday,5\n", "w.csv"); }),
                  "w.csv:2: timestamp: 'yesterday' is neither epoch seconds");
  EXPECT_CONTAINS(InputErrorOf([] { ParseTrainingLog("timestamp,tokens_per_s\n2024-05-01 12:00:00\n", "w.csv"); }),
                  "w.csv");
  EXPECT_CONTAINS(InputErrorOf([] { ParseTrainingLog("timestamp,tokens_per_s\n", "w.csv"); }), "w.csv: no data row");
}

TEST(TrainingLogBroken, MissingFileAndTruncatedGzip) {
  EXPECT_CONTAINS(InputErrorOf([] { ReadTrainingLog("/nonexistent/train.log"); }),
                  "/nonexistent/train.log: cannot read");
  const std::string path = (std::filesystem::temp_directory_path() / "paratune_training_log_test.log.gz").string();
  gzFile f = gzopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  std::string big;
  for (int i = 0; i < 200; ++i) big += kMegatron2024;
  gzwrite(f, big.data(), static_cast<unsigned>(big.size()));
  gzclose(f);
  const TrainingLog whole = ReadTrainingLog(path);
  EXPECT_EQ(whole.iterations.size(), 400u);
  std::filesystem::resize_file(path, std::filesystem::file_size(path) / 2);
  EXPECT_CONTAINS(InputErrorOf([&] { ReadTrainingLog(path); }), path + ": truncated gzip stream");
  std::filesystem::remove(path);
}

TEST(TrainingLog, RestartInsideTheLogResetsTheInterval) {
  const std::string text =
      " iteration 100/ 200 | elapsed time per iteration (ms): 1.0 |\n"
      " iteration 110/ 200 | elapsed time per iteration (ms): 1.0 |\n"
      " iteration 101/ 200 | elapsed time per iteration (ms): 1.0 |\n"
      " iteration 111/ 200 | elapsed time per iteration (ms): 1.0 |\n";
  const TrainingLog log = ParseTrainingLog(text, "t.log");
  ASSERT_EQ(log.iterations.size(), 4u);
  EXPECT_EQ(log.iterations[1].interval_iterations, 10);
  EXPECT_EQ(log.iterations[2].interval_iterations, 0);
  EXPECT_EQ(log.iterations[3].interval_iterations, 10);
  EXPECT_TRUE(std::isnan(log.iterations[0].time_s));  // the pre-2023 form has no timestamp
}

// A fuzzer input (training_log_fuzz) whose first line looks like a tokens/s CSV header but whose
// header, as the CSV reader parses it, names neither column: once an out-of-range index, now one
// InputError line.
TEST(TrainingLogBroken, CsvHeaderWithoutTheColumnsItSeemedToHave) {
  const std::string text(
      "\x5b\x72\x61\x6e\x6b\x07\x30\x5d\x3a\x5b\x74\x69\x74\x61\x6e\x5d\x20\x32\x30\x32\x35\x2d\x30\x31"
      "\x2d\x30\x31\x20\x31\x32\x3a\x30\x30\x3a\x30\x30\x2c\x31\x32\x33\x20\x2d\x20\x72\x6f\x6f\x74\x20"
      "\x2d\x20\x49\x4e\x46\x4f\x20\x2d\x20\x1b\x5b\x33\x31\x6d\x73\x74\x65\x70\x3a\x20\x20\x31\x20\x20"
      "\x1b\x5b\x33\x32\x6d\x6c\x6f\x73\x73\x3a\x20\x31\x32\x2e\x32\x35\x30\x30\x30\x20\x20\x7a\x30\x2c"
      "\x31\x32\x33\x20\x2d\x20\x72\x6f\x6f\x74\x20\x2d\x20\x49\x4e\x46\x4f\x20\x2d\x20\x1b\x5b\x33\x31"
      "\x6d\x73\x74\x65\x70\x3a\x20\x20\x31\x20\x20\x1b\x5b\x33\x32\x6d\x6c\x20\x65\x3a\x34\x39\x35\x32"
      "\x39\x6d\x70\x2c\x22\x30\x30\x6c\x6f\x73\x73\x73\x74\x6f\x73\x73\x3a\x20\x31\x65\x31\x30\x20\x20"
      "\x6c\x6f\x73\x73\x3a\x20\x20\x37\x2e\x31\x32\x33\x34\x20\x20\x6d\x65\x6d\x6f\x72\x79\x3a\x20\x33"
      "\x42\x32\x2e\x31\x32\x33\x34\x20\x20\x6d\x65\x6d\x6f\x72\x79\x3a\x20\xff\xff\xff\x90\x61\x00\x00"
      "\xff\xff\xff\x20\x20\x20\x30\x36\x30\x30\x35\x2f\x20\xff\xff\xff\xff\x65\x70\x2c\x74\x69\x6d\x65"
      "\x73\x74\x61\x6d\x70\x2c\xff\x28\x6b\x65\x6e\x73\x5f\x28\x6b\x65\x6e\x73\x5f\x70\x65\x72\x2c\x74"
      "\x6f\x6b\x65\x6e\x73\x5f\x70\x65\x72\x5f\x73\x0a\x2f\x30\x30\x2c\x20\x36\x31\x33\x42\x32\x2e\x31"
      "\x28\x47\x69\x30\x33\x38\x2e\x30\x35\x25\x5b\x33\x34\x6d\x74\x32\x2c\x39\x39\x35\x32\x39\x2c\x22"
      "\x0a\x2c\x2c\x2c\x7e\x70\x73\xff\x3a\x20\x37\x3a\x29\x31\x2e",
      327);
  try {
    ParseTrainingLog(text, "x.log");
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
    EXPECT_EQ(std::string(e.what()).rfind("x.log", 0), 0u) << e.what();
    return;
  }
  FAIL() << "no InputError";
}

}  // namespace
}  // namespace paratune
