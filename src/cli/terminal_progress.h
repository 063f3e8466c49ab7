// TerminalProgress: Progress drawn on one line of stderr ("paratune: calibrating hopper 41/96"),
// redrawn at most five times a second (at once when the stage named changes, and at the end of
// one) and erased when done. Silent unless stderr is a terminal
// and --quiet was not given, so logs and pipes never see it.
#pragma once

#include <chrono>
#include <string>

#include "util/progress.h"

namespace paratune::cli {

class TerminalProgress : public Progress {
 public:
  explicit TerminalProgress(bool quiet);
  ~TerminalProgress() override;
  void Report(std::string_view what, int64_t done, int64_t total) override;
  // nullptr when nothing would be drawn, so the library skips the calls.
  Progress* get() { return enabled_ ? this : nullptr; }
  // Erases the line; call before printing the result.
  void Done();

 private:
  bool enabled_ = false;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point last_{};
  std::string what_;  // the stage drawn last
};

}  // namespace paratune::cli
