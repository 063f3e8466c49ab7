// TEMPORARY (branch i13-serve only): minimal ReadReportInput/RenderReport, XmlEscape and
// RenderPage so that serve.cc links and its tests run before report.cc, svg.cc and page.cc are
// on main. Deleted before the branch is merged.
#include <nlohmann/json.hpp>

#include "report/page.h"
#include "report/report.h"
#include "report/svg.h"
#include "util/error.h"
#include "util/file.h"

namespace paratune {

std::string XmlEscape(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string RenderPage(const Page& page) {
  std::string html = "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>" + XmlEscape(page.title) + "</title></head><body><h1>" + XmlEscape(page.title) + "</h1>";
  for (const auto& s : page.sections) html += "<section id=\"" + XmlEscape(s.id) + "\"><h2>" + XmlEscape(s.title) + "</h2>" + s.html + "</section>";
  return html + "</body></html>";
}

ReportInput ReadReportInput(const std::string& path) {
  const std::string text = ReadFile(path);
  nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
  if (doc.is_discarded()) throw InputError(path + ": not JSON");
  if (!doc.is_object() || !doc.contains("schema") || !doc["schema"].is_string()) throw InputError(path + ": no \"schema\" field");
  return {path, std::move(doc)};
}

std::string RenderReport(const std::vector<ReportInput>& inputs, const ReportOptions& options) {
  std::string html = "<!DOCTYPE html><html><head><title>" + XmlEscape(options.title) + "</title></head><body>";
  for (const auto& in : inputs) {
    if (!in.doc["throughput"]["step_time_s"].is_number()) throw InputError(in.path + ": field 'throughput.step_time_s' is not a number");
    html += "<p class=\"schema\">" + XmlEscape(in.doc["schema"].get<std::string>()) + "</p><pre>" + XmlEscape(in.doc.dump()) + "</pre>";
  }
  return html + "</body></html>";
}

}  // namespace paratune
