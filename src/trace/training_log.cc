// Training-log reader (trace/training_log.h). Hand-written matchers, one pass over the lines, no
// regular expressions. The formats, as the tools print them (docs/diagnose-logs.md):
//
// Megatron-LM iteration line, megatron/training/training.py training_log():
//   " [%Y-%m-%d %H:%M:%S] iteration {:8d}/{:8d} | consumed samples: {:12d} | elapsed time per
//   iteration (ms): {:.1f} | throughput per GPU (TFLOP/s/GPU): {:.1f} | learning rate: {:.6E} |
//   global batch size: {:5d} | lm loss: {:.6E} | loss scale: {:.1f} | grad norm: {:.3f} | ...
//   number of nan iterations: {:3d} |" (2026: the timestamp has ".%f" microseconds; before 2023
//   no timestamp at all). Every field is " key: value |"; unknown keys (MoE, RL, energy) are skipped.
// Timer blocks, megatron/core/timers.py _get_global_min_max_time_string():
//   "(min, max) time across ranks (ms):" then rows "\n    {name + ' ' ljust 48 with '.'}: ({:.2f}, {:.2f})",
//   or "max time across ranks (ms):" with rows "...: {:.2f}".
// Checkpoints, megatron/training/checkpointing.py save_checkpoint():
//   "[ts] saving checkpoint at iteration {:7d} to DIR in FORMAT format",
//   "  [ts] scheduled an async checkpoint save at iteration {:7d} to DIR",
//   "  [ts] successfully saved checkpoint from iteration {:7d} to DIR [ t 0/1, p 0/1 ]"
//   (before 2026 without "[ts]"; before May 2024 "successfully saved checkpoint at iteration").
// StragglerDetector, megatron/core/utils.py StragglerDetector.report():
//   "[%Y-%m-%d %H:%M:%S] | MnRtt/Rnk: {v:.2f}ms/{rank} | MxRtt/Rnk: ... | MnPwr/Rnk: ...W/r |
//   MxPwr | MnTmp ...C | MxTmp | MnUtl ...% | MxUtl | MnClk ...MHz | MxClk | MnDRtt ...ms |
//   MxDRtt | MnEtpt/Rnk: {:.2f}TF/{rank} | MxEtpt/Rnk: {:.2f}TF/{rank}". The power comes from
//   torch.cuda.power_draw(), which returns milliwatts (PyTorch docs, torch.cuda.power_draw), although
//   the line prints "W"; it is read as mW.
// torchtitan, torchtitan/components/metrics.py MetricsProcessor.log() through the logger of
// torchtitan/tools/logging.py ("[titan] %(asctime)s - %(name)s - %(levelname)s - %(message)s"):
//   "step: {:2}  loss: {:8.5f}  grad_norm: {:7.4f}  memory: {:5.2f}GiB({:.2f}%)  tps: {:,}
//   tflops: {:,.2f}  mfu: {:.2f}%", each field preceded by an ANSI colour code unless colours are
//   off; 2024 versions print "wps" for tps and no tflops/grad_norm.
// Launchers prefix lines with "[rank0]:" / "[default0]:" (torchrun) or "0: " (srun -l); these are
// stripped, and the matchers look for their markers anywhere in the line.
#include "trace/training_log.h"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <optional>

#include <fmt/format.h>

#include "util/csv.h"
#include "util/error.h"
#include "util/file.h"
#include "util/timestamp.h"
#include "util/text.h"

