// The fixture of the end-to-end CLI tests: runs the paratune binary in a scratch directory per
// test and checks the bad-input contract (status 2, one "paratune: error: ..." line on stderr,
// nothing on stdout). Included only by src/cli/*_test.cc.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "util/test_util.h"

#ifndef PARATUNE_BINARY
#error "PARATUNE_BINARY must name the paratune executable"
#endif
#ifndef PARATUNE_SOURCE_DIR
#error "PARATUNE_SOURCE_DIR must name the source tree"
#endif

namespace paratune::cli_test {

namespace fs = std::filesystem;

struct Result {
  int status = -1;  // exit status, or -1 if the process did not exit normally
  std::string out;
  std::string err;
};

inline std::string Quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

inline std::string Slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A scratch directory per test (ctest runs tests in parallel processes).
class Cli : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(testing::TempDir()) / ("paratune_cli_" + std::to_string(::getpid()) + "_" +
                                           testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  std::string Write(const std::string& name, const std::string& text) {
    const fs::path p = dir_ / name;
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
  }

  // Strings are appended piecewise: GCC 12 reports a false -Wrestrict for "literal" + string&&.
  Result Run(const std::vector<std::string>& args) {
    std::string cmd = Quote(PARATUNE_BINARY);
    for (const std::string& a : args) cmd.append(" ").append(Quote(a));
    const fs::path out = dir_ / "stdout.txt", err = dir_ / "stderr.txt";
    cmd.append(" </dev/null >").append(Quote(out.string())).append(" 2>").append(Quote(err.string()));
    const int raw = std::system(cmd.c_str());
    Result r;
    r.status = (raw != -1 && WIFEXITED(raw)) ? WEXITSTATUS(raw) : -1;
    r.out = Slurp(out);
    r.err = Slurp(err);
    return r;
  }

  // Runs `args`, expects the bad-input contract, and returns the error message (after the
  // "paratune: error: " prefix, without the newline).
  std::string RunBad(const std::vector<std::string>& args) {
    std::string joined;
    for (const auto& a : args) joined += " " + a;
    SCOPED_TRACE("paratune" + joined);
    const Result r = Run(args);
    EXPECT_EQ(r.status, 2) << "stderr: " << r.err;
    EXPECT_EQ(r.out, "") << "stdout should be empty";
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "stderr: " << r.err;
    EXPECT_FALSE(r.err.empty());
    if (!r.err.empty()) {
      EXPECT_EQ(r.err.back(), '\n');
    }
    const std::string prefix = "paratune: error: ";
    EXPECT_EQ(r.err.rfind(prefix, 0), 0u) << "stderr: " << r.err;
    std::string msg = r.err.rfind(prefix, 0) == 0 ? r.err.substr(prefix.size()) : r.err;
    if (!msg.empty() && msg.back() == '\n') msg.pop_back();
    return msg;
  }

  fs::path dir_;
};

}  // namespace paratune::cli_test
