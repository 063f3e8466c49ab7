// Every paratune command line in README.md runs and exits 0: the examples, and the main job at
// the end of README command 1. Paths into ../shared are resolved beside the repository (a line
// that needs them is skipped, naming the path, when they are absent); outputs under /tmp/ go to
// a scratch directory instead.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "layout/megatron_args.h"

namespace paratune {
namespace {

namespace fs = std::filesystem;

const fs::path kRoot = PARATUNE_SOURCE_DIR;
constexpr std::string_view kBinary = "./build/release/paratune";

// The paratune command lines of README.md's shell blocks.
std::vector<std::string> ReadmeCommands() {
  std::ifstream in(kRoot / "README.md");
  std::vector<std::string> out;
  bool shell = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("```", 0) == 0) {
      shell = line == "```sh";
      continue;
    }
    if (!shell) continue;
    const size_t at = line.find(kBinary);
    if (at == std::string::npos) continue;
    // The command itself: from the binary to the end, or to the next "&&".
    std::string cmd = line.substr(at);
    if (const size_t amp = cmd.find("&&"); amp != std::string::npos) cmd.resize(amp);
    out.push_back(cmd);
  }
  return out;
}

std::string Quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

TEST(Readme, EveryCommandLineRuns) {
  const std::vector<std::string> commands = ReadmeCommands();
  ASSERT_GE(commands.size(), 6u) << "README.md lost its examples";
  const fs::path shared = kRoot.parent_path() / "shared";
  const fs::path scratch = fs::path(testing::TempDir()) / ("paratune_readme_" + std::to_string(::getpid()));
  fs::create_directories(scratch);
  int ran = 0;
  for (const std::string& line : commands) {
    SCOPED_TRACE(line);
    std::vector<std::string> words = SplitShellWords(line);
    std::string cmd = Quote(PARATUNE_BINARY);
    bool missing = false;
    std::string stdout_path = "/dev/null";  // a "> FILE" at the end of the line redirects it
    if (words.size() >= 2 && words[words.size() - 2] == ">") {
      stdout_path = words.back();
      if (stdout_path.rfind("/tmp/", 0) == 0) stdout_path = (scratch / stdout_path.substr(5)).string();
      words.resize(words.size() - 2);
    }
    for (size_t i = 1; i < words.size(); ++i) {
      std::string w = words[i];
      if (w.rfind("../shared/", 0) == 0) {
        w = (shared / w.substr(10)).string();
        if (!fs::exists(w)) {
          std::cout << "skipping (no " << w << "): " << line << "\n";
          missing = true;
        }
      } else if (w.rfind("/tmp/", 0) == 0) {
        w = (scratch / w.substr(5)).string();
      }
      cmd += " " + Quote(w);
    }
    if (missing) continue;
    cmd = "cd " + Quote(kRoot.string()) + " && " + cmd + " >" + Quote(stdout_path) + " 2>" +
          Quote((scratch / "stderr.txt").string());
    const int raw = std::system(cmd.c_str());
    const int status = raw != -1 && WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    std::ifstream err(scratch / "stderr.txt");
    std::stringstream ss;
    ss << err.rdbuf();
    EXPECT_EQ(status, 0) << ss.str();
    ++ran;
  }
  fs::remove_all(scratch);
  EXPECT_GE(ran, 5);
}

}  // namespace
}  // namespace paratune
