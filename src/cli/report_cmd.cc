// `paratune report`: one self-contained HTML report (inline SVG charts, no script or font
// fetched) from the --json documents of plan, estimate, simulate, analyze, diagnose and cluster,
// or two of one schema side by side with --compare. docs/report.md.
#include <fmt/format.h>

#include "cli/commands.h"
#include "report/report.h"
#include "util/error.h"
#include "util/file.h"

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
  auto* cmd = root.add_subcommand("report", "write one self-contained HTML report from the --json output of other commands");
  auto f = std::make_shared<ReportFlags>();
  cmd->add_option("inputs", f->inputs, "JSON files written by plan, estimate, simulate, analyze, diagnose or cluster --json, "
                                       "or directories of them")
      ->required();
  cmd->add_option("--out", f->out, "the HTML file to write")->required();
  cmd->add_option("--title", f->title, "the page title");
  cmd->add_flag("--compare", f->compare, "two documents of one schema side by side, with their differences");
  cmd->add_flag("--json", f->json, "print what was written as JSON (schema paratune.report/1)");
  cmd->footer("Exit status 0 when written, 2 on bad input (nothing is written then). docs/report.md");
  return {cmd, [f] {
            const std::vector<ReportInput> inputs = ReadReportInputs(f->inputs);
            ReportOptions o;
            o.title = f->title;
            o.compare = f->compare;
            const std::string html = RenderReport(inputs, o);
            WriteFileAtomic(f->out, html);
            if (f->json) {
              nlohmann::json in = nlohmann::json::array();
              for (const auto& i : inputs) in.push_back({{"path", i.path}, {"schema", i.doc["schema"]}});
              fmt::print("{}\n", nlohmann::json{{"schema", "paratune.report/1"}, {"out", f->out}, {"bytes", html.size()},
                                                {"compare", f->compare}, {"inputs", in}}
                                     .dump(2));
            } else {
              fmt::print("wrote {} ({} bytes) from {} input{}\n", f->out, html.size(), inputs.size(), inputs.size() == 1 ? "" : "s");
            }
            return 0;
          }};
}

}  // namespace paratune::cli
