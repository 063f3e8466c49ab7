#include "cli/output_file.h"

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <unistd.h>

#include "util/error.h"
#include "util/file.h"

namespace paratune::cli {
namespace {

int g_kept_stdout = -1;  // the original standard output once an output "-" has kept it

void WriteAllTo(int fd, const std::string& content) {
  for (size_t done = 0; done < content.size();) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      throw InputError(std::string("standard output: cannot write: ") +
                       (n == 0 ? "nothing written" : std::strerror(errno)));
    done += static_cast<size_t>(n);
  }
}

}  // namespace

void PrepareOutputs(const CLI::App& cmd, const std::vector<OutputFlag>& outputs,
                    const std::vector<std::string>& inputs) {
  const OutputFlag* to_stdout = nullptr;
  for (const OutputFlag& o : outputs) {
    if (cmd.count(o.flag) == 0) continue;
    const std::string& path = *o.path;
    if (path.empty())
      throw InputError(std::string(o.flag) + ": empty file name (give a path, or - for standard output)");
    if (path == "-") {
      if (to_stdout)
        throw InputError(std::string(to_stdout->flag) + " and " + o.flag + " both name standard output (-)");
      to_stdout = &o;
      continue;
    }
    RefuseOverwritingInputs(o.flag, path, inputs);
  }
  if (to_stdout && g_kept_stdout < 0) {
    std::fflush(stdout);
    g_kept_stdout = ::dup(STDOUT_FILENO);
    if (g_kept_stdout < 0 || ::dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
      throw InputError(std::string(to_stdout->flag) + " -: cannot keep standard output: " + std::strerror(errno));
  }
}

void WriteOutput(const std::string& path, const std::string& content) {
  if (path != "-") return WriteFileAtomic(path, content);
  if (g_kept_stdout >= 0) return WriteAllTo(g_kept_stdout, content);
  FlushStandardOutput();
  WriteAllTo(STDOUT_FILENO, content);
}

void FlushStandardOutput() {
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    const int err = errno;
    std::clearerr(stdout);
    throw InputError(std::string("standard output: cannot write: ") + std::strerror(err));
  }
}

}  // namespace paratune::cli
