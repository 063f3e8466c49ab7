// TrainingLog: what a training run's text log says, line by line: the iteration lines with their
// timing and throughput, checkpoint saves, the "(min, max) time across ranks" timer blocks and
// Megatron's StragglerDetector lines. Read from Megatron-LM logs (2023-2026 formats), torchtitan
// metric lines, or a plain CSV of timestamp and tokens/s. A log may start mid-run (resumed) and
// may lack the argument dump; nothing here depends on either.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace paratune {

enum class TrainingLogFormat { kMegatron, kTorchtitan, kThroughputCsv };

constexpr double kNotGiven = std::numeric_limits<double>::quiet_NaN();

// One logged iteration line. Megatron prints one line per --log-interval iterations with the mean
// elapsed time over that interval; `interval_iterations` is the distance to the previous logged
// iteration (0 for the first line of the log, whose interval is unknown).
struct IterationRecord {
  int line = 0;                  // 1-based line in the file
  int64_t iteration = -1;        // -1: the format has none (CSV)
  int64_t train_iterations = 0;  // "N/ M": M; 0 when not printed
  int64_t interval_iterations = 0;
  double time_s = kNotGiven;                   // timestamp of the line, seconds since the epoch (util/timestamp.h)
  double elapsed_per_iteration_s = kNotGiven;  // "elapsed time per iteration (ms)"
  double tflops_per_gpu = kNotGiven;           // "throughput per GPU (TFLOP/s/GPU)" / torchtitan "tflops"
  double tokens_per_s_per_gpu = kNotGiven;     // torchtitan "tps"; CSV tokens/s (as the file gives it)
  double mfu_fraction = kNotGiven;             // torchtitan "mfu: 30.35%" -> 0.3035
  double loss = kNotGiven;                     // "lm loss" / torchtitan "loss"
  int64_t global_batch_size = 0;               // 0: not printed
  int64_t consumed_samples = -1;
};

enum class CheckpointEventKind {
  kSaveStarted,     // "saving checkpoint at iteration N to ..."
  kAsyncScheduled,  // "scheduled an async checkpoint save at N"
  kSaved,           // "successfully saved checkpoint (from iteration N) ..."
};

struct CheckpointEvent {
  int line = 0;
  CheckpointEventKind kind = CheckpointEventKind::kSaveStarted;
  int64_t iteration = -1;
  double time_s = kNotGiven;  // the line's own timestamp if it has one, else the last one seen
};

// One row of a "(min, max) time across ranks (ms):" block, e.g. "save-checkpoint ....: (12.3, 45.6)".
struct TimerSample {
  int line = 0;
  std::string name;  // "save-checkpoint", "forward-backward", ...
  double min_s = kNotGiven;
  double max_s = kNotGiven;
  int64_t iteration = -1;     // the last iteration logged before the block
  double time_s = kNotGiven;  // the last timestamp seen before the block
};

// One StragglerDetector report line (megatron/core/utils.py, StragglerDetector.report): the
// minimum and maximum over ranks, with the rank, of round-trip time, power, temperature,
// utilisation, clock and estimated throughput.
struct StragglerDetectorLine {
  int line = 0;
  int64_t iteration = -1;  // the last iteration logged before it
  double time_s = kNotGiven;
  double min_rtt_s = kNotGiven, max_rtt_s = kNotGiven;
  int min_rtt_rank = -1, max_rtt_rank = -1;
  double min_power_w = kNotGiven, max_power_w = kNotGiven;
  int min_power_rank = -1, max_power_rank = -1;
  double min_temp_c = kNotGiven, max_temp_c = kNotGiven;
  int min_temp_rank = -1, max_temp_rank = -1;
  double min_util_fraction = kNotGiven, max_util_fraction = kNotGiven;
  int min_util_rank = -1, max_util_rank = -1;
  double min_clock_hz = kNotGiven, max_clock_hz = kNotGiven;
  int min_clock_rank = -1, max_clock_rank = -1;
  double min_etpt_flops = kNotGiven, max_etpt_flops = kNotGiven;  // "MnEtpt/Rnk: 123.45TF/3" -> FLOP/s
  int min_etpt_rank = -1, max_etpt_rank = -1;
  // "MnDRtt/Rnk" / "MxDRtt/Rnk": the longest get_batch (data loading) time of the interval.
  double min_data_rtt_s = kNotGiven, max_data_rtt_s = kNotGiven;
  int min_data_rtt_rank = -1, max_data_rtt_rank = -1;
};

struct TrainingLog {
  std::string path;
  TrainingLogFormat format = TrainingLogFormat::kMegatron;
  std::vector<IterationRecord> iterations;  // in file order
  std::vector<CheckpointEvent> checkpoints;
  std::vector<TimerSample> timers;
  std::vector<StragglerDetectorLine> stragglers;
  int64_t lines = 0;          // lines read
  int64_t skipped_lines = 0;  // lines that matched no pattern (ordinary log noise)
  // The last line when the file ends inside it (no newline: a job killed mid-write) and it does
  // not parse: ignored; 0 when none.
  int64_t cut_last_line = 0;
  // With allow_partial: lines that match a pattern but do not parse, skipped; the first one's
  // error. Without it such a line is an error.
  int64_t malformed_lines = 0;
  std::string first_malformed;
};

// True when the first few kilobytes of a file look like a log this reader understands (an
// iteration line, a torchtitan step line, or a CSV header naming a timestamp and a tokens/s
// column; or, since a long argument dump can push the first iteration line past the head, the
// line that opens Megatron-LM's argument dump or its "using world size: N, data-parallel size:"
// line, or a torchtitan "[titan] <timestamp> - " logger line). Used to detect a file's kind from
// its content.
bool LooksLikeTrainingLog(std::string_view head);

// Parses a whole log. `where` names the file in errors. A line that matches a pattern but has a
// malformed value (an iteration number that overflows, "nan" elapsed time, a timestamp that is
// not a date) is an InputError naming the file, line and field; lines matching no pattern are
// skipped and counted. A last line cut short by the end of the file (no newline) that does not
// parse is ignored (cut_last_line says which). With `allow_partial`, a malformed line anywhere
// is skipped and counted (malformed_lines) instead. A log with no iteration line at all is an
// InputError.
TrainingLog ParseTrainingLog(std::string_view text, const std::string& where, bool allow_partial = false);

// Reads a file (plain or .gz) and parses it.
TrainingLog ReadTrainingLog(const std::string& path, bool allow_partial = false);

// The notes a reader of `log` should see (a cut last line, malformed lines skipped), one line each.
std::vector<std::string> TrainingLogNotes(const TrainingLog& log);

}  // namespace paratune
