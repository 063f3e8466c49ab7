// paratune: plan, simulate and analyze LLM training layouts. Thin CLI over the library.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <exception>
#include <vector>

#include <string>

#include "cli/commands.h"
#include "cli/field_flags.h"
#include "util/error.h"

// Error messages echo user input; keep them on one line.
static std::string OneLine(std::string s) {
  std::string out;
  for (char c : s) {
    if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else out += c;
  }
  return out;
}

// Levenshtein distance, for "did you mean".
static size_t EditDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

// The one-line error for a first argument that names no subcommand, or "" if it names one.
static std::string UnknownCommand(const CLI::App& app, const std::string& word) {
  std::string best, all;
  size_t best_d = std::string::npos;
  for (const CLI::App* sub : app.get_subcommands({})) {
    const std::string& name = sub->get_name();
    if (name == word) return "";
    all += (all.empty() ? "" : ", ") + name;
    const size_t d = EditDistance(word, name);
    if (d < best_d) best_d = d, best = name;
  }
  if (best_d <= std::max<size_t>(2, word.size() / 3))
    return "unknown command '" + word + "' (did you mean " + best + "?)";
  return "unknown command '" + word + "'; the subcommands are " + all;
}

int main(int argc, char** argv) {
  using namespace paratune;
  CLI::App app{"paratune: find and explain the fastest LLM training layout for a GPU cluster"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "paratune 0.1.0");
  std::vector<cli::Command> commands = {cli::AddEstimateCommand(app), cli::AddSimulateCommand(app), cli::AddModelsCommand(app),
                                        cli::AddGpusCommand(app), cli::AddValidateCommand(app),
                                        cli::AddCalibrateCommand(app), cli::AddPlanCommand(app),
                                        cli::AddAnalyzeCommand(app), cli::AddDiagnoseCommand(app),
                                        cli::AddClusterCommand(app), cli::AddReportCommand(app),
                                        cli::AddServeCommand(app), cli::AddRunsCommand(app)};
  if (argc > 1 && argv[1][0] != '-') {
    const std::string unknown = UnknownCommand(app, argv[1]);
    if (!unknown.empty()) {
      std::fprintf(stderr, "paratune: error: %s\n", OneLine(unknown).c_str());
      return 2;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "paratune: error: %s\n", OneLine(e.what()).c_str());
    return 2;
  }
  try {
    for (auto& c : commands)
      if (c.app->parsed()) return c.run();
  } catch (const InputError& e) {
    std::fprintf(stderr, "paratune: error: %s\n", OneLine(cli::WithFlagNames(e.what())).c_str());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "paratune: internal error: %s\n", OneLine(e.what()).c_str());
    return 1;
  }
  return 0;
}
