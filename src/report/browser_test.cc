// The headless-Chromium harness (browser_test_util.h): its base64 and PNG decoders on inputs
// built here by hand, then Chromium itself on hand-written pages whose console errors, requests,
// DOM and screenshot pixels are known, and on a page of the chart module (page.h and the
// charts) in light and dark mode. The Chromium tests skip when it is not installed.
#include "report/browser_test_util.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include <nlohmann/json.hpp>

#include "report/bar_chart.h"
#include "report/gantt_chart.h"
#include "report/line_chart.h"
#include "report/page.h"
#include "report/report.h"
#include "report/serve.h"
#include "util/test_util.h"
#include "report/test_documents.h"

namespace paratune::browser {
namespace {

// ---- base64 (RFC 4648 section 10 test vectors) ------------------------------------------------

TEST(Base64, DecodesTheRfcVectors) {
  EXPECT_EQ(Base64Decode(""), "");
  EXPECT_EQ(Base64Decode("Zg=="), "f");
  EXPECT_EQ(Base64Decode("Zm8="), "fo");
  EXPECT_EQ(Base64Decode("Zm9v"), "foo");
  EXPECT_EQ(Base64Decode("Zm9vYg=="), "foob");
  EXPECT_EQ(Base64Decode("Zm9vYmE="), "fooba");
  EXPECT_EQ(Base64Decode("Zm9vYmFy"), "foobar");
  // 0xfb 0xff: the last two alphabet characters.
  EXPECT_EQ(Base64Decode("+/8="), std::string("\xfb\xff"));
}

TEST(Base64, RejectsWhatIsNotBase64) {
  EXPECT_FALSE(Base64Decode("Zm9"));       // not a multiple of 4
  EXPECT_FALSE(Base64Decode("Zm9v\n"));    // whitespace
  EXPECT_FALSE(Base64Decode("Z=9v"));      // padding inside
  EXPECT_FALSE(Base64Decode("Zg==Zm9v"));  // padding before the end
  EXPECT_FALSE(Base64Decode("Zm*v"));      // outside the alphabet
}

// ---- PNG: files built here, rows written with each of the five filters -------------------------

void Put32(std::string* out, uint32_t v) {
  for (int s = 24; s >= 0; s -= 8) out->push_back(static_cast<char>((v >> s) & 0xff));
}

void PutChunk(std::string* out, const std::string& type, const std::string& data) {
  Put32(out, static_cast<uint32_t>(data.size()));
  const std::string body = type + data;
  out->append(body);
  Put32(out,
        static_cast<uint32_t>(crc32(0, reinterpret_cast<const Bytef*>(body.data()), static_cast<uInt>(body.size()))));
}

int PaethRef(int a, int b, int c) {  // PNG specification 9.4, written out again for the test
  const int p = a + b - c, pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
  return (pa <= pb && pa <= pc) ? a : (pb <= pc ? b : c);
}

// A PNG of `pixels` (rows of width * channels bytes); row y is filtered with filters[y % size].
std::string MakePng(int width, int height, int colour_type, int channels, const std::vector<unsigned char>& pixels,
                    const std::vector<int>& filters, int depth = 8, int interlace = 0) {
  const size_t stride = static_cast<size_t>(width * channels);
  std::string raw;
  for (int y = 0; y < height; ++y) {
    const int f = filters[static_cast<size_t>(y) % filters.size()];
    raw.push_back(static_cast<char>(f));
    for (size_t i = 0; i < stride; ++i) {
      const size_t at = static_cast<size_t>(y) * stride + i;
      const int x = pixels[at];
      const int a = i >= static_cast<size_t>(channels) ? pixels[at - static_cast<size_t>(channels)] : 0;
      const int b = y > 0 ? pixels[at - stride] : 0;
      const int c =
          (y > 0 && i >= static_cast<size_t>(channels)) ? pixels[at - stride - static_cast<size_t>(channels)] : 0;
      const int pred = f == 0 ? 0 : f == 1 ? a : f == 2 ? b : f == 3 ? (a + b) / 2 : PaethRef(a, b, c);
      raw.push_back(static_cast<char>((x - pred) & 0xff));
    }
  }
  std::string z(compressBound(static_cast<uLong>(raw.size())), '\0');
  uLongf zlen = static_cast<uLongf>(z.size());
  EXPECT_EQ(compress(reinterpret_cast<Bytef*>(z.data()), &zlen, reinterpret_cast<const Bytef*>(raw.data()),
                     static_cast<uLong>(raw.size())),
            Z_OK);
  z.resize(zlen);
  std::string png = "\x89PNG\r\n\x1a\n";
  std::string ihdr;
  Put32(&ihdr, static_cast<uint32_t>(width));
  Put32(&ihdr, static_cast<uint32_t>(height));
  ihdr += {static_cast<char>(depth), static_cast<char>(colour_type), 0, 0, static_cast<char>(interlace)};
  PutChunk(&png, "IHDR", ihdr);
  PutChunk(&png, "tEXt", std::string("Comment\0ancillary, skipped", 26));
  // Two IDAT chunks: the decoder joins them before inflating.
  PutChunk(&png, "IDAT", z.substr(0, z.size() / 2));
  PutChunk(&png, "IDAT", z.substr(z.size() / 2));
  PutChunk(&png, "IEND", "");
  return png;
}

// Pixels that make every filter's predictor matter: a gradient with wrap-around and noise.
std::vector<unsigned char> TestPixels(int width, int height, int channels) {
  std::vector<unsigned char> px;
  uint32_t s = 12345;
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      for (int c = 0; c < channels; ++c) {
        s = s * 1103515245u + 12345u;
        px.push_back(static_cast<unsigned char>(x * 37 + y * 91 + c * 53 + ((s >> 16) & 0x1f)));
      }
  return px;
}

TEST(Png, DecodesEveryFilterTypeAndColourType) {
  struct Case {
    int colour_type, channels;
  };
  for (const Case k : {Case{0, 1}, Case{2, 3}, Case{4, 2}, Case{6, 4}}) {
    const int w = 7, h = 10;  // 10 rows: each filter twice, also on the first row (no row above)
    const auto px = TestPixels(w, h, k.channels);
    for (const std::vector<int>& filters : {std::vector<int>{0, 1, 2, 3, 4}, std::vector<int>{4, 3, 2, 1, 0}}) {
      std::string err;
      const auto img = DecodePng(MakePng(w, h, k.colour_type, k.channels, px, filters), &err);
      ASSERT_TRUE(img) << "colour type " << k.colour_type << ": " << err;
      EXPECT_EQ(img->width, w);
      EXPECT_EQ(img->height, h);
      EXPECT_EQ(img->channels, k.channels);
      EXPECT_EQ(img->pixels, px) << "colour type " << k.colour_type << ", first filter " << filters[0];
      EXPECT_FALSE(IsBlank(*img));
    }
  }
}

TEST(Png, BlankIsEveryPixelTheSame) {
  std::vector<unsigned char> px(5 * 4 * 4, 0);
  for (size_t i = 0; i < px.size(); i += 4) px[i] = 200, px[i + 1] = 10, px[i + 2] = 30, px[i + 3] = 255;
  const auto blank = DecodePng(MakePng(5, 4, 6, 4, px, {4}), nullptr);
  ASSERT_TRUE(blank);
  EXPECT_TRUE(IsBlank(*blank));
  px.back() = 254;  // the alpha of the last pixel only
  const auto one_off = DecodePng(MakePng(5, 4, 6, 4, px, {1}), nullptr);
  ASSERT_TRUE(one_off);
  EXPECT_FALSE(IsBlank(*one_off));
  EXPECT_TRUE(IsBlank(PngImage{}));
}

// Damaged files are one-line errors with libpng's reason (its messages, libpng 1.6.39).
TEST(Png, RejectsDamagedFiles) {
  const auto px = TestPixels(3, 3, 3);
  auto error_of = [](const std::string& png) {
    std::string err;
    EXPECT_FALSE(DecodePng(png, &err));
    return err;
  };
  EXPECT_EQ(error_of("GIF89a"), "PNG: no PNG signature");
  EXPECT_EQ(error_of(MakePng(3, 3, 2, 3, px, {0}, 16)), "PNG: Not enough image data");  // 8-bit data, 16-bit header
  EXPECT_EQ(error_of(MakePng(3, 3, 3, 3, px, {0})), "PNG: IDAT: Missing PLTE before IDAT");
  EXPECT_EQ(error_of(MakePng(3, 3, 2, 3, px, {0}, 8, 1)), "PNG: bad adaptive filter value");  // not interlaced data
  EXPECT_EQ(error_of(MakePng(3, 3, 2, 3, px, {5})), "PNG: bad adaptive filter value");
  std::string png = MakePng(3, 3, 2, 3, px, {0});
  std::string bad_crc = png;
  bad_crc[8 + 8 + 2] ^= 1;  // a byte of IHDR's data
  EXPECT_EQ(error_of(bad_crc), "PNG: IHDR: CRC error");
  EXPECT_EQ(error_of(png.substr(0, 40)), "PNG: read beyond end of data");  // inside the tEXt chunk
  EXPECT_EQ(error_of(png.substr(0, 50)), "PNG: read beyond end of data");
  // One row short: a 3x4 header over the 3x3 image's data.
  std::string tall = png;
  tall[8 + 8 + 7] = 4;
  const uint32_t crc = static_cast<uint32_t>(crc32(0, reinterpret_cast<const Bytef*>(tall.data() + 12), 17));
  for (int k = 0; k < 4; ++k) tall[29 + k] = static_cast<char>((crc >> (24 - 8 * k)) & 0xff);
  EXPECT_EQ(error_of(tall), "PNG: Not enough image data");
  // All of the image data without the closing IEND chunk is read (libpng stops at the last row).
  const auto no_end = DecodePng(png.substr(0, png.size() - 12), nullptr);
  ASSERT_TRUE(no_end);
  EXPECT_EQ(no_end->pixels, px);
}

// ---- FindElements on serialised HTML -----------------------------------------------------------

TEST(FindElements, ReadsStartTagsAndTheirAttributes) {
  const std::string dom =
      R"(<html><head><style>rect.bar > x { fill: red } /* <rect class="bar" data-value="9"> */</style>)"
      R"(<script>if (a < b) document.write('<rect class="bar">');</script></head><body>)"
      R"(<!-- <rect class="bar" data-value="8"> --><svg><g class="row" data-row="stage 0">)"
      R"(<rect class="bar wide" data-series="A &amp; B" data-value="3" data-label="x &gt; 1, &quot;q&quot;, &#181;s &#x3bc;s"/>)"
      R"(<RECT CLASS='bar' data-value=5></RECT><rect class="barx" data-value="7"/><rect data-value="6" class="other bar">)"
      R"(<line class="reference" data-value="80e9"></g></svg></body></html>)";
  const auto bars = FindElements(dom, "rect", "bar");
  ASSERT_EQ(bars.size(), 3u);  // not the ones in style, script or the comment, not "barx"
  EXPECT_EQ(bars[0].attr("data-value"), "3");
  EXPECT_EQ(bars[0].attr("data-series"), "A & B");
  EXPECT_EQ(bars[0].attr("data-label"), "x > 1, \"q\", \xc2\xb5s \xce\xbcs");
  EXPECT_TRUE(bars[0].has_class("wide"));
  EXPECT_EQ(bars[1].tag, "rect");
  EXPECT_EQ(bars[1].attr("data-value"), "5");
  EXPECT_EQ(bars[2].attr("data-value"), "6");
  EXPECT_EQ(bars[2].attr("absent"), "");
  EXPECT_EQ(dom.compare(bars[1].offset, 5, "<RECT"), 0);
  EXPECT_EQ(FindElements(dom, "rect").size(), 4u);  // every rect outside raw text and comments
  EXPECT_EQ(FindElements(dom, "", "reference").at(0).attr("data-value"), "80e9");
  EXPECT_EQ(FindElements(dom, "g").at(0).attr("data-row"), "stage 0");
  EXPECT_TRUE(FindElements("<rect class=\"bar\" data-value=\"3", "rect").empty());  // cut short
}

// ---- Chromium ----------------------------------------------------------------------------------

class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/paratune-browser-test-XXXXXX";
    path_ = mkdtemp(tmpl) ? tmpl : "";
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  // Writes `html` to NAME and returns its file:// URL.
  std::string Page(const std::string& name, const std::string& html) const {
    std::ofstream(path_ + "/" + name) << html;
    return "file://" + path_ + "/" + name;
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Loads a page, failing the test (not crashing) when Chromium does not run; prints the time.
std::optional<PageLoad> Load(const std::string& url, int width = 320, int height = 240) {
  std::string err;
  const auto t0 = std::chrono::steady_clock::now();
  auto page = LoadPage(url, width, height, &err);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("  LoadPage %s: %.2f s\n", url.c_str(), s);
  EXPECT_TRUE(page) << err;
  return page;
}

size_t CountIn(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t at = hay.find(needle); at != std::string::npos; at = hay.find(needle, at + 1)) ++n;
  return n;
}

std::array<int, 3> PixelAt(const PngImage& img, int x, int y) {
  const size_t at = (static_cast<size_t>(y) * static_cast<size_t>(img.width) + static_cast<size_t>(x)) *
                    static_cast<size_t>(img.channels);
  return {img.pixels[at], img.pixels[at + 1], img.pixels[at + 2]};
}

// What a report page is: inline CSS and SVG under a CSP that forbids every fetch and script.
constexpr const char* kSelfContained = R"(<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>two bars</title>
<style>body { margin: 0; background: #ffffff; } svg { display: block; }</style></head>
<body><svg xmlns="http://www.w3.org/2000/svg" width="200" height="100" role="img" aria-labelledby="t">
<title id="t">two bars</title>
<rect class="bar" data-series="tokens/s" data-category="a" data-value="3" x="10" y="40" width="30" height="60" fill="#1f77b4"/>
<rect class="bar" data-series="tokens/s" data-category="b" data-value="5" x="60" y="0" width="30" height="100" fill="#ff7f0e"/>
</svg></body></html>
)";

TEST(Chromium, SelfContainedSvgPageLoadsCleanAndDraws) {
  PARATUNE_CHROMIUM_OR_SKIP();
  TempDir dir;
  const auto page = Load(dir.Page("bars.html", kSelfContained));
  ASSERT_TRUE(page);
  EXPECT_EQ(page->console_errors, std::vector<std::string>{});
  EXPECT_EQ(page->requests, std::vector<std::string>{});
  const auto bars = FindElements(page->dom, "rect", "bar");
  ASSERT_EQ(bars.size(), 2u);
  EXPECT_EQ(bars[0].attr("data-category"), "a");
  EXPECT_EQ(bars[0].attr("data-value"), "3");
  EXPECT_EQ(bars[1].attr("data-category"), "b");
  EXPECT_EQ(bars[1].attr("data-value"), "5");
  EXPECT_EQ(page->screenshot_width, 320);
  EXPECT_EQ(page->screenshot_height, 240);
  EXPECT_FALSE(page->screenshot_blank);
  EXPECT_EQ(page->http_status, 0);  // file://
  // The pixels where the page puts them: inside each bar its fill, beside them the background.
  const auto img = DecodePng(page->screenshot_png, nullptr);
  ASSERT_TRUE(img);
  EXPECT_EQ(PixelAt(*img, 25, 70), (std::array<int, 3>{0x1f, 0x77, 0xb4}));
  EXPECT_EQ(PixelAt(*img, 75, 50), (std::array<int, 3>{0xff, 0x7f, 0x0e}));
  EXPECT_EQ(PixelAt(*img, 25, 20), (std::array<int, 3>{0xff, 0xff, 0xff}));  // above the short bar
  EXPECT_EQ(PixelAt(*img, 250, 200), (std::array<int, 3>{0xff, 0xff, 0xff}));
}

TEST(Chromium, ExternalImageIsARequestThatFails) {
  PARATUNE_CHROMIUM_OR_SKIP();
  TempDir dir;
  const auto page =
      Load(dir.Page("img.html", R"(<!doctype html><html><head><meta charset="utf-8"><title>img</title></head>
<body><p>x</p><img src="http://example.com/x.png" alt="x"></body></html>)"));
  ASSERT_TRUE(page);
  EXPECT_EQ(page->requests, std::vector<std::string>{"http://example.com/x.png"});
  // The fetch goes nowhere (no network): the failure is a console error naming the URL.
  ASSERT_EQ(page->console_errors.size(), 1u);
  EXPECT_CONTAINS(page->console_errors[0], "Failed to load resource");
  EXPECT_CONTAINS(page->console_errors[0], "http://example.com/x.png");
}

// A report page forbids fetches by its policy; a fetch it still names shows twice: as a request
// (blocked ones are reported too) and as the policy's console error.
TEST(Chromium, ExternalImageUnderThePolicyIsARequestAndAnError) {
  PARATUNE_CHROMIUM_OR_SKIP();
  TempDir dir;
  const auto page = Load(dir.Page("img-csp.html", R"(<!doctype html><html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'"><title>img</title></head>
<body><p>x</p><img src="https://example.com/y.png" alt="y"></body></html>)"));
  ASSERT_TRUE(page);
  EXPECT_EQ(page->requests, std::vector<std::string>{"https://example.com/y.png"});
  ASSERT_EQ(page->console_errors.size(), 1u);
  EXPECT_CONTAINS(page->console_errors[0],
                  "Loading the image 'https://example.com/y.png' violates the following Content Security Policy");
}

TEST(Chromium, ScriptErrorsAreConsoleErrors) {
  PARATUNE_CHROMIUM_OR_SKIP();
  TempDir dir;
  const auto page =
      Load(dir.Page("script.html", R"(<!doctype html><html><head><meta charset="utf-8"><title>s</title></head>
<body><p>x</p><script>console.log("fine"); console.warn("fine too"); console.error("boom", 42);
document.body.setAttribute("data-ran", "yes"); throw new Error("kaboom");</script></body></html>)"));
  ASSERT_TRUE(page);
  ASSERT_EQ(page->console_errors.size(), 2u);
  EXPECT_EQ(page->console_errors[0], "console.error: boom 42");
  EXPECT_EQ(page->console_errors[1].rfind("uncaught: Error: kaboom", 0), 0u) << page->console_errors[1];
  EXPECT_CONTAINS(page->dom, "data-ran=\"yes\"");  // the DOM is read after the script ran
  EXPECT_EQ(page->requests, std::vector<std::string>{});
}

TEST(Chromium, ScriptBlockedByThePolicyIsAConsoleError) {
  PARATUNE_CHROMIUM_OR_SKIP();
  TempDir dir;
  const auto page = Load(dir.Page("csp.html", R"(<!doctype html><html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'"><title>c</title></head>
<body><p>x</p><script>console.error("boom"); document.body.setAttribute("data-ran", "yes");</script></body></html>)"));
  ASSERT_TRUE(page);
  ASSERT_EQ(page->console_errors.size(), 1u);
  EXPECT_CONTAINS(page->console_errors[0], "Content Security Policy");
  EXPECT_EQ(page->dom.find("data-ran=\"yes\""), std::string::npos);  // the script did not run
}

TEST(Chromium, WhitePageIsBlank) {
  PARATUNE_CHROMIUM_OR_SKIP();
  TempDir dir;
  const auto page = Load(dir.Page("white.html",
                                  "<!doctype html><html><head><meta charset=\"utf-8\"><title>w</title></head>"
                                  "<body style=\"background:#fff\"></body></html>"),
                         200, 150);
  ASSERT_TRUE(page);
  EXPECT_TRUE(page->screenshot_blank);
  EXPECT_EQ(page->screenshot_width, 200);
  EXPECT_EQ(page->screenshot_height, 150);
  EXPECT_EQ(page->console_errors, std::vector<std::string>{});
}

// The report's print styles are seen when the media are emulated (dark mode: the chart page
// test below).
TEST(Chromium, PrintMediaIsEmulated) {
  PARATUNE_CHROMIUM_OR_SKIP();
  TempDir dir;
  const std::string url = dir.Page("media.html", R"(<!doctype html><html><head><meta charset="utf-8"><title>m</title>
<style>body { margin: 0; background: #ffffff; }
@media (prefers-color-scheme: dark) { body { background: #101820; } }
@media print { body { background: #ff0000; } }</style></head><body></body></html>)");
  LoadOptions print;
  print.width = 120, print.height = 80, print.scheme = LoadOptions::Scheme::kDark, print.print = true;
  std::string err;
  const auto p = LoadPage(url, print, &err);
  ASSERT_TRUE(p) << err;
  const auto pimg = DecodePng(p->screenshot_png, nullptr);
  ASSERT_TRUE(pimg);
  EXPECT_EQ(PixelAt(*pimg, 60, 40), (std::array<int, 3>{0xff, 0x00, 0x00}));
}

TEST(Chromium, MissingFileIsAnErrorNotAPage) {
  PARATUNE_CHROMIUM_OR_SKIP();
  TempDir dir;
  std::string err;
  const std::string url = dir.Page("x.html", "") + ".absent";
  EXPECT_FALSE(LoadPage(url, 320, 240, &err));
  EXPECT_CONTAINS(err, "could not load " + url + ": net::ERR_FILE_NOT_FOUND");
}

TEST(Chromium, PageThatNeverLoadsTimesOut) {
  PARATUNE_CHROMIUM_OR_SKIP();
  TempDir dir;
  const std::string url =
      dir.Page("spin.html", "<!doctype html><html><body><script>for (;;) {}</script></body></html>");
  std::string err;
  const auto t0 = std::chrono::steady_clock::now();
  // The deadline covers the browser's start too: under the sanitizers on two busy cores that
  // start alone has taken over 1.5 s (CI, 2026-12-06), so the deadline leaves it room and the
  // spinning page is still what runs into it.
  EXPECT_FALSE(LoadPage(url, 320, 240, &err, 5.0));
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(err.rfind("timed out after 5 s waiting for ", 0), 0u) << err;
  EXPECT_LT(s, 5.0 + 2.0) << "the browser is killed at the deadline, not waited for";
}

TEST(LoadPage, ArgumentsOutsideTheirRangeAreErrors) {
  std::string err;
  EXPECT_FALSE(LoadPage("about:blank", 0, 240, &err));
  EXPECT_EQ(err, "window size 0x240 is outside 1..8192");
  EXPECT_FALSE(LoadPage("about:blank", 320, 240, &err, 0));
  EXPECT_EQ(err.rfind("timeout 0", 0), 0u) << err;
}

// The DOM contract of chart.h, figure by figure, in a loaded page's DOM: a kind, one
// svg role="img" labelled by its own <title>, a <desc> and a table of the data.
void ExpectFiguresFollowTheContract(const std::string& dom) {
  const auto figures = FindElements(dom, "figure", "chart");
  for (size_t i = 0; i < figures.size(); ++i) {
    const size_t from = figures[i].offset, to = i + 1 < figures.size() ? figures[i + 1].offset : dom.size();
    auto inside = [&](const std::string& tag, const std::string& cls = "") {
      std::vector<DomElement> in;
      for (const DomElement& e : FindElements(dom, tag, cls))
        if (e.offset > from && e.offset < to) in.push_back(e);
      return in;
    };
    const std::string id = figures[i].attr("id");
    EXPECT_FALSE(id.empty());
    EXPECT_FALSE(figures[i].attr("data-chart").empty()) << id;
    const auto svg = inside("svg");
    ASSERT_EQ(svg.size(), 1u) << id;
    EXPECT_EQ(svg[0].attr("role"), "img") << id;
    const std::string title_id = svg[0].attr("aria-labelledby");
    const auto titles = inside("title");
    EXPECT_TRUE(!title_id.empty() && std::any_of(titles.begin(), titles.end(),
                                                 [&](const DomElement& t) { return t.attr("id") == title_id; }))
        << id << ": no <title id=" << title_id << ">";
    EXPECT_EQ(inside("desc").size(), 1u) << id;
    EXPECT_GE(inside("table", "chart-data").size(), 1u) << id;
  }
}

// The elements of class `cls` inside the figure with DOM id `figure_id`.
std::vector<DomElement> InFigure(const std::string& dom, const std::string& figure_id, const std::string& tag,
                                 const std::string& cls) {
  const auto figures = FindElements(dom, "figure", "chart");
  std::vector<DomElement> in;
  for (size_t i = 0; i < figures.size(); ++i) {
    if (figures[i].attr("id") != figure_id) continue;
    const size_t to = i + 1 < figures.size() ? figures[i + 1].offset : dom.size();
    for (const DomElement& e : FindElements(dom, tag, cls))
      if (e.offset > figures[i].offset && e.offset < to) in.push_back(e);
  }
  return in;
}

// A page of the chart module as the report writes it: three charts in one section, seen in
// Chromium in light and dark mode.
std::string ChartPage() {
  BarChartData bars;
  bars.spec.id = "tps";
  bars.spec.title = "Tokens/s per GPU";
  bars.spec.description = "Tokens/s per GPU of three layouts.";
  bars.spec.y_label = "tokens/s per GPU";
  bars.categories = {"tp1 pp8", "tp2 pp4", "tp4 pp2"};
  bars.series = {{"tokens/s", {3120.5, 2890, 2405.25}}};
  LineChartData line;
  line.spec.id = "tput";
  line.spec.title = "Throughput";
  line.spec.x_label = "iteration";
  line.series = {{"tokens/s", {0, 10, 20, 30, 40, 50}, {100, 101, 99, 80, 81, 79}}};
  line.markers = {{30, "change point"}};
  line.bands = {{40, 50, "throttled"}};
  GanttChartData gantt;
  gantt.spec.id = "pipe";
  gantt.spec.title = "Pipeline";
  gantt.spec.x_unit = "s";
  gantt.rows = {"stage 0", "stage 1"};
  gantt.categories = {"forward", "backward"};
  gantt.spans = {{0, 0, 1, "forward", "mb 0"},
                 {1, 1, 2, "forward", "mb 0"},
                 {1, 2, 4, "backward", "mb 0"},
                 {0, 4, 6, "backward", "mb 0"}};
  Page page;
  page.title = "charts";
  page.sections = {{"s", "Section", RenderBarChart(bars) + RenderLineChart(line) + RenderGanttChart(gantt)}};
  return RenderPage(page);
}

// The centre of the first element matching a CSS selector, in viewport pixels.
std::string CentreOf(const std::string& selector) {
  return "(() => { const r = document.querySelector('" + selector +
         "').getBoundingClientRect(); return [Math.round(r.x + r.width / 2), Math.round(r.y + r.height / 2)]; })()";
}

TEST(Chromium, ChartPageFollowsTheDomContractInLightAndDarkMode) {
  PARATUNE_CHROMIUM_OR_SKIP();
  TempDir dir;
  const std::string url = dir.Page("charts.html", ChartPage());
  // The first bar's fill is var(--series-0): Okabe-Ito blue in light mode, lifted in dark mode
  // (page.cc); the page's background var(--bg).
  struct Mode {
    LoadOptions::Scheme scheme;
    std::array<int, 3> bar, background;
  };
  for (const Mode mode : {Mode{LoadOptions::Scheme::kLight, {0x00, 0x72, 0xb2}, {0xff, 0xff, 0xff}},
                          Mode{LoadOptions::Scheme::kDark, {0x3d, 0x9e, 0xe6}, {0x12, 0x13, 0x17}}}) {
    LoadOptions o;
    o.width = 1024, o.height = 1400, o.scheme = mode.scheme;
    o.expressions = {CentreOf("#tps rect.bar"),
                     "[document.scrollingElement.scrollWidth, document.scrollingElement.scrollHeight]"};
    std::string err;
    const auto t0 = std::chrono::steady_clock::now();
    const auto page = LoadPage(url, o, &err);
    std::printf("  LoadPage %s (%s): %.2f s\n", url.c_str(),
                mode.scheme == LoadOptions::Scheme::kDark ? "dark" : "light",
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    ASSERT_TRUE(page) << err;
    EXPECT_EQ(page->console_errors, std::vector<std::string>{});
    EXPECT_EQ(page->requests, std::vector<std::string>{});
    EXPECT_FALSE(page->screenshot_blank);
    // Each chart: a figure of its kind, an svg image labelled by its own title, a desc, a table.
    const auto figures = FindElements(page->dom, "figure", "chart");
    ASSERT_EQ(figures.size(), 3u);
    EXPECT_EQ(figures[0].attr("data-chart"), "bar");
    EXPECT_EQ(figures[1].attr("data-chart"), "line");
    EXPECT_EQ(figures[2].attr("data-chart"), "gantt");
    ExpectFiguresFollowTheContract(page->dom);
    // The bars: one per layout with its value; the line's points, marker and band; the rows.
    const auto rects = FindElements(page->dom, "rect", "bar");
    ASSERT_EQ(rects.size(), 3u);
    EXPECT_EQ(rects[0].attr("data-category"), "tp1 pp8");
    EXPECT_EQ(rects[0].attr("data-value"), "3120.5");
    EXPECT_EQ(rects[2].attr("data-category"), "tp4 pp2");
    EXPECT_EQ(rects[2].attr("data-value"), "2405.25");
    const auto paths = FindElements(page->dom, "path", "series");
    ASSERT_EQ(paths.size(), 1u);
    EXPECT_EQ(paths[0].attr("data-points"), "6");
    const auto markers = FindElements(page->dom, "line", "marker");
    ASSERT_EQ(markers.size(), 1u);
    EXPECT_EQ(markers[0].attr("data-x"), "30");
    EXPECT_EQ(markers[0].attr("data-label"), "change point");
    const auto bands = FindElements(page->dom, "rect", "band");
    ASSERT_EQ(bands.size(), 1u);
    EXPECT_EQ(bands[0].attr("data-x0"), "40");
    EXPECT_EQ(bands[0].attr("data-x1"), "50");
    const auto rows = FindElements(page->dom, "g", "gantt-row");
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[1].attr("data-row"), "stage 1");
    EXPECT_EQ(FindElements(page->dom, "rect", "span").size(), 4u);
    // What the reader sees: the bar in its mode's colour where the layout put it, the page's
    // background in the corner, and no horizontal scrolling at 1024 px.
    ASSERT_EQ(page->evaluated.size(), 2u);
    const auto centre = nlohmann::json::parse(page->evaluated[0]);
    const auto img = DecodePng(page->screenshot_png, nullptr);
    ASSERT_TRUE(img);
    const int cx = centre.at(0).get<int>(), cy = centre.at(1).get<int>();
    ASSERT_TRUE(cx > 0 && cx < img->width && cy > 0 && cy < img->height) << page->evaluated[0];
    EXPECT_EQ(PixelAt(*img, cx, cy), mode.bar) << "at " << page->evaluated[0];
    EXPECT_EQ(PixelAt(*img, 2, 2), mode.background);
    EXPECT_EQ(nlohmann::json::parse(page->evaluated[1]).at(0).get<int>(), 1024);
  }
}

// A report of a plan (three ranked layouts) and a simulation (4 stages, 4 micro-batches), both
// hand-made documents of their schemas (docs/json.md), as the reader sees it in Chromium.
TEST(Chromium, ReportOfAPlanAndASimulationShowsTheirNumbers) {
  PARATUNE_CHROMIUM_OR_SKIP();
  const nlohmann::json plan = report_test::PlanDoc();
  const nlohmann::json sim = report_test::SimulateDoc();
  const std::string html = RenderReport({{"plan.json", plan}, {"sim.json", sim}}, ReportOptions{});
  TempDir dir;
  const auto page = Load(dir.Page("report.html", html), 1024, 768);
  ASSERT_TRUE(page);
  EXPECT_EQ(page->console_errors, std::vector<std::string>{});
  EXPECT_EQ(page->requests, std::vector<std::string>{});
  EXPECT_FALSE(page->screenshot_blank);
  EXPECT_GE(FindElements(page->dom, "figure", "chart").size(), 4u);
  ExpectFiguresFollowTheContract(page->dom);
  // One bar per listed layout with its value; the memory against the 76 GB limit.
  auto values = [&](const std::string& id, const std::string& tag, const std::string& cls) {
    std::vector<std::string> v;
    for (const DomElement& e : InFigure(page->dom, id, tag, cls)) v.push_back(e.attr("data-value"));
    return v;
  };
  EXPECT_EQ(values("plan-json-plan-throughput", "rect", "bar"), (std::vector<std::string>{"3000", "2500", "1250"}));
  EXPECT_EQ(values("plan-json-plan-mfu", "rect", "bar"), (std::vector<std::string>{"0.5", "0.375", "0.25"}));
  EXPECT_EQ(values("plan-json-plan-memory", "rect", "bar"),
            (std::vector<std::string>{"40000000000", "50000000000", "60000000000"}));
  EXPECT_EQ(values("plan-json-plan-memory", "line", "reference"), (std::vector<std::string>{"76000000000"}));
  // The Gantt: one row per stage, each with its 4 forward and 4 backward spans.
  const auto rows = InFigure(page->dom, "sim-json-simulate-gantt", "g", "gantt-row");
  ASSERT_EQ(rows.size(), 4u);
  for (int st = 0; st < 4; ++st)
    EXPECT_EQ(rows[static_cast<size_t>(st)].attr("data-row"), "stage " + std::to_string(st));
  const auto spans = InFigure(page->dom, "sim-json-simulate-gantt", "rect", "span");
  EXPECT_EQ(std::count_if(spans.begin(), spans.end(),
                          [](const DomElement& e) { return e.attr("data-category") == "forward"; }),
            16);
  EXPECT_EQ(std::count_if(spans.begin(), spans.end(),
                          [](const DomElement& e) { return e.attr("data-category") == "backward"; }),
            16);
}

// Every committed report fixture (testdata/report/*.json, when there are any) renders to a page
// that loads clean, draws, and keeps the DOM contract.
TEST(Chromium, ReportFixturesLoadClean) {
  PARATUNE_CHROMIUM_OR_SKIP();
  const std::string fixtures = TestDataPath("report");
  std::error_code ec;
  if (!std::filesystem::is_directory(fixtures, ec)) GTEST_SKIP() << "no report fixtures: " << fixtures << " is absent";
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(fixtures, ec))
    if (e.path().extension() == ".json") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  if (files.empty()) GTEST_SKIP() << "no report fixtures: " << fixtures << " has no *.json";
  // One page of all of them: one browser start.
  const std::string html = RenderReport(ReadReportInputs(files), ReportOptions{});
  TempDir dir;
  const auto page = Load(dir.Page("fixtures.html", html), 1024, 768);
  ASSERT_TRUE(page);
  EXPECT_EQ(page->console_errors, std::vector<std::string>{});
  EXPECT_EQ(page->requests, std::vector<std::string>{});
  EXPECT_FALSE(page->screenshot_blank);
  EXPECT_GE(FindElements(page->dom, "figure", "chart").size(), files.size());
  ExpectFiguresFollowTheContract(page->dom);
}

TEST(Chromium, ExpressionThatThrowsFailsTheLoad) {
  PARATUNE_CHROMIUM_OR_SKIP();
  TempDir dir;
  LoadOptions o;
  o.width = 100, o.height = 100, o.expressions = {"document.querySelector('#absent').id"};
  std::string err;
  EXPECT_FALSE(LoadPage(dir.Page("e.html", "<!doctype html><title>e</title>"), o, &err));
  EXPECT_CONTAINS(
      err, "the expression `document.querySelector('#absent').id` threw: TypeError: Cannot read properties of null");
}

// A one-page HTTP server on 127.0.0.1: loopback pages load (they bypass the dead proxy) and only
// the page's own requests are counted.
TEST(Chromium, LoopbackHttpPageLoads) {
  PARATUNE_CHROMIUM_OR_SKIP();
  const int listener = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(listener, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  ASSERT_EQ(bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(listen(listener, 8), 0);
  socklen_t len = sizeof addr;
  ASSERT_EQ(getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  const int port = ntohs(addr.sin_port);
  std::atomic<bool> stop{false};
  std::vector<std::string> paths;
  std::thread server([&] {
    while (!stop) {
      const int c = accept(listener, nullptr, nullptr);
      if (c < 0) return;
      std::string req;
      char buf[4096];
      while (req.find("\r\n\r\n") == std::string::npos) {
        const ssize_t n = recv(c, buf, sizeof buf, 0);
        if (n <= 0) break;
        req.append(buf, static_cast<size_t>(n));
      }
      const size_t sp = req.find(' ');
      const std::string path =
          sp == std::string::npos ? std::string() : req.substr(sp + 1, req.find(' ', sp + 1) - sp - 1);
      if (!path.empty()) paths.push_back(path);  // Chromium also opens connections it never uses
      const bool found = path == "/r/bars";
      const std::string body =
          found ? std::string(kSelfContained) : "<!doctype html><title>404</title><p>not found</p>";
      const std::string resp =
          std::string(found ? "HTTP/1.1 200 OK" : "HTTP/1.1 404 Not Found") +
          "\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: " + std::to_string(body.size()) +
          "\r\nConnection: close\r\n\r\n" + body;
      (void)send(c, resp.data(), resp.size(), MSG_NOSIGNAL);
      close(c);
    }
  });
  const auto page = Load("http://127.0.0.1:" + std::to_string(port) + "/r/bars");
  const auto missing = Load("http://127.0.0.1:" + std::to_string(port) + "/r/..%2fsecret");
  stop = true;
  shutdown(listener, SHUT_RDWR);
  close(listener);
  server.join();
  ASSERT_TRUE(page);
  EXPECT_EQ(page->console_errors, std::vector<std::string>{});
  EXPECT_EQ(page->requests, std::vector<std::string>{});
  EXPECT_EQ(CountIn(page->dom, "<rect class=\"bar\""), 2u);
  EXPECT_FALSE(page->screenshot_blank);
  EXPECT_EQ(page->http_status, 200);
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->http_status, 404);  // a page, with its status: the serve tests check it
  EXPECT_CONTAINS(missing->dom, "not found");
  ASSERT_GE(paths.size(), 2u);
  EXPECT_EQ(paths[0], "/r/bars");
  // Sent as written, not normalised by the browser (a favicon request may come between).
  EXPECT_NE(std::find(paths.begin(), paths.end(), "/r/..%2fsecret"), paths.end());
}

// Runs the paratune binary with `args` (each quoted), stdout to `out`, stderr to `out`.stderr;
// its exit status.
int RunParatune(const std::vector<std::string>& args, const std::string& out) {
  auto quote = [](const std::string& a) {
    std::string q = "'";
    for (char c : a) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
  };
  std::string cmd = quote(PARATUNE_BINARY);
  for (const std::string& a : args) cmd.append(" ").append(quote(a));
  cmd.append(" </dev/null >").append(quote(out)).append(" 2>").append(quote(out + ".stderr"));
  const int raw = std::system(cmd.c_str());
  return raw != -1 && WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
}

// Loads a report page and prints its load time (navigation start to the load event, from the
// page's Performance timing): measured for docs/performance.md, never asserted.
void LoadAndReport(const std::string& html_path, const std::string& what) {
  std::string err;
  const auto page = LoadPage("file://" + html_path, 1024, 768, &err, 60);
  ASSERT_TRUE(page) << err;  // the load event fired
  EXPECT_EQ(page->console_errors, std::vector<std::string>{});
  EXPECT_EQ(page->requests, std::vector<std::string>{});
  EXPECT_FALSE(page->screenshot_blank);
  std::error_code ec;
  const auto bytes = std::filesystem::file_size(html_path, ec);
  std::printf("%s: %.0f KB, navigation start to load event %.3f s\n", what.c_str(), static_cast<double>(bytes) / 1e3,
              page->load_s);
  testing::Test::RecordProperty("load_s", std::to_string(page->load_s));
}

// The large page of issue 13: the Gantt of 64 stages x 1,024 micro-batches (a 128-layer model,
// tp 8 pp 64 on 512 H100, global batch 1,024 of micro-batch 1) loads; its load time is printed.
TEST(Chromium, LargeGanttPageLoads) {
  PARATUNE_CHROMIUM_OR_SKIP();
  TempDir dir;
  const std::string json = dir.path() + "/sim.json", html = dir.path() + "/sim.html";
  ASSERT_EQ(RunParatune(
                {"simulate", "--layers",       "128",   "--hidden", "8192",   "--heads", "64",        "--ffn", "28672",
                 "--vocab",  "128256",         "--gpu", "H100",     "--gpus", "512",     "--tp",      "8",     "--pp",
                 "64",       "--global-batch", "1024",  "--seq",    "4096",   "--json",  "--timeline"},
                json),
            0);
  ASSERT_EQ(RunParatune({"report", json, "--out", html}, dir.path() + "/report.txt"), 0);
  LoadAndReport(html, "64 x 1,024 Gantt page");
}

// The cluster report of the Philly-derived trace (82,247 jobs) on 64 nodes, 3 policies.
TEST(Chromium, ClusterReportOfThePhillyTraceLoads) {
  PARATUNE_CHROMIUM_OR_SKIP();
  PARATUNE_SHARED_OR_SKIP(philly, "cluster-traces/philly-pollux/philly.csv");
  TempDir dir;
  const std::string json = dir.path() + "/cluster.json", html = dir.path() + "/cluster.html";
  ASSERT_EQ(RunParatune({"cluster", "--job-history", philly, "--nodes", "64", "--gpu", "H100", "--policy",
                         "fifo,topo,topo-preempt", "--json"},
                        json),
            0);
  ASSERT_EQ(RunParatune({"report", json, "--out", html}, dir.path() + "/report.txt"), 0);
  LoadAndReport(html, "82,247-job cluster page");
}

// The analyze fixture with a GPU (scripts/report_fixtures.sh: analyze --gpu H100 of
// testdata/report/traces/collectives_rank-0.json): the bus bandwidth chart has a ceiling bar
// beside each collective's busbw bar, with the JSON's ceiling (all-reduce in 8 on H100 NVLink:
// 450 x 370/450 = 370 GB/s; src/cli/report_cli_test.cc derives both).
TEST(Chromium, AnalyzeCeilingBarsHoldTheListedCeiling) {
  PARATUNE_CHROMIUM_OR_SKIP();
  const std::string fixture = TestDataPath("report/analyze_ceiling.json");
  if (!std::filesystem::exists(fixture)) GTEST_SKIP() << "absent: " << fixture;
  const ReportInput in = ReadReportInput(fixture);
  std::map<std::string, double> listed;
  for (const auto& c : in.doc["ranks"][0]["collectives"])
    if (c["ceiling_bytes_per_s"].is_number())
      listed[c["kind"].get<std::string>()] = c["ceiling_bytes_per_s"].get<double>();
  ASSERT_EQ(listed.size(), 2u);
  EXPECT_NEAR(listed["all_reduce"], 370e9, 1);
  TempDir dir;
  std::string err;
  const auto page = LoadPage(dir.Page("a.html", RenderReport({in}, ReportOptions{})), 1024, 768, &err);
  ASSERT_TRUE(page) << err;
  EXPECT_EQ(page->console_errors, std::vector<std::string>{});
  std::map<std::string, double> drawn;
  for (const DomElement& e : InFigure(page->dom, "analyze-ceiling-json-analyze-busbw", "rect", "bar"))
    if (e.attr("data-series") == "ceiling") drawn[e.attr("data-category")] = std::stod(e.attr("data-value"));
  ASSERT_EQ(drawn.size(), listed.size());
  for (const auto& [kind, v] : listed) EXPECT_NEAR(drawn[kind], v, v * 1e-5) << kind;
}

}  // namespace
}  // namespace paratune::browser

namespace paratune::browser {
namespace {

// The served pages (serve.h) in Chromium: the listing and a report page of a fixture load with
// no console error and no request beyond the page, and the page carries the same charts.
TEST(Chromium, ServedPagesLoadClean) {
  PARATUNE_CHROMIUM_OR_SKIP();
  const std::string fixture = TestDataPath("report/plan.json");
  if (!std::filesystem::exists(fixture)) GTEST_SKIP() << "absent: " << fixture;
  TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  const std::filesystem::path served = std::filesystem::path(dir.path()) / "served";
  std::filesystem::create_directories(served);
  std::filesystem::copy_file(fixture, served / "plan.json");
  ServeOptions o;
  o.dir = served.string();
  o.port = 0;
  std::atomic<bool> stop{false};
  std::atomic<int> port{0};
  std::thread t([&] { Serve(o, stop, [&](int p) { port = p; }); });
  for (int i = 0; i < 500 && port == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_GT(port.load(), 0);
  const std::string base = "http://127.0.0.1:" + std::to_string(port.load());
  std::string err;
  const auto list = LoadPage(base + "/", 1024, 768, &err);
  ASSERT_TRUE(list) << err;
  EXPECT_EQ(list->console_errors, std::vector<std::string>{});
  EXPECT_EQ(list->requests, std::vector<std::string>{});
  EXPECT_NE(list->dom.find("/r/plan.json"), std::string::npos);
  const auto page = LoadPage(base + "/r/plan.json", 1024, 768, &err);
  ASSERT_TRUE(page) << err;
  EXPECT_EQ(page->http_status, 200);
  EXPECT_EQ(page->console_errors, std::vector<std::string>{});
  EXPECT_EQ(page->requests, std::vector<std::string>{});
  EXPECT_FALSE(page->screenshot_blank);
  const auto bars = FindElements(page->dom, "rect", "bar");
  EXPECT_GE(bars.size(), 5u);  // five ranked layouts in the throughput chart alone
  stop = true;
  t.join();
}

}  // namespace
}  // namespace paratune::browser

namespace paratune::browser {
namespace {

// The diagnose fixture in Chromium: the change point marker sits at the iteration the finding
// names, on the chart of the log it was found in, and the checkpoint saves of the other log are
// marked on its chart.
TEST(Chromium, ChangePointMarkerSitsAtTheDetectedIteration) {
  PARATUNE_CHROMIUM_OR_SKIP();
  const std::string fixture = TestDataPath("report/diagnose.json");
  if (!std::filesystem::exists(fixture)) GTEST_SKIP() << "absent: " << fixture;
  const ReportInput in = ReadReportInput(fixture);
  double detected = -1;
  for (const auto& f : in.doc["findings"])
    if (f["rule"] == "throughput_change_point") detected = f["where"]["iterations"][0].get<double>();
  ASSERT_GT(detected, 0);
  TempDir dir;
  std::string err;
  const auto page = LoadPage(dir.Page("d.html", RenderReport({in}, ReportOptions{})), 1024, 768, &err);
  ASSERT_TRUE(page) << err;
  EXPECT_EQ(page->console_errors, std::vector<std::string>{});
  const auto step = InFigure(page->dom, "diagnose-json-diagnose-throughput-0", "line", "marker");
  ASSERT_EQ(step.size(), 1u);
  EXPECT_EQ(step[0].attr("data-label"), "change point");
  EXPECT_DOUBLE_EQ(std::stod(step[0].attr("data-x")), detected);
  const auto saves = InFigure(page->dom, "diagnose-json-diagnose-throughput-1", "line", "marker");
  EXPECT_GE(saves.size(), 5u);
  for (const auto& m : saves) EXPECT_EQ(m.attr("data-label"), "checkpoint save");
}

}  // namespace
}  // namespace paratune::browser

namespace paratune::browser {
namespace {

// Issue 32: the simulate report's legend overlapped stage 0's label. In every chart of the
// simulate fixture and of a 16-stage simulation, no legend entry's box meets any other text of
// its figure (row labels, tick labels, axis labels), measured in the browser.
TEST(Chromium, LegendsOverlapNoOtherText) {
  PARATUNE_CHROMIUM_OR_SKIP();
  TempDir dir;
  const std::string json = dir.path() + "/sim16.json", html = dir.path() + "/sim.html";
  ASSERT_EQ(RunParatune({"simulate", "--gpus", "128", "--tp", "8", "--pp", "16", "--global-batch", "64", "--json",
                         "--timeline"},
                        json),
            0);
  ASSERT_EQ(
      RunParatune({"report", std::string(PARATUNE_SOURCE_DIR) + "/testdata/report/simulate.json", json, "--out", html},
                  dir.path() + "/report.txt"),
      0);
  LoadOptions o;
  o.expressions = {R"js((() => {
    const hits = [];
    for (const fig of document.querySelectorAll('figure.chart')) {
      const legend = [...fig.querySelectorAll('g.legend-entry')].map(e => [e.getAttribute('data-series'), e.getBoundingClientRect()]);
      const texts = [...fig.querySelectorAll('text')].filter(t => !t.closest('g.legend'));
      for (const [name, a] of legend)
        for (const t of texts) {
          const b = t.getBoundingClientRect();
          const w = Math.min(a.right, b.right) - Math.max(a.left, b.left), h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
          if (w > 0.5 && h > 0.5) hits.push(fig.id + ': legend ' + name + ' over "' + t.textContent + '"');
        }
    }
    return hits;
  })())js"};
  std::string err;
  const auto page = LoadPage("file://" + html, o, &err);
  ASSERT_TRUE(page) << err;
  ASSERT_EQ(page->evaluated.size(), 1u);
  EXPECT_EQ(page->evaluated[0], "[]");
}

}  // namespace
}  // namespace paratune::browser
