// Rules thermal_throttling and power_throttling (issue 11, rule 7): sustained clock drops on a
// GPU while nvidia-smi reports a thermal or power reason bit (trace/gpu_telemetry.h,
// kClockReasonBits: 0x1 GPU idle is not throttling), with the GPU, the time ranges, the clock
// lost against the GPU's own unthrottled clock, and the GPUs waiting for it. Thresholds and
// sources: docs/diagnose-telemetry.md.
#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "diagnose/rules.h"
#include "util/stats.h"

namespace paratune {
namespace {

// A poll in which the reason bit was momentarily clear does not end an episode: nvidia-smi
// samples the bits once per poll, and the power cap toggles on and off within a second at the
// limit (NVML's clock-event reasons are instantaneous, nvml.h nvmlDeviceGetCurrentClocksEventReasons).
constexpr int kBridgeSamples = 2;
// "No sustained throttling" (the checklist): an episode counts from three polls on
// (3 s at nvidia-smi -l 1); a single poll is a transient the GPU's boost recovers from.
constexpr int kMinEpisodeSamples = 3;
// The GPU's own unthrottled clock is the median over its busy polls without a throttling or
// idle bit; with fewer such polls than this, clocks.max.sm stands in.
constexpr int kMinReferenceSamples = 5;
// A poll is busy (its clock is the clock a training step runs at) from this utilisation on;
// below it the GPU may be down-clocking for lack of work (an idle GPU reports 0x1).
constexpr double kBusyUtil = 0.5;

// The hardware bits of a cause (hw_slowdown, hw_thermal_slowdown, hw_power_brake_slowdown):
// a hardware protection, critical whatever the loss.
uint64_t HardwareMask(ClockReasonCause cause) {
  uint64_t m = 0;
  for (const auto& b : kClockReasonBits)
    if (b.throttling && b.cause == cause && std::string_view(b.name).starts_with("hw_")) m |= b.bit;
  return m;
}

// NVML's GPU idle bit (kClockReasonBits[0]): the clock is low for lack of work.
constexpr uint64_t kGpuIdleBit = kClockReasonBits[0].bit;
static_assert(kGpuIdleBit == 0x1, "kClockReasonBits starts with gpu_idle");

struct Episode {
  int first = 0, last = 0;  // indices into the GPU's series
};

struct GpuSeries {
  int gpu = -1;
  std::vector<const TelemetrySample*> s;  // in sample order
  double reference_hz = std::numeric_limits<double>::quiet_NaN();
  std::string reference_source;
};

bool Busy(const TelemetrySample& s) { return std::isnan(s.util_fraction) || s.util_fraction >= kBusyUtil; }

double PearsonR(const std::vector<double>& a, const std::vector<double>& b) {
  const size_t n = a.size();
  if (n < 3) return std::numeric_limits<double>::quiet_NaN();
  double ma = 0, mb = 0;
  for (size_t i = 0; i < n; ++i) ma += a[i], mb += b[i];
  ma /= static_cast<double>(n);
  mb /= static_cast<double>(n);
  double sab = 0, saa = 0, sbb = 0;
  for (size_t i = 0; i < n; ++i) {
    sab += (a[i] - ma) * (b[i] - mb);
    saa += (a[i] - ma) * (a[i] - ma);
    sbb += (b[i] - mb) * (b[i] - mb);
  }
  if (saa <= 0 || sbb <= 0) return std::numeric_limits<double>::quiet_NaN();
  return sab / std::sqrt(saa * sbb);
}

std::string GpuList(const std::vector<int>& gpus) {
  std::string out;
  for (int g : gpus) out += (out.empty() ? "" : ",") + std::to_string(g);
  return out;
}

// The throttling episodes of one GPU and what the telemetry says about it during them.
struct GpuEpisodes {
  int gpu;
  std::vector<Episode> episodes;
  double mean_clock_hz = 0, reference_hz = 0, own_loss = 0;
  int throttled_samples = 0;
  uint64_t bits = 0;
  double temp_during = 0, temp_max = -1e9, temp_other = std::numeric_limits<double>::quiet_NaN();
  double power_during = 0, power_limit = std::numeric_limits<double>::quiet_NaN();
  double clock_temp_r = std::numeric_limits<double>::quiet_NaN();
  int temp_n = 0, power_n = 0;
  int first_line = 0;
};

// The capture's samples by GPU, each GPU with its unthrottled clock.
std::map<int, GpuSeries> ThrottlingSeriesByGpu(const GpuTelemetry& t) {
  std::map<int, GpuSeries> by_gpu;
  for (const auto& s : t.samples) {
    GpuSeries& g = by_gpu[s.gpu];
    g.gpu = s.gpu;
    g.s.push_back(&s);
  }
  // Each GPU's unthrottled clock.
  std::vector<double> references;
  for (auto& [gpu, g] : by_gpu) {
    std::vector<double> free_clock, max_clock;
    for (const TelemetrySample* s : g.s) {
      if (!std::isnan(s->max_sm_clock_hz)) max_clock.push_back(s->max_sm_clock_hz);
      if (std::isnan(s->sm_clock_hz) || !s->reasons_known || !Busy(*s)) continue;
      if ((s->reasons & (ThrottlingReasonMask() | kGpuIdleBit)) == 0) free_clock.push_back(s->sm_clock_hz);
    }
    if (static_cast<int>(free_clock.size()) >= kMinReferenceSamples) {
      g.reference_hz = Median(free_clock);
      g.reference_source = "median SM clock of its unthrottled busy polls";
    } else if (!max_clock.empty()) {
      g.reference_hz = Median(max_clock);
      g.reference_source = "clocks.max.sm";
    }
    if (!std::isnan(g.reference_hz)) references.push_back(g.reference_hz);
  }
  for (auto& [gpu, g] : by_gpu) {
    if (std::isnan(g.reference_hz) && !references.empty()) {
      g.reference_hz = Median(references);
      g.reference_source = "median unthrottled clock of the other GPUs";
    }
  }
  return by_gpu;
}

// The GPU's sustained episodes of polls with a reason bit of mask, short gaps bridged.
std::vector<Episode> ThrottleEpisodes(const GpuSeries& g, uint64_t mask) {
  const auto throttled = [&](const TelemetrySample* s) {
    return s->reasons_known && (s->reasons & mask) != 0 && !std::isnan(s->sm_clock_hz);
  };
  std::vector<Episode> eps;
  int open_first = -1, open_last = -1;
  for (int i = 0; i < static_cast<int>(g.s.size()); ++i) {
    if (!throttled(g.s[i])) continue;
    if (open_first >= 0 && g.s[i]->sample - g.s[open_last]->sample <= kBridgeSamples + 1) {
      open_last = i;
      continue;
    }
    if (open_first >= 0) eps.push_back({open_first, open_last});
    open_first = open_last = i;
  }
  if (open_first >= 0) eps.push_back({open_first, open_last});
  std::erase_if(eps,
                [&](const Episode& e) { return g.s[e.last]->sample - g.s[e.first]->sample + 1 < kMinEpisodeSamples; });
  return eps;
}

// The temperature outside the episodes (busy polls), and the clock's correlation with the
// temperature over all busy polls.
void MeasureTemperatureOutsideEpisodes(const GpuSeries& g, const std::vector<bool>& in_episode, GpuEpisodes* h) {
  double other = 0;
  int other_n = 0;
  std::vector<double> clocks, temps;
  for (size_t i = 0; i < g.s.size(); ++i) {
    const TelemetrySample& s = *g.s[i];
    if (!Busy(s) || std::isnan(s.temperature_c)) continue;
    if (!in_episode[i]) other += s.temperature_c, ++other_n;
    if (!std::isnan(s.sm_clock_hz)) clocks.push_back(s.sm_clock_hz), temps.push_back(s.temperature_c);
  }
  if (other_n) h->temp_other = other / other_n;
  h->clock_temp_r = PearsonR(clocks, temps);
}

// The clock, bits, temperature and power of the GPU over its episodes; lowers each episode
// sample's entry of slowest (the slowest GPU's clock ratio) to this GPU's.
GpuEpisodes MeasureEpisodes(int gpu, const GpuSeries& g, std::vector<Episode> eps, uint64_t mask,
                            std::vector<double>* slowest) {
  GpuEpisodes h;
  h.gpu = gpu;
  h.episodes = eps;
  h.reference_hz = g.reference_hz;
  std::vector<bool> in_episode(g.s.size(), false);
  double clock_sum = 0;
  int clock_n = 0;
  for (const Episode& e : eps) {
    for (int i = e.first; i <= e.last; ++i) {
      in_episode[i] = true;
      const TelemetrySample& s = *g.s[i];
      if (h.first_line == 0) h.first_line = s.line;
      if (s.reasons_known) h.bits |= s.reasons & mask;
      if (!std::isnan(s.sm_clock_hz)) {
        clock_sum += s.sm_clock_hz;
        ++clock_n;
        const double ratio = std::min(1.0, s.sm_clock_hz / g.reference_hz);
        (*slowest)[s.sample] = std::min((*slowest)[s.sample], ratio);
      }
      if (!std::isnan(s.temperature_c)) {
        h.temp_during += s.temperature_c;
        h.temp_max = std::max(h.temp_max, s.temperature_c);
        ++h.temp_n;
      }
      if (!std::isnan(s.power_w)) {
        h.power_during += s.power_w;
        ++h.power_n;
      }
      if (!std::isnan(s.power_limit_w)) h.power_limit = s.power_limit_w;
    }
  }
  h.throttled_samples = clock_n;
  h.mean_clock_hz = clock_n ? clock_sum / clock_n : std::numeric_limits<double>::quiet_NaN();
  if (h.temp_n) h.temp_during /= h.temp_n;
  if (h.power_n) h.power_during /= h.power_n;
  MeasureTemperatureOutsideEpisodes(g, in_episode, &h);
  return h;
}

// Adds one throttled GPU's place, time ranges and evidence to f; returns its sentence.
std::string DescribeThrottledGpu(const GpuTelemetry& t, const GpuSeries& g, const GpuEpisodes& h, Finding* f) {
  f->where.gpus.push_back(h.gpu);
  double span_s = 0;
  for (const Episode& e : h.episodes) {
    const double a = g.s[e.first]->time_s, b = g.s[e.last]->time_s;
    f->where.time_ranges_s.emplace_back(a, b);
    f->where.lines.push_back(fmt::format("{}:{}", t.path, g.s[e.first]->line));
    span_s += b - a + (std::isnan(t.interval_s) ? 0 : t.interval_s);
  }
  const double lost = 1 - h.mean_clock_hz / h.reference_hz;
  const std::string src = fmt::format("{} GPU {}", t.path, h.gpu);
  std::string d = fmt::format(
      "GPU {} ran at {:.0f} MHz, {:.1f}% below its unthrottled {:.0f} MHz ({}), for {:.0f} s in {} episode{} with "
      "{}",
      h.gpu, h.mean_clock_hz / 1e6, 100 * lost, h.reference_hz / 1e6, g.reference_source, span_s, h.episodes.size(),
      h.episodes.size() == 1 ? "" : "s", ClockReasonNames(h.bits));
  f->evidence.push_back({fmt::format("GPU {} mean SM clock while throttled", h.gpu), h.mean_clock_hz, "Hz", src});
  f->evidence.push_back({fmt::format("GPU {} unthrottled SM clock", h.gpu), h.reference_hz, "Hz", src});
  f->evidence.push_back({fmt::format("GPU {} clock lost", h.gpu), lost, "fraction", src});
  f->evidence.push_back({fmt::format("GPU {} throttled time", h.gpu), span_s, "s", src});
  f->evidence.push_back({fmt::format("GPU {} reason bits {:#x} ({})", h.gpu, h.bits, ClockReasonNames(h.bits)),
                         static_cast<double>(h.bits), "", fmt::format("{}:{}", t.path, h.first_line)});
  if (h.temp_n) {
    d += fmt::format("; {:.0f} C (max {:.0f} C) while throttled", h.temp_during, h.temp_max);
    if (!std::isnan(h.temp_other)) d += fmt::format(" against {:.0f} C otherwise", h.temp_other);
    f->evidence.push_back({fmt::format("GPU {} temperature while throttled", h.gpu), h.temp_during, "C", src});
    if (!std::isnan(h.temp_other))
      f->evidence.push_back({fmt::format("GPU {} temperature otherwise", h.gpu), h.temp_other, "C", src});
  }
  if (!std::isnan(h.clock_temp_r)) {
    d += fmt::format(", clock-temperature correlation r = {:.2f}", h.clock_temp_r);
    f->evidence.push_back({fmt::format("GPU {} clock-temperature correlation", h.gpu), h.clock_temp_r, "", src});
  }
  if (h.power_n) {
    d += fmt::format("; {:.0f} W", h.power_during);
    if (!std::isnan(h.power_limit) && h.power_limit > 0) d += fmt::format(" of its {:.0f} W limit", h.power_limit);
    f->evidence.push_back({fmt::format("GPU {} power while throttled", h.gpu), h.power_during, "W", src});
    if (!std::isnan(h.power_limit))
      f->evidence.push_back({fmt::format("GPU {} power limit", h.gpu), h.power_limit, "W", src});
  }
  return d;
}

// The fix of a thermal or power throttling finding on the GPUs throttled_gpus.
std::string ThrottlingFix(ClockReasonCause cause, const std::vector<int>& throttled_gpus) {
  if (cause == ClockReasonCause::kThermal) {
    return fmt::format(
        "Cool GPU {}: check the node's airflow or liquid-cooling loop, inlet temperature, fans and heat-sink seating "
        "(`nvidia-smi -q -d TEMPERATURE,PERFORMANCE` shows the slowdown thresholds and the active reasons); "
        "a single hot GPU is a hardware ticket: drain the node or exclude it from the job until it is fixed.",
        GpuList(throttled_gpus));
  }
  return fmt::format(
      "Check GPU {}'s power limit against the default (`nvidia-smi -q -d POWER`; restore it with `nvidia-smi -pl "
      "<default W>`), "
      "and for the hardware power brake (0x80) the node's power supplies and PDU; if every GPU sits at its cap, "
      "lock the clocks below the boost clock (`nvidia-smi -lgc`) so that all GPUs run at the same steady clock.",
      GpuList(throttled_gpus));
}

class ThrottlingRule : public Rule {
 public:
  explicit ThrottlingRule(ClockReasonCause cause) : cause_(cause), mask_(ClockReasonMask(cause)) {}
  const char* Name() const override {
    return cause_ == ClockReasonCause::kThermal ? "thermal_throttling" : "power_throttling";
  }
  const char* Summary() const override {
    return cause_ == ClockReasonCause::kThermal
               ? "sustained SM clock drops with a thermal reason bit (0x8, 0x20, 0x40) in nvidia-smi or DCGM exporter "
                 "telemetry"
               : "sustained SM clock drops with a power reason bit (0x4, 0x80) in nvidia-smi or DCGM exporter "
                 "telemetry";
  }

