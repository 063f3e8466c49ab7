// `paratune calibrate FILE.csv`: fit the per-generation calibration to published runs and
// print (or write) it in the format of data/calibration.toml.
#include <fmt/format.h>

#include "cli/commands.h"
#include "hardware/hardware_catalog.h"
#include "util/file.h"
#include "validate/calibrate.h"
#include "validate/published_runs.h"

namespace paratune::cli {

Command AddCalibrateCommand(CLI::App& root) {
  auto* cmd = root.add_subcommand("calibrate", "fit the per-generation efficiency fractions to published runs");
  struct Flags {
    std::string file, out, hardware;
    int rounds = 6;
  };
  auto f = std::make_shared<Flags>();
  cmd->add_option("file", f->file, "CSV in the schema of published_runs_dev.csv")->required();
  cmd->add_option("--out", f->out, "write the TOML here (atomically) instead of standard output");
  cmd->add_option("--hardware", f->hardware, "TOML file adding or overriding GPU entries or the starting calibration");
  cmd->add_option("--rounds", f->rounds, "coordinate-descent rounds (step halves each round)")->capture_default_str();
  return {cmd, [f] {
            HardwareCatalog hw = HardwareCatalog::BuiltIn();
            if (!f->hardware.empty()) hw.Merge(ReadFile(f->hardware), f->hardware);
            const auto runs = ReadPublishedRuns(ReadFile(f->file), f->file, hw);
            const CalibrationFit fit = FitCalibration(runs, f->rounds);
            const std::string toml = CalibrationToml(
                fit, "# Achievable fractions of datasheet peaks per GPU generation, fitted by `paratune calibrate " +
                         f->file + "`\n# (docs/validation.md). Only these seven numbers per generation are fitted.\n");
            if (f->out.empty())
              fmt::print("{}", toml);
            else
              WriteFileAtomic(f->out, toml);
            return 0;
          }};
}

}  // namespace paratune::cli
