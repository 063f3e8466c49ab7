#include "python/registry_handle.h"

#include <pybind11/stl.h>

#include "runs/csv_import.h"
#include "runs/registry.h"
#include "runs/runs_json.h"
#include "util/error.h"
#include "util/json_document.h"

namespace paratune::python {

namespace py = pybind11;

RegistryHandle::RegistryHandle(const std::string& location, bool create) {
  py::gil_scoped_release released;
  db_ = OpenRegistry(location.empty() ? DefaultDatabaseLocation() : location,
                     create ? StoreAccess::kCreate : StoreAccess::kExisting);
}

Database& RegistryHandle::Db() {
  if (!db_) throw InputError("the run registry is closed");
  return *db_;
}

std::string RegistryHandle::Where() {
  const std::lock_guard<std::mutex> lock(mutex_);
  return Db().Where();
}

std::pair<std::string, std::vector<std::string>> RegistryHandle::Record(
    const std::vector<std::string>& files, const std::string& name,
    const std::vector<std::pair<std::string, std::string>>& tags, const std::string& software,
    const std::string& cluster, const std::string& model, bool baseline) {
  py::gil_scoped_release released;
  const std::lock_guard<std::mutex> lock(mutex_);
  if (files.empty()) throw InputError("runs record: give the FILES of a run, or --csv FILE");
  RecordOptions o;
  o.name = name, o.software = software, o.cluster = cluster, o.model = model, o.baseline = baseline, o.tags = tags;
  // Every file read and checked before the store is written: bad input writes nothing.
  const PreparedRecord prepared = PrepareRecord(files, o);
  const RecordResult r = CommitRecord(Db(), prepared);
  return {DocumentText(RecordResultJson(r, Db().Where())), prepared.warnings};
}

std::string RegistryHandle::RecordCsv(const std::string& csv, const std::string& hardware, const std::string& cluster,
                                      const std::string& software,
                                      const std::vector<std::pair<std::string, std::string>>& tags) {
  py::gil_scoped_release released;
  const std::lock_guard<std::mutex> lock(mutex_);
  CsvImport c = PrepareRunsCsv({csv, hardware, cluster, software, tags});
  CommitRunsCsv(Db(), c);
  return DocumentText(CsvImportJson(c));
}

std::string RegistryHandle::List(const std::vector<std::string>& filters, int limit) {
  py::gil_scoped_release released;
  const std::lock_guard<std::mutex> lock(mutex_);
  ListFilter lf;
  for (const auto& s : filters) ParseListFilter(s, lf);
  if (limit < 1 || limit > 1000000) throw InputError("--limit " + std::to_string(limit) + ": must be 1 to 1000000");
  lf.limit = limit;
  return DocumentText(RunListJson(paratune::List(Db(), lf), CountRuns(Db(), lf)));
}

std::string RegistryHandle::Show(const std::string& name) {
  py::gil_scoped_release released;
  const std::lock_guard<std::mutex> lock(mutex_);
  return DocumentText(RunShowJson(paratune::Show(Db(), name)));
}

std::string RegistryHandle::Compare(const std::string& a, const std::optional<std::string>& b) {
  py::gil_scoped_release released;
  const std::lock_guard<std::mutex> lock(mutex_);
  return DocumentText(ComparisonJson(b ? paratune::Compare(Db(), a, *b) : CompareWithBaseline(Db(), a)));
}

std::string RegistryHandle::SetBaseline(const std::string& name, const std::string& scope) {
  py::gil_scoped_release released;
  const std::lock_guard<std::mutex> lock(mutex_);
  paratune::SetBaseline(Db(), name, scope);
  return DocumentText(BaselinesJson(paratune::Baselines(Db())));
}

std::string RegistryHandle::Baselines() {
  py::gil_scoped_release released;
  const std::lock_guard<std::mutex> lock(mutex_);
  return DocumentText(BaselinesJson(paratune::Baselines(Db())));
}

std::string RegistryHandle::ExportCsv() {
  py::gil_scoped_release released;
  const std::lock_guard<std::mutex> lock(mutex_);
  return paratune::ExportCsv(Db());
}

void RegistryHandle::Close() {
  py::gil_scoped_release released;
  const std::lock_guard<std::mutex> lock(mutex_);
  db_.reset();
}

void DefineRegistry(py::module_& m) {
  py::class_<RegistryHandle>(m, "RegistryHandle", "one open run registry (use paratune.runs.open)")
      .def(py::init<const std::string&, bool>(), py::arg("location"), py::arg("create"))
      .def("where", &RegistryHandle::Where)
      .def("record", &RegistryHandle::Record, py::arg("files"), py::arg("name"), py::arg("tags"), py::arg("software"),
           py::arg("cluster"), py::arg("model"), py::arg("baseline"))
      .def("record_csv", &RegistryHandle::RecordCsv, py::arg("csv"), py::arg("hardware"), py::arg("cluster"),
           py::arg("software"), py::arg("tags"))
      .def("list", &RegistryHandle::List, py::arg("filters"), py::arg("limit"))
      .def("show", &RegistryHandle::Show, py::arg("name"))
      .def("compare", &RegistryHandle::Compare, py::arg("a"), py::arg("b") = py::none())
      .def("set_baseline", &RegistryHandle::SetBaseline, py::arg("name"), py::arg("scope"))
      .def("baselines", &RegistryHandle::Baselines)
      .def("export_csv", &RegistryHandle::ExportCsv)
      .def("close", &RegistryHandle::Close);
}

}  // namespace paratune::python
