// `paratune validate FILE.csv`: predicted vs measured throughput of published runs, and peak
// memory and step time beside SimuMax's where the file gives them.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "util/file.h"
#include "util/json_document.h"
#include "validate/validate_file.h"
#include "validate/validation_json.h"

namespace paratune::cli {
namespace {

std::string StatsLine(const ErrorStats& s) {
  return fmt::format("n {:>3}  MAPE {:>5.1f}%  median {:>5.1f}%  p90 {:>5.1f}%  max {:>6.1f}%", s.n, 100 * s.mean,
                     100 * s.median, 100 * s.p90, 100 * s.max);
}

constexpr double kGiB = 1024.0 * 1024 * 1024;

std::string ApeCell(const std::optional<double>& v) { return v ? fmt::format("{:.1f}%", 100 * *v) : "-"; }

// Ours beside SimuMax's, overall and by group.
void PrintCompared(const ComparedErrors& c) {
  fmt::print("  {:<34} {:<62}  {}\n", "", "ours", "SimuMax (same rows)");
  const auto line = [](const ComparedStats& s) {
    return s.simumax.n > 0 ? fmt::format("{}  n {:>3}  MAPE {:>5.1f}%  max {:>6.1f}%", StatsLine(s.ours), s.simumax.n,
                                         100 * s.simumax.mean, 100 * s.simumax.max)
                           : StatsLine(s.ours);
  };
  fmt::print("  {:<34} {}\n", "overall", line(c.overall));
  std::string last;
  for (const GroupComparison& g : c.groups) {
    if (g.dimension != last) fmt::print("  by {}\n", g.dimension);
    last = g.dimension;
    fmt::print("    {:<32} {}\n", g.value, line(g.stats));
  }
}

void PrintMemoryAndStepTime(const ValidationReport& rep) {
  if (rep.memory.overall.ours.n > 0) {
    fmt::print(
        "\nPeak memory per GPU, allocated GiB (torch.cuda.max_memory_allocated; no CUDA context, NCCL or "
        "allocator slack)\n");
    fmt::print("{:<20} {:<16} {:>9} {:>10} {:>7} {:>9} {:>7}\n", "id", "gpu", "measured", "predicted", "APE", "SimuMax",
               "APE");
    for (const RunPrediction& p : rep.rows) {
      if (!p.memory_ape) continue;
      const PublishedRun& r = *p.run;
      fmt::print("{:<20} {:<16} {:>9.2f} {:>10.2f} {:>7} {:>9} {:>7}\n", r.id, r.gpu_name,
                 r.measured_peak_memory_bytes / kGiB, p.predicted_peak_allocated_bytes / kGiB, ApeCell(p.memory_ape),
                 r.simumax_peak_memory_bytes > 0 ? fmt::format("{:.2f}", r.simumax_peak_memory_bytes / kGiB) : "-",
                 ApeCell(p.simumax_memory_ape));
    }
    fmt::print("\nPeak memory, absolute percentage error\n");
    PrintCompared(rep.memory);
  }
  if (rep.step_time.overall.ours.n > 0) {
    fmt::print("\nStep time, s (rows with SimuMax's prediction)\n");
    fmt::print("{:<20} {:<16} {:>9} {:>10} {:>7} {:>9} {:>7}\n", "id", "gpu", "measured", "predicted", "APE", "SimuMax",
               "APE");
    for (const RunPrediction& p : rep.rows) {
      if (!p.step_time_ape) continue;
      const PublishedRun& r = *p.run;
      fmt::print("{:<20} {:<16} {:>9.3f} {:>10.3f} {:>7} {:>9.3f} {:>7}\n", r.id, r.gpu_name, r.target_step_time_s,
                 p.predicted_step_time_s, ApeCell(p.step_time_ape), r.simumax_step_time_s,
                 ApeCell(p.simumax_step_time_ape));
    }
    fmt::print("\nStep time, absolute percentage error\n");
    PrintCompared(rep.step_time);
  }
}

}  // namespace

Command AddValidateCommand(CLI::App& root) {
  auto* cmd = root.add_subcommand("validate", "predict published runs and report the error");
  struct Flags {
    std::string file;
    std::string hardware;
    bool json = false;
  };
  auto f = std::make_shared<Flags>();
  cmd->add_option("file", f->file, "CSV in the schema of published_runs_dev.csv")->required();
  cmd->add_option("--hardware", f->hardware, "TOML file adding or overriding GPU entries or calibration");
  cmd->add_flag("--json", f->json, "print JSON (schema paratune.validate/1)");
  return {
      cmd, [f] {
        const ValidatedFile validated = ValidateFile(f->file, f->hardware);
        const ValidationReport& rep = validated.report;
        if (f->json) {
          fmt::print("{}\n", DocumentText(ValidationJson(rep, f->file)));
          return 0;
        }
        fmt::print("{:<20} {:<10} {:>5} {:>12} {:>12} {:>7}\n", "id", "gpu", "gpus", "measured", "predicted", "APE");
        for (const RunPrediction& p : rep.rows) {
          const PublishedRun& r = *p.run;
          if (p.predicted)
            fmt::print("{:<20} {:<10} {:>5} {:>12.1f} {:>12.1f} {:>6.1f}%{}\n", r.id, r.gpu_name, r.num_gpus,
                       r.target_tokens_per_s_per_gpu, p.predicted_tokens_per_s_per_gpu, 100 * p.ape,
                       p.fits ? "" : "  (predicted not to fit)");
          else
            fmt::print("{:<20} {:<10} {:>5} {:>12.1f} {:>12} not modelled: {}\n", r.id, r.gpu_name, r.num_gpus,
                       r.target_tokens_per_s_per_gpu, "-", p.reason);
        }
        fmt::print("\nTokens/s per GPU, absolute percentage error\n");
        fmt::print("  {:<34} {}\n", "overall", StatsLine(rep.overall));
        fmt::print("  {:<34} {}\n", "without low-confidence rows", StatsLine(rep.overall_without_low_confidence));
        std::string last;
        for (const GroupStats& g : rep.groups) {
          if (g.dimension != last) fmt::print("  by {}\n", g.dimension);
          last = g.dimension;
          fmt::print("    {:<32} {}\n", g.value, StatsLine(g.stats));
        }
        if (rep.korthikanti_step_time.n > 0)
          fmt::print(
              "\nKorthikanti et al. 2022 Table 5, step time: mean error {:.2f}%, max {:.2f}% over {} runs "
              "(Calculon: 3.65% mean, 8.87% max)\n",
              100 * rep.korthikanti_step_time.mean, 100 * rep.korthikanti_step_time.max, rep.korthikanti_step_time.n);
        PrintMemoryAndStepTime(rep);
        fmt::print("\nPairwise ranking (same model, GPU, GPU count, sequence; measured gap > 5%)\n");
        for (auto [name, r] : {std::pair{"all pairs", &rep.ranking},
                               std::pair{"pairs without low-confidence rows", &rep.ranking_without_low_confidence}}) {
          fmt::print("  {:<34} {} of {} ordered as measured ({:.1f}%)\n", name, r->agree, r->pairs,
                     r->pairs ? 100.0 * r->agree / r->pairs : 100.0);
          for (const auto& [a, b] : r->disagreements) fmt::print("    disagree: measured {} > {}\n", a, b);
        }
        if (!rep.unmapped_sharding.empty()) {
          fmt::print("\nSharding texts (zero_stage_or_fsdp) not mapped to a ZeRO stage\n");
          for (const auto& [text, ids] : rep.unmapped_sharding) fmt::print("  '{}': {}\n", text, fmt::join(ids, ", "));
        }
        return 0;
      }};
}

}  // namespace paratune::cli
