// Gantt chart (gantt_chart.h): one <g class="gantt-row"> per row, its spans as rects coloured by
// category (a <style> of the figure maps data-category to the palette, so a rect carries no fill).
//
// Aggregation: when the chart has more than max_spans spans, every row holding more spans than
// its share (max_spans / rows, and at most one rect per 4 px of plot width: narrower parts are
// hard to see) is cut into equal time buckets, and each bucket draws, per category, one rect
// as wide as the time the category covers in the bucket (spans clipped to the bucket), side by
// side in category order. The covered time of each category is kept exactly (data-end -
// data-start sums to it), the number of rects is bounded, and the row says
// data-aggregated="K" (K spans merged). docs/report-charts.md, "Gantt".
#include "report/gantt_chart.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "report/figure.h"
#include "report/scale.h"
#include "util/error.h"

namespace paratune {
namespace {

constexpr double kPxPerPart = 4;        // an aggregated part is ~4 px wide on average
constexpr size_t kTooltipSpans = 2000;  // spans drawn with a <title> each (beyond: size)
constexpr double kMinRowPx = 6, kMaxRowPx = 28;

// `s` as a CSS string body: every character other than [A-Za-z0-9_-] as a hex escape, so a
// category name can end neither the string nor the <style> element.
std::string CssString(const std::string& s) {
  std::string out;
  static const char* const kHex = "0123456789abcdef";
  for (unsigned char c : s) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-') {
      out += static_cast<char>(c);
    } else {
      out += '\\';
      if (c >= 16) out += kHex[c >> 4];
      out += kHex[c & 15];
      out += ' ';
    }
  }
  return out;
}

// Throws InputError for a span in no row, with a time that is not finite, or ending before it starts.
void CheckGanttSpans(const GanttChartData& d) {
  const size_t nrows = d.rows.size();
  for (size_t i = 0; i < d.spans.size(); ++i) {
    const GanttSpan& s = d.spans[i];
    const std::string where = "chart '" + d.spec.id + "': span " + std::to_string(i);
    if (s.row < 0 || static_cast<size_t>(s.row) >= nrows) {
      throw InputError(where + " is in row " + std::to_string(s.row) + " of " + std::to_string(nrows));
    }
    if (!std::isfinite(s.start) || !std::isfinite(s.end)) throw InputError(where + " has a time that is not finite");
    if (s.end < s.start) {
      throw InputError(where + " ends (" + SvgValue(s.end) + ") before it starts (" + SvgValue(s.start) + ")");
    }
  }
}

// The chart's categories, and each span's index into them.
struct GanttCategories {
  std::vector<std::string> names;
  std::vector<size_t> of_span;
};

// Categories: the listed ones in order, "other" for the rest; none listed: as they come.
GanttCategories GanttCategoriesOf(const GanttChartData& d) {
  GanttCategories out;
  std::vector<std::string>& cats = out.names;
  cats = d.categories;
  std::map<std::string, size_t> cat_index;
  for (size_t i = 0; i < cats.size(); ++i) cat_index.emplace(cats[i], i);
  std::vector<size_t>& span_cat = out.of_span;
  span_cat.resize(d.spans.size());
  const bool listed = !d.categories.empty();
  for (size_t i = 0; i < d.spans.size(); ++i) {
    std::string c = d.spans[i].category;
    if (listed && !cat_index.count(c)) c = "other";
    auto it = cat_index.find(c);
    if (it == cat_index.end()) {
      it = cat_index.emplace(c, cats.size()).first;
      cats.push_back(c);
    }
    span_cat[i] = it->second;
  }
  return out;
}

