// `paratune runs`: the run registry (docs/runs.md). record FILES..., list, show, compare,
// baseline set|show, export --csv; every subcommand takes --db LOC (a SQLite file or a
// postgresql:// URL; default $PARATUNE_DB, else $XDG_DATA_HOME/paratune/runs.db). Messages name
// the store by Database::Where(), which never shows a password.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <limits>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/deprecated_flag.h"
#include "cli/runs_text.h"
#include "cli/output_file.h"
#include "hardware/hardware_catalog.h"
#include "runs/csv_import.h"
#include "runs/registry.h"
#include "runs/runs_json.h"
#include "util/error.h"
#include "util/file.h"
#include "util/json_document.h"
#include "validate/published_runs.h"

namespace paratune::cli {
namespace {

struct RunsFlags {
  std::string db;
  bool db_given = false;  // --db '' is an error, not the default store
  bool json = false;
  // record
  std::vector<std::string> files;
  std::string name, software, cluster, model, csv_in, hardware;
  std::vector<std::string> tags;
  bool baseline = false;
  // list
  std::vector<std::string> filters;
  int limit = kDefaultListLimit;
  // show / compare / baseline
  std::vector<std::string> names;
  std::string scope;
  // export
  bool csv = false;
  std::string out;
};

void AddDb(CLI::App* app, RunsFlags& f) {
  app->add_option("--db", f.db,
                  "the registry: a SQLite file or a postgresql:// URL (default $PARATUNE_DB, else "
                  "$XDG_DATA_HOME/paratune/runs.db)")
      ->each([&f](const std::string&) { f.db_given = true; });
}

std::string Location(const RunsFlags& f) {
  if (f.db_given && f.db.empty()) throw InputError("--db: empty location (a SQLite file path or a postgresql:// URL)");
  return f.db.empty() ? DefaultDatabaseLocation() : f.db;
}

std::pair<std::string, std::string> SplitTag(const std::string& t) {
  const size_t eq = t.find('=');
  if (eq == std::string::npos || eq == 0) throw InputError("runs record: --tag '" + t + "': expected KEY=VALUE");
  return {t.substr(0, eq), t.substr(eq + 1)};
}

void PrintJson(const nlohmann::json& j) { fmt::print("{}\n", DocumentText(j)); }

// `runs record --csv FILE`: every usable row as a run of its own, in one transaction.
int RecordCsv(const RunsFlags& f) {
  if (!f.files.empty()) throw InputError("runs record: give FILES or --csv FILE, not both");
  if (!f.name.empty() || !f.model.empty() || f.baseline)
    throw InputError(
        "runs record --csv: each row is a run named by its id; --name, --model and --baseline do not apply");
  CsvImportRequest r;
  r.csv_path = f.csv_in, r.hardware_file = f.hardware, r.cluster = f.cluster, r.software = f.software;
  for (const auto& t : f.tags) r.tags.push_back(SplitTag(t));
  CsvImport c = PrepareRunsCsv(r);
  auto db = OpenRegistry(Location(f));
  CommitRunsCsv(*db, c);
  if (f.json) {
    PrintJson(CsvImportJson(c));
    return 0;
  }
  const CsvRecords& in = c.in;
  const std::vector<RecordResult>& results = c.results;
  int created = 0;
  for (const auto& res : results) created += res.created;
  std::string clusters;
  for (const auto& run : in.records)
    if (clusters.find("'" + run.cluster + "'") == std::string::npos)
      clusters += (clusters.empty() ? "'" : ", '") + run.cluster + "'";
  fmt::print("recorded {} runs from {} ({} new, {} already recorded) for cluster {} ({})\n", results.size(), f.csv_in,
             created, static_cast<int>(results.size()) - created, clusters, db->Where());
  for (const auto& [id, why] : in.skipped) fmt::print("  skipped row {}: {}\n", id, why);
  return 0;
}

// `runs record FILES...`: every file read and checked before the store is opened, so that bad
// input writes nothing.
int RecordFiles(const RunsFlags& f) {
  if (f.files.empty()) throw InputError("runs record: give the FILES of a run, or --csv FILE");
  if (!f.hardware.empty()) throw InputError("runs record: --hardware goes with --csv");
  RecordOptions o;
  o.name = f.name, o.software = f.software, o.cluster = f.cluster, o.model = f.model, o.baseline = f.baseline;
  for (const auto& t : f.tags) o.tags.push_back(SplitTag(t));
  const PreparedRecord prepared = PrepareRecord(f.files, o);
  for (const std::string& w : prepared.warnings) std::fprintf(stderr, "paratune: warning: %s\n", w.c_str());
  auto db = OpenRegistry(Location(f));
  const RecordResult r = CommitRecord(*db, prepared);
  if (f.json)
    PrintJson(RecordResultJson(r, db->Where()));
  else
    fmt::print("{} {}: {} file(s) added, {} already recorded ({})\n", r.created ? "recorded new run" : "updated run",
               r.name, r.files_added, r.files_unchanged, db->Where());
  return 0;
}

// `runs list`: the runs the filters keep, newest first.
int ListRuns(const RunsFlags& f) {
  ListFilter lf;
  for (const auto& s : f.filters) ParseListFilter(s, lf);
  lf.limit = f.limit;
  auto db = OpenRegistry(Location(f), StoreAccess::kExisting);
  const auto runs = List(*db, lf);
  const int64_t total = CountRuns(*db, lf);
  if (f.json)
    PrintJson(RunListJson(runs, total));
  else
    fmt::print("{}", FormatRunList(runs, total));
  return 0;
}

// `runs export`: every run as CSV or JSON, to standard output or --out.
int ExportRuns(CLI::App& exp, RunsFlags& f, Database& db) {
  if (f.csv == f.json) throw InputError("runs export: give --csv or --json (one of them)");
  PrepareOutputs(exp, {{"--out", &f.out}}, {f.db});
  std::string text;
  if (f.csv) {
    text = ExportCsv(db);
  } else {
    ListFilter all;
    all.limit = std::numeric_limits<int>::max();
    text = DocumentText(RunListJson(List(db, all), CountRuns(db, all))) + "\n";
  }
  if (f.out.empty())
    fmt::print("{}", text);
  else
    WriteOutput(f.out, text);
  return 0;
}

// The subcommands of `runs`, to tell which one was given.
struct RunsSubcommands {
  CLI::App *record, *list, *show, *compare, *bset, *bshow, *exp;
};

CLI::App* AddRecordCommand(CLI::App* cmd, RunsFlags& f) {
  auto* record = cmd->add_subcommand(
      "record", "record the files of one run (analyze, diagnose, estimate, plan, cluster JSON, training logs)");
  record->add_option("files", f.files,
                     "files written by analyze/diagnose/estimate/plan/cluster --json, or training logs");
  record->add_option(
      "--csv", f.csv_in,
      "instead of FILES: each row of a CSV in the schema of published_runs_dev.csv as a measured run "
      "named by its id, with its scenario and the cost model's prediction (what calibrate --from-runs fits)");
  record->add_option("--hardware", f.hardware, "with --csv: TOML file adding or overriding GPU entries");
  record->add_option(
      "--name", f.name,
      "the run's name (default: run- and the files' content hash); files under one name add to that run");
  record->add_option("--tag", f.tags, "KEY=VALUE, repeatable");
  record->add_option("--software", f.software, "free text: framework, NCCL, CUDA versions");
  auto* cluster_name =
      record->add_option("--cluster-name", f.cluster, "the cluster's name (default: <gpus>x<gpu> from the files)");
  record->add_option("--model", f.model, "the model's name (default: what the files say)");
  record->add_flag("--baseline", f.baseline, "make this run the baseline of its cluster and model");
  record->add_flag("--json", f.json, "print JSON (schema paratune.runs.record/1)");
  AddDb(record, f);
  AddDeprecatedOption(record, "--cluster", cluster_name);
  return record;
}

// list, show, compare, baseline set|show and export.
RunsSubcommands AddReadingCommands(CLI::App* cmd, RunsFlags& f) {
  RunsSubcommands c{};
  c.list = cmd->add_subcommand("list", "the recorded runs, newest first");
  c.list->add_option("--filter", f.filters,
                     "model=M, cluster=C, gpu=G, tag=K=V, since=YYYY-MM-DD, name=GLOB; repeatable (all must match)");
  c.list->add_option("--limit", f.limit, "at most this many runs")->check(CLI::Range(1, 1000000));
  c.list->add_flag("--json", f.json, "print JSON (schema paratune.runs.list/1)");
  c.show = cmd->add_subcommand("show", "one run: its figures, findings, series and sources");
  c.show->add_option("name", f.names, "the run")->required()->expected(1);
  c.show->add_flag("--json", f.json, "print JSON (schema paratune.runs.show/1)");
  c.compare =
      cmd->add_subcommand("compare", "two runs side by side, or one against its baseline, with the term that moved");
  c.compare->add_option("names", f.names, "A B, or A alone to compare it against its baseline")
      ->required()
      ->expected(1, 2);
  c.compare->add_flag("--json", f.json, "print JSON (schema paratune.runs.compare/1)");
  auto* baseline = cmd->add_subcommand("baseline", "the baselines runs are compared against");
  baseline->require_subcommand(1);
  c.bset = baseline->add_subcommand("set", "make a run the baseline of its cluster and model (or of --scope)");
  c.bset->add_option("name", f.names, "the run")->required()->expected(1);
  c.bset->add_option("--scope", f.scope, "a named scope instead of the run's cluster and model");
  c.bset->add_flag("--json", f.json, "print JSON (schema paratune.runs.baselines/1)");
  c.bshow = baseline->add_subcommand("show", "the baselines");
  c.bshow->add_flag("--json", f.json, "print JSON (schema paratune.runs.baselines/1)");
  c.exp = cmd->add_subcommand("export", "every run: one CSV row each (--csv), or one JSON document (--json)");
  c.exp->add_flag("--csv", f.csv, "one CSV row per run, oldest first");
  c.exp->add_flag("--json", f.json, "every run as JSON (schema paratune.runs.list/1, no limit)");
  c.exp->add_option("--out", f.out, "write to this file (default: standard output)");
  for (CLI::App* a : {c.list, c.show, c.compare, c.bset, c.bshow, c.exp}) AddDb(a, f);
  return c;
}

// show, compare, baseline set|show and export: on an existing store.
int OnExistingStore(const RunsSubcommands& c, RunsFlags& f) {
  auto db = OpenRegistry(Location(f), StoreAccess::kExisting);  // reads, and baselines of recorded runs
  if (c.show->parsed()) {
    const RunRecord r = Show(*db, f.names.at(0));
    fmt::print("{}", f.json ? DocumentText(RunShowJson(r)) + "\n" : FormatRunShow(r));
  } else if (c.compare->parsed()) {
    const Comparison cmp =
        f.names.size() == 1 ? CompareWithBaseline(*db, f.names[0]) : Compare(*db, f.names[0], f.names[1]);
    fmt::print("{}", f.json ? DocumentText(ComparisonJson(cmp)) + "\n" : FormatComparison(cmp));
  } else if (c.bset->parsed() || c.bshow->parsed()) {
    if (c.bset->parsed()) SetBaseline(*db, f.names.at(0), f.scope);
    fmt::print("{}", f.json ? DocumentText(BaselinesJson(Baselines(*db))) + "\n" : FormatBaselines(Baselines(*db)));
  } else if (c.exp->parsed()) {
    return ExportRuns(*c.exp, f, *db);
  }
  return 0;
}

}  // namespace

Command AddRunsCommand(CLI::App& root) {
  auto* cmd =
      root.add_subcommand("runs", "the run registry: record runs' figures, list, show, compare with baselines, export");
  cmd->require_subcommand(1);
  auto f = std::make_shared<RunsFlags>();
  CLI::App* record = AddRecordCommand(cmd, *f);
  const RunsSubcommands c = AddReadingCommands(cmd, *f);
  cmd->footer(
      "Each file's kind is read from its JSON schema field, or a training log from its content. A record is one "
      "transaction: all of it or nothing. docs/runs.md");
  return {cmd, [=] {
            if (record->parsed()) return f->csv_in.empty() ? RecordFiles(*f) : RecordCsv(*f);
            if (c.list->parsed()) return ListRuns(*f);
            return OnExistingStore(c, *f);
          }};
}

}  // namespace paratune::cli
