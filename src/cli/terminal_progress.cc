#include "cli/terminal_progress.h"

#include <unistd.h>

#include <cstdio>
#include <fmt/format.h>

namespace paratune::cli {

TerminalProgress::TerminalProgress(bool quiet) : enabled_(!quiet && isatty(fileno(stderr))) {}

TerminalProgress::~TerminalProgress() { Done(); }

void TerminalProgress::Done() {
  if (drawn_) std::fprintf(stderr, "\r\033[K");
  drawn_ = false;
}

void TerminalProgress::Report(std::string_view what, int64_t done, int64_t total) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (drawn_ && now - last_ < std::chrono::milliseconds(200) && done != total && what == what_) return;
  last_ = now;
  what_ = what;
  drawn_ = true;
  const std::string line = total > 0
                               ? fmt::format("paratune: {} {}/{} ({:.0f}%)", what, done, total, 100.0 * done / total)
                               : fmt::format("paratune: {} {}", what, done);
  std::fprintf(stderr, "\r\033[K%s", line.c_str());
  std::fflush(stderr);
}

}  // namespace paratune::cli
