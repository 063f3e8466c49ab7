// PythonProgress: the library's Progress interface (util/progress.h) as the Python module's way
// to see and stop a long call. The library runs with the GIL released; each report takes the GIL,
// checks for Ctrl-C (a pending KeyboardInterrupt) and calls the optional Python callable as
// callback(what: str, done: int, total: int). When either raises, the Python error stays set and
// Report throws Stopped, which unwinds the library call; the binding then raises the error.
#pragma once

#include <pybind11/pybind11.h>

#include "util/progress.h"

namespace paratune::python {

// Not a std::exception: nothing in the library catches it on its way out.
struct Stopped {};

class PythonProgress : public Progress {
 public:
  explicit PythonProgress(pybind11::object callback) : callback_(std::move(callback)) {}
  void Report(std::string_view what, int64_t done, int64_t total) override;

 private:
  pybind11::object callback_;  // None: only Ctrl-C is checked
};

}  // namespace paratune::python
