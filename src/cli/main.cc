// paratune: plan, simulate and analyze LLM training layouts. Thin CLI over the library.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <unistd.h>
#include <exception>
#include <string_view>
#include <system_error>
#include <vector>

#include <string>

#include "cli/commands.h"
#include "cli/output_file.h"
#include "util/edit_distance.h"
#include "util/error.h"
#include "util/field_flags.h"
#include "util/malloc_tuning.h"
#include "util/process_group.h"

// The one-line error for a word that names no subcommand of `app` (`path`: "" or "runs "), or
// "" if it names one.
static std::string UnknownCommand(const CLI::App& app, const std::string& word, const std::string& path = "") {
  std::string best, all;
  size_t best_d = std::string::npos;
  for (const CLI::App* sub : app.get_subcommands({})) {
    const std::string& name = sub->get_name();
    if (name == word) return "";
    all += (all.empty() ? "" : ", ") + name;
    const size_t d = paratune::EditDistance(word, name);
    if (d < best_d) best_d = d, best = name;
  }
  const std::string what = path.empty() ? "command" : path + "subcommand";
  if (best_d <= std::max<size_t>(2, word.size() / 3))
    return "unknown " + what + " '" + word + "' (did you mean " + path + best + "?)";
  return "unknown " + what + " '" + word + "'; the " + (path.empty() ? "subcommands" : path + "subcommands") + " are " +
         all;
}

// The unknown (sub)command among the leading words of argv, or "": `runs bogus` said "A
// subcommand is required".
static std::string UnknownCommandIn(const CLI::App& root, int argc, char** argv) {
  const CLI::App* app = &root;
  std::string path;
  for (int i = 1; i < argc && argv[i][0] != '-'; ++i) {
    if (app->get_subcommands({}).empty()) return "";
    if (std::string unknown = UnknownCommand(*app, argv[i], path); !unknown.empty()) return unknown;
    app = app->get_subcommand(argv[i]);
    path += std::string(argv[i]) + " ";
  }
  return "";
}

// CLI11's wording, where it is not one a user reads easily.
static std::string Reworded(const std::string& message) {
  // "--tp: At Most 1 required but received 2" (a flag given twice).
  constexpr std::string_view kTwice = ": At Most 1 required but received ";
  const size_t at = message.find(kTwice);
  if (at != std::string::npos)
    return message.substr(0, at) + " is given " + message.substr(at + kTwice.size()) + " times; give it once";
  return message;
}

// CLI11 reads "nan" and "inf" into a double (its Range checks compare false with NaN) and
// saturates an integer that overflows, so numbers are checked after parsing (issue 32:
// --checkpoint-interval nan was accepted, --global-batch 99999999999999999999 became 2^63-1).
static std::string NonFiniteNumber(const CLI::App& app) {
  for (const CLI::Option* o : app.get_options()) {
    if (o->count() == 0) continue;
    const std::string type = o->get_type_name();
    for (const std::string& v : o->results()) {
      if (type.rfind("FLOAT", 0) == 0) {
        char* end = nullptr;
        const double x = std::strtod(v.c_str(), &end);
        if (end != v.c_str() && !std::isfinite(x)) return o->get_name() + ": '" + v + "' is not a finite number";
      } else if (type == "INT" || type == "UINT") {
        // CLI11 saturates an integer beyond 64 bits (99999999999999999999 read as 2^63-1).
        errno = 0;
        char* end = nullptr;
        if (type == "INT")
          (void)std::strtoll(v.c_str(), &end, 0);
        else
          (void)std::strtoull(v.c_str(), &end, 0);
        if (errno == ERANGE && end != v.c_str()) return o->get_name() + ": '" + v + "' does not fit a 64-bit integer";
      }
    }
  }
  for (const CLI::App* sub : app.get_subcommands())
    if (std::string bad = NonFiniteNumber(*sub); !bad.empty()) return bad;
  return "";
}

void paratune::cli::PrintInputError(const std::string& what) {
  std::fprintf(stderr, "paratune: error: %s\n", paratune::InputErrorText(what).c_str());
  std::fflush(stderr);
}

// Starts this program again with glibc's large-heap tunables (util/malloc_tuning.h) when the
// files it names hold 8 MiB or more and the environment has not set GLIBC_TUNABLES; `serve`
// keeps glibc's defaults (a long-lived process gives freed memory back). It runs before the
// program's static initialisers (a constructor of the first priority; glibc passes argc and argv
// to them), so nothing is read or built twice; if exec fails, the program carries on as it is.
#if defined(__linux__) && defined(__GLIBC__)
__attribute__((constructor(101))) static void StartWithLargeHeapTunables(int argc, char** argv, char**) {
  if (argc < 2 || std::string_view(argv[1]) == "serve") return;
  const auto tunables = paratune::LargeHeapTunables(std::getenv("GLIBC_TUNABLES"));
  if (!tunables || paratune::NamedInputBytes({argv + 1, argv + argc}) < paratune::kLargeHeapInputBytes) return;
  if (setenv("GLIBC_TUNABLES", tunables->c_str(), 1) != 0) return;
  execv("/proc/self/exe", argv);
  unsetenv("GLIBC_TUNABLES");
}
#endif

int main(int argc, char** argv) {
  using namespace paratune;
  CLI::App app{"paratune: find and explain the fastest LLM training layout for a GPU cluster"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("paratune 0.1.0") + (paratune::BuiltWithMpi() ? " (with MPI)" : ""));
  std::vector<cli::Command> commands = {
      cli::AddEstimateCommand(app), cli::AddSimulateCommand(app), cli::AddModelsCommand(app),
      cli::AddGpusCommand(app),     cli::AddValidateCommand(app), cli::AddCalibrateCommand(app),
      cli::AddPlanCommand(app),     cli::AddAnalyzeCommand(app),  cli::AddDiagnoseCommand(app),
      cli::AddClusterCommand(app),  cli::AddReportCommand(app),   cli::AddServeCommand(app),
      cli::AddRunsCommand(app)};
  if (const std::string unknown = UnknownCommandIn(app, argc, argv); !unknown.empty()) {
    std::fprintf(stderr, "paratune: error: %s\n", OneLine(unknown).c_str());
    return 2;
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
    std::fprintf(stderr, "paratune: error: %s\n", OneLine(Reworded(e.what())).c_str());
    return 2;
  }
  if (const std::string bad = NonFiniteNumber(app); !bad.empty()) {
    std::fprintf(stderr, "paratune: error: %s\n", OneLine(bad).c_str());
    return 2;
  }
  try {
    for (auto& c : commands) {
      if (!c.app->parsed()) continue;
      const int status = c.run();
      cli::FlushStandardOutput();  // a full disk or a closed pipe is an error, not a silent loss
      return status;
    }
  } catch (const std::system_error& e) {
    // fmt::print throws when standard output cannot take what it prints (a full device).
    if (!std::ferror(stdout)) {
      std::fprintf(stderr, "paratune: internal error: %s\n", OneLine(e.what()).c_str());
      return 1;
    }
    std::fprintf(stderr, "paratune: error: standard output: cannot write: %s\n", OneLine(e.code().message()).c_str());
    return 2;
  } catch (const InputError& e) {
    paratune::cli::PrintInputError(e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "paratune: internal error: %s\n", OneLine(e.what()).c_str());
    return 1;
  }
  return 0;
}
