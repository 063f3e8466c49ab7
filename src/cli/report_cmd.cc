// `paratune report`: one self-contained HTML report (inline SVG charts, no script or font
// fetched) from the --json documents of plan, estimate, simulate, analyze, diagnose and cluster,
// or two of one schema side by side with --compare. docs/report.md.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>

#include "cli/commands.h"
#include "cli/output_file.h"
#include "report/report.h"
#include "report/report_inputs.h"
#include "util/error.h"
#include "util/json_document.h"

namespace paratune::cli {
namespace {

struct ReportFlags {
  std::vector<std::string> inputs;
  std::string out;
  std::string title = "paratune report";
  bool compare = false;
  bool json = false;
};

}  // namespace

Command AddReportCommand(CLI::App& root) {
  auto* cmd =
      root.add_subcommand("report", "write one self-contained HTML report from the --json output of other commands");
  auto f = std::make_shared<ReportFlags>();
  cmd->add_option("inputs", f->inputs,
                  "JSON files written by plan, estimate, simulate, analyze, diagnose or cluster --json, "
                  "or directories of them; other files (traces, training logs, telemetry, nccl-tests, "
                  "topology) are analysed and diagnosed as `diagnose` does")
      ->required();
  cmd->add_option("--out", f->out, "the HTML file to write")->required();
  cmd->add_option("--title", f->title, "the page title");
  cmd->add_flag("--compare", f->compare, "two documents of one schema side by side, with their differences");
  cmd->add_flag("--json", f->json, "print what was written as JSON (schema paratune.report/1)");
  cmd->footer("Exit status 0 when written, 2 on bad input (nothing is written then). docs/report.md");
  return {cmd, [cmd, f] {
            PrepareOutputs(*cmd, {{"--out", &f->out}}, f->inputs);
            const SortedReportInputs sorted = SortReportInputs(f->inputs);
            for (const std::string& o : sorted.skipped)
              std::fprintf(stderr, "paratune: note: %s: not the --json document of a paratune command; skipped\n",
                           o.c_str());
            std::vector<ReportInput> inputs =
                sorted.documents.empty() ? std::vector<ReportInput>{} : ReadReportInputs(sorted.documents);
            for (auto& r : DiagnoseRawInputs(sorted.raw)) inputs.push_back(std::move(r));
            ReportOptions o;
            o.title = f->title;
            o.compare = f->compare;
            const std::string html = RenderReport(inputs, o);
            WriteOutput(f->out, html);
            if (f->json) {
              fmt::print("{}\n", DocumentText(ReportWrittenJson(f->out, html.size(), f->compare, inputs)));
            } else {
              fmt::print("wrote {} ({} bytes) from {} input{}\n", f->out, html.size(), inputs.size(),
                         inputs.size() == 1 ? "" : "s");
            }
            return 0;
          }};
}

}  // namespace paratune::cli