// The plot area (its left margin fits the longest row name, its top the legend) and the height
// of a row.
PlotArea GanttPlotArea(const GanttChartData& d, const std::vector<std::string>& cats, double* row_px_out) {
  const size_t nrows = d.rows.size();
  size_t longest = 0;
  for (const std::string& r : d.rows) longest = std::max(longest, r.size());
  PlotArea a;
  a.width = d.spec.width;
  a.left = std::clamp(12 + 6.5 * static_cast<double>(longest), 64.0, 220.0);
  a.height = d.spec.height;
  a.top += LegendHeight(a, cats);
  const double default_plot = std::max(1.0, d.spec.height - a.top - a.bottom);
  const double row_px =
      nrows == 0 ? default_plot : std::clamp(default_plot / static_cast<double>(nrows), kMinRowPx, kMaxRowPx);
  const double height = nrows == 0 ? d.spec.height : a.top + a.bottom + row_px * static_cast<double>(nrows);
  a.height = height;
  *row_px_out = row_px;
  return a;
}

// The time axis spans the schedule exactly (no niced empty tail); its ticks are the nice ones
// inside it.
Ticks GanttTimeTicks(double t0, double t1, const std::string& unit) {
  Ticks tx = AxisTicks(t0, t1, unit);
  if (t1 > t0) {
    std::vector<double> inside;
    for (double v : tx.values)
      if (v >= t0 && v <= t1) inside.push_back(v);
    tx.values = inside;
    tx.lo = t0;
    tx.hi = t1;
  }
  return tx;
}

// The figure's description: its rows, spans, time range and time per category.
std::string GanttDescription(const GanttChartData& d, const std::vector<std::string>& cats,
                             const std::vector<double>& busy_total, double t0, double t1) {
  std::string description =
      "Gantt chart of " + std::to_string(d.rows.size()) + " rows and " + std::to_string(d.spans.size()) + " spans";
  if (!d.spans.empty()) {
    description +=
        " from " + FormatValue(t0, d.spec.x_unit) + " to " + FormatValue(t1, d.spec.x_unit) + "; time per category:";
    for (size_t c = 0; c < cats.size(); ++c) {
      description += (c ? ", " : " ") + cats[c] + " " + FormatValue(busy_total[c], d.spec.x_unit);
    }
  }
  description += ".";
  return description;
}

// The <style> that maps each category's spans to its palette colour.
void WriteGanttStyle(SvgWriter& w, const GanttChartData& d, const std::vector<std::string>& cats) {
  std::string css;
  for (size_t c = 0; c < cats.size(); ++c) {
    css += "#" + d.spec.id + " rect.span[data-category=\"" + CssString(cats[c]) + "\"]{fill:" + SeriesColour(c) + "}";
  }
  w.Open("style");
  w.Raw(css);  // CssString leaves no '<', '&' or quote unescaped
  w.Close("style");
}

// What drawing a row needs: the writer, the chart and its categories, the time scale and range,
// the row geometry, and the aggregation budget.
struct GanttRowPen {
  SvgWriter& w;
  const GanttChartData& d;
  const std::vector<std::string>& cats;
  const std::vector<size_t>& span_cat;
  const PlotArea& a;
  const Scale& sx;
  double t0, t1, row_px;
  std::string rect_h;
  size_t label_every, row_budget;
  bool tooltips, over;
};

// One span rect (or one aggregated part) of category cat, with the tooltip tip if any.
void DrawGanttRect(const GanttRowPen& p, double start, double end, double x, double width, size_t cat,
                   const std::string* tip) {
  const std::initializer_list<SvgAttr> attrs = {
      {"class", "span"},           {"data-category", p.cats[cat]}, {"data-start", SvgValue(start)},
      {"data-end", SvgValue(end)}, {"x", SvgNumber(x, 2)},         {"width", SvgNumber(width, 2)},
      {"height", p.rect_h}};
  if (!tip) {
    p.w.Empty("rect", attrs);
    return;
  }
  p.w.Open("rect", attrs);
  p.w.Text("title", *tip);
  p.w.Close("rect");
}

