// `paratune serve`: the live dashboard: the report pages of the --json documents in a
// directory, re-read when they change, over HTTP on 127.0.0.1 unless --host says otherwise;
// read-only; stops cleanly on SIGINT or SIGTERM. docs/report-serve.md.
#include <csignal>

#include <fmt/format.h>

#include "cli/commands.h"
#include "report/serve.h"

namespace paratune::cli {
namespace {

std::atomic<bool> g_stop{false};
extern "C" void OnSignal(int) { g_stop.store(true); }

}  // namespace

Command AddServeCommand(CLI::App& root) {
  auto* cmd = root.add_subcommand("serve", "serve the report pages of a directory of --json documents as a live dashboard");
  auto o = std::make_shared<ServeOptions>();
  cmd->add_option("--dir", o->dir, "directory of JSON files written by paratune commands")->required();
  cmd->add_option("--port", o->port, "TCP port (default 8080; 0: any free port)")->check(CLI::Range(0, 65535));
  cmd->add_option("--host", o->host, "address to bind (default 127.0.0.1: this machine only)");
  cmd->footer("/ lists the reports, /r/NAME is the page of DIR/NAME, /healthz answers ok. Ctrl-C stops it. "
              "docs/report-serve.md");
  return {cmd, [o] {
            struct sigaction sa {};
            sa.sa_handler = OnSignal;
            sigemptyset(&sa.sa_mask);
            sigaction(SIGINT, &sa, nullptr);
            sigaction(SIGTERM, &sa, nullptr);
            Serve(*o, g_stop, [&](int port) {
              fmt::print("serving {} on http://{}:{}/ (Ctrl-C stops)\n", o->dir, o->host, port);
              std::fflush(stdout);
            });
            return 0;
          }};
}

}  // namespace paratune::cli
