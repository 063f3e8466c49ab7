// The section renderers of the report, one file each (sections.cc lists them in SectionKinds),
// and what they share: a layout's short label and a unique DOM id per chart.
#pragma once

#include <string>

#include "report/report.h"
#include "step/estimate.h"
#include "util/json_fields.h"

namespace paratune {

std::string RenderPlanSection(const ReportInput& in);
std::string RenderEstimateSection(const ReportInput& in);
std::string RenderSimulateSection(const ReportInput& in);
std::string RenderAnalyzeSection(const ReportInput& in);
std::string RenderDiagnoseSection(const ReportInput& in);
std::string RenderClusterSection(const ReportInput& in);
// The run registry's documents (runs_list_section.cc, run_show_section.cc, runs_compare_section.cc).
std::string RenderRunsListSection(const ReportInput& in);
std::string RenderRunShowSection(const ReportInput& in);
std::string RenderRunsCompareSection(const ReportInput& in);
std::string RenderRunsBaselinesSection(const ReportInput& in);

// The charts of one estimate (a paratune.estimate/1 document, or a plan's winner), with DOM ids
// starting `id` (the plan section draws its winner with these).
std::string EstimateCharts(const Estimate& e, const std::string& id);

// "tp 2 pp 4 vp 3 dp 16 zero 1 mbs 1 selective bf16": a layout and its precision, short.
std::string LayoutLabel(const Layout& l, const Training& t);
// The same from a document's `layout` object (step/estimate_json.h ReadLayout).
std::string LayoutLabel(const JsonView& layout);

// A DOM id from a file name and a chart name: lower case [a-z0-9-].
std::string ChartId(const std::string& path, const std::string& chart);

// A paragraph, escaped.
std::string Paragraph(const std::string& text);

}  // namespace paratune
