// The old names of renamed flags: each forwards to the new option, and a formatter leaves it
// out of --help (CLI11's hidden group "" would also blank its name in CLI11's own errors).
#include "cli/deprecated_flag.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <set>

namespace paratune::cli {
namespace {

// The app's help, less its deprecated options.
class HidingFormatter : public CLI::Formatter {
 public:
  explicit HidingFormatter(const CLI::Formatter& base) : CLI::Formatter(base) {}
  void Hide(const CLI::Option* o) { hidden_.insert(o); }
  std::string make_option(const CLI::Option* o, bool is_positional) const override {
    return hidden_.count(o) ? "" : CLI::Formatter::make_option(o, is_positional);
  }

 private:
  std::set<const CLI::Option*> hidden_;
};

HidingFormatter& FormatterOf(CLI::App* app) {
  auto hiding = std::dynamic_pointer_cast<HidingFormatter>(app->get_formatter());
  if (!hiding) {
    const auto* base = dynamic_cast<const CLI::Formatter*>(app->get_formatter().get());
    hiding = std::make_shared<HidingFormatter>(base ? *base : CLI::Formatter());
    app->formatter(hiding);  // this app's own: a subcommand starts with its parent's
  }
  return *hiding;
}

}  // namespace

CLI::Option* AddDeprecatedOption(CLI::App* app, const std::string& old_name, CLI::Option* renamed_to) {
  // CLI11 runs an option's callback once the whole command line is read, only when the option
  // was given, and before it checks what is required.
  CLI::callback_t forward = [old_name, renamed_to](const CLI::results_t& values) {
    const std::string new_name = renamed_to->get_name();
    if (renamed_to->count() > 0)
      throw CLI::ArgumentMismatch(old_name + " is the old name of " + new_name + "; give only " + new_name);
    std::fprintf(stderr, "paratune: %s is deprecated; use %s\n", old_name.c_str(), new_name.c_str());
    renamed_to->add_result(values);
    renamed_to->run_callback();
    return true;
  };
  CLI::Option* old = app->add_option(old_name, forward, "deprecated: use " + renamed_to->get_name())
                         ->type_name(renamed_to->get_type_name());
  FormatterOf(app).Hide(old);
  return old;
}

}  // namespace paratune::cli
