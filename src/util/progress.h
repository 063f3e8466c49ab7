// Progress: how long work tells whoever waits how far it got. The library reports through this
// interface and never prints; the CLI draws it on a terminal (cli/terminal_progress.h), or
// nothing when stderr is not a terminal or --quiet is given.
#pragma once

#include <cstdint>
#include <string_view>

namespace paratune {

class Progress {
 public:
  virtual ~Progress() = default;
  // `done` of `total` units of `what` so far (total 0: unknown). Called often; cheap to ignore.
  virtual void Report(std::string_view what, int64_t done, int64_t total) = 0;
};

// Reports to `p` when it is set.
inline void ReportProgress(Progress* p, std::string_view what, int64_t done, int64_t total) {
  if (p) p->Report(what, done, total);
}

}  // namespace paratune
