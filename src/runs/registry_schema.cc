// Portable SQL: TEXT, BIGINT and DOUBLE PRECISION columns only; runs keyed by their name (no
// autoincrement, whose syntax differs between the back ends); the order of a run's series points
// and findings kept by an explicit `seq`. Times are ISO 8601 UTC texts with milliseconds, which
// sort as they compare. Indexes serve `runs list` (newest first, filtered by model, cluster, GPU
// or tag) and `runs compare`/`show` (by run) at 100,000 runs (bench/runs_bench.cc): each list
// index ends in (created_utc, name), the ORDER BY of `runs list`, so a filtered list walks one
// index newest first and stops at its limit instead of sorting every match.
#include "runs/registry_schema.h"

namespace paratune {

const std::vector<Migration>& RegistryMigrations() {
  static const std::vector<Migration> kMigrations = {
      {1,
       "initial schema: runs, run_sources, figures, tags, findings, series, policy_figures, baselines",
       {
           "CREATE TABLE runs ("
           " name TEXT PRIMARY KEY,"
           " created_utc TEXT NOT NULL,"
           " cluster TEXT NOT NULL DEFAULT '',"
           " model TEXT NOT NULL DEFAULT '',"
           " gpu TEXT NOT NULL DEFAULT '',"
           " gpus BIGINT NOT NULL DEFAULT 0,"
           " layout_json TEXT NOT NULL DEFAULT '',"
           " scenario_json TEXT NOT NULL DEFAULT '',"
           " software TEXT NOT NULL DEFAULT '',"
           " content_hash TEXT NOT NULL DEFAULT '')",
           "CREATE INDEX runs_created ON runs (created_utc, name)",
           "CREATE INDEX runs_model ON runs (model, created_utc, name)",
           "CREATE INDEX runs_cluster ON runs (cluster, created_utc, name)",
           "CREATE INDEX runs_gpu ON runs (gpu, created_utc, name)",
           "CREATE TABLE run_sources ("
           " run TEXT NOT NULL REFERENCES runs (name) ON DELETE CASCADE,"
           " sha256 TEXT NOT NULL,"
           " file_schema TEXT NOT NULL,"
           " path TEXT NOT NULL,"
           " recorded_utc TEXT NOT NULL,"
           " PRIMARY KEY (run, sha256))",
           "CREATE TABLE figures ("
           " run TEXT NOT NULL REFERENCES runs (name) ON DELETE CASCADE,"
           " metric TEXT NOT NULL,"
           " measured DOUBLE PRECISION,"
           " predicted DOUBLE PRECISION,"
           " PRIMARY KEY (run, metric))",
           "CREATE TABLE tags ("
           " run TEXT NOT NULL REFERENCES runs (name) ON DELETE CASCADE,"
           " key TEXT NOT NULL,"
           " value TEXT NOT NULL,"
           " PRIMARY KEY (run, key))",
           "CREATE INDEX tags_key_value ON tags (key, value, run)",
           "CREATE TABLE findings ("
           " run TEXT NOT NULL REFERENCES runs (name) ON DELETE CASCADE,"
           " source TEXT NOT NULL,"
           " seq BIGINT NOT NULL,"
           " rule TEXT NOT NULL,"
           " severity TEXT NOT NULL,"
           " loss_fraction DOUBLE PRECISION NOT NULL,"
           " title TEXT NOT NULL,"
           " PRIMARY KEY (run, source, seq))",
           "CREATE TABLE series ("
           " run TEXT NOT NULL REFERENCES runs (name) ON DELETE CASCADE,"
           " source TEXT NOT NULL,"
           " kind TEXT NOT NULL,"
           " seq BIGINT NOT NULL,"
           " x DOUBLE PRECISION NOT NULL,"
           " y DOUBLE PRECISION NOT NULL,"
           " PRIMARY KEY (run, source, kind, seq))",
           "CREATE TABLE policy_figures ("
           " run TEXT NOT NULL REFERENCES runs (name) ON DELETE CASCADE,"
           " policy TEXT NOT NULL,"
           " metric TEXT NOT NULL,"
           " value DOUBLE PRECISION NOT NULL,"
           " PRIMARY KEY (run, policy, metric))",
           "CREATE TABLE baselines ("
           " scope TEXT PRIMARY KEY,"
           " run TEXT NOT NULL REFERENCES runs (name) ON DELETE CASCADE,"
           " set_utc TEXT NOT NULL)",
       },
       {},
       {}},
  };
  return kMigrations;
}

}  // namespace paratune
