// Fault cases of the telemetry area (tools/gen_faults/cases.h): nvidia-smi --query-gpu captures
// with one GPU thermally throttled, one GPU power capped and a saw-tooth utilisation (the
// input pipeline starving the GPUs), and clean controls (nvidia-smi with the 0x1 idle bit at
// the start, in both header spellings; dcgmi dmon). Formats as the tools print them
// (docs/diagnose-telemetry.md).
#include <algorithm>
#include <cmath>
#include <functional>
#include <string>

#include <fmt/format.h>

#include "cases.h"
#include "util/timestamp.h"

namespace paratune::faults {
namespace {

constexpr int kGpus = 8;
constexpr double kMaxClockMhz = 1980;  // H100 SXM boost clock (data/gpus.toml's H100 SXM)
constexpr double kPowerLimitW = 700;   // H100 SXM TDP
constexpr double kIdleClockMhz = 345;

// One GPU row of one poll.
struct Row {
  double util = 0;  // 0..1
  double clock_mhz = 0;
  double power_w = 0;
  double temp_c = 0;
  uint64_t reasons = 0;
};

// "2026/03/02 10:00:00.123", nvidia-smi's timestamp (local time, printed without a zone).
std::string SmiTime(double epoch_s) {
  const double whole = std::floor(epoch_s);
  const int ms = std::min(999, static_cast<int>(std::lround((epoch_s - whole) * 1000)));
  std::string s = FormatTimestamp(whole);
  std::replace(s.begin(), s.end(), '-', '/');
  return fmt::format("{}.{:03}", s, ms);
}

// The query: --query-gpu=timestamp,index,utilization.gpu,clocks.sm,clocks.max.sm,
// power.draw,power.limit,temperature.gpu,clocks_throttle_reasons.active --format=csv -l 1.
// `newer` prints the 535+ driver's clocks_event_reasons.active and uses --format=csv,nounits.
std::string SmiCsv(double t0, int polls, Rng& rng, const std::function<Row(int gpu, int poll, Rng&)>& row,
                   bool newer = false) {
  std::string out = fmt::format(
      "timestamp, index, utilization.gpu [%], clocks.current.sm [MHz], clocks.max.sm [MHz], power.draw [W], "
      "power.limit [W], "
      "temperature.gpu, {}\n",
      newer ? "clocks_event_reasons.active" : "clocks_throttle_reasons.active");
  for (int p = 0; p < polls; ++p) {
    // nvidia-smi reads the GPUs one after the other: a few ms between rows, a little jitter.
    double t = t0 + p + 0.004 * rng.Uniform();
    for (int g = 0; g < kGpus; ++g) {
      const Row r = row(g, p, rng);
      const int util = static_cast<int>(std::lround(100 * std::clamp(r.util, 0.0, 1.0)));
      if (newer) {
        out += fmt::format("{}, {}, {}, {:.0f}, {:.0f}, {:.2f}, {:.2f}, {:.0f}, 0x{:016x}\n", SmiTime(t), g, util,
                           r.clock_mhz, kMaxClockMhz, r.power_w, kPowerLimitW, r.temp_c, r.reasons);
      } else {
        out += fmt::format("{}, {}, {} %, {:.0f} MHz, {:.0f} MHz, {:.2f} W, {:.2f} W, {:.0f}, 0x{:016x}\n", SmiTime(t),
                           g, util, r.clock_mhz, kMaxClockMhz, r.power_w, kPowerLimitW, r.temp_c, r.reasons);
      }
      t += 0.002 + 0.002 * rng.Uniform();
    }
  }
  return out;
}

// The first polls of every capture: the job has not started, the GPUs idle (NVML's 0x1).
constexpr int kIdlePolls = 20;

Row Idle(Rng& rng) { return {0, kIdleClockMhz, 68 + 4 * rng.Uniform(), 33 + 2 * rng.Uniform(), 0x1}; }

// A GPU busy with a training step: 97-100%, boost clock (a 15 MHz bin lower now and then),
// 600-690 W, 62-68 C, no reason bit.
Row Busy(int gpu, Rng& rng) {
  Row r;
  r.util = 0.97 + 0.03 * rng.Uniform();
  r.clock_mhz = rng.Uniform() < 0.1 ? kMaxClockMhz - 15 : kMaxClockMhz;
  r.power_w = 600 + 90 * rng.Uniform();
  r.temp_c = 62 + 0.5 * gpu + 3 * rng.Uniform();
  return r;
}

// The loss the throttling rules estimate for one GPU at `clock_mhz` against kMaxClockMhz over
// its throttled polls, of all `polls`: sum (1 - clock / max) / polls (docs/diagnose-telemetry.md).
struct LossTally {
  double sum = 0;
  void Add(double clock_mhz) { sum += 1 - clock_mhz / kMaxClockMhz; }
  double Of(int polls) const { return sum / polls; }
};

// The fault expectations leave room for the reference clock (the median of the unthrottled
// polls, 1980 or 1965 MHz) and the bridging of the episodes' edges.
constexpr double kLossMargin = 0.8;

void ThermalCase(CaseWriter& w) {
  // GPU 3 heats from poll 200 (68 C) to 87 C at poll 300, where the driver's SW thermal
  // slowdown (0x20) starts and the clock falls step by step to 1500 MHz; above 91 C the HW
  // thermal slowdown (0x40) joins. Throttled from poll 300 to 599 of 900.
  const double t0 = ParseTimestamp("2026-03-02 10:00:00").value();
  constexpr int kPolls = 900, kFrom = 300, kTo = 599, kGpu = 3;
  Rng rng(0x7e1e3e7a11ULL);
  LossTally loss;
  const std::string csv = SmiCsv(t0, kPolls, rng, [&](int g, int p, Rng& r) {
    if (p < kIdlePolls) return Idle(r);
    Row row = Busy(g, r);
    if (g != kGpu) return row;
    if (p >= 200 && p < kFrom) row.temp_c = 68 + 19.0 * (p - 200) / (kFrom - 200) + r.Uniform();
    if (p >= kFrom && p <= kTo) {
      const double into = static_cast<double>(p - kFrom) / (kTo - kFrom);
      row.temp_c = 87 + 5 * std::min(1.0, 2 * into) + r.Uniform();
      row.reasons = 0x20 | (row.temp_c >= 91 ? 0x40 : 0);
      row.clock_mhz = std::max(1500.0, kMaxClockMhz - 15 * std::floor(480.0 / 15 * std::min(1.0, 3 * into)));
      row.power_w = 480 + 40 * r.Uniform();
      loss.Add(row.clock_mhz);
    }
    return row;
  });
  FaultCase& c = w.Add("thermal_throttling_gpu3", "thermal_throttling", true);
  w.Write(c, "nvidia_smi.csv", csv);
  c.expect.gpus = {kGpu};
  c.expect.time_ranges = {{FormatTimestamp(t0 + kFrom), FormatTimestamp(t0 + kTo)}};
  c.expect.min_loss_fraction = kLossMargin * loss.Of(kPolls);
}

void PowerCase(CaseWriter& w) {
  // GPU 6 at its 700 W cap from poll 400 to 699 of 900: SW power cap (0x4), 1650-1755 MHz,
  // the bit clear for a single poll now and then.
  const double t0 = ParseTimestamp("2026-03-02 14:30:00").value();
  constexpr int kPolls = 900, kFrom = 400, kTo = 699, kGpu = 6;
  Rng rng(0x90e4ca9ULL);
  LossTally loss;
  const std::string csv = SmiCsv(t0, kPolls, rng, [&](int g, int p, Rng& r) {
    if (p < kIdlePolls) return Idle(r);
    Row row = Busy(g, r);
    if (g != kGpu || p < kFrom || p > kTo) return row;
    row.power_w = kPowerLimitW - 1.5 * r.Uniform();
    if (p != kFrom && p != kTo && r.Uniform() < 0.05) return row;  // a poll under the cap
    row.reasons = 0x4;
    row.clock_mhz = 1650 + 15 * std::floor(7 * r.Uniform());
    loss.Add(row.clock_mhz);
    return row;
  });
  FaultCase& c = w.Add("power_throttling_gpu6", "power_throttling", true);
  w.Write(c, "nvidia_smi.csv", csv);
  c.expect.gpus = {kGpu};
  c.expect.time_ranges = {{FormatTimestamp(t0 + kFrom), FormatTimestamp(t0 + kTo)}};
  c.expect.min_loss_fraction = kLossMargin * loss.Of(kPolls);
}

void SawToothCase(CaseWriter& w) {
  // The input pipeline starves all eight GPUs every 12 s: 7 polls busy, then the utilisation
  // falls away (60%, 25%, 8%) to idle for 2 polls (0x1, the clock dropping) while the loader
  // refills its queue.
  const double t0 = ParseTimestamp("2026-03-03 08:00:00").value();
  constexpr int kPolls = 600, kPeriod = 12;
  constexpr double kShape[kPeriod] = {0.98, 0.99, 0.99, 0.98, 0.99, 0.98, 0.97, 0.60, 0.25, 0.08, 0.0, 0.0};
  Rng rng(0x5a77007fULL);
  const std::string csv = SmiCsv(t0, kPolls, rng, [&](int g, int p, Rng& r) {
    if (p < kIdlePolls) return Idle(r);
    Row row = Busy(g, r);
    const double u = kShape[(p - kIdlePolls) % kPeriod];
    row.util = u == 0 ? 0 : std::clamp(u + 0.02 * (r.Uniform() - 0.5), 0.0, 1.0);
    if (u == 0) {
      row.reasons = 0x1;
      row.clock_mhz = 1410;
      row.power_w = 120 + 20 * r.Uniform();
    } else if (u < 0.9) {
      row.power_w = 150 + 500 * u;
    }
    return row;
  });
  FaultCase& c = w.Add("data_starvation_sawtooth", "data_starvation", true);
  w.Write(c, "nvidia_smi.csv", csv);
  c.expect.gpus = {0, 1, 2, 3, 4, 5, 6, 7};
  c.expect.period_s = kPeriod;
  c.expect.time_ranges = {{FormatTimestamp(t0 + kIdlePolls), FormatTimestamp(t0 + kPolls - 1)}};
  // Busy 7 of 12 polls near 0.985, the rest 0.93 of a poll in all: about 1 - 7.83/12/0.99 = 0.34.
  c.expect.min_loss_fraction = 0.2;
}

void CleanCases(CaseWriter& w) {
  // Steady training after the idle start, in the older header spelling with units.
  {
    const double t0 = ParseTimestamp("2026-03-04 09:00:00").value();
    Rng rng(0xc1ea11ULL);
    const std::string csv = SmiCsv(t0, 600, rng, [](int g, int p, Rng& r) { return p < 30 ? Idle(r) : Busy(g, r); });
    FaultCase& c = w.Add("gpu_telemetry_clean", "thermal_throttling", false);
    w.Write(c, "nvidia_smi.csv", csv);
  }
  // The same in the 535+ driver's spelling with --format=csv,nounits, and a single poll of the
  // SW power cap on one GPU (a transient, not sustained).
  {
    const double t0 = ParseTimestamp("2026-03-04 11:00:00").value();
    Rng rng(0xc1ea12ULL);
    const std::string csv = SmiCsv(
        t0, 600, rng,
        [](int g, int p, Rng& r) {
          if (p < 25) return Idle(r);
          Row row = Busy(g, r);
          if (g == 2 && p == 300) row.reasons = 0x4, row.clock_mhz = 1905, row.power_w = 699.8;
          return row;
        },
        /*newer=*/true);
    FaultCase& c = w.Add("gpu_telemetry_clean_nounits", "power_throttling", false);
    w.Write(c, "nvidia_smi.csv", csv);
  }
  // dcgmi dmon -e 1001,1002,1003,1004,1005 -d 1000 of a steady job: the header pair printed again
  // every 20 samples, N/A for the first sample of the profiling fields.
  {
    Rng rng(0xdc6a1ULL);
    std::string out;
    const std::string header =
        "#Entity   GRACT        SMACT        SMOCC        TENSO        DRAMA\n"
        "ID\n";
    for (int s = 0; s < 300; ++s) {
      if (s % 20 == 0) out += header;
      for (int g = 0; g < kGpus; ++g) {
        if (s == 0) {
          out += fmt::format("GPU {}     N/A          N/A          N/A          N/A          N/A\n", g);
          continue;
        }
        out += fmt::format("GPU {}     {:.3f}        {:.3f}        {:.3f}        {:.3f}        {:.3f}\n", g,
                           0.97 + 0.02 * rng.Uniform(), 0.84 + 0.04 * rng.Uniform(), 0.43 + 0.04 * rng.Uniform(),
                           0.33 + 0.05 * rng.Uniform(), 0.38 + 0.06 * rng.Uniform());
      }
    }
    FaultCase& c = w.Add("dcgmi_dmon_clean", "data_starvation", false);
    w.Write(c, "dcgmi_dmon.txt", out);
  }
}

}  // namespace

void AddTelemetryCases(CaseWriter& w) {
  ThermalCase(w);
  PowerCase(w);
  SawToothCase(w);
  CleanCases(w);
}

}  // namespace paratune::faults