namespace paratune {
namespace {

using Sv = std::string_view;

[[noreturn]] void Fail(const std::string& where, int line, Sv field, const std::string& what) {
  throw InputError(fmt::format("{}:{}: {}: {}", where, line, field, what));
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

bool StartsWith(Sv s, Sv p) { return s.substr(0, p.size()) == p; }

// Removes ANSI escape sequences (CSI: ESC '[' parameters, final byte 0x40-0x7e), as torchtitan's
// colours print them. Returns `s` itself when it has none.
Sv StripAnsiInto(Sv s, std::string* buf) {
  if (s.find('\x1b') == Sv::npos) return s;
  buf->clear();
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\x1b' && i + 1 < s.size() && s[i + 1] == '[') {
      size_t j = i + 2;
      while (j < s.size() && !(s[j] >= 0x40 && s[j] <= 0x7e)) ++j;
      i = j;  // the final byte (or the end)
      continue;
    }
    buf->push_back(s[i]);
  }
  return *buf;
}

// Strips launcher prefixes: "[rank12]:", "[default3]:" (torchrun --tee / log prefixes) and
// "12: " (srun --label), repeatedly.
Sv StripLauncherPrefix(Sv s) {
  for (int round = 0; round < 4; ++round) {
    bool stripped = false;
    for (Sv tag : {Sv("[rank"), Sv("[default")}) {
      if (!StartsWith(s, tag)) continue;
      size_t p = tag.size();
      const size_t digits = p;
      while (p < s.size() && IsDigit(s[p])) ++p;
      if (p > digits && p + 1 < s.size() + 1 && s.substr(p, 2) == "]:") {
        s.remove_prefix(p + 2);
        stripped = true;
      }
    }
    if (!stripped && !s.empty() && IsDigit(s[0])) {
      size_t p = 0;
      while (p < s.size() && IsDigit(s[p])) ++p;
      if (p <= 6 && s.substr(p, 2) == ": ") {
        s.remove_prefix(p + 2);
        stripped = true;
      }
    }
    if (!stripped) break;
  }
  return s;
}

int64_t IntField(const std::string& where, int line, Sv field, Sv v) {
  int64_t x = 0;
  const NumberParse st = ParseInteger(v, &x);
  if (st == NumberParse::kOk) return x;
  if (st == NumberParse::kOutOfRange) Fail(where, line, field, Quote(v) + " overflows a 64-bit integer");
  Fail(where, line, field, Quote(v) + " is not an integer");
}

// The longest iteration a log may report (a day; the longest published steps take tens of seconds).
constexpr double kMaxIterationS = 86400;

// A finite number >= 0 (times, throughputs, sizes).
double NonNegativeField(const std::string& where, int line, Sv field, Sv v) {
  double x = 0;
  const NumberParse st = ParseNumber(v, &x);
  if (st == NumberParse::kOutOfRange) Fail(where, line, field, Quote(v) + " is out of range");
  if (st == NumberParse::kNotFinite || (st == NumberParse::kOk && x < 0))
    Fail(where, line, field, Quote(v) + " is not a finite number >= 0");
  if (st != NumberParse::kOk) Fail(where, line, field, Quote(v) + " is not a number");
  return x;
}

// A number that may be +inf (a diverged loss) but not NaN.
double LossField(const std::string& where, int line, Sv field, Sv v) {
  double x = 0;
  const NumberParse st = ParseNumber(v, &x);
  if (st == NumberParse::kOutOfRange) Fail(where, line, field, Quote(v) + " is out of range");
  const bool infinite = st == NumberParse::kNotFinite && AsciiLower(v).find("inf") != Sv::npos;
  if (infinite) return v.front() == '-' ? -HUGE_VAL : HUGE_VAL;
  if (st != NumberParse::kOk) Fail(where, line, field, Quote(v) + " is not a number");
  return x;
}

// The first "[timestamp]" in `s` (Megatron's "[2024-05-01 12:00:00]" or "[... .123456]").
std::optional<double> BracketTimestamp(Sv s, const std::string& where, int line) {
  size_t p = 0;
  while ((p = s.find('[', p)) != Sv::npos) {
    if (p + 1 < s.size() && IsDigit(s[p + 1])) {
      const size_t close = s.find(']', p + 1);
      if (close == Sv::npos) return std::nullopt;
      if (close - p - 1 <= 32) {
        const Sv text = s.substr(p + 1, close - p - 1);
        if (auto t = ParseTimestamp(text)) return t;
        // Shaped like "YYYY-MM-DD HH:MM:SS" but not a date (month 13, hour 99): not a timestamp
        // to pass over, a broken one (issue 32: "[2024-13-45 99:99:99]" was accepted).
        if (text.size() >= 19 && (text[4] == '-' || text[4] == '/') && text[13] == ':' && text[16] == ':')
          Fail(where, line, "timestamp", "'" + std::string(text) + "' is not a date and time");
      }
    }
    ++p;
  }
  return std::nullopt;
}

size_t SkipSpaces(Sv s, size_t p) {
  while (p < s.size() && s[p] == ' ') ++p;
  return p;
}
size_t SkipDigits(Sv s, size_t p) {
  while (p < s.size() && IsDigit(s[p])) ++p;
  return p;
}

// ---- Megatron iteration line -------------------------------------------------------------------

enum class MegatronField { kConsumed, kElapsedMs, kTflops, kGlobalBatch, kLmLoss };
struct MegatronKey {
  Sv key;
  MegatronField field;
};
// The fields kept (training.py training_log()); every other " key: value |" is skipped.
constexpr std::array<MegatronKey, 5> kMegatronKeys{{{"consumed samples", MegatronField::kConsumed},
                                                    {"elapsed time per iteration (ms)", MegatronField::kElapsedMs},
                                                    {"throughput per GPU (TFLOP/s/GPU)", MegatronField::kTflops},
                                                    {"global batch size", MegatronField::kGlobalBatch},
                                                    {"lm loss", MegatronField::kLmLoss}}};

// Where " iteration N/" starts in `s` (the position after "iteration"), or npos.
size_t FindIterationMarker(Sv s) {
  size_t p = 0;
  while ((p = s.find("iteration", p)) != Sv::npos) {
    const size_t after = p + 9;
    const bool word_start = p == 0 || s[p - 1] == ' ' || s[p - 1] == ']';
    size_t q = SkipSpaces(s, after);
    if (word_start && q > after && q < s.size() && IsDigit(s[q])) {
      q = SkipSpaces(s, SkipDigits(s, q));
      if (q < s.size() && s[q] == '/') return after;
    }
    p = after;
  }
  return Sv::npos;
}

// Parses a Megatron iteration line whose "iteration N/" marker ends at `after`.
IterationRecord ParseMegatronIteration(Sv s, size_t after, const std::string& where, int line) {
  IterationRecord r;
  r.line = line;
  if (auto t = BracketTimestamp(s.substr(0, after), where, line)) r.time_s = *t;
  size_t p = SkipSpaces(s, after);
  size_t q = SkipDigits(s, p);
  r.iteration = IntField(where, line, "iteration", s.substr(p, q - p));
  p = SkipSpaces(s, SkipSpaces(s, q) + 1);  // past '/'
  q = SkipDigits(s, p);
  if (q == p) Fail(where, line, "iteration", "no total after '/' (truncated line?)");
  r.train_iterations = IntField(where, line, "iteration", s.substr(p, q - p));
  p = SkipSpaces(s, q);
  if (p >= s.size() || s[p] != '|') Fail(where, line, "iteration", "no '|' after \"N/ M\" (truncated line?)");
  Sv rest = s.substr(p + 1);
  bool have_elapsed = false;
  Sv last_key = "iteration";
  while (true) {
    const size_t bar = rest.find('|');
    if (bar == Sv::npos) {
      if (!TrimBlanks(rest).empty())
        Fail(where, line, last_key,
             "the line ends without the closing '|' after " + Quote(TrimBlanks(rest)) + " (truncated line?)");
      break;
    }
    const Sv seg = TrimBlanks(rest.substr(0, bar));
    rest.remove_prefix(bar + 1);
    if (seg.empty()) continue;
    const size_t colon = seg.rfind(':');
    if (colon == Sv::npos) Fail(where, line, Quote(seg), "a field without ': value'");
    const Sv key = TrimBlanks(seg.substr(0, colon)), value = TrimBlanks(seg.substr(colon + 1));
    last_key = key;
    for (const auto& k : kMegatronKeys) {
      if (key != k.key) continue;
      switch (k.field) {
        case MegatronField::kConsumed:
          r.consumed_samples = IntField(where, line, key, value);
          break;
        case MegatronField::kElapsedMs:
          r.elapsed_per_iteration_s = NonNegativeField(where, line, key, value) * 1e-3;
          // An iteration takes time, and less than a day (issue 32: 0 ms and 1e308 ms were read).
          if (!(r.elapsed_per_iteration_s > 0 && r.elapsed_per_iteration_s <= kMaxIterationS))
            Fail(where, line, key, Quote(value) + " is not an iteration time (above 0, at most a day)");
          have_elapsed = true;
          break;
        case MegatronField::kTflops:
          r.tflops_per_gpu = NonNegativeField(where, line, key, value);
          break;
        case MegatronField::kGlobalBatch:
          r.global_batch_size = IntField(where, line, key, value);
          break;
        case MegatronField::kLmLoss:
          r.loss = LossField(where, line, key, value);
          break;
      }
    }
  }
  if (!have_elapsed) Fail(where, line, "elapsed time per iteration (ms)", "missing from the iteration line");
  return r;
}

// ---- checkpoint lines ----------------------------------------------------------------------------

struct CheckpointMarker {
  Sv text;
  CheckpointEventKind kind;
};
constexpr std::array<CheckpointMarker, 4> kCheckpointMarkers{{
    {"saving checkpoint at iteration", CheckpointEventKind::kSaveStarted},
    {"scheduled an async checkpoint save at iteration", CheckpointEventKind::kAsyncScheduled},
    {"successfully saved checkpoint from iteration", CheckpointEventKind::kSaved},
    {"successfully saved checkpoint at iteration", CheckpointEventKind::kSaved},
}};

bool ParseCheckpointLine(Sv s, const std::string& where, int line, CheckpointEvent* ev) {
  for (const auto& m : kCheckpointMarkers) {
    const size_t at = s.find(m.text);
    if (at == Sv::npos) continue;
    size_t p = SkipSpaces(s, at + m.text.size());
    const size_t q = SkipDigits(s, p);
    if (q == p) Fail(where, line, m.text, "no iteration number after it");
    ev->line = line;
    ev->kind = m.kind;
    ev->iteration = IntField(where, line, "checkpoint iteration", s.substr(p, q - p));
    if (auto t = BracketTimestamp(s.substr(0, at), where, line)) ev->time_s = *t;
    return true;
  }
  return false;
}

// ---- timer blocks -------------------------------------------------------------------------------

// A row "    name .......: (1.23, 4.56)" (or ": 4.56" in a max-only block). False when `s` is not
// indented like a row (the block has ended).
bool ParseTimerRow(Sv s, bool min_max, const std::string& where, int line, TimerSample* t) {
  if (s.size() < 2 || s[0] != ' ' || s[1] != ' ') return false;
  const Sv body = TrimBlanks(s);
  const size_t colon = body.rfind(": ");
  if (colon == Sv::npos) return false;
  Sv name = body.substr(0, colon);
  // timers.py pads "name " with dots to 48 characters: a row has " ." unless the name is longer.
  if (name.find(" .") == Sv::npos && name.size() < 47) return false;
  while (!name.empty() && (name.back() == '.' || name.back() == ' ')) name.remove_suffix(1);
  if (name.empty()) return false;
  const Sv value = TrimBlanks(body.substr(colon + 2));
  if (value.empty() || (min_max ? value.front() != '(' : !IsDigit(value.front()))) return false;
  t->line = line;
  t->name = std::string(name);
  const std::string field = "timer " + t->name;
  if (min_max) {
    if (value.size() < 2 || value.back() != ')')
      Fail(where, line, field, Quote(value) + " is not \"(min, max)\" (truncated line?)");
    const Sv inner = value.substr(1, value.size() - 2);
    const size_t comma = inner.find(',');
    if (comma == Sv::npos) Fail(where, line, field, Quote(value) + " is not \"(min, max)\"");
    t->min_s = NonNegativeField(where, line, field, TrimBlanks(inner.substr(0, comma))) * 1e-3;
    t->max_s = NonNegativeField(where, line, field, TrimBlanks(inner.substr(comma + 1))) * 1e-3;
    if (t->min_s > t->max_s) Fail(where, line, field, Quote(value) + ": min is larger than max");
  } else {
    t->max_s = NonNegativeField(where, line, field, value) * 1e-3;
  }
  return true;
}

// ---- StragglerDetector --------------------------------------------------------------------------

struct StragglerKey {
  Sv key;        // before "/Rnk:"
  Sv unit;       // as printed after the number
  double scale;  // to SI (or a fraction)
  double StragglerDetectorLine::*value;
  int StragglerDetectorLine::*rank;
};
// megatron/core/utils.py StragglerDetector.report() and _min_max() (units from _ValueWithRank).
const std::array<StragglerKey, 14> kStragglerKeys{{
    {"MnRtt", "ms", 1e-3, &StragglerDetectorLine::min_rtt_s, &StragglerDetectorLine::min_rtt_rank},
    {"MxRtt", "ms", 1e-3, &StragglerDetectorLine::max_rtt_s, &StragglerDetectorLine::max_rtt_rank},
    {"MnPwr", "W", 1e-3, &StragglerDetectorLine::min_power_w, &StragglerDetectorLine::min_power_rank},  // mW, see top
    {"MxPwr", "W", 1e-3, &StragglerDetectorLine::max_power_w, &StragglerDetectorLine::max_power_rank},
    {"MnTmp", "C", 1, &StragglerDetectorLine::min_temp_c, &StragglerDetectorLine::min_temp_rank},
    {"MxTmp", "C", 1, &StragglerDetectorLine::max_temp_c, &StragglerDetectorLine::max_temp_rank},
    {"MnUtl", "%", 1e-2, &StragglerDetectorLine::min_util_fraction, &StragglerDetectorLine::min_util_rank},
    {"MxUtl", "%", 1e-2, &StragglerDetectorLine::max_util_fraction, &StragglerDetectorLine::max_util_rank},
    {"MnClk", "MHz", 1e6, &StragglerDetectorLine::min_clock_hz, &StragglerDetectorLine::min_clock_rank},
    {"MxClk", "MHz", 1e6, &StragglerDetectorLine::max_clock_hz, &StragglerDetectorLine::max_clock_rank},
    {"MnDRtt", "ms", 1e-3, &StragglerDetectorLine::min_data_rtt_s, &StragglerDetectorLine::min_data_rtt_rank},
    {"MxDRtt", "ms", 1e-3, &StragglerDetectorLine::max_data_rtt_s, &StragglerDetectorLine::max_data_rtt_rank},
    {"MnEtpt", "TF", 1e12, &StragglerDetectorLine::min_etpt_flops, &StragglerDetectorLine::min_etpt_rank},
    {"MxEtpt", "TF", 1e12, &StragglerDetectorLine::max_etpt_flops, &StragglerDetectorLine::max_etpt_rank},
}};

StragglerDetectorLine ParseStragglerLine(Sv s, const std::string& where, int line) {
  StragglerDetectorLine d;
  d.line = line;
  const size_t first = s.find("MnRtt/Rnk:");
  if (auto t = BracketTimestamp(s.substr(0, first), where, line)) d.time_s = *t;
  Sv rest = s.substr(first);
  uint32_t seen = 0;
  while (!rest.empty()) {
    const size_t bar = rest.find('|');
    const Sv seg = TrimBlanks(rest.substr(0, bar));
    rest = bar == Sv::npos ? Sv() : rest.substr(bar + 1);
    if (seg.empty()) continue;
    const size_t tag = seg.find("/Rnk:");
    if (tag == Sv::npos)
      Fail(where, line, Quote(seg),
           "not a \"Key/Rnk: value/rank\" field of a StragglerDetector line (truncated line?)");
    const Sv key = TrimBlanks(seg.substr(0, tag)), value = TrimBlanks(seg.substr(tag + 5));
    for (size_t i = 0; i < kStragglerKeys.size(); ++i) {
      const auto& k = kStragglerKeys[i];
      if (key != k.key) continue;
      const std::string field = std::string(key) + "/Rnk";
      const size_t slash = value.rfind('/');
      if (slash == Sv::npos) Fail(where, line, field, Quote(value) + " has no \"/rank\"");
      const int64_t rank = IntField(where, line, field, value.substr(slash + 1));
      if (rank < 0 || rank > (1 << 24)) Fail(where, line, field, fmt::format("rank {} is out of range", rank));
      Sv num = value.substr(0, slash);
      if (num.size() < k.unit.size() || num.substr(num.size() - k.unit.size()) != k.unit)
        Fail(where, line, field, Quote(value) + " does not have the unit \"" + std::string(k.unit) + "\"");
      num.remove_suffix(k.unit.size());
      d.*(k.value) = NonNegativeField(where, line, field, num) * k.scale;
      d.*(k.rank) = static_cast<int>(rank);
      seen |= 1u << i;
    }
  }
  for (size_t i : {size_t{0}, size_t{1}, size_t{12}, size_t{13}})
    if (!(seen & (1u << i)))
      Fail(where, line, std::string(kStragglerKeys[i].key) + "/Rnk",
           "missing from the StragglerDetector line (truncated line?)");
  return d;
}

// ---- torchtitan ---------------------------------------------------------------------------------

// The message of a torchtitan step line ("step: 10  loss: ..."), its timestamp from "[titan] ts - ",
// or npos-like empty when the line is not one.
bool TorchtitanMessage(Sv s, Sv* message, double* time_s) {
  const size_t titan = s.find("[titan] ");
  if (titan != Sv::npos) {
    const Sv after = s.substr(titan + 8);
    const size_t dash = after.find(" - ");
    if (dash != Sv::npos)
      if (auto t = ParseTimestamp(after.substr(0, dash))) *time_s = *t;
    const size_t info = after.find(" - INFO - ");
    s = info == Sv::npos ? after : after.substr(info + 10);
  }
  s = TrimBlanks(s);
  if (!StartsWith(s, "step:")) return false;
  if (s.find("loss:") == Sv::npos) return false;
  *message = s;
  return true;
}

// "6,543" -> 6543: torchtitan prints tps and tflops with thousands separators.
std::string WithoutCommas(Sv v) {
  std::string s;
  for (char c : v)
    if (c != ',') s += c;
  return s;
}

IterationRecord ParseTorchtitanStep(Sv msg, double time_s, const std::string& where, int line) {
  IterationRecord r;
  r.line = line;
  r.time_s = time_s;
  bool have_step = false, have_tps = false;
  size_t p = 0;
  while (p < msg.size()) {
    p = SkipSpaces(msg, p);
    size_t q = p;
    while (q < msg.size() && msg[q] != ' ') ++q;
    const Sv tok = msg.substr(p, q - p);
    p = q;
    if (tok.size() < 2 || tok.back() != ':') continue;
    const Sv key = tok.substr(0, tok.size() - 1);
    p = SkipSpaces(msg, p);
    q = p;
    while (q < msg.size() && msg[q] != ' ') ++q;
    const Sv value = msg.substr(p, q - p);
    p = q;
    if (key == "step") {
      r.iteration = IntField(where, line, "step", value);
      have_step = true;
    } else if (key == "loss") {
      r.loss = LossField(where, line, "loss", value);
    } else if (key == "tps" || key == "wps") {
      r.tokens_per_s_per_gpu = NonNegativeField(where, line, key, WithoutCommas(value));
      have_tps = true;
    } else if (key == "tflops") {
      r.tflops_per_gpu = NonNegativeField(where, line, key, WithoutCommas(value));
    } else if (key == "mfu") {
      if (value != "N/A") {
        if (value.empty() || value.back() != '%') Fail(where, line, "mfu", Quote(value) + " is not a percentage");
        r.mfu_fraction = NonNegativeField(where, line, "mfu", value.substr(0, value.size() - 1)) / 100.0;
      }
    }
  }
  if (!have_step) Fail(where, line, "step", "missing value");
  if (!have_tps) Fail(where, line, "tps", "missing from the torchtitan step line (truncated line?)");
  return r;
}

// ---- plain CSV ----------------------------------------------------------------------------------

// Accepted header names (case-insensitive, blanks trimmed): docs/diagnose-logs.md lists them.
constexpr std::array<Sv, 8> kCsvTimeNames{"timestamp", "time",   "datetime", "date",
                                          "wall_time", "time_s", "epoch_s",  "unix_time"};
constexpr std::array<Sv, 9> kCsvTokensNames{
    "tokens_per_s", "tokens/s", "tokens_per_sec",          "tokens_per_second",   "tokens_s",
    "tok/s",        "tps",      "throughput_tokens_per_s", "tokens_per_s_per_gpu"};
constexpr std::array<Sv, 3> kCsvIterationNames{"iteration", "step", "iter"};

std::string Lower(Sv s) { return AsciiLower(TrimBlanks(s)); }

template <size_t N>
int LogColumnOf(const std::vector<std::string>& header, const std::array<Sv, N>& names) {
  for (size_t i = 0; i < header.size(); ++i) {
    const std::string h = Lower(header[i]);
    for (Sv n : names)
      if (h == n) return static_cast<int>(i);
  }
  return -1;
}

// The header fields of the first non-blank line when it names a time and a tokens/s column.
bool LooksLikeCsvHeader(Sv text) {
  if (StartsWith(text, "\xef\xbb\xbf")) text.remove_prefix(3);
  size_t p = 0;
  while (p < text.size()) {
    size_t e = text.find('\n', p);
    if (e == Sv::npos) e = text.size();
    const Sv line = TrimBlanks(text.substr(p, e - p));
    p = e + 1;
    if (line.empty()) continue;
    std::vector<std::string> fields;
    size_t s = 0;
    while (true) {
      const size_t c = line.find(',', s);
      fields.emplace_back(TrimBlanks(line.substr(s, c == Sv::npos ? Sv::npos : c - s)));
      if (c == Sv::npos) break;
      s = c + 1;
    }
    return LogColumnOf(fields, kCsvTimeNames) >= 0 && LogColumnOf(fields, kCsvTokensNames) >= 0;
  }
  return false;
}

void ParseThroughputCsv(Sv text, const std::string& where, TrainingLog* log) {
  if (StartsWith(text, "\xef\xbb\xbf")) text.remove_prefix(3);
  const std::vector<CsvRow> rows = ParseCsv(text, where);
  if (rows.empty()) throw InputError(where + ": empty CSV");
  const auto& header = rows.front().fields;
  const int tcol = LogColumnOf(header, kCsvTimeNames), vcol = LogColumnOf(header, kCsvTokensNames);
  const int icol = LogColumnOf(header, kCsvIterationNames);
  // The header as the CSV reader parses it (a quoted field may span lines, so it can differ from
  // the first line that made the file look like a tokens/s CSV).
  if (tcol < 0 || vcol < 0)
    throw InputError(where + ":" + std::to_string(rows.front().line) + ": the CSV header names no " +
                     (tcol < 0 ? "timestamp" : "tokens/s") + " column");
  log->format = TrainingLogFormat::kThroughputCsv;
  log->lines = static_cast<int64_t>(rows.size());
  for (size_t i = 1; i < rows.size(); ++i) {
    const CsvRow& row = rows[i];
    IterationRecord r;
    r.line = row.line;
    const Sv tv = TrimBlanks(row.fields[tcol]);
    double t = 0;
    if (ParseNumber(tv, &t) == NumberParse::kOk) {
      r.time_s = t;  // seconds since the epoch
    } else if (auto ts = ParseTimestamp(tv)) {
      r.time_s = *ts;
    } else {
      Fail(where, row.line, header[tcol], Quote(tv) + " is neither epoch seconds nor \"YYYY-MM-DD HH:MM:SS\"");
    }
    r.tokens_per_s_per_gpu = NonNegativeField(where, row.line, header[vcol], TrimBlanks(row.fields[vcol]));
    if (icol >= 0) r.iteration = IntField(where, row.line, header[icol], TrimBlanks(row.fields[icol]));
    log->iterations.push_back(r);
  }
}

// ---- the line loop ------------------------------------------------------------------------------

struct Parser {
  Parser(const std::string& w, TrainingLog* l) : where(w), log(l) {}
  const std::string& where;
  TrainingLog* log;
  std::string ansi_buf;
  bool in_timer_block = false;
  bool timer_min_max = true;
  double last_time_s = kNotGiven;
  int64_t last_iteration = -1;
  bool any_iteration = false;

