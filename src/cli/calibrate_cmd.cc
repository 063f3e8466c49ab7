// `paratune calibrate FILE.csv [FILE.csv ...]`: fit the per-generation calibration to published runs and
// print (or write) it in the format of data/calibration.toml, or as JSON (paratune.calibrate/1).
// `paratune calibrate --from-runs [--cluster-name NAME]`: the same fit on one cluster's recorded runs
// (the run registry), with the error before, after and held out (docs/runs.md, "Calibrating").
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/commands.h"
#include "cli/deprecated_flag.h"
#include "cli/terminal_progress.h"
#include "cli/output_file.h"
#include "hardware/hardware_catalog.h"
#include "runs/published_run_record.h"
#include "runs/registry.h"
#include "runs/registry_calibration.h"
#include "util/error.h"
#include "util/file.h"
#include "util/json_document.h"
#include "validate/calibrate.h"
#include "validate/calibrate_json.h"
#include "validate/calibrate_runs.h"
#include "validate/cross_validation.h"
#include "validate/published_runs.h"

namespace paratune::cli {
namespace {

struct Flags {
  std::vector<std::string> files;
  std::string out, hardware, db, cluster;
  int rounds = 6;
  std::string fractions = "auto";
  std::string cross_validate;
  bool json = false, quiet = false, from_runs = false, nested = false;
};

std::string CvStats(const ErrorStats& s) {
  return fmt::format("n {:>3}  MAPE {:>5.1f}%  median {:>5.1f}%  p90 {:>5.1f}%  max {:>6.1f}%", s.n, 100 * s.mean,
                     100 * s.median, 100 * s.p90, 100 * s.max);
}

// calibrate --cross-validate source: each source predicted by the fit without it.
int CrossValidate(const Flags& f, const std::vector<PublishedRun>& runs, const std::string& names) {
  if (f.cross_validate != "source")
    throw InputError("calibrate --cross-validate: unknown grouping '" + f.cross_validate + "' (expected source)");
  if (!f.out.empty()) throw InputError("calibrate --cross-validate writes no calibration; drop --out");
  TerminalProgress progress(f.quiet);
  const CrossValidation cv = CrossValidateBySource(runs, f.rounds, progress.get());
  progress.Done();
  if (f.json) {
    fmt::print("{}\n", DocumentText(CrossValidationJson(cv, names)));
    return 0;
  }
  fmt::print("Leave-one-source-out over {} (tokens/s per GPU, absolute percentage error)\n", names);
  fmt::print("  {:<30} {:<58}  {}\n", "source", "held out", "in sample");
  for (const SourceHoldout& h : cv.sources)
    fmt::print("  {:<30} {}  MAPE {:>5.1f}%{}\n", h.source, CvStats(h.held_out), 100 * h.in_sample.mean,
               h.uncovered_generations.empty() ? ""
                                               : fmt::format("  (no other source on {}: starting values)",
                                                             fmt::join(h.uncovered_generations, ", ")));
  fmt::print("  {:<30} {}\n", "all rows, held out", CvStats(cv.held_out));
  fmt::print("  {:<30} {}\n", "all rows, in sample", CvStats(cv.in_sample));
  return 0;
}

double AsPercent(double x) { return 100 * x; }

std::string FractionChanges(const CalibrationFit& from, const CalibrationFit& to) {
  std::string s;
  for (const auto& [gen, c] : to.by_generation) {
    const auto it = from.by_generation.find(gen);
    std::string moved;
    for (const CalibrationField& f : kCalibrationFields) {
      const double a = it == from.by_generation.end() ? 0 : it->second.*f.value, b = c.*f.value;
      if (fmt::format("{:.3g}", a) != fmt::format("{:.3g}", b))
        moved += fmt::format("{}{} {:.3g} -> {:.3g}", moved.empty() ? "" : ", ", f.key, a, b);
    }
    s += fmt::format("  {}: {}\n", gen, moved.empty() ? "unchanged" : moved);
  }
  return s;
}

// Which fractions the fit chose, and why, in words.
std::string FitVerdict(const RunsCalibration& rc, const std::optional<FitFractions>& only) {
  const char* chosen = kFitFractionsNames.Name(rc.chosen);
  return only ? fmt::format("the fractions named by --fractions {}: leave-one-out {:.2f}%, starting {:.2f}%", chosen,
                            AsPercent(rc.mape_loo), AsPercent(rc.mape_before))
         : rc.chosen == FitFractions::kNone
             ? fmt::format(
                   "the starting fractions unchanged: no fit's leave-one-out error is below the starting {:.2f}%",
                   AsPercent(rc.mape_before))
             : fmt::format("the fit of {} fractions: its leave-one-out error {:.2f}% is the lowest, starting {:.2f}%",
                           rc.chosen == FitFractions::kGemm ? "the GEMM" : "all eight", AsPercent(rc.mape_loo),
                           AsPercent(rc.mape_before));
}

// The text report of calibrate --from-runs: each run's error starting, fitted and held out, each
// set of fractions' errors, the fractions that moved, the TOML or where it went.
void PrintRunsCalibration(const Flags& f, const RunsCalibration& rc, const std::string& cluster,
                          const std::string& where, const RunsToFit& fit_input, const std::string& verdict,
                          const std::string& toml) {
  CalibrationFit start;  // each generation's starting calibration, to show what moved
  for (const PublishedRun& r : fit_input.runs)
    start.by_generation[r.cluster.gpu.generation] = r.cluster.gpu.calibration;
  fmt::print("calibrate --from-runs: cluster '{}' in {}: {} runs fitted, {} rounds\n", cluster, where, rc.rows.size(),
             rc.rounds);
  for (const auto& [name, why] : fit_input.skipped) fmt::print("  skipped {}: {}\n", name, why);
  size_t w = 3;
  for (const auto& r : rc.rows) w = std::max(w, r.id.size());
  fmt::print("\n{:<{}}  {:>10}  {:>10} {:>7}  {:>10} {:>7}  {:>10} {:>7}\n", "run", w, "measured", "starting", "err",
             "fit", "err", "held out", "err");
  for (const auto& r : rc.rows) {
    const auto err = [&](double p) {
      return fmt::format("{:+.1f}%", AsPercent(p / r.measured_tokens_per_s_per_gpu - 1));
    };
    fmt::print("{:<{}}  {:>10.0f}  {:>10.0f} {:>7}  {:>10.0f} {:>7}  {:>10.0f} {:>7}\n", r.id, w,
               r.measured_tokens_per_s_per_gpu, r.before, err(r.before), r.after, err(r.after), r.loo, err(r.loo));
  }
  fmt::print("\ntokens/s per GPU, mean absolute error by the fractions fitted:\n");
  for (const RunsCalibrationCandidate& c : rc.candidates)
    fmt::print("  {:<5} fit {:6.2f}%  held out (leave-one-out) {:6.2f}%{}\n", kFitFractionsNames.Name(c.fractions),
               AsPercent(c.mape_after), AsPercent(c.mape_loo), c.fractions == rc.chosen ? "  <- chosen" : "");
  if (!std::isnan(rc.mape_nested))
    fmt::print("  the choice held out too (nested leave-one-out): {:.2f}%\n", AsPercent(rc.mape_nested));
  fmt::print("fractions moved:\n{}", FractionChanges(start, rc.fit));
  if (!f.out.empty())
    fmt::print("wrote {} ({}); use it with `paratune plan --hardware {}`\n", f.out, verdict, f.out);
  else
    fmt::print("TOML ({}):\n{}", verdict, toml);
}

int FromRuns(const Flags& f, const HardwareCatalog& hw) {
  if (!f.files.empty())
    throw InputError(
        "calibrate --from-runs fits recorded runs and takes no CSV files (record them first: "
        "`paratune runs record --csv FILE`)");
  std::optional<FitFractions> only;
  if (f.fractions != "auto") only = kFitFractionsNames.Parse(f.fractions, "calibrate --fractions", "set of fractions");
  auto db = OpenRegistry(f.db.empty() ? DefaultDatabaseLocation() : f.db, StoreAccess::kExisting);
  const std::string cluster = ClusterToFit(*db, f.cluster);
  const RunsToFit fit_input = PublishedRunsOfRecords(RunsOfCluster(*db, cluster), hw);
  TerminalProgress progress(f.quiet);
  const RunsCalibration rc = CalibrateFromRuns(fit_input.runs, f.rounds, progress.get(), 0, only, f.nested);
  progress.Done();
  const std::string verdict = FitVerdict(rc, only);
  const std::string toml = CalibrationToml(
      rc.fit, fmt::format("# Achievable fractions of datasheet peaks for cluster '{}', fitted by `paratune calibrate "
                          "--from-runs` on its\n# {} recorded runs ({} rounds; docs/runs.md). Holds {}.\n"
                          "# MAPE of tokens/s per GPU: starting {:.2f}%, fit {:.2f}%, leave-one-out {:.2f}%.\n",
                          cluster, rc.rows.size(), rc.rounds, verdict, AsPercent(rc.mape_before),
                          AsPercent(rc.mape_after), AsPercent(rc.mape_loo)));
  if (!f.out.empty()) WriteOutput(f.out, toml);
  if (f.json) {
    fmt::print("{}\n", DocumentText(RegistryCalibrationJson(rc, cluster, toml, db->Where(), fit_input.skipped)));
    return 0;
  }
  PrintRunsCalibration(f, rc, cluster, db->Where(), fit_input, verdict, toml);
  return 0;
}

}  // namespace

namespace {

void AddCalibrateFlags(CLI::App* cmd, Flags& flags) {
  Flags* f = &flags;
  cmd->add_option("files", f->files, "CSV files in the schema of published_runs_dev.csv (their rows fitted together)");
  cmd->add_flag(
      "--from-runs", f->from_runs,
      "fit the runs recorded in the run registry for one cluster (runs record --csv), with the error held out");
  cmd->add_option("--db", f->db,
                  "with --from-runs: the registry, a SQLite file or a postgresql:// URL (default $PARATUNE_DB, else "
                  "$XDG_DATA_HOME/paratune/runs.db)");
  auto* cluster_name =
      cmd->add_option("--cluster-name", f->cluster,
                      "with --from-runs: the cluster's runs to fit (default: the registry's only cluster)");
  cmd->add_option("--fractions", f->fractions,
                  "with --from-runs: the fractions to fit, auto (none, gemm or all, whichever has the lowest "
                  "leave-one-out error), none, gemm or all")
      ->capture_default_str();
  cmd->add_flag(
      "--nested", f->nested,
      "with --from-runs: also hold out the choice of fractions (nested leave-one-out: about n times the work)");
  cmd->add_option("--out", f->out, "write the TOML here (atomically) instead of standard output");
  cmd->add_option("--hardware", f->hardware, "TOML file adding or overriding GPU entries or the starting calibration");
  cmd->add_option("--rounds", f->rounds,
                  fmt::format("coordinate-descent rounds, {} to {} (the step halves each round)", kMinCalibrationRounds,
                              kMaxCalibrationRounds))
      ->capture_default_str()
      ->check(CLI::Range(kMinCalibrationRounds, kMaxCalibrationRounds));
  cmd->add_flag("--json", f->json, "print JSON (schema paratune.calibrate/1) instead of the TOML");
  cmd->add_flag("--quiet", f->quiet, "no progress line on the terminal");
  cmd->add_option("--cross-validate", f->cross_validate,
                  "source: predict each source's rows with the fit on the others (leave-one-source-out) and print the "
                  "error per source beside the in-sample error (JSON schema paratune.cross_validation/1)");
  AddDeprecatedOption(cmd, "--cluster", cluster_name);
}

// calibrate FILE.csv...: the rows of the files fitted together (or cross-validated by source).
int CalibrateFiles(const Flags& f, const HardwareCatalog& hw) {
  std::vector<PublishedRun> runs;
  std::string names;
  for (const std::string& file : f.files) {
    auto more = ReadPublishedRuns(ReadFile(file), file, hw);
    runs.insert(runs.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
    names += (names.empty() ? "" : " ") + file;
  }
  // No usable row: say which file and why, before the fit says it without them.
  const auto usable = std::find_if(runs.begin(), runs.end(),
                                   [](const PublishedRun& r) { return r.modelable && r.confidence != "low"; });
  if (!runs.empty() && usable == runs.end()) {
    const auto first = std::find_if(runs.begin(), runs.end(), [](const PublishedRun& r) { return !r.modelable; });
    throw InputError(fmt::format("{}: none of its {} rows can be fitted (each is unmodellable or of low confidence){}",
                                 names, runs.size(),
                                 first == runs.end() ? "" : "; the first, " + first->id + ": " + first->reason));
  }
  if (!f.cross_validate.empty()) return CrossValidate(f, runs, names);
  TerminalProgress progress(f.quiet);
  const CalibrationFit fit = FitCalibration(runs, f.rounds, progress.get());
  progress.Done();
  const std::string toml = CalibrationToml(
      fit, "# Achievable fractions of datasheet peaks per GPU generation, fitted by `paratune calibrate " + names +
               "`\n# (docs/validation.md). Only these eight numbers per generation are fitted.\n");
  if (!f.out.empty()) WriteOutput(f.out, toml);
  if (f.json)
    fmt::print("{}\n", DocumentText(CalibrationFitJson(fit, toml)));
  else if (f.out.empty())
    fmt::print("{}", toml);
  return 0;
}

}  // namespace

Command AddCalibrateCommand(CLI::App& root) {
  auto* cmd = root.add_subcommand(
      "calibrate", "fit the per-generation efficiency fractions to published runs, or to a cluster's recorded runs");
  auto f = std::make_shared<Flags>();
  AddCalibrateFlags(cmd, *f);
  return {cmd, [cmd, f] {
            std::vector<std::string> inputs = f->files;
            inputs.insert(inputs.end(), {f->hardware, f->db});
            PrepareOutputs(*cmd, {{"--out", &f->out}}, inputs);
            HardwareCatalog hw = HardwareCatalog::BuiltIn();
            if (!f->hardware.empty()) hw.Merge(ReadFile(f->hardware), f->hardware);
            if (f->from_runs) return FromRuns(*f, hw);
            if (!f->db.empty() || !f->cluster.empty() || f->fractions != "auto" || f->nested)
              throw InputError("calibrate: --db, --cluster-name, --fractions and --nested go with --from-runs");
            if (f->files.empty()) throw InputError("calibrate: give CSV files to fit, or --from-runs");
            return CalibrateFiles(*f, hw);
          }};
}

}  // namespace paratune::cli
