// Serve: the live dashboard of `paratune serve`: an HTTP server (cpp-httplib) over a directory
// of --json documents. `/` lists them, `/r/NAME` is the report page of DIR/NAME (re-read when the
// file changes), `/healthz` answers "ok". Read-only (GET and HEAD only); no path outside DIR is
// served: NAME is a plain file name (no '/', '\\', "..", NUL, after percent-decoding, once or
// twice encoded), anything else is 404; requests and their rate are bounded; it binds 127.0.0.1
// unless told otherwise, and stops cleanly when `stop` becomes true (the CLI sets it on SIGINT
// and SIGTERM). docs/report.md, "Serve".
#pragma once

#include <atomic>
#include <functional>
#include <string>

#include "report/registry_pages.h"

namespace paratune {

struct ServeOptions {
  std::string dir;  // may be empty when `registry` is given
  // `serve --db`: the run registry's pages under /runs (registry_pages.h); nullptr: none.
  const RegistryPages* registry = nullptr;
  std::string host = "127.0.0.1";
  int port = 8080;                   // 0: any free port (tests)
  size_t max_request_bytes = 16384;  // request line + headers; larger: 431/413
  int max_requests_per_s = 200;      // per client address; beyond: 429
  int threads = 8;
  // Called with one line per answered request (client, request line, status, body bytes, time);
  // the CLI writes it to standard error. Empty: no log.
  std::function<void(const std::string&)> access_log;
};

// Runs until `stop` is true. `on_listening` is called with the bound port once the server
// accepts connections. Throws InputError when DIR is not a directory or the address cannot be
// bound.
void Serve(const ServeOptions& options, const std::atomic<bool>& stop, const std::function<void(int)>& on_listening);

}  // namespace paratune
