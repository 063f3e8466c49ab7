// RegistryHandle: the native half of paratune.runs.Registry (python/paratune/runs.py): one open
// run registry (runs/registry.h; a SQLite file or a postgresql:// URL) and the CLI's `runs`
// subcommands as methods, each returning the document the CLI prints for --json, as text. Calls
// run with the GIL released, one at a time per handle (a mutex); close() releases the store.
#pragma once

#include <pybind11/pybind11.h>

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "runs/database.h"

namespace paratune::python {

class RegistryHandle {
 public:
  // `location` "": $PARATUNE_DB, else $XDG_DATA_HOME/paratune/runs.db; `create`: a missing store
  // is created (runs record), else it must exist (the reading subcommands).
  RegistryHandle(const std::string& location, bool create);

  std::string Where();
  // (paratune.runs.record/1, warnings about the files).
  std::pair<std::string, std::vector<std::string>> Record(const std::vector<std::string>& files,
                                                          const std::string& name,
                                                          const std::vector<std::pair<std::string, std::string>>& tags,
                                                          const std::string& software, const std::string& cluster,
                                                          const std::string& model, bool baseline);
  // paratune.runs.import/1: every usable row of a published-runs CSV as a run of its own.
  std::string RecordCsv(const std::string& csv, const std::string& hardware, const std::string& cluster,
                        const std::string& software, const std::vector<std::pair<std::string, std::string>>& tags);
  std::string List(const std::vector<std::string>& filters, int limit);            // paratune.runs.list/1
  std::string Show(const std::string& name);                                       // paratune.runs.show/1
  std::string Compare(const std::string& a, const std::optional<std::string>& b);  // paratune.runs.compare/1
  std::string SetBaseline(const std::string& name, const std::string& scope);      // paratune.runs.baselines/1
  std::string Baselines();                                                         // paratune.runs.baselines/1
  std::string ExportCsv();                                                         // runs export --csv
  void Close();

 private:
  Database& Db();  // throws InputError once closed

  std::mutex mutex_;
  std::unique_ptr<Database> db_;
};

void DefineRegistry(pybind11::module_& m);

}  // namespace paratune::python
