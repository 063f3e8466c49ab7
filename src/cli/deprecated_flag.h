// The old name of a renamed flag (issue 38): still accepted, hidden from --help, and announced
// with one line on standard error ("paratune: --OLD is deprecated; use --NEW"); the old and the
// new name together are a usage error (exit 2). Every rename goes through AddDeprecatedOption.
#pragma once

#include <string>

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace paratune::cli {

// Adds `old_name` ("--trace") to `app` as a hidden spelling of `renamed_to` (an option of `app`,
// added before): its value goes to `renamed_to` as if that had been given, and satisfies it
// where it is required. Left out of --help. Returns the old option.
CLI::Option* AddDeprecatedOption(CLI::App* app, const std::string& old_name, CLI::Option* renamed_to);

}  // namespace paratune::cli
