// `paratune serve` as a process: it prints the address it listens on, answers /healthz, and
// exits 0 soon after SIGTERM (and after SIGINT).
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <thread>

#include "cli/cli_test_util.h"

namespace paratune::cli_test {
namespace {

std::string Get(int port, const std::string& path) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ::close(fd);
    return "";
  }
  const std::string req = "GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
  (void)!::write(fd, req.data(), req.size());
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) out.append(buf, static_cast<size_t>(n));
  ::close(fd);
  return out;
}

class ServeCli : public Cli {};

TEST_F(ServeCli, AnswersAndStopsOnSignals) {
  Write("docs/readme.txt", "not a report");
  for (int sig : {SIGTERM, SIGINT}) {
    SCOPED_TRACE(sig);
    int out_pipe[2];
    ASSERT_EQ(::pipe(out_pipe), 0);
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ::dup2(out_pipe[1], 1);
      ::close(out_pipe[0]);
      const std::string dir = (dir_ / "docs").string();
      ::execl(PARATUNE_BINARY, PARATUNE_BINARY, "serve", "--dir", dir.c_str(), "--port", "0",
              static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ::close(out_pipe[1]);
    FILE* f = ::fdopen(out_pipe[0], "r");
    char line[512] = {0};
    ASSERT_NE(std::fgets(line, sizeof line, f), nullptr);
    const std::string s = line;
    const size_t colon = s.rfind(':');
    ASSERT_NE(colon, std::string::npos) << s;
    const int port = std::atoi(s.c_str() + colon + 1);
    ASSERT_GT(port, 0) << s;
    EXPECT_NE(s.find("http://127.0.0.1:"), std::string::npos) << s;
    const std::string health = Get(port, "/healthz");
    EXPECT_NE(health.find("200"), std::string::npos);
    EXPECT_EQ(health.substr(health.size() - 3), "ok\n");
    const auto t0 = std::chrono::steady_clock::now();
    ::kill(pid, sig);
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    const double s_elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
    EXPECT_LT(s_elapsed, 2.0);
    std::fclose(f);
  }
}

TEST_F(ServeCli, BadDirectoryIsBadInput) {
  EXPECT_NE(RunBad({"serve", "--dir", (dir_ / "absent").string(), "--port", "0"}).find("absent"), std::string::npos);
}

}  // namespace
}  // namespace paratune::cli_test
