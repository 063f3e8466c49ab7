#include "python/python_progress.h"

#include <string>

namespace paratune::python {

namespace py = pybind11;

void PythonProgress::Report(std::string_view what, int64_t done, int64_t total) {
  py::gil_scoped_acquire gil;
  if (PyErr_Occurred()) return;  // the callback raised already: Raise() reports it
  try {
    callback_(std::string(what), done, total);
  } catch (py::error_already_set& e) {
    e.restore();
  }
}

void PythonProgress::Raise() const {
  if (PyErr_Occurred()) throw py::error_already_set();
}

}  // namespace paratune::python
