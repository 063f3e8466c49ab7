// One function per subcommand: each registers its flags on the root app and returns the action
// to run when that subcommand was chosen. Actions return the exit status and throw InputError
// for bad input (main prints it and exits 2).
#pragma once

#include <functional>
#include <memory>
#include <string>

namespace CLI {
class App;  // CLI/App.hpp: the .cc files that register flags include CLI/CLI.hpp
}  // namespace CLI

namespace paratune::cli {

struct Command {
  CLI::App* app = nullptr;
  std::function<int()> run;
};

Command AddEstimateCommand(CLI::App& root);
Command AddSimulateCommand(CLI::App& root);
Command AddModelsCommand(CLI::App& root);
Command AddGpusCommand(CLI::App& root);
Command AddValidateCommand(CLI::App& root);
Command AddCalibrateCommand(CLI::App& root);
Command AddPlanCommand(CLI::App& root);
Command AddAnalyzeCommand(CLI::App& root);
Command AddDiagnoseCommand(CLI::App& root);
Command AddClusterCommand(CLI::App& root);
Command AddReportCommand(CLI::App& root);
Command AddServeCommand(CLI::App& root);
Command AddRunsCommand(CLI::App& root);

// The one line an InputError's message `what` prints on standard error ("paratune: error: ..."),
// flushed: main's, and a command's that must print before it exits (analyze under mpirun).
void PrintInputError(const std::string& what);

}  // namespace paratune::cli
