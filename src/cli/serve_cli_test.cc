// `paratune serve` as a process: it prints the address it listens on, answers /healthz, and
// exits 0 soon after SIGTERM (and after SIGINT); with --db, a Prometheus server (Debian's
// `prometheus`) scrapes its /metrics page and answers a PromQL query with a run's MFU.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <thread>

#include "util/percent_encode.h"

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

// A child running `args` with its standard output on a pipe (stdout: null when not wanted).
pid_t Spawn(const std::vector<std::string>& args, FILE** stdout_read, const std::string& log = "") {
  int out_pipe[2];
  if (::pipe(out_pipe) != 0) return -1;
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(out_pipe[1], 1);
    if (!log.empty()) {
      if (FILE* l = std::fopen(log.c_str(), "w")) ::dup2(::fileno(l), 2), ::dup2(::fileno(l), 1);
    }
    ::close(out_pipe[0]);
    std::vector<char*> argv;
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  ::close(out_pipe[1]);
  *stdout_read = ::fdopen(out_pipe[0], "r");
  return pid;
}

// A TCP port no one listens on now.
int FreePort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t n = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &n);
  ::close(fd);
  return ntohs(a.sin_port);
}

// The value of the sample `series` (`name{labels}`) in a text exposition page; "" when absent.
std::string SampleValue(const std::string& page, const std::string& series) {
  const size_t at = page.find("\n" + series + " ");
  if (at == std::string::npos) return "";
  const size_t from = at + series.size() + 2;
  return page.substr(from, page.find('\n', from) - from);
}

TEST_F(ServeCli, PrometheusScrapesTheRegistrysMetrics) {
  const std::string db = (dir_ / "runs.db").string();
  ASSERT_EQ(Run({"runs", "record", std::string(PARATUNE_SOURCE_DIR) + "/testdata/report/estimate.json", "--name", "a",
                 "--db", db})
                .status,
            0);
  FILE* serve_out = nullptr;
  const pid_t serve = Spawn({PARATUNE_BINARY, "serve", "--db", db, "--port", "0"}, &serve_out);
  ASSERT_GT(serve, 0);
  char line[512] = {0};
  ASSERT_NE(std::fgets(line, sizeof line, serve_out), nullptr);
  const std::string s = line;
  const int port = std::atoi(s.c_str() + s.rfind(':') + 1);
  ASSERT_GT(port, 0) << s;
  const std::string page = Get(port, "/metrics");
  EXPECT_NE(page.find("200 OK"), std::string::npos) << page;
  EXPECT_NE(page.find("Content-Type: text/plain; version=0.0.4"), std::string::npos) << page;
  const std::string series =
      "paratune_run_mfu_ratio{run=\"a\",model=\"llama-3.1-70b\",cluster=\"64xH100\",gpu=\"H100\","
      "side=\"predicted\"}";
  const std::string mfu = SampleValue(page, series);
  EXPECT_EQ(mfu.substr(0, 4), "0.40") << page;
  if (std::system("command -v prometheus > /dev/null 2>&1") != 0) {
    ::kill(serve, SIGTERM), ::waitpid(serve, nullptr, 0), std::fclose(serve_out);
    GTEST_SKIP() << "prometheus not found (Debian package prometheus; scripts/install-deps.sh installs it)";
  }
  const int prom_port = FreePort();
  std::ofstream(dir_ / "prometheus.yml") << "global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: paratune\n"
                                            "    static_configs:\n      - targets: ['127.0.0.1:"
                                         << port << "']\n";
  FILE* prom_out = nullptr;
  const pid_t prom = Spawn({"/usr/bin/prometheus", "--config.file=" + (dir_ / "prometheus.yml").string(),
                            "--storage.tsdb.path=" + (dir_ / "tsdb").string(),
                            "--web.listen-address=127.0.0.1:" + std::to_string(prom_port)},
                           &prom_out, (dir_ / "prometheus.log").string());
  ASSERT_GT(prom, 0);
  // The query answers once the first scrape is stored: Prometheus formats the value as Go's
  // strconv.FormatFloat(v, 'f', -1, 64), the shortest that reads back, as the page does.
  std::string answer;
  const auto t0 = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() - t0 < std::chrono::seconds(30)) {
    answer = Get(prom_port, "/api/v1/query?query=" + PercentEncode(series));
    if (answer.find("\"value\"") != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  EXPECT_NE(answer.find("\"" + mfu + "\"]"), std::string::npos) << answer;
  ::kill(prom, SIGTERM), ::waitpid(prom, nullptr, 0), std::fclose(prom_out);
  ::kill(serve, SIGTERM), ::waitpid(serve, nullptr, 0), std::fclose(serve_out);
}

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
