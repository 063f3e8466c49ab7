// PythonProgress: the library's Progress interface (util/progress.h) calling a Python callable
// as callback(what: str, done: int, total: int), for plan(progress=...). The library runs with
// the GIL released; each report takes the GIL for the call. An exception the callback raises is
// kept as the thread's Python error: later reports are skipped, and Raise() raises it once the
// library call has returned.
#pragma once

#include <pybind11/pybind11.h>

#include "util/progress.h"

namespace paratune::python {

class PythonProgress : public Progress {
 public:
  explicit PythonProgress(pybind11::object callback) : callback_(std::move(callback)) {}
  // With no callback (None) there is nothing to call: the library gets no Progress at all.
  Progress* get() { return callback_.is_none() ? nullptr : this; }
  void Report(std::string_view what, int64_t done, int64_t total) override;
  // With the GIL held: raises the callback's exception, if it raised one.
  void Raise() const;

 private:
  pybind11::object callback_;
};

}  // namespace paratune::python
