// `paratune calibrate FILE.csv [FILE.csv ...]`: fit the per-generation calibration to published runs and
// print (or write) it in the format of data/calibration.toml, or as JSON (paratune.calibrate/1).
#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/terminal_progress.h"
#include "hardware/hardware_catalog.h"
#include "util/file.h"
#include "validate/calibrate.h"
#include "validate/calibrate_json.h"
#include "validate/published_runs.h"

namespace paratune::cli {

Command AddCalibrateCommand(CLI::App& root) {
  auto* cmd = root.add_subcommand("calibrate", "fit the per-generation efficiency fractions to published runs");
  struct Flags {
    std::vector<std::string> files;
    std::string out, hardware;
    int rounds = 6;
    bool json = false, quiet = false;
  };
  auto f = std::make_shared<Flags>();
  cmd->add_option("files", f->files, "CSV files in the schema of published_runs_dev.csv (their rows fitted together)")
      ->required();
  cmd->add_option("--out", f->out, "write the TOML here (atomically) instead of standard output");
  cmd->add_option("--hardware", f->hardware, "TOML file adding or overriding GPU entries or the starting calibration");
  cmd->add_option("--rounds", f->rounds,
                  fmt::format("coordinate-descent rounds, {} to {} (the step halves each round)", kMinCalibrationRounds,
                              kMaxCalibrationRounds))
      ->capture_default_str()
      ->check(CLI::Range(kMinCalibrationRounds, kMaxCalibrationRounds));
  cmd->add_flag("--json", f->json, "print JSON (schema paratune.calibrate/1) instead of the TOML");
  cmd->add_flag("--quiet", f->quiet, "no progress line on the terminal");
  return {cmd, [f] {
            HardwareCatalog hw = HardwareCatalog::BuiltIn();
            if (!f->hardware.empty()) hw.Merge(ReadFile(f->hardware), f->hardware);
            std::vector<PublishedRun> runs;
            std::string names;
            for (const std::string& file : f->files) {
              auto more = ReadPublishedRuns(ReadFile(file), file, hw);
              runs.insert(runs.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
              names += (names.empty() ? "" : " ") + file;
            }
            TerminalProgress progress(f->quiet);
            const CalibrationFit fit = FitCalibration(runs, f->rounds, progress.get());
            progress.Done();
            const std::string toml = CalibrationToml(
                fit, "# Achievable fractions of datasheet peaks per GPU generation, fitted by `paratune calibrate " +
                         names + "`\n# (docs/validation.md). Only these eight numbers per generation are fitted.\n");
            if (!f->out.empty()) WriteFileAtomic(f->out, toml);
            if (f->json)
              fmt::print("{}\n", CalibrationFitJson(fit, toml).dump(2));
            else if (f->out.empty())
              fmt::print("{}", toml);
            return 0;
          }};
}

}  // namespace paratune::cli
