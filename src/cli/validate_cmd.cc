// `paratune validate FILE.csv`: predicted vs measured throughput of published runs.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/commands.h"
#include "hardware/hardware_catalog.h"
#include "util/file.h"
#include "validate/published_runs.h"
#include "validate/validation.h"
#include "validate/validation_json.h"

namespace paratune::cli {
namespace {

std::string StatsLine(const ErrorStats& s) {
  return fmt::format("n {:>3}  MAPE {:>5.1f}%  median {:>5.1f}%  p90 {:>5.1f}%  max {:>6.1f}%", s.n, 100 * s.mean,
                     100 * s.median, 100 * s.p90, 100 * s.max);
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
  return {cmd, [f] {
            HardwareCatalog hw = HardwareCatalog::BuiltIn();
            if (!f->hardware.empty()) hw.Merge(ReadFile(f->hardware), f->hardware);
            const std::vector<PublishedRun> runs = ReadPublishedRuns(ReadFile(f->file), f->file, hw);
            const ValidationReport rep = Validate(runs);
            if (f->json) {
              fmt::print("{}\n", ValidationJson(rep, f->file).dump(2));
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
              fmt::print("\nKorthikanti et al. 2022 Table 5, step time: mean error {:.2f}%, max {:.2f}% over {} runs "
                         "(Calculon: 3.65% mean, 8.87% max)\n",
                         100 * rep.korthikanti_step_time.mean, 100 * rep.korthikanti_step_time.max,
                         rep.korthikanti_step_time.n);
            fmt::print("\nPairwise ranking (same model, GPU, GPU count, sequence; measured gap > 5%)\n");
            for (auto [name, r] : {std::pair{"all pairs", &rep.ranking},
                                   std::pair{"pairs without low-confidence rows", &rep.ranking_without_low_confidence}}) {
              fmt::print("  {:<34} {} of {} ordered as measured ({:.1f}%)\n", name, r->agree, r->pairs,
                         r->pairs ? 100.0 * r->agree / r->pairs : 100.0);
              for (const auto& [a, b] : r->disagreements) fmt::print("    disagree: measured {} > {}\n", a, b);
            }
            if (!rep.unmapped_sharding.empty()) {
              fmt::print("\nSharding texts (zero_stage_or_fsdp) not mapped to a ZeRO stage\n");
              for (const auto& [text, ids] : rep.unmapped_sharding)
                fmt::print("  '{}': {}\n", text, fmt::join(ids, ", "));
            }
            return 0;
          }};
}

}  // namespace paratune::cli
