// The run registry (docs/runs.md): every run's figures, recorded from the files the other
// commands write, listed, shown, compared and exported; baselines per cluster and model. One
// code path over SQLite and PostgreSQL (runs/database.h), the schema in runs/registry_schema.h.
//
// Reliability: each record is ONE transaction (a process killed mid-record leaves the run wholly
// present or absent); concurrent writers queue on the store's write lock (SQLite WAL with a busy
// timeout, PostgreSQL transactions); recording a file whose content (SHA-256) the run already
// holds is a no-op.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "runs/database.h"
#include "runs/run_record.h"
#include "runs/source_reader.h"

namespace paratune {

// OpenDatabase(location, access) with the registry's migrations applied (RegistryMigrations()).
// Commands that only read (list, show, compare, export, serve, calibrate --from-runs) open with
// kExisting: a read never creates a store.
std::unique_ptr<Database> OpenRegistry(const std::string& location, StoreAccess access = StoreAccess::kCreate);

struct RecordOptions {
  std::string name;  // "" = "run-" + the first 12 hex digits of the files' content hash
  std::vector<std::pair<std::string, std::string>> tags;
  std::string software;   // free text
  std::string cluster;    // "" = what the files say, else "<gpus>x<gpu>"
  std::string model;      // "" = what the files say
  bool baseline = false;  // make the run the baseline of its cluster+model scope
  // Called with "begin" when the write transaction has started and "commit" after it committed
  // (tests: to tell where a kill landed). May be empty.
  std::function<void(const char* phase)> observer;
};

struct RecordResult {
  std::string name;
  bool created = false;     // the run did not exist before
  int files_added = 0;      // files new to the run
  int files_unchanged = 0;  // files the run already held (same SHA-256): skipped
};

// A record read and checked, not yet written: its files' contents and what they say.
struct PreparedRecord {
  std::string name;
  RunRecord meta;  // the overrides given: software, cluster, model (and for RecordRuns all of them)
  std::vector<ReadSource> sources;
  std::vector<std::pair<std::string, std::string>> tags;
  bool baseline = false;
  bool cluster_given = false, model_given = false;
  std::function<void(const char* phase)> observer;
  // Where the files seem to describe different runs (another model or GPU count, a measured step
  // time far from the predicted one), one line each: recorded anyway, said (issue 32).
  std::vector<std::string> warnings;
};

// Reads and checks every file and option; throws InputError (one line naming the file) before
// anything is opened or written. Files that disagree on what run they describe are warnings.
PreparedRecord PrepareRecord(const std::vector<std::string>& files, const RecordOptions& options);
// Adds the prepared files to the run in one transaction. Files already held by the run (same
// SHA-256) are skipped; a run holding all of them already keeps its figures (tags, software and
// baseline are still applied).
RecordResult CommitRecord(Database& db, const PreparedRecord& record);
// PrepareRecord then CommitRecord.
RecordResult Record(Database& db, const std::vector<std::string>& files, const RecordOptions& options);

// Records runs built in memory (the calibration's CSV import: scenario_json, measured tokens/s,
// cluster) in one transaction. Each run needs a name; its sources are replaced by one source
// of kind "record" whose SHA-256 is over the record's content, so recording the same record
// twice is a no-op. Throws InputError for a run without a name.
std::vector<RecordResult> RecordRuns(Database& db, const std::vector<RunRecord>& runs);
RecordResult RecordRun(Database& db, const RunRecord& run);

// The runs recorded for `cluster` (runs.cluster equal), oldest first, each with figures, tags,
// layout_json and scenario_json (findings, series and policies left empty): what
// `calibrate --from-runs` fits from.
std::vector<RunRecord> RunsOfCluster(Database& db, const std::string& cluster);
// Each cluster label with its number of runs, by label.
std::vector<std::pair<std::string, int64_t>> Clusters(Database& db);

struct ListFilter {
  std::string model, cluster, gpu;
  std::vector<std::pair<std::string, std::string>> tags;  // all must match
  std::string since;                                      // ISO 8601 UTC prefix or full stamp: created_utc >= since
  std::string name_glob;                                  // '*' any text, '?' one character
  int limit = 50;
};
inline constexpr int kDefaultListLimit = 50;

// Parses "model=X", "cluster=X", "gpu=X", "tag=K=V" (or "tag.K=V"), "since=DATE", "name=GLOB" into `f`.
// Throws InputError naming the filter.
void ParseListFilter(const std::string& text, ListFilter& f);

// Newest first: name, created_utc, cluster, model, gpu, gpus, software, tags and figures; at
// most filter.limit runs.
std::vector<RunRecord> List(Database& db, const ListFilter& filter);
// How many runs match the filter, whatever its limit (what `runs list` says it left out).
int64_t CountRuns(Database& db, const ListFilter& filter);

// The whole run (sources, figures, tags, findings, series, policies). Throws InputError when no
// run has that name.
RunRecord Show(Database& db, const std::string& name);

struct FigureDiff {
  Metric metric;
  double a = kNoFigure, b = kNoFigure;  // the compared values (measured where both runs have
                                        // it, else predicted)
  bool measured = false;                // which side they are
  double abs_diff = kNoFigure;          // b - a
  double rel_diff = kNoFigure;          // (b - a) / a; NaN where a is 0 or either is missing
};

struct TermMove {
  Metric metric;             // a step_term metric
  double delta_s = 0;        // b - a, seconds per step
  double share = kNoFigure;  // delta over the step-time difference (NaN when it is 0)
};

struct Comparison {
  RunRecord a, b;
  std::string baseline_scope;       // set when b was compared against its baseline a
  std::vector<FigureDiff> figures;  // kMetrics order; metrics neither run has are left out
  bool terms_measured = false;      // the breakdown compared: measured or predicted
  double step_delta_s = kNoFigure;  // b - a step time of the same side
  std::vector<TermMove> terms;      // ranked by |delta_s|, largest first; zero moves left out
};

Comparison Compare(Database& db, const std::string& a, const std::string& b);
// `name` against the baseline of its scope (BaselineScopeOf); throws InputError when none is set.
Comparison CompareWithBaseline(Database& db, const std::string& name);
Comparison CompareRecords(const RunRecord& a, const RunRecord& b);

// "cluster=C model=M": the default baseline scope of a run.
std::string BaselineScopeOf(const RunRecord& r);
// Sets the baseline of `scope` ("" = the run's default scope) to run `name`; returns the scope.
std::string SetBaseline(Database& db, const std::string& name, const std::string& scope = "");
struct Baseline {
  std::string scope, run, set_utc;
};
std::vector<Baseline> Baselines(Database& db);

// One row per run (oldest first): name, created_utc, cluster, model, gpu, gpus, software, then
// measured_<metric> and predicted_<metric> for each metric of kMetrics (empty when unknown).
std::string ExportCsv(Database& db);
std::vector<std::string> ExportCsvHeader();

// Now, as the registry stamps it: ISO 8601 UTC with milliseconds.
std::string UtcNowStamp();

}  // namespace paratune
