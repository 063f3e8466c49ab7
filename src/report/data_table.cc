// HTML tables behind the charts (data_table.h).
#include "report/data_table.h"

#include "report/svg.h"
#include "util/error.h"

namespace paratune {

std::string RenderTable(const DataTable& t) {
  SvgWriter w;
  w.Open("table", {{"class", t.css_class}});
  w.Open("thead");
  w.Open("tr");
  for (size_t c = 0; c < t.columns.size(); ++c) {
    const bool num = c < t.numeric.size() && t.numeric[c];
    if (num) {
      w.Text("th", t.columns[c], {{"scope", "col"}, {"class", "num"}});
    } else {
      w.Text("th", t.columns[c], {{"scope", "col"}});
    }
  }
  w.Close("tr");
  w.Close("thead");
  w.Open("tbody");
  for (size_t r = 0; r < t.rows.size(); ++r) {
    if (t.rows[r].size() != t.columns.size()) {
      throw InputError("table: row " + std::to_string(r) + " has " + std::to_string(t.rows[r].size()) + " cells for " +
                       std::to_string(t.columns.size()) + " columns");
    }
    w.Open("tr");
    for (size_t c = 0; c < t.rows[r].size(); ++c) {
      const bool num = c < t.numeric.size() && t.numeric[c];
      if (num) {
        w.Text("td", t.rows[r][c], {{"class", "num"}});
      } else {
        w.Text("td", t.rows[r][c]);
      }
    }
    w.Close("tr");
  }
  w.Close("tbody");
  w.Close("table");
  return w.Take();
}

std::string RenderTableDetails(const DataTable& t, const std::string& summary) {
  SvgWriter w;
  w.Open("details");
  w.Text("summary", summary);
  w.Raw(RenderTable(t));
  w.Close("details");
  return w.Take();
}

}  // namespace paratune