  // Returns true when the line matched a pattern.
  bool Line(Sv raw, int line) {
    Sv s = StripLauncherPrefix(StripAnsiInto(raw, &ansi_buf));
    if (in_timer_block) {
      TimerSample t;
      if (ParseTimerRow(s, timer_min_max, where, line, &t)) {
        t.iteration = last_iteration;
        t.time_s = last_time_s;
        log->timers.push_back(std::move(t));
        return true;
      }
      in_timer_block = false;
    }
    if (const size_t at = s.find("time across ranks (ms):"); at != Sv::npos) {
      in_timer_block = true;
      timer_min_max = s.find("(min, max)") != Sv::npos;
      return true;
    }
    if (const size_t after = FindIterationMarker(s); after != Sv::npos) {
      IterationRecord r = ParseMegatronIteration(s, after, where, line);
      if (!any_iteration) log->format = TrainingLogFormat::kMegatron;
      Add(r);
      return true;
    }
    CheckpointEvent ev;
    if (ParseCheckpointLine(s, where, line, &ev)) {
      if (std::isnan(ev.time_s))
        ev.time_s = last_time_s;
      else
        last_time_s = ev.time_s;
      log->checkpoints.push_back(ev);
      return true;
    }
    if (s.find("MnRtt/Rnk:") != Sv::npos) {
      StragglerDetectorLine d = ParseStragglerLine(s, where, line);
      if (std::isnan(d.time_s))
        d.time_s = last_time_s;
      else
        last_time_s = d.time_s;
      d.iteration = last_iteration;
      log->stragglers.push_back(d);
      return true;
    }
    Sv msg;
    double t = kNotGiven;
    if (TorchtitanMessage(s, &msg, &t)) {
      IterationRecord r = ParseTorchtitanStep(msg, t, where, line);
      if (!any_iteration) log->format = TrainingLogFormat::kTorchtitan;
      Add(r);
      return true;
    }
    // Any other line with a bracketed timestamp moves the clock (events without their own use it).
    if (s.find('[') != Sv::npos)
      if (auto bt = BracketTimestamp(s, where, line)) last_time_s = *bt;
    return false;
  }

