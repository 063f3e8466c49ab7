// paratune: plan, simulate and analyze LLM training layouts. Thin CLI over the library.
#include <CLI/CLI.hpp>
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

int main(int argc, char** argv) {
  using namespace paratune;
  CLI::App app{"paratune: find and explain the fastest LLM training layout for a GPU cluster"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "paratune 0.1.0");
  std::vector<cli::Command> commands = {cli::AddEstimateCommand(app), cli::AddSimulateCommand(app), cli::AddModelsCommand(app),
                                        cli::AddGpusCommand(app), cli::AddValidateCommand(app),
                                        cli::AddCalibrateCommand(app), cli::AddPlanCommand(app),
                                        cli::AddAnalyzeCommand(app)};
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
