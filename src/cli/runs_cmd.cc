// `paratune runs`: the run registry (docs/runs.md). record FILES..., list, show, compare,
// baseline set|show, export --csv; every subcommand takes --db LOC (a SQLite file or a
// postgresql:// URL; default $PARATUNE_DB, else $XDG_DATA_HOME/paratune/runs.db). Messages name
// the store by Database::Where(), which never shows a password.
#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/runs_report.h"
#include "runs/registry.h"
#include "runs/runs_json.h"
#include "util/error.h"
#include "util/file.h"

namespace paratune::cli {
namespace {

struct RunsFlags {
  std::string db;
  bool json = false;
  // record
  std::vector<std::string> files;
  std::string name, software, cluster, model;
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
  app->add_option("--db", f.db, "the registry: a SQLite file or a postgresql:// URL (default $PARATUNE_DB, else "
                                "$XDG_DATA_HOME/paratune/runs.db)");
}

std::string Location(const RunsFlags& f) { return f.db.empty() ? DefaultDatabaseLocation() : f.db; }

std::pair<std::string, std::string> SplitTag(const std::string& t) {
  const size_t eq = t.find('=');
  if (eq == std::string::npos || eq == 0) throw InputError("runs record: --tag '" + t + "': expected KEY=VALUE");
  return {t.substr(0, eq), t.substr(eq + 1)};
}

void PrintJson(const nlohmann::json& j) {
  fmt::print("{}\n", j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace));
}

}  // namespace

Command AddRunsCommand(CLI::App& root) {
  auto* cmd = root.add_subcommand("runs", "the run registry: record runs' figures, list, show, compare with baselines, export");
  cmd->require_subcommand(1);
  auto f = std::make_shared<RunsFlags>();

  auto* record = cmd->add_subcommand("record", "record the files of one run (analyze, diagnose, estimate, plan, cluster JSON, training logs)");
  record->add_option("files", f->files, "files written by analyze/diagnose/estimate/plan/cluster --json, or training logs")->required();
  record->add_option("--name", f->name, "the run's name (default: run- and the files' content hash); files under one name add to that run");
  record->add_option("--tag", f->tags, "KEY=VALUE, repeatable");
  record->add_option("--software", f->software, "free text: framework, NCCL, CUDA versions");
  record->add_option("--cluster", f->cluster, "the cluster's name (default: <gpus>x<gpu> from the files)");
  record->add_option("--model", f->model, "the model's name (default: what the files say)");
  record->add_flag("--baseline", f->baseline, "make this run the baseline of its cluster and model");
  record->add_flag("--json", f->json, "print JSON (schema paratune.runs.record/1)");
  AddDb(record, *f);

  auto* list = cmd->add_subcommand("list", "the recorded runs, newest first");
  list->add_option("--filter", f->filters, "model=M, cluster=C, gpu=G, tag=K=V, since=YYYY-MM-DD, name=GLOB; repeatable (all must match)");
  list->add_option("--limit", f->limit, "at most this many runs")->check(CLI::Range(1, 1000000));
  list->add_flag("--json", f->json, "print JSON (schema paratune.runs.list/1)");
  AddDb(list, *f);

  auto* show = cmd->add_subcommand("show", "one run: its figures, findings, series and sources");
  show->add_option("name", f->names, "the run")->required()->expected(1);
  show->add_flag("--json", f->json, "print JSON (schema paratune.runs.show/1)");
  AddDb(show, *f);

  auto* compare = cmd->add_subcommand("compare", "two runs side by side, or one against its baseline, with the term that moved");
  compare->add_option("names", f->names, "A B, or A alone to compare it against its baseline")->required()->expected(1, 2);
  compare->add_flag("--json", f->json, "print JSON (schema paratune.runs.compare/1)");
  AddDb(compare, *f);

  auto* baseline = cmd->add_subcommand("baseline", "the baselines runs are compared against");
  baseline->require_subcommand(1);
  auto* bset = baseline->add_subcommand("set", "make a run the baseline of its cluster and model (or of --scope)");
  bset->add_option("name", f->names, "the run")->required()->expected(1);
  bset->add_option("--scope", f->scope, "a named scope instead of the run's cluster and model");
  bset->add_flag("--json", f->json, "print JSON (schema paratune.runs.baselines/1)");
  AddDb(bset, *f);
  auto* bshow = baseline->add_subcommand("show", "the baselines");
  bshow->add_flag("--json", f->json, "print JSON (schema paratune.runs.baselines/1)");
  AddDb(bshow, *f);

  auto* exp = cmd->add_subcommand("export", "every run as one CSV row");
  exp->add_flag("--csv", f->csv, "CSV (the only format)")->required();
  exp->add_option("--out", f->out, "write to this file (default: standard output)");
  AddDb(exp, *f);

  cmd->footer("Each file's kind is read from its JSON schema field, or a training log from its content. A record is one "
              "transaction: all of it or nothing. docs/runs.md");
  return {cmd, [=] {
            if (record->parsed()) {
              RecordOptions o;
              o.name = f->name, o.software = f->software, o.cluster = f->cluster, o.model = f->model, o.baseline = f->baseline;
              for (const auto& t : f->tags) o.tags.push_back(SplitTag(t));
              // Every file read and checked before the store is opened: bad input writes nothing.
              const PreparedRecord prepared = PrepareRecord(f->files, o);
              auto db = OpenRegistry(Location(*f));
              const RecordResult r = CommitRecord(*db, prepared);
              if (f->json) PrintJson(RecordResultJson(r, db->Where()));
              else
                fmt::print("{} {}: {} file(s) added, {} already recorded ({})\n", r.created ? "recorded new run" : "updated run",
                           r.name, r.files_added, r.files_unchanged, db->Where());
              return 0;
            }
            if (list->parsed()) {
              ListFilter lf;
              for (const auto& s : f->filters) ParseListFilter(s, lf);
              lf.limit = f->limit;
              auto db = OpenRegistry(Location(*f));
              const auto runs = List(*db, lf);
              if (f->json) PrintJson(RunListJson(runs));
              else fmt::print("{}", FormatRunList(runs));
              return 0;
            }
            auto db = OpenRegistry(Location(*f));
            if (show->parsed()) {
              const RunRecord r = Show(*db, f->names.at(0));
              if (f->json) PrintJson(RunShowJson(r));
              else fmt::print("{}", FormatRunShow(r));
              return 0;
            }
            if (compare->parsed()) {
              const Comparison c = f->names.size() == 1 ? CompareWithBaseline(*db, f->names[0]) : Compare(*db, f->names[0], f->names[1]);
              if (f->json) PrintJson(ComparisonJson(c));
              else fmt::print("{}", FormatComparison(c));
              return 0;
            }
            if (bset->parsed()) {
              SetBaseline(*db, f->names.at(0), f->scope);
              if (f->json) PrintJson(BaselinesJson(Baselines(*db)));
              else fmt::print("{}", FormatBaselines(Baselines(*db)));
              return 0;
            }
            if (bshow->parsed()) {
              if (f->json) PrintJson(BaselinesJson(Baselines(*db)));
              else fmt::print("{}", FormatBaselines(Baselines(*db)));
              return 0;
            }
            if (exp->parsed()) {
              const std::string csv = ExportCsv(*db);
              if (f->out.empty()) fmt::print("{}", csv);
              else WriteFileAtomic(f->out, csv);
              return 0;
            }
            return 0;
          }};
}

}  // namespace paratune::cli
