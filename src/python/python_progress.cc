#include "python/python_progress.h"

#include <string>

namespace paratune::python {

namespace py = pybind11;

void PythonProgress::Report(std::string_view what, int64_t done, int64_t total) {
  py::gil_scoped_acquire gil;
  if (PyErr_CheckSignals() != 0) throw Stopped{};  // KeyboardInterrupt is now the Python error
  if (callback_.is_none()) return;
  try {
    callback_(std::string(what), done, total);
  } catch (py::error_already_set& e) {
    e.restore();
    throw Stopped{};
  }
}

}  // namespace paratune::python
