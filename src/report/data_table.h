// DataTable: an HTML table, the numbers behind a chart (and the report's plain tables), with
// every cell escaped; `numeric` columns are right-aligned.
#pragma once

#include <string>
#include <vector>

namespace paratune {

struct DataTable {
  std::vector<std::string> columns;
  std::vector<bool> numeric;  // per column (empty: none)
  std::vector<std::vector<std::string>> rows;
  std::string css_class = "chart-data";
};

std::string RenderTable(const DataTable& t);
// The same inside <details><summary>SUMMARY</summary>...</details>.
std::string RenderTableDetails(const DataTable& t, const std::string& summary = "Data");

}  // namespace paratune