  void Check(const DiagnoseInputs& in, std::vector<Finding>* out) const override {
    for (const GpuTelemetry& t : in.telemetry) CheckCapture(t, out);
  }

 private:
  void CheckCapture(const GpuTelemetry& t, std::vector<Finding>* out) const {
    // dcgmi dmon captures carry no reason bits; nvidia-smi and the DCGM exporter do.
    if (t.source == TelemetrySource::kDcgmiDmon || t.sample_count == 0) return;
    const std::map<int, GpuSeries> by_gpu = ThrottlingSeriesByGpu(t);

    // Per sample, the slowest GPU's clock ratio (synchronous steps run at the slowest GPU).
    std::vector<double> slowest(t.sample_count, 1.0);
    std::vector<GpuEpisodes> hits;
    for (const auto& [gpu, g] : by_gpu) {
      if (std::isnan(g.reference_hz) || g.reference_hz <= 0) continue;
      std::vector<Episode> eps = ThrottleEpisodes(g, mask_);
      if (eps.empty()) continue;
      hits.push_back(MeasureEpisodes(gpu, g, std::move(eps), mask_, &slowest));
    }
    if (hits.empty()) return;

    double loss = 0;
    for (double r : slowest) loss += 1 - r;
    loss /= static_cast<double>(t.sample_count);

    Finding f;
    f.rule = Name();
    f.loss_fraction = loss;
    std::vector<int> throttled_gpus, waiting;
    uint64_t bits = 0;
    std::string details;
    for (const auto& h : hits) {
      throttled_gpus.push_back(h.gpu);
      bits |= h.bits;
      const std::string d = DescribeThrottledGpu(t, by_gpu.at(h.gpu), h, &f);
      details += (details.empty() ? "" : ". ") + d;
    }
    for (const auto& [gpu, g] : by_gpu)
      if (std::find(throttled_gpus.begin(), throttled_gpus.end(), gpu) == throttled_gpus.end()) waiting.push_back(gpu);

    const bool hardware = (bits & HardwareMask(cause_)) != 0;
    f.severity = hardware ? Severity::kCritical : SeverityForLoss(loss);
    const std::string what = cause_ == ClockReasonCause::kThermal ? "thermally throttled" : "power throttled";
    f.title = fmt::format("GPU{} {} {} ({}): {:.1f}% of throughput lost", throttled_gpus.size() == 1 ? "" : "s",
                          GpuList(throttled_gpus), what, ClockReasonNames(bits), 100 * loss);
    f.message = details + ". ";
    if (!waiting.empty())
      f.message += fmt::format(
          "GPU{} {} wait{} for {} at every synchronisation: a synchronous training step runs at the slowest GPU, ",
          waiting.size() == 1 ? "" : "s", GpuList(waiting), waiting.size() == 1 ? "s" : "",
          throttled_gpus.size() == 1 ? "it" : "them");
    f.message += fmt::format(
        "so the loss is about (1 - throttled clock / unthrottled clock) over the throttled share of the {} polls: "
        "{:.1f}% "
        "(an upper bound: memory-bound kernels slow down less than the SM clock).",
        t.sample_count, 100 * loss);
    f.evidence.push_back({"GPUs waiting", static_cast<double>(waiting.size()), "", t.path});
    f.evidence.push_back({"estimated throughput loss", loss, "fraction", t.path});
    f.fix = ThrottlingFix(cause_, throttled_gpus);
    out->push_back(std::move(f));
  }

  ClockReasonCause cause_;
  uint64_t mask_;
};

}  // namespace

std::unique_ptr<Rule> MakeThermalThrottlingRule() {
  return std::make_unique<ThrottlingRule>(ClockReasonCause::kThermal);
}
std::unique_ptr<Rule> MakePowerThrottlingRule() { return std::make_unique<ThrottlingRule>(ClockReasonCause::kPower); }

}  // namespace paratune
