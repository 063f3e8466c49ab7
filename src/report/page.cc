// The report's HTML page (page.h): one self-contained file. Its Content-Security-Policy allows
// nothing to be fetched (default-src 'none'), inline styles only and data: images, and no script
// at all; the fonts are the system's (no @font-face). Colours are CSS variables with light and
// dark values (prefers-color-scheme); @media print drops backgrounds and starts each section on a
// new page. The series palette is Okabe & Ito, "Color Universal Design" (2008): blue, orange,
// bluish green, vermillion, sky blue, reddish purple, yellow, black; in dark mode blue,
// vermillion and green are lifted and black becomes light grey so each keeps its contrast
// against the dark background.
#include "report/page.h"

#include "report/svg.h"

namespace paratune {
namespace {

constexpr const char* kCsp = "default-src 'none'; style-src 'unsafe-inline'; img-src data:";

constexpr const char* kCss = R"css(
:root{color-scheme:light dark;--bg:#ffffff;--fg:#1b1b1f;--muted:#5b5d66;--grid:#e3e4e8;--axis:#8a8c96;
--panel:#f6f7f9;--border:#d5d7dd;--link:#0b5cad;--band:rgba(213,94,0,0.14);--marker:#7a1f8f;--reference:#b00020;
--series-0:#0072B2;--series-1:#E69F00;--series-2:#009E73;--series-3:#D55E00;--series-4:#56B4E9;
--series-5:#CC79A7;--series-6:#F0E442;--series-7:#000000;--series-8:#882255;--series-9:#44AA99;
--series-10:#999933;--series-11:#332288}
@media (prefers-color-scheme:dark){:root{--bg:#121317;--fg:#e6e6ea;--muted:#a3a5ad;--grid:#2b2d34;--axis:#6f717b;
--panel:#1b1c21;--border:#34363e;--link:#7cb8f2;--band:rgba(240,122,58,0.20);--marker:#d79be6;--reference:#ff6b81;
--series-0:#3d9ee6;--series-1:#E69F00;--series-2:#1fbf8f;--series-3:#f07a3a;--series-4:#a3dcf7;
--series-5:#CC79A7;--series-6:#F0E442;--series-7:#c8c8c8;--series-8:#d0679a;--series-9:#44AA99;
--series-10:#c9c95a;--series-11:#8f85e6}}
*{box-sizing:border-box}
html{background:var(--bg);color:var(--fg)}
body{margin:0 auto;max-width:1100px;padding:24px 28px 48px;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,
"Noto Sans","Liberation Sans","DejaVu Sans",Arial,sans-serif}
h1{font-size:26px;margin:0 0 4px}h2{font-size:20px;margin:32px 0 12px;border-bottom:1px solid var(--border);padding-bottom:4px}
h3{font-size:16px;margin:20px 0 8px}
a{color:var(--link)}
.subtitle{color:var(--muted);margin:0 0 16px}
nav.toc{background:var(--panel);border:1px solid var(--border);border-radius:6px;padding:8px 16px;margin:16px 0}
nav.toc ol{margin:4px 0;padding-left:20px}
figure.chart{margin:16px 0 24px;padding:8px;background:var(--panel);border:1px solid var(--border);border-radius:6px;
break-inside:avoid}
figure.chart svg{display:block;max-width:100%;height:auto;font-size:11px;font-family:inherit}
figure.chart svg text{fill:var(--fg)}
figure.chart .tick,figure.chart .row-label{fill:var(--muted)}
figure.chart .axis-label{font-size:12px}
figure.chart .grid{stroke:var(--grid);stroke-width:1}
figure.chart .axis-line{stroke:var(--axis);stroke-width:1}
figure.chart .series{stroke-width:1.6;stroke-linejoin:round}
figure.chart .band{fill:var(--band)}
figure.chart .marker{stroke:var(--marker);stroke-width:1.2;stroke-dasharray:4 3}
figure.chart .marker-label{fill:var(--marker);font-size:10px}
figure.chart .reference{stroke:var(--reference);stroke-width:1.5;stroke-dasharray:6 4}
figure.chart .reference-label{fill:var(--reference)}
figure.chart .no-data{fill:var(--muted);font-size:14px}
figcaption{margin-top:4px}
figcaption .chart-title{font-weight:600}
details{margin-top:4px}
summary{cursor:pointer;color:var(--muted)}
table{border-collapse:collapse;margin:8px 0;font-size:13px;font-variant-numeric:tabular-nums}
th,td{border:1px solid var(--border);padding:3px 8px;text-align:left;vertical-align:top}
th{background:var(--panel)}
.num{text-align:right}
footer{margin-top:40px;color:var(--muted);font-size:12px}
@media print{
:root{--bg:#fff;--fg:#000;--muted:#333;--panel:#fff;--grid:#ddd}
html,body{background:none !important;color:#000}
body{max-width:none;padding:0}
nav.toc{border:none;background:none}
figure.chart{background:none;border:none}
section{break-before:page}
section:first-of-type{break-before:auto}
a{color:#000;text-decoration:none}
}
)css";

}  // namespace

std::string RenderPage(const Page& page) {
  SvgWriter w;
  w.Raw("<!doctype html>\n");
  w.Open("html", {{"lang", "en"}});
  w.Open("head");
  w.Empty("meta", {{"charset", "utf-8"}});
  w.Empty("meta", {{"http-equiv", "Content-Security-Policy"}, {"content", kCsp}});
  w.Empty("meta", {{"name", "viewport"}, {"content", "width=device-width, initial-scale=1"}});
  w.Empty("meta", {{"name", "color-scheme"}, {"content", "light dark"}});
  w.Empty("meta", {{"name", "generator"}, {"content", "paratune"}});
  w.Text("title", page.title);
  w.Open("style");
  w.Raw(kCss);
  w.Close("style");
  w.Close("head");
  w.Raw("\n");
  w.Open("body");
  w.Open("header");
  w.Text("h1", page.title);
  if (!page.subtitle.empty()) w.Text("p", page.subtitle, {{"class", "subtitle"}});
  w.Close("header");
  if (!page.sections.empty()) {
    w.Open("nav", {{"class", "toc"}, {"aria-label", "Contents"}});
    w.Text("strong", "Contents");
    w.Open("ol");
    for (const PageSection& s : page.sections) {
      w.Open("li");
      w.Text("a", s.title, {{"href", "#" + s.id}});
      w.Close("li");
    }
    w.Close("ol");
    w.Close("nav");
  }
  w.Open("main");
  if (page.sections.empty()) w.Text("p", "No inputs.", {{"class", "empty"}});
  for (const PageSection& s : page.sections) {
    w.Raw("\n");
    w.Open("section", {{"id", s.id}, {"aria-labelledby", s.id + "-h"}});
    w.Text("h2", s.title, {{"id", s.id + "-h"}});
    w.Raw(s.html);
    w.Close("section");
  }
  w.Close("main");
  w.Close("body");
  w.Close("html");
  w.Raw("\n");
  return w.Take();
}

}  // namespace paratune
