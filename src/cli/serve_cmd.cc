// `paratune serve`: the live dashboard: the report pages of the --json documents in a
// directory, re-read when they change, over HTTP on 127.0.0.1 unless --host says otherwise;
// read-only; stops cleanly on SIGINT or SIGTERM. docs/report-serve.md.
#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdio>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "report/serve.h"
#include "runs/registry.h"
#include "runs/registry_metrics.h"
#include "runs/runs_json.h"
#include "util/error.h"

namespace paratune::cli {
namespace {

std::atomic<bool> g_stop{false};
extern "C" void OnSignal(int) { g_stop.store(true); }

}  // namespace

Command AddServeCommand(CLI::App& root) {
  auto* cmd =
      root.add_subcommand("serve", "serve the report pages of a directory of --json documents as a live dashboard");
  auto o = std::make_shared<ServeOptions>();
  auto db = std::make_shared<std::string>();
  cmd->add_option("--dir", o->dir, "directory of JSON files written by paratune commands");
  cmd->add_option(
      "--db", *db,
      "also serve the run registry at LOC under /runs (a SQLite file or a postgresql:// URL; docs/runs.md)");
  cmd->add_option("--port", o->port, "TCP port (default 8080; 0: any free port)")->check(CLI::Range(0, 65535));
  cmd->add_option("--host", o->host, "address to bind (default 127.0.0.1: this machine only)");
  cmd->footer(
      "/ lists the reports, /r/NAME is the page of DIR/NAME, /healthz answers ok; with --db, /runs lists the "
      "registry's runs, /runs/NAME is one run, /runs/compare?a=A&b=B two, /metrics the registry as Prometheus "
      "metrics. Ctrl-C stops it. "
      "docs/report-serve.md");
  return {cmd, [o, db] {
            if (o->dir.empty() && db->empty()) throw InputError("serve: give --dir DIR, --db LOC or both");
            // Each page opens its own connection (requests are served on several threads); the
            // store is migrated once here, so a bad --db fails at start.
            std::shared_ptr<RegistryPages> pages;
            if (!db->empty()) {
              const std::string where = OpenRegistry(*db, StoreAccess::kExisting)->Where();
              const std::string loc = *db;
              pages = std::make_shared<RegistryPages>();
              pages->where = where;
              pages->list = [loc] {
                auto d = OpenRegistry(loc, StoreAccess::kExisting);
                return RunListJson(List(*d, ListFilter{}), CountRuns(*d, ListFilter{}));
              };
              pages->baselines = [loc] { return BaselinesJson(Baselines(*OpenRegistry(loc, StoreAccess::kExisting))); };
              pages->show = [loc](const std::string& name) {
                return RunShowJson(Show(*OpenRegistry(loc, StoreAccess::kExisting), name));
              };
              pages->compare = [loc](const std::string& a, const std::string& b) {
                auto d = OpenRegistry(loc, StoreAccess::kExisting);
                return ComparisonJson(b.empty() ? CompareWithBaseline(*d, a) : Compare(*d, a, b));
              };
              pages->metrics = [loc] { return RegistryMetricsText(*OpenRegistry(loc, StoreAccess::kExisting)); };
              o->registry = pages.get();
            }
            // One line per request on standard error, written whole (requests run on several threads).
            o->access_log = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
            struct sigaction sa {};
            sa.sa_handler = OnSignal;
            sigemptyset(&sa.sa_mask);
            sigaction(SIGINT, &sa, nullptr);
            sigaction(SIGTERM, &sa, nullptr);
            Serve(*o, g_stop, [&](int port) {
              fmt::print("serving {} on http://{}:{}/ (Ctrl-C stops)\n", o->dir.empty() ? pages->where : o->dir,
                         o->host, port);
              std::fflush(stdout);
            });
            return 0;
          }};
}

}  // namespace paratune::cli