  void Add(IterationRecord& r) {
    // The interval: the distance to the previous logged iteration; 0 for the first line and after
    // a restart (the iteration number goes back: the run resumed from an earlier checkpoint).
    if (any_iteration && r.iteration > last_iteration) r.interval_iterations = r.iteration - last_iteration;
    if (!std::isnan(r.time_s)) last_time_s = r.time_s;
    last_iteration = r.iteration;
    any_iteration = true;
    log->iterations.push_back(r);
  }
};

template <typename F>
void ForEachLine(Sv text, F&& f) {
  size_t p = 0;
  int line = 0;
  while (p < text.size()) {
    size_t e = text.find('\n', p);
    if (e == Sv::npos) e = text.size();
    ++line;
    Sv l = text.substr(p, e - p);
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    if (!f(l, line)) return;
    p = e + 1;
  }
}

}  // namespace

// Lines that open a Megatron-LM or torchtitan log before its first iteration line: Megatron's
// argument dump and world-size line (megatron/training/arguments.py _print_args(),
// validate_args()); torchtitan's logger prefix (torchtitan/tools/logging.py).
bool LooksLikeLogPreamble(Sv line) {
  line = StripLauncherPrefix(line);
  if (StartsWith(line, "------------------------ arguments ------------------------")) return true;
  if (StartsWith(line, "using world size: ") && line.find(", data-parallel size: ") != Sv::npos) return true;
  if (StartsWith(line, "[titan] ")) {
    const Sv rest = line.substr(8);
    const size_t dash = rest.find(" - ");
    return dash != Sv::npos && ParseTimestamp(rest.substr(0, dash)).has_value();
  }
  return false;
}

bool LooksLikeTrainingLog(std::string_view head) {
  if (LooksLikeCsvHeader(head)) return true;
  TrainingLog scratch;
  const std::string head_name = "(head)";
  Parser parser(head_name, &scratch);
  bool found = false;
  ForEachLine(head, [&](Sv l, int line) {
    try {
      parser.Line(l, line);
    } catch (const InputError&) {
      // A malformed line (or one cut by the end of the head) does not decide the kind.
    }
    found = !scratch.iterations.empty() || LooksLikeLogPreamble(l);
    return !found;
  });
  return found;
}

TrainingLog ParseTrainingLog(std::string_view text, const std::string& where, bool allow_partial) {
  TrainingLog log;
  log.path = where;
  if (LooksLikeCsvHeader(text)) {
    ParseThroughputCsv(text, where, &log);
    if (log.iterations.empty()) throw InputError(where + ": no data row under the CSV header");
    for (size_t i = 1; i < log.iterations.size(); ++i) {
      auto& r = log.iterations[i];
      const auto& prev = log.iterations[i - 1];
      if (r.iteration >= 0 && prev.iteration >= 0 && r.iteration > prev.iteration)
        r.interval_iterations = r.iteration - prev.iteration;
    }
    return log;
  }
  Parser parser(where, &log);
  const bool ends_cut = !text.empty() && text.back() != '\n';
  int last_line = 0;
  ForEachLine(text, [&](Sv, int line) { return last_line = line, true; });
  std::string cut_error;  // why the cut last line did not parse
  ForEachLine(text, [&](Sv l, int line) {
    ++log.lines;
    try {
      if (!parser.Line(l, line)) ++log.skipped_lines;
    } catch (const InputError& e) {
      if (ends_cut && line == last_line) {
        log.cut_last_line = line;  // a job killed mid-write: the line is incomplete, not wrong
        cut_error = e.what();
      } else if (allow_partial) {
        if (log.malformed_lines++ == 0) log.first_malformed = e.what();
      } else {
        throw;
      }
    }
    return true;
  });
  if (log.iterations.empty() && !cut_error.empty()) throw InputError(cut_error);  // nothing else to read
  if (log.iterations.empty())
    throw InputError(
        where +
        ": no training iteration line (Megatron-LM \"iteration N/ M |\", torchtitan \"step: N  loss: ...\") "
        "and no CSV header with a timestamp and a tokens/s column");
  return log;
}

TrainingLog ReadTrainingLog(const std::string& path, bool allow_partial) {
  // Plain or gzip (util/file.h), bounded so that memory stays bounded whatever the input.
  return ParseTrainingLog(ReadMaybeGzipFile(path, size_t{4} << 30), path, allow_partial);
}

std::vector<std::string> TrainingLogNotes(const TrainingLog& log) {
  std::vector<std::string> notes;
  if (log.cut_last_line > 0)
    notes.push_back(log.path + ":" + std::to_string(log.cut_last_line) +
                    ": the file ends inside this line (the job stopped mid-write); it is ignored");
  if (log.malformed_lines > 0)
    notes.push_back(log.path + ": " + std::to_string(log.malformed_lines) +
                    " malformed line(s) skipped (--allow-partial); the first: " + log.first_malformed);
  return notes;
}

}  // namespace paratune