// A row's spans aggregated: per equal time bucket, one part per category as wide as the time it covers.
void DrawGanttBuckets(const GanttRowPen& p, const std::vector<size_t>& spans) {
  const size_t ncats = p.cats.size();
  const double t0 = p.t0, t1 = p.t1;
  std::vector<bool> present(ncats, false);
  for (size_t i : spans) present[p.span_cat[i]] = true;
  const size_t used = static_cast<size_t>(std::count(present.begin(), present.end(), true));
  const size_t buckets = std::max<size_t>(1, p.row_budget / std::max<size_t>(used, 1));
  const double width_s = t1 > t0 ? (t1 - t0) / static_cast<double>(buckets) : 1.0;
  std::vector<double> covered(buckets * ncats, 0.0);
  for (size_t i : spans) {
    const GanttSpan& s = p.d.spans[i];
    const size_t b0 = std::min(buckets - 1, static_cast<size_t>(std::max(0.0, (s.start - t0) / width_s)));
    for (size_t b = b0; b < buckets; ++b) {
      const double lo = t0 + width_s * static_cast<double>(b);
      const double hi = b + 1 == buckets ? t1 : lo + width_s;
      if (b > b0 && lo >= s.end) break;
      covered[b * ncats + p.span_cat[i]] += std::max(0.0, std::min(s.end, hi) - std::max(s.start, lo));
    }
  }
  for (size_t b = 0; b < buckets; ++b) {
    const double lo = t0 + width_s * static_cast<double>(b);
    double sum = 0;
    for (size_t c = 0; c < ncats; ++c) sum += covered[b * ncats + c];
    // Parts side by side, in proportion; overlapping spans of one row can cover more than
    // the bucket, then the parts are drawn narrower (the data attributes keep the time).
    const double shrink = sum > width_s && sum > 0 ? width_s / sum : 1.0;
    double offset = 0;
    for (size_t c = 0; c < ncats; ++c) {
      const double t = covered[b * ncats + c];
      if (t <= 0) continue;
      const double start = lo + offset;
      const double x0 = p.sx(lo + offset * shrink), x1 = p.sx(lo + (offset + t) * shrink);
      DrawGanttRect(p, start, start + t, x0, x1 - x0, c, nullptr);
      offset += t;
    }
  }
}

// Row r: its <g>, its label where it fits, and its spans (aggregated when over its budget).
void DrawGanttRow(const GanttRowPen& p, size_t r, const std::vector<size_t>& spans) {
  const GanttChartData& d = p.d;
  const bool aggregate = p.over && spans.size() > p.row_budget;
  const std::string y = SvgNumber(p.a.y1() + p.row_px * static_cast<double>(r) + p.row_px * 0.1, 2);
  if (aggregate) {
    p.w.Open("g", {{"class", "gantt-row"},
                   {"data-row", d.rows[r]},
                   {"data-aggregated", std::to_string(spans.size())},
                   {"transform", "translate(0," + y + ")"}});
  } else {
    p.w.Open("g", {{"class", "gantt-row"}, {"data-row", d.rows[r]}, {"transform", "translate(0," + y + ")"}});
  }
  if (r % p.label_every == 0)
    p.w.Text("text", d.rows[r],
             {{"class", "row-label"},
              {"x", SvgNumber(p.a.x0() - 6, 1)},
              {"y", SvgNumber(p.row_px * 0.4, 2)},
              {"text-anchor", "end"},
              {"dominant-baseline", "middle"}});
  if (!aggregate) {
    for (size_t i : spans) {
      const GanttSpan& s = d.spans[i];
      const double x0 = p.sx(s.start), x1 = p.sx(s.end);
      std::string tip;
      if (p.tooltips) {
        tip = (s.label.empty() ? p.cats[p.span_cat[i]] : s.label) + ": " + FormatValue(s.start, d.spec.x_unit) +
              " to " + FormatValue(s.end, d.spec.x_unit);
      }
      DrawGanttRect(p, s.start, s.end, x0, x1 - x0, p.span_cat[i], p.tooltips ? &tip : nullptr);
    }
  } else {
    DrawGanttBuckets(p, spans);
  }
  p.w.Close("g");
}

