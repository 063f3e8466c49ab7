#include "python/python_progress.h"

#include <stdexcept>
#include <string>

namespace paratune::python {

namespace py = pybind11;

void PythonProgress::Report(std::string_view what, int64_t done, int64_t total) {
  py::gil_scoped_acquire gil;
  if (error_) throw Stopped{};  // another thread's report already stopped the call
  try {
    // Signals are seen only on the main thread (Python runs their handlers there).
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();  // the KeyboardInterrupt
    if (!callback_.is_none()) callback_(std::string(what), done, total);
  } catch (py::error_already_set&) {
    error_ = std::current_exception();
    throw Stopped{};
  }
}

void PythonProgress::Raise() {
  if (error_) std::rethrow_exception(error_);
  throw std::logic_error("paratune: a call was stopped without a Python error");
}

}  // namespace paratune::python
