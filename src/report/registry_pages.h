// RegistryPages: the run registry's pages of `paratune serve --db` (docs/report-serve.md):
// /runs lists the recorded runs (trends and the table) with the baselines, /runs/NAME is one run
// (and, when its scope has a baseline, the comparison against it), /runs/compare?a=A&b=B two
// runs side by side. The report room knows only the registry's documents
// (paratune.runs.list/1, .show/1, .compare/1, .baselines/1); the CLI supplies the functions that
// make them from the store, so nothing here opens a database.
#pragma once

#include <functional>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

namespace paratune {

struct RegistryPages {
  std::string where;                                            // the store, any password shown as ***
  std::function<nlohmann::json()> list;                         // paratune.runs.list/1
  std::function<nlohmann::json()> baselines;                    // paratune.runs.baselines/1
  std::function<nlohmann::json(const std::string& name)> show;  // paratune.runs.show/1
  // paratune.runs.compare/1; `b` empty: `a` against its baseline.
  std::function<nlohmann::json(const std::string& a, const std::string& b)> compare;
  // The registry as Prometheus metrics, served at /metrics (runs/registry_metrics.h); empty: none.
  std::function<std::string()> metrics;
};

struct RegistryPage {
  int status = 200;  // 200, 404 (no such run), 400 (a bad query), 503 (the store does not answer)
  std::string html;
};

// The page of `path` ("/runs", "/runs/NAME" with NAME percent-decoded, "/runs/compare") and its
// query parameters. The document functions throw InputError for an unknown run (404) or a store
// that fails (503, the message naming the store as `where`).
RegistryPage RenderRegistryPage(const RegistryPages& pages, const std::string& path,
                                const std::multimap<std::string, std::string>& params);

}  // namespace paratune