// The data table: per row, its span count and busy time per category.
DataTable GanttTable(const GanttChartData& d, const std::vector<std::string>& cats,
                     const std::vector<std::vector<size_t>>& by_row, const std::vector<std::vector<double>>& busy) {
  DataTable table;
  table.columns = {"row", "spans"};
  table.numeric = {false, true};
  for (const std::string& c : cats) {
    table.columns.push_back(WithUnit(c, d.spec.x_unit));
    table.numeric.push_back(true);
  }
  for (size_t r = 0; r < d.rows.size(); ++r) {
    std::vector<std::string> row{d.rows[r], std::to_string(by_row[r].size())};
    for (size_t c = 0; c < cats.size(); ++c) row.push_back(SvgValue(busy[r][c]));
    table.rows.push_back(std::move(row));
  }
  return table;
}

}  // namespace

std::string RenderGanttChart(const GanttChartData& d) {
  CheckSpec(d.spec);
  const size_t nrows = d.rows.size();
  CheckGanttSpans(d);
  const GanttCategories gc = GanttCategoriesOf(d);
  const std::vector<std::string>& cats = gc.names;
  const std::vector<size_t>& span_cat = gc.of_span;
  const size_t ncats = cats.size();

  double t0 = 0, t1 = 1;
  for (size_t i = 0; i < d.spans.size(); ++i) {
    t0 = i == 0 ? d.spans[i].start : std::min(t0, d.spans[i].start);
    t1 = i == 0 ? d.spans[i].end : std::max(t1, d.spans[i].end);
  }

  double row_px = 0;
  const PlotArea a = GanttPlotArea(d, cats, &row_px);
  const double height = a.height;
  const Ticks tx = GanttTimeTicks(t0, t1, d.spec.x_unit);
  const Scale sx = Scale::Linear(tx.lo, tx.hi, a.x0(), a.x1());
  const double plot_px = a.x1() - a.x0();

  // Spans per row, and the per-row rect budget when the chart is over max_spans.
  std::vector<std::vector<size_t>> by_row(nrows);
  for (size_t i = 0; i < d.spans.size(); ++i) by_row[static_cast<size_t>(d.spans[i].row)].push_back(i);
  const bool over = d.spans.size() > d.max_spans;
  const size_t row_budget = std::max<size_t>(
      1, std::min(d.max_spans / std::max<size_t>(nrows, 1), PixelCount(plot_px / kPxPerPart, d.max_spans)));

  // Busy time per row and category (the table), from the spans as given.
  std::vector<std::vector<double>> busy(nrows, std::vector<double>(ncats, 0.0));
  std::vector<double> busy_total(ncats, 0.0);
  for (size_t i = 0; i < d.spans.size(); ++i) {
    busy[static_cast<size_t>(d.spans[i].row)][span_cat[i]] += d.spans[i].end - d.spans[i].start;
    busy_total[span_cat[i]] += d.spans[i].end - d.spans[i].start;
  }

  SvgWriter w;
  BeginFigure(w, d.spec, "gantt", height, GanttDescription(d, cats, busy_total, t0, t1));
  WriteGanttStyle(w, d, cats);
  DrawXAxis(w, a, sx, tx, d.spec.x_label, d.spec.x_unit);
  DrawLegend(w, a, cats);
  if (d.spans.empty()) DrawNoData(w, a);
  const bool tooltips = d.spans.size() <= kTooltipSpans;
  // Row labels where they fit (11 px text): every k-th row on thin rows (the table names all).
  const size_t label_every = row_px > 0 ? PixelCount(std::ceil(12 / row_px), nrows) : std::max<size_t>(1, nrows);
  const std::string rect_h = SvgNumber(row_px * 0.8, 2);
  const GanttRowPen pen{w, d, cats, span_cat, a, sx, t0, t1, row_px, rect_h, label_every, row_budget, tooltips, over};
  for (size_t r = 0; r < nrows; ++r) DrawGanttRow(pen, r, by_row[r]);
  EndFigure(w, d.spec, {GanttTable(d, cats, by_row, busy)});
  return w.Take();
}

}  // namespace paratune
