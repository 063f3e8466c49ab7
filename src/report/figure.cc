// The shared chart frame (figure.h).
#include "report/figure.h"

#include "report/scale.h"
#include "util/error.h"

namespace paratune {

void CheckSpec(const ChartSpec& spec) {
  bool ok = !spec.id.empty();
  for (char c : spec.id) ok = ok && ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-');
  if (!ok) throw InputError("chart '" + spec.title + "': id '" + spec.id + "' is not made of [a-z0-9-]");
  if (spec.width < 120 || spec.width > 20000 || spec.height < 120 || spec.height > 20000) {
    throw InputError("chart '" + spec.id + "': size " + std::to_string(spec.width) + " x " +
                     std::to_string(spec.height) + " px is outside 120..20000");
  }
}

void BeginFigure(SvgWriter& w, const ChartSpec& spec, const std::string& kind, double height,
                 const std::string& description) {
  const std::string w_px = std::to_string(spec.width), h_px = SvgNumber(height, 0);
  w.Open("figure", {{"class", "chart"}, {"id", spec.id}, {"data-chart", kind}});
  // No xmlns: an <svg> inside HTML is in the SVG namespace by the HTML parser's rules.
  w.Open("svg", {{"viewBox", "0 0 " + w_px + " " + h_px},
                 {"width", w_px},
                 {"height", h_px},
                 {"role", "img"},
                 {"aria-labelledby", spec.id + "-title"},
                 {"aria-describedby", spec.id + "-desc"}});
  w.Text("title", spec.title, {{"id", spec.id + "-title"}});
  w.Text("desc", spec.description.empty() ? description : spec.description, {{"id", spec.id + "-desc"}});
}

void EndFigure(SvgWriter& w, const ChartSpec& spec, const std::vector<DataTable>& tables) {
  w.Close("svg");
  w.Open("figcaption");
  w.Text("span", spec.title, {{"class", "chart-title"}});
  w.Open("details");
  w.Text("summary", "Data");
  for (const DataTable& t : tables) w.Raw(RenderTable(t));
  w.Close("details");
  w.Close("figcaption");
  w.Close("figure");
}

void DrawNoData(SvgWriter& w, const PlotArea& a) {
  w.Text("text", "no data",
         {{"class", "no-data"},
          {"x", SvgNumber((a.x0() + a.x1()) / 2, 1)},
          {"y", SvgNumber((a.y0() + a.y1()) / 2, 1)},
          {"text-anchor", "middle"},
          {"dominant-baseline", "middle"}});
}

void DrawReferenceLine(SvgWriter& w, const PlotArea& a, const Scale& y, double value, const std::string& label,
                       const std::string& unit) {
  const std::string ys = SvgNumber(y(value), 1);
  w.Open("line", {{"class", "reference"},
                  {"data-value", SvgValue(value)},
                  {"data-label", label},
                  {"x1", SvgNumber(a.x0(), 1)},
                  {"x2", SvgNumber(a.x1(), 1)},
                  {"y1", ys},
                  {"y2", ys}});
  w.Text("title", (label.empty() ? std::string("reference") : label) + ": " + FormatValue(value, unit));
  w.Close("line");
  w.Text("text", (label.empty() ? std::string("reference") : label) + " " + FormatValue(value, unit),
         {{"class", "reference-label"},
          {"x", SvgNumber(a.x1() - 4, 1)},
          {"y", SvgNumber(y(value) - 4, 1)},
          {"text-anchor", "end"}});
}

std::string WithUnit(const std::string& name, const std::string& unit) {
  if (unit.empty()) return name;
  return name + " (" + (unit == "fraction" ? std::string("fraction") : unit) + ")";
}

DataTable ReferenceTable(const std::string& label, double value, const std::string& unit) {
  DataTable ref;
  ref.css_class = "chart-data reference-data";
  ref.columns = {"reference", WithUnit("value", unit)};
  ref.numeric = {false, true};
  ref.rows = {{label.empty() ? "reference" : label, SvgValue(value)}};
  return ref;
}

DataTable BarTableHeader(const BarChartData& d) {
  DataTable table;
  table.columns.push_back(d.spec.x_label.empty() ? "category" : d.spec.x_label);
  table.numeric.push_back(false);
  for (const BarSeries& s : d.series) {
    table.columns.push_back(WithUnit(s.name, d.spec.y_unit));
    table.numeric.push_back(true);
  }
  return table;
}

}  // namespace paratune
