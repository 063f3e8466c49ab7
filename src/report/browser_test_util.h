// Test helper: renders a page in headless Chromium (Debian `chromium`, installed by
// scripts/install-deps.sh) and returns what the browser tests check: the DOM after load, the
// console errors, every network request the page made (a self-contained report makes none), and
// whether a screenshot is blank (one colour). Tests call PARATUNE_CHROMIUM_OR_SKIP first, which
// skips with a message naming the missing binary when Chromium is absent (.ci/run installs it,
// so CI runs these tests).
#pragma once

#include <map>
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
  std::string screenshot_png;          // the PNG bytes (tests may save them)
  int http_status = 0;                 // the page's own HTTP status (http:// URLs; 0 otherwise)
  std::vector<std::string> evaluated;  // LoadOptions::expressions' values, as JSON text
  // Navigation start to the load event, s, as the page's Performance timing measured it
  // (loadEventStart); -1 when the page reports none. Measured, for docs/performance.md: no
  // test asserts a speed.
  double load_s = -1;
};

// The Chromium binary, or empty when none is installed.
std::string ChromiumPath();

// Loads `url` (file:// or http://127.0.0.1:PORT/...) at a window of width x height. nullopt
// (with the reason in *error) when Chromium failed to run, the URL could not be loaded, or the
// page had not loaded within `timeout_s` (then the browser is killed: a test never hangs).
std::optional<PageLoad> LoadPage(const std::string& url, int width, int height, std::string* error,
                                 double timeout_s = 20);

// The same with the page's media emulated: a colour scheme (what `prefers-color-scheme` sees)
// and the print media type, for the report's dark-mode and print styles.
struct LoadOptions {
  int width = 1024, height = 768;
  double timeout_s = 20;
  enum class Scheme { kDefault, kLight, kDark } scheme = Scheme::kDefault;
  bool print = false;  // CSS media type `print` instead of `screen`
  // JavaScript expressions evaluated after load, by DevTools (the page's own policy may forbid
  // scripts: these still run), e.g. an element's getBoundingClientRect() to find it in the
  // screenshot. One that throws makes the load fail, naming it.
  std::vector<std::string> expressions;
};
std::optional<PageLoad> LoadPage(const std::string& url, const LoadOptions& options, std::string* error);

// An element's start tag in a serialised DOM (PageLoad::dom), attributes decoded.
struct DomElement {
  std::string tag;                           // lower case
  std::map<std::string, std::string> attrs;  // names lower case; values with &amp; &quot; &lt;
                                             // &gt; &#N; &#xN; &nbsp; decoded
  size_t offset = 0;                         // of the '<' in the DOM text
  bool has_class(const std::string& cls) const;
  // The attribute, or "" when absent.
  std::string attr(const std::string& name) const;
};
// Every start tag named `tag` (any, when empty) carrying class `cls` (any, when empty), in
// document order. It reads HTML as Chromium serialises it (quoted attribute values, text escaped)
// and skips the contents of <script>, <style>, <textarea> and comments; it is a test helper,
// not an HTML parser.
std::vector<DomElement> FindElements(const std::string& dom, const std::string& tag, const std::string& cls = "");

// The parts LoadPage is built from, exposed for their unit tests (docs/report-browser.md).

// A PNG decoded to rows of 8-bit pixels (`channels` bytes each: 1 grey, 2 grey+alpha, 3 RGB,
// 4 RGBA).
struct PngImage {
  int width = 0, height = 0;
  int channels = 0;
  std::vector<unsigned char> pixels;  // height rows of width * channels bytes
};
// Decodes a PNG with libpng (any colour type, bit depth and interlacing: a palette is expanded,
// 16-bit samples become 8-bit sRGB); nullopt with libpng's reason in *error ("PNG: ...") for a
// damaged file or one larger than 16384 pixels a side.
std::optional<PngImage> DecodePng(const std::string& png, std::string* error);
// Every pixel the same (an empty image is blank).
bool IsBlank(const PngImage& image);
// Standard base64 (RFC 4648 section 4, with padding; whitespace is not allowed); nullopt when
// `text` is not base64.
std::optional<std::string> Base64Decode(const std::string& text);

}  // namespace paratune::browser

#define PARATUNE_CHROMIUM_OR_SKIP()                \
  if (::paratune::browser::ChromiumPath().empty()) \
  GTEST_SKIP() << "chromium not installed (scripts/install-deps.sh installs it): skipping"
