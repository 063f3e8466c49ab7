// PythonProgress: the library's Progress interface (util/progress.h) as the Python module's way
// to see and stop a long call. The library runs with the GIL released; each report takes the GIL,
// checks for Ctrl-C (a pending KeyboardInterrupt) and calls the optional Python callable as
// callback(what: str, done: int, total: int). When either raises, Report keeps the Python error
// and throws Stopped, which unwinds the library call; the binding then calls Raise on its own
// thread (a report may come from a worker thread, whose Python error state is its own).
#pragma once

#include <pybind11/pybind11.h>

#include <exception>

#include "util/progress.h"

namespace paratune::python {

// Not a std::exception: nothing in the library catches it on its way out.
struct Stopped {};

class PythonProgress : public Progress {
 public:
  explicit PythonProgress(pybind11::object callback) : callback_(std::move(callback)) {}
  void Report(std::string_view what, int64_t done, int64_t total) override;
  // Raises the Python error that stopped the call (with the GIL held).
  [[noreturn]] void Raise();

 private:
  pybind11::object callback_;  // None: only Ctrl-C is checked
  std::exception_ptr error_;   // a pybind11::error_already_set
};

}  // namespace paratune::python
