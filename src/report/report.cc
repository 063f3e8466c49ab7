#include "report/report.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <map>

#include <fmt/format.h>

#include "report/data_table.h"
#include "report/page.h"
#include "report/scale.h"
#include "report/svg.h"
#include "util/error.h"
#include "util/file.h"
#include "util/json_parse.h"

namespace paratune {

namespace {

constexpr size_t kMaxInputBytes = size_t{64} << 20;
constexpr size_t kMaxInputs = 256;
constexpr size_t kMaxDifferences = 60;

}  // namespace

ReportInput ReadReportInput(const std::string& path) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) throw InputError(fmt::format("{}: cannot read ({})", path, ec.message()));
  if (size > kMaxInputBytes) throw InputError(fmt::format("{}: larger than {} MiB", path, kMaxInputBytes >> 20));
  return ParseReportInput(ReadFile(path), path);
}

ReportInput ParseReportInput(std::string_view text, const std::string& path) {
  ReportInput in;
  in.path = path;
  try {
    in.doc = ParseJson(text, path);
  } catch (const nlohmann::json::exception&) {
    throw InputError(fmt::format("{}: not JSON", path));
  }
  if (!in.doc.is_object() || !in.doc.contains("schema") || !in.doc["schema"].is_string())
    throw InputError(fmt::format("{}: no \"schema\" field (not the --json output of a paratune command)", path));
  const std::string schema = in.doc["schema"].get<std::string>();
  if (!FindSectionKind(schema)) {
    std::string known;
    for (const auto& k : SectionKinds()) known += (known.empty() ? "" : ", ") + std::string(k.schema);
    throw InputError(fmt::format("{}: schema '{}' has no report section (reports draw {})", path, schema, known));
  }
  return in;
}

std::vector<ReportInput> ReadReportInputs(const std::vector<std::string>& paths) {
  std::vector<ReportInput> out;
  for (const auto& p : paths) {
    std::error_code ec;
    if (std::filesystem::is_directory(p, ec)) {
      std::vector<std::string> files;
      for (const auto& e : std::filesystem::directory_iterator(p, ec))
        if (e.is_regular_file() && e.path().extension() == ".json") files.push_back(e.path().string());
      std::sort(files.begin(), files.end());
      if (files.empty()) throw InputError(fmt::format("{}: no .json files", p));
      for (const auto& f : files) out.push_back(ReadReportInput(f));
    } else {
      out.push_back(ReadReportInput(p));
    }
    if (out.size() > kMaxInputs) throw InputError(fmt::format("report: more than {} inputs", kMaxInputs));
  }
  if (out.empty()) throw InputError("report: no inputs");
  return out;
}

namespace {

// Every numeric leaf of a document, by path (arrays of up to 64 elements by index; longer
// arrays are series, left out).
void Flatten(const nlohmann::json& j, const std::string& path, std::map<std::string, double>* out) {
  if (j.is_number()) {
    const double v = j.get<double>();
    if (std::isfinite(v)) (*out)[path] = v;
  } else if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it)
      Flatten(it.value(), path.empty() ? it.key() : path + "." + it.key(), out);
  } else if (j.is_array() && j.size() <= 64) {
    for (size_t i = 0; i < j.size(); ++i) Flatten(j[i], fmt::format("{}[{}]", path, i), out);
  }
}

std::string Differences(const ReportInput& a, const ReportInput& b) {
  std::map<std::string, double> fa, fb;
  Flatten(a.doc, "", &fa);
  Flatten(b.doc, "", &fb);
  struct Diff {
    std::string path;
    double a, b, rel;
  };
  std::vector<Diff> diffs;
  for (const auto& [path, va] : fa) {
    auto it = fb.find(path);
    if (it == fb.end() || it->second == va) continue;
    const double vb = it->second;
    const double scale = std::max(std::fabs(va), std::fabs(vb));
    diffs.push_back({path, va, vb, scale > 0 ? std::fabs(vb - va) / scale : 0});
  }
  std::stable_sort(diffs.begin(), diffs.end(), [](const Diff& x, const Diff& y) { return x.rel > y.rel; });
  const size_t total = diffs.size();
  if (diffs.size() > kMaxDifferences) diffs.resize(kMaxDifferences);
  DataTable t;
  t.columns = {"field", "A", "B", "B - A", "B / A"};
  t.numeric = {false, true, true, true, true};
  t.css_class = "differences";
  for (const auto& d : diffs)
    t.rows.push_back({d.path, fmt::format("{:.6g}", d.a), fmt::format("{:.6g}", d.b), fmt::format("{:+.6g}", d.b - d.a),
                      d.a != 0 ? fmt::format("{:.4f}", d.b / d.a) : std::string("-")});
  std::string html = fmt::format(
      "<p>A = {}, B = {}. {} numeric fields differ{}; the largest relative changes first.</p>\n", XmlEscape(a.path),
      XmlEscape(b.path), total, total > diffs.size() ? fmt::format(" (the first {} shown)", diffs.size()) : "");
  return html + RenderTable(t);
}

}  // namespace

std::string RenderReport(const std::vector<ReportInput>& inputs, const ReportOptions& options) {
  Page page;
  page.title = options.title;
  page.subtitle = fmt::format("paratune report of {} input{}", inputs.size(), inputs.size() == 1 ? "" : "s");
  if (options.compare) {
    if (inputs.size() != 2) throw InputError(fmt::format("report --compare: needs two inputs, got {}", inputs.size()));
    const std::string sa = inputs[0].doc["schema"], sb = inputs[1].doc["schema"];
    if (sa != sb)
      throw InputError(fmt::format("report --compare: {} is {} but {} is {}", inputs[0].path, sa, inputs[1].path, sb));
    const SectionKind* k = FindSectionKind(sa);
    page.sections.push_back({"differences", "Differences (B against A)", Differences(inputs[0], inputs[1])});
    std::string pair = "<div class=\"compare\">\n";
    for (const auto& in : inputs)
      pair += fmt::format("<div class=\"side\"><h3>{}</h3>\n{}</div>\n", XmlEscape(in.path), k->render(in));
    pair += "</div>\n";
    page.sections.push_back({"side-by-side", fmt::format("{}: side by side", k->title), pair});
    return RenderPage(page);
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    const SectionKind* k = FindSectionKind(inputs[i].doc["schema"].get<std::string>());
    page.sections.push_back(
        {fmt::format("s{}", i + 1), fmt::format("{}: {}", k->title, inputs[i].path), k->render(inputs[i])});
  }
  return RenderPage(page);
}

nlohmann::json ReportWrittenJson(const std::string& out, size_t bytes, bool compare,
                                 const std::vector<ReportInput>& inputs) {
  nlohmann::json in = nlohmann::json::array();
  for (const auto& i : inputs) in.push_back({{"path", i.path}, {"schema", i.doc["schema"]}});
  return {{"schema", "paratune.report/1"}, {"out", out}, {"bytes", bytes}, {"compare", compare}, {"inputs", in}};
}

}  // namespace paratune
