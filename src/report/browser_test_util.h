// Test helper: renders a page in headless Chromium (Debian `chromium`, installed by
// scripts/install-deps.sh) and returns what the browser tests check: the DOM after load, the
// console errors, every network request the page made (a self-contained report makes none), and
// whether a screenshot is blank (one colour). Tests call PARATUNE_CHROMIUM_OR_SKIP first, which
// skips with a message naming the missing binary when Chromium is absent (.ci/run installs it,
// so CI runs these tests).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace paratune::browser {

struct PageLoad {
  std::string dom;                          // document.documentElement.outerHTML after load
  std::vector<std::string> console_errors;  // console.error, uncaught exceptions, CSP reports
  std::vector<std::string> requests;        // URLs requested beyond the page itself
  bool screenshot_blank = true;             // every pixel of the screenshot the same colour
  int screenshot_width = 0, screenshot_height = 0;
  std::string screenshot_png;               // the PNG bytes (tests may save them)
};

// The Chromium binary, or empty when none is installed.
std::string ChromiumPath();

// Loads `url` (file:// or http://127.0.0.1:PORT/...) at a window of width x height. nullopt
// (with the reason in *error) when Chromium failed to run.
std::optional<PageLoad> LoadPage(const std::string& url, int width, int height, std::string* error);

}  // namespace paratune::browser

#define PARATUNE_CHROMIUM_OR_SKIP()                                                        \
  if (::paratune::browser::ChromiumPath().empty())                                         \
  GTEST_SKIP() << "chromium not installed (scripts/install-deps.sh installs it): skipping"
