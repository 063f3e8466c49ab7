#include "report/registry_pages.h"

#include <fmt/format.h>

#include "report/page.h"
#include "report/report.h"
#include "report/runs_section.h"
#include "report/svg.h"
#include "util/error.h"
#include "util/percent_encode.h"

namespace paratune {
namespace {

std::string Link(const std::string& href, const std::string& text) {
  return "<a href=\"" + XmlEscape(href) + "\">" + XmlEscape(text) + "</a>";
}

RegistryPage ErrorPage(int status, const std::string& title, const std::string& reason) {
  return {status, RenderPage(Page{
                      title, "", {PageSection{"error", title, "<p class=\"error\">" + XmlEscape(reason) + "</p>\n"}}})};
}

// The sections of `docs` (each drawn by its schema's section) under a navigation paragraph.
std::string Sections(const std::string& title, const std::string& nav, const std::vector<ReportInput>& docs) {
  std::string page = RenderReport(docs, ReportOptions{.title = title, .compare = false});
  // The navigation goes first in <main>: the links between the registry's pages.
  const size_t at = page.find("<main>");
  if (at != std::string::npos) page.insert(at + 6, "\n<nav class=\"registry\">" + nav + "</nav>\n");
  return page;
}

std::string Param(const std::multimap<std::string, std::string>& params, const std::string& key) {
  const auto it = params.find(key);
  return it == params.end() ? "" : it->second;
}

}  // namespace

RegistryPage RenderRegistryPage(const RegistryPages& pages, const std::string& path,
                                const std::multimap<std::string, std::string>& params) {
  const std::string nav_home = Link("/runs", "all runs");
  try {
    if (path == "/runs") {
      nlohmann::json list = pages.list();
      const nlohmann::json baselines = pages.baselines();
      // One link per run to its page, and per baseline scope to the comparison.
      std::string nav = fmt::format("Registry {}: ", XmlEscape(pages.where));
      size_t n = 0;
      for (const RunSummary& r : ReadRunsList(list, "runs").runs) {
        if (n++ == 200) {
          nav += " …";
          break;
        }
        nav += (n > 1 ? " · " : "") + Link("/runs/" + PercentEncode(r.name), r.name);
      }
      return {200, Sections("paratune runs", nav, {{"runs", std::move(list)}, {"baselines", baselines}})};
    }
    if (path == "/runs/compare") {
      const std::string a = Param(params, "a"), b = Param(params, "b");
      if (a.empty())
        return ErrorPage(400, "Bad request",
                         "/runs/compare needs ?a=RUN (and &b=RUN; without b, a against its baseline)");
      const nlohmann::json c = pages.compare(a, b);
      return {200, Sections(b.empty() ? a + " against its baseline" : b + " against " + a,
                            nav_home + " · " + Link("/runs/" + PercentEncode(a), a) +
                                (b.empty() ? "" : " · " + Link("/runs/" + PercentEncode(b), b)),
                            {{"compare", c}})};
    }
    if (path.rfind("/runs/", 0) == 0) {
      const std::string name = path.substr(6);
      if (name.empty() || name.find('/') != std::string::npos) return ErrorPage(404, "Not found", "no page " + path);
      std::vector<ReportInput> docs = {{name, pages.show(name)}};
      std::string nav = nav_home;
      try {  // the comparison with the baseline of its scope, when one is set and is another run
        nlohmann::json c = pages.compare(name, "");
        const std::string baseline = ReadRunsCompare(c, name + " against its baseline").a;
        if (baseline != name) {
          nav += " · " + Link("/runs/compare?a=" + PercentEncode(name), "against its baseline " + baseline);
          docs.push_back({name + " against its baseline", std::move(c)});
        }
      } catch (const InputError&) {
        // no baseline for its scope: the run alone
      }
      return {200, Sections("run " + name, nav, docs)};
    }
  } catch (const InputError& e) {
    const std::string what = e.what();
    const bool unknown = what.find("no run") != std::string::npos;
    return ErrorPage(unknown ? 404 : 503, unknown ? "Not found" : "Registry unavailable", what);
  }
  return ErrorPage(404, "Not found", "no page " + path);
}

}  // namespace paratune
