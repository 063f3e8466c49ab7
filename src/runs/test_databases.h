// Test-only (included by *_test.cc): the back ends a suite parametrised over Database runs on,
// and a new, empty store on each. The whole API:
//
//   std::vector<std::string> TestBackends();                  // always {"sqlite", "postgresql"}
//   std::string TestBackendSkipReason(const std::string& b);   // "" when b is usable here
//   PARATUNE_BACKEND_OR_SKIP(b);                               // first line of a test body
//   std::string FreshTestLocation(const std::string& b, const std::string& tag);
//       // a location for OpenDatabase (or `--db`): a new empty store, private to the caller
//   std::string TestBackendName(const testing::TestParamInfo<std::string>& info);  // param name
//
// Usage:
//   class RegistryTest : public testing::TestWithParam<std::string> {};
//   TEST_P(RegistryTest, RecordsARun) {
//     PARATUNE_BACKEND_OR_SKIP(GetParam());
//     auto db = OpenDatabase(FreshTestLocation(GetParam(), "records_a_run"));
//     ...
//   }
//   INSTANTIATE_TEST_SUITE_P(Backends, RegistryTest, testing::ValuesIn(TestBackends()), TestBackendName);
//
// "sqlite" is always usable: its store is a file in a new temporary directory. "postgresql" is
// usable when $PARATUNE_TEST_PG gives a server's URL (a server of your own), or when the file
// named by $PARATUNE_TEST_PG_URL_FILE (set by CTest) or, for a test binary run directly, the
// build's pg-test/url exists: scripts/pg-test-server.sh writes it once its server is up
// (docs/runs-storage.md). Otherwise the PostgreSQL tests skip, and the reason names the file and
// the server script's own reason (pg-test/status).
//
// Each PostgreSQL store is a fresh schema, t_<tag>_<random>, in the test database; the location is
// the server's URL with options=-csearch_path=<schema>, so every connection opened on it (another
// thread, a `paratune runs --db URL` child process) works in that schema only, and tests running
// in parallel never see each other's tables. SQL that looks tables up in the catalog must
// therefore restrict itself to current_schema() (information_schema.tables holds every test's
// schema_version table). The schemas and the SQLite directories made by a process are dropped when
// it exits; the test server's whole database goes when CTest stops it.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "runs/database.h"
#include "runs/postgres_database.h"

namespace paratune {

inline std::vector<std::string> TestBackends() { return {"sqlite", "postgresql"}; }

inline std::string TestBackendName(const testing::TestParamInfo<std::string>& info) { return info.param; }

namespace test_databases_detail {

inline std::string UrlFilePath() {
  if (const char* f = std::getenv("PARATUNE_TEST_PG_URL_FILE"); f && *f) return f;
#ifdef PARATUNE_TEST_PG_URL_FILE_DEFAULT
  return PARATUNE_TEST_PG_URL_FILE_DEFAULT;
#else
  return "";
#endif
}

inline std::string ReadFirstLine(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  if (in) std::getline(in, line);
  while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
  return line;
}

// The PostgreSQL server's URL, or "" with `why` set.
inline std::string ServerUrl(std::string* why) {
  if (const char* url = std::getenv("PARATUNE_TEST_PG"); url && *url) return url;
  const std::string file = UrlFilePath();
  if (file.empty()) {
    if (why) *why = "no PostgreSQL test server: neither PARATUNE_TEST_PG nor PARATUNE_TEST_PG_URL_FILE is set";
    return "";
  }
  std::string url = ReadFirstLine(file);
  if (url.empty() && why) {
    const std::string status = ReadFirstLine(std::filesystem::path(file).parent_path() / "status");
    *why = "no PostgreSQL test server: " + file + " is absent (" +
           (status.empty() ? "scripts/pg-test-server.sh start was not run; ctest runs it" : status) +
           "); set PARATUNE_TEST_PG=postgresql://... to use a server of your own";
  }
  return url;
}

inline std::string RandomHex() {
  static std::mt19937_64 gen(std::random_device{}() ^ (static_cast<uint64_t>(::getpid()) << 32));
  static const char* digits = "0123456789abcdef";
  std::string s;
  uint64_t v = gen();
  for (int i = 0; i < 12; ++i, v >>= 4) s += digits[v & 15];
  return s;
}

// What this process made, removed at exit.
struct Made {
  std::mutex mu;
  std::vector<std::filesystem::path> dirs;
  std::vector<std::string> schemas;
  std::string url;
  ~Made() {
    std::error_code ec;
    for (const auto& d : dirs) std::filesystem::remove_all(d, ec);
    if (schemas.empty()) return;
    try {
      auto db = OpenPostgresDatabase(url);
      for (const auto& s : schemas) db->Exec("DROP SCHEMA IF EXISTS " + s + " CASCADE");
    } catch (...) {  // the server is gone already: its data goes with it
    }
  }
};
inline Made& made() {
  static Made m;
  return m;
}

// `tag` reduced to an identifier's characters (lower case, digits, '_'), at most 24 of them.
inline std::string Identifier(const std::string& tag) {
  std::string out;
  for (char c : tag) {
    if (out.size() >= 24) break;
    out += std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::tolower(static_cast<unsigned char>(c)))
                                                       : '_';
  }
  return out.empty() ? "store" : out;
}

// `url` with a libpq option that sets search_path (manual 34.1.2 "options"; 20.1.4 "-c name=value").
inline std::string WithSearchPath(const std::string& url, const std::string& schema) {
  const bool uri = url.rfind("postgresql://", 0) == 0 || url.rfind("postgres://", 0) == 0;
  if (uri) return url + (url.find('?') == std::string::npos ? "?" : "&") + "options=-csearch_path%3D" + schema;
  return url + " options='-csearch_path=" + schema + "'";
}

}  // namespace test_databases_detail

inline std::string TestBackendSkipReason(const std::string& backend) {
  if (backend == "sqlite") return "";
  if (backend == "postgresql") {
    std::string why;
    return test_databases_detail::ServerUrl(&why).empty() ? why : "";
  }
  return "unknown test back end '" + backend + "'";
}

#define PARATUNE_BACKEND_OR_SKIP(backend)                                                                     \
  if (const std::string paratune_skip_ = ::paratune::TestBackendSkipReason(backend); !paratune_skip_.empty()) \
  GTEST_SKIP() << paratune_skip_

inline std::string FreshTestLocation(const std::string& backend, const std::string& tag) {
  namespace d = test_databases_detail;
  const std::string name = d::Identifier(tag) + "_" + d::RandomHex();
  d::Made& m = d::made();
  if (backend == "sqlite") {
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("paratune_runs_" + std::to_string(::getpid()) + "_" + name);
    std::filesystem::create_directories(dir);
    std::lock_guard lock(m.mu);
    m.dirs.push_back(dir);
    return (dir / (d::Identifier(tag) + ".db")).string();
  }
  if (backend != "postgresql") throw std::logic_error("unknown test back end '" + backend + "'");
  std::string why;
  const std::string url = d::ServerUrl(&why);
  if (url.empty()) throw std::logic_error(why + " (call PARATUNE_BACKEND_OR_SKIP first)");
  const std::string schema = "t_" + name;
  OpenPostgresDatabase(url)->Exec("CREATE SCHEMA " + schema);
  std::lock_guard lock(m.mu);
  m.url = url;
  m.schemas.push_back(schema);
  return d::WithSearchPath(url, schema);
}

}  // namespace paratune
