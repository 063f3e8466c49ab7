// Serve over real sockets: a server on an ephemeral port of 127.0.0.1 and a raw client written
// here, so that malformed, oversized and hostile requests are sent byte for byte as written.
#include "report/serve.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/report.h"
#include "report/test_documents.h"
#include "util/test_util.h"

namespace paratune {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

// An estimate document as `paratune estimate --json` writes it (docs/json.md,
// paratune.estimate/1); `marker` (the model's name) and `tokens_per_s` tell versions apart.
nlohmann::json Document(const std::string& marker, double tokens_per_s = 3000) {
  return report_test::EstimateDoc(marker, tokens_per_s);
}

// The page serve should answer for NAME holding `doc`.
std::string PageOf(const std::string& name, const nlohmann::json& doc) {
  return RenderReport({ReportInput{name, doc}}, ReportOptions{.title = name});
}

void WriteText(const fs::path& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
}

struct Reply {
  int status = 0;  // 0: no status line came back
  std::string head;
  std::string body;
};

int Connect(int port) {
  const int s = ::socket(AF_INET, SOCK_STREAM, 0);
  timeval tv{5, 0};
  ::setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  ::setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(s, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    ::close(s);
    return -1;
  }
  return s;
}

// Sends `request` as is and reads until the server closes (or 5 s pass).
Reply Exchange(int port, const std::string& request) {
  Reply r;
  const int s = Connect(port);
  if (s < 0) return r;
  for (size_t done = 0; done < request.size();) {
    const ssize_t n = ::send(s, request.data() + done, request.size() - done, MSG_NOSIGNAL);
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  std::string raw;
  char buf[65536];
  for (ssize_t n; (n = ::recv(s, buf, sizeof(buf), 0)) > 0;) raw.append(buf, static_cast<size_t>(n));
  ::close(s);
  const size_t end = raw.find("\r\n\r\n");
  r.head = raw.substr(0, end);
  r.body = end == std::string::npos ? "" : raw.substr(end + 4);
  if (raw.starts_with("HTTP/1.1 ") && raw.size() >= 12) r.status = std::stoi(raw.substr(9, 3));
  return r;
}

Reply Get(int port, const std::string& target, const std::string& method = "GET") {
  return Exchange(port, method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
}

// Serve on a thread; the port comes from on_listening.
class Server {
 public:
  explicit Server(ServeOptions options) {
    options.port = 0;
    auto port = listening_.get_future();
    thread_ = std::thread([this, options] {
      try {
        Serve(options, stop_, [this](int p) { listening_.set_value(p); });
      } catch (...) {
        listening_.set_exception(std::current_exception());
      }
    });
    if (port.wait_for(std::chrono::seconds(10)) != std::future_status::ready) {
      ADD_FAILURE() << "Serve did not start listening within 10 s";
      return;
    }
    try {
      port_ = port.get();
    } catch (const std::exception& e) {
      ADD_FAILURE() << "Serve threw: " << e.what();
    }
  }
  ~Server() { Stop(); }
  int port() const { return port_; }
  // Sets the stop flag; returns how long Serve took to return.
  milliseconds Stop() {
    if (!thread_.joinable()) return milliseconds(0);
    const auto t0 = std::chrono::steady_clock::now();
    stop_ = true;
    thread_.join();
    return std::chrono::duration_cast<milliseconds>(std::chrono::steady_clock::now() - t0);
  }

 private:
  std::atomic<bool> stop_{false};
  std::promise<int> listening_;
  std::thread thread_;
  int port_ = 0;
};

class ServeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::path(::testing::TempDir()) /
            ("paratune_serve_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(root_);
    dir_ = root_ / "reports";
    fs::create_directories(dir_);
    fs::create_directories(root_ / "outside");
    WriteText(root_ / "secret.json", kSecret);
    WriteText(root_ / "outside" / "secret.json", kSecret);
    WriteText(dir_ / "a.json", Document("VERSION-A").dump());
    WriteText(dir_ / "my run.json", Document("SPACED").dump());
    WriteText(dir_ / "bad.json", "{\"schema\": \"paratune.plan/1\", ");  // cut short: not JSON
    nlohmann::json wrong = Document("WRONG");
    wrong["throughput"]["step_time_s"] = "fast";
    WriteText(dir_ / "wrong.json", wrong.dump());  // JSON of a known schema, a field not as it says
    WriteText(dir_ / ".hidden.json", Document("HIDDEN").dump());
    WriteText(dir_ / "notes.txt", "not a report");
    fs::create_symlink(root_ / "secret.json", dir_ / "link.json");
    fs::create_symlink(root_ / "outside", dir_ / "outdir");
    fs::create_symlink(dir_ / "a.json", dir_ / "alias.json");  // inside DIR: served
    options_.dir = dir_.string();
    options_.max_requests_per_s = 100000;  // the tests that count 429s set their own
  }
  void TearDown() override { fs::remove_all(root_); }

  static constexpr const char* kSecret = "{\"schema\":\"paratune.plan/1\",\"marker\":\"TOP-SECRET-7f3a\"}";
  fs::path root_, dir_;
  ServeOptions options_;
};

TEST_F(ServeTest, HealthzAnswersOk) {
  Server server(options_);
  const Reply r = Get(server.port(), "/healthz");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "ok\n");
  EXPECT_CONTAINS(r.head, "Content-Type: text/plain; charset=utf-8");
  EXPECT_CONTAINS(r.head, "Content-Security-Policy: default-src 'none'");
  const Reply head = Get(server.port(), "/healthz", "HEAD");
  EXPECT_EQ(head.status, 200);
  EXPECT_EQ(head.body, "");
}

TEST_F(ServeTest, ListingShowsTheJsonFilesOfDirOnly) {
  Server server(options_);
  const Reply r = Get(server.port(), "/");
  ASSERT_EQ(r.status, 200);
  EXPECT_CONTAINS(r.head, "Content-Type: text/html; charset=utf-8");
  const std::string& b = r.body;
  EXPECT_CONTAINS(b, "<a href=\"/r/a.json\">a.json</a>");
  EXPECT_CONTAINS(b, "<a href=\"/r/alias.json\">alias.json</a>");
  EXPECT_CONTAINS(b, "<a href=\"/r/my%20run.json\">my run.json</a>");
  EXPECT_CONTAINS(b, "<a href=\"/r/bad.json\">bad.json</a>");
  EXPECT_CONTAINS(b, "<code>paratune.estimate/1</code>");
  // Size in bytes, exactly the file's.
  const std::string a_size = std::to_string(fs::file_size(dir_ / "a.json"));
  EXPECT_CONTAINS(b, "<td class=\"num\">" + a_size + "</td>");
  EXPECT_CONTAINS(b, "<a href=\"/r/wrong.json\">wrong.json</a>");
  EXPECT_CONTAINS(b, "5 documents");
  // Not listed: hidden, not *.json, symlinks out of DIR.
  for (const char* absent : {".hidden.json", "notes.txt", "link.json", "outdir", "TOP-SECRET"})
    EXPECT_EQ(b.find(absent), std::string::npos) << absent;
  // The server's own path is not shown.
  EXPECT_EQ(b.find(root_.string()), std::string::npos);
}

TEST_F(ServeTest, PageIsTheReportOfTheFile) {
  Server server(options_);
  const Reply r = Get(server.port(), "/r/a.json");
  ASSERT_EQ(r.status, 200);
  EXPECT_CONTAINS(r.head, "Content-Type: text/html; charset=utf-8");
  EXPECT_EQ(r.body, PageOf("a.json", Document("VERSION-A")));
  EXPECT_EQ(r.body.find(root_.string()), std::string::npos)
      << "the page names the file as served, not the server's path";

  const Reply spaced = Get(server.port(), "/r/my%20run.json");
  EXPECT_EQ(spaced.status, 200);
  EXPECT_EQ(spaced.body, PageOf("my run.json", Document("SPACED")));
  const Reply alias = Get(server.port(), "/r/alias.json");
  EXPECT_EQ(alias.status, 200);
  EXPECT_EQ(alias.body, PageOf("alias.json", Document("VERSION-A")));

  const Reply refresh = Get(server.port(), "/r/a.json?refresh=10");
  EXPECT_EQ(refresh.status, 200);
  EXPECT_CONTAINS(refresh.head, "Refresh: 10");
  EXPECT_EQ(Get(server.port(), "/r/a.json").head.find("Refresh:"), std::string::npos);
  EXPECT_EQ(Get(server.port(), "/r/a.json?refresh=0").head.find("Refresh:"), std::string::npos);
  EXPECT_EQ(Get(server.port(), "/r/a.json?refresh=5x").head.find("Refresh:"), std::string::npos);
}

TEST_F(ServeTest, DocumentThatDoesNotRenderIs422WithTheReason) {
  Server server(options_);
  const Reply r = Get(server.port(), "/r/bad.json");
  EXPECT_EQ(r.status, 422);
  EXPECT_CONTAINS(r.head, "Content-Type: text/html; charset=utf-8");
  EXPECT_CONTAINS(r.body, "Cannot render bad.json");
  EXPECT_CONTAINS(r.body, "<p class=\"error\">bad.json");
  EXPECT_EQ(r.body.find(root_.string()), std::string::npos)
      << "the reason names the file as served, not the server's path";
  const Reply wrong = Get(server.port(), "/r/wrong.json");
  EXPECT_EQ(wrong.status, 422);
  EXPECT_CONTAINS(wrong.body, "<p class=\"error\">wrong.json: field ");
  EXPECT_CONTAINS(wrong.body, "step_time_s");
  EXPECT_CONTAINS(wrong.body, "is not a number</p>");
}

TEST_F(ServeTest, NothingOutsideDirIsServed) {
  Server server(options_);
  const std::string abs = (root_ / "secret.json").string();
  const std::vector<std::string> attempts = {
      "/r/../secret.json",
      "/r/%2e%2e/secret.json",
      "/r/%2E%2E%2Fsecret.json",
      "/r/..%2fsecret.json",
      "/r/..%5csecret.json",
      "/r/%252e%252e%252fsecret.json",  // decoded once: the literal name "%2e%2e%2fsecret.json"
      "/r/%252e%252e/secret.json",
      "/r/link.json",             // symlink out of DIR
      "/r/outdir%2fsecret.json",  // through a symlinked directory
      "/r/outdir/secret.json",
      "/r" + abs,  // absolute path
      "/r/" + std::string("%2F") + abs.substr(1),
      "/r/.hidden.json",
      "/r/notes.txt",
      "/r/a.json%00.txt",
      "/r/missing.json",
      "/r/",
      "/../secret.json",
      "/reports/a.json",
  };
  for (const std::string& target : attempts) {
    const Reply r = Get(server.port(), target);
    EXPECT_EQ(r.status, 404) << target;
    EXPECT_EQ(r.body.find("TOP-SECRET"), std::string::npos) << target;
    EXPECT_EQ(r.head.find("TOP-SECRET"), std::string::npos) << target;
  }
  EXPECT_EQ(Get(server.port(), "/r/a.json").status, 200);  // and the real page still is
}

TEST_F(ServeTest, MalformedRequestIs400AndTheServerKeepsServing) {
  Server server(options_);
  for (const std::string& request : {std::string("GARBAGE\r\n\r\n"), std::string("GET /healthz HTTP/9.9\r\n\r\n"),
                                     std::string("GET /healthz\r\n\r\n"), std::string("GET /healthz HTTP/1.1\n\n"),
                                     std::string("BREW /healthz HTTP/1.1\r\n\r\n")}) {
    const Reply r = Exchange(server.port(), request);
    EXPECT_EQ(r.status, 400) << request;
  }
  // A head cut short by the client closing its side.
  {
    const int s = Connect(server.port());
    ASSERT_GE(s, 0);
    const std::string part = "GET /healthz HTTP/1.1\r\nHost: x";
    ASSERT_EQ(::send(s, part.data(), part.size(), MSG_NOSIGNAL), static_cast<ssize_t>(part.size()));
    ::shutdown(s, SHUT_WR);
    char buf[4096];
    const ssize_t n = ::recv(s, buf, sizeof(buf), 0);
    ::close(s);
    ASSERT_GT(n, 12);
    EXPECT_EQ(std::string(buf, 12), "HTTP/1.1 400");
  }
  EXPECT_EQ(Get(server.port(), "/healthz").status, 200);
}

TEST_F(ServeTest, OversizedHeadIs431AndTheServerKeepsServing) {
  options_.max_request_bytes = 16384;
  Server server(options_);
  // One long header line.
  const Reply one =
      Exchange(server.port(), "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Long: " + std::string(20000, 'a') + "\r\n\r\n");
  EXPECT_EQ(one.status, 431);
  EXPECT_CONTAINS(one.body, "exceed 16384 bytes");
  // Many short ones (httplib alone bounds only each line).
  std::string many = "GET /healthz HTTP/1.1\r\nHost: x\r\n";
  for (int i = 0; i < 2000; ++i) many += "X-" + std::to_string(i) + ": v\r\n";
  many += "\r\n";
  ASSERT_GT(many.size(), 16384u);
  EXPECT_EQ(Exchange(server.port(), many).status, 431);
  // A long request line.
  EXPECT_EQ(Exchange(server.port(), "GET /r/" + std::string(17000, 'b') + ".json HTTP/1.1\r\n\r\n").status, 431);
  // A head of exactly the bound is served (four padding headers: httplib refuses a single
  // header line over 8,192 bytes).
  std::string fits = "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n";
  for (int i = 0; i < 3; ++i) fits += "X-Pad" + std::to_string(i) + ": " + std::string(4000, 'p') + "\r\n";
  fits += "X-Pad3: " + std::string(16384 - fits.size() - 8 - 4, 'p') + "\r\n\r\n";
  ASSERT_EQ(fits.size(), 16384u);
  EXPECT_EQ(Exchange(server.port(), fits).status, 200);
  EXPECT_EQ(Get(server.port(), "/healthz").status, 200);
}

TEST_F(ServeTest, OnlyGetAndHeadAreAllowed) {
  Server server(options_);
  for (const char* method : {"POST", "PUT", "DELETE", "PATCH", "OPTIONS"}) {
    const Reply r = Get(server.port(), "/r/a.json", method);
    EXPECT_EQ(r.status, 405) << method;
    EXPECT_CONTAINS(r.head, "Allow: GET, HEAD");
  }
  // A body is not read: the answer comes and the connection closes.
  const Reply post = Exchange(
      server.port(), "POST /r/a.json HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n" + std::string(1000, 'z'));
  EXPECT_EQ(post.status, 405);
  EXPECT_EQ(fs::file_size(dir_ / "a.json"), Document("VERSION-A").dump().size());
  EXPECT_EQ(Get(server.port(), "/healthz").status, 200);
}

TEST_F(ServeTest, ConcurrentClientsAllServed) {
  Server server(options_);
  const std::string page = PageOf("a.json", Document("VERSION-A"));
  std::atomic<int> ok{0}, wrong{0};
  std::vector<std::thread> clients;
  for (int t = 0; t < 8; ++t) {
    clients.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) {
        const int k = (t + i) % 3;
        const Reply r = Get(server.port(), k == 0 ? "/healthz" : k == 1 ? "/" : "/r/a.json");
        const bool good = r.status == 200 && (k == 0   ? r.body == "ok\n"
                                              : k == 1 ? r.body.find("/r/a.json") != std::string::npos
                                                       : r.body == page);
        (good ? ok : wrong)++;
      }
    });
  }
  for (auto& c : clients) c.join();
  EXPECT_EQ(ok.load(), 400);
  EXPECT_EQ(wrong.load(), 0);
}

TEST_F(ServeTest, KeepAliveConnectionServesSeveralRequests) {
  Server server(options_);
  const std::string req = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n";
  const Reply r = Exchange(server.port(), req + req + "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(r.status, 200);
  // Three responses on the one connection, pipelined.
  size_t n = 0;
  for (size_t at = 0; (at = r.body.find("HTTP/1.1 200 OK", at)) != std::string::npos; ++at) ++n;
  EXPECT_EQ(n, 2u);  // the first one's head is r.head
}

TEST_F(ServeTest, FileReplacedWhileServedGivesOneOfTheWholeVersions) {
  const fs::path live = dir_ / "live.json";
  const nlohmann::json a = Document("VERSION-A"), b = Document("VERSION-B" + std::string(5000, 'x'), 2500);
  WriteText(live, a.dump());
  Server server(options_);
  const std::string page_a = PageOf("live.json", a), page_b = PageOf("live.json", b);
  ASSERT_NE(page_a, page_b);

  std::atomic<bool> done{false};
  std::atomic<int> writes{0};
  std::thread writer([&] {
    for (int i = 0; !done; ++i) {
      const fs::path tmp = dir_ / ".live.json.tmp";
      WriteText(tmp, (i % 2 ? a : b).dump());
      fs::rename(tmp, live);
      writes++;
    }
  });
  // Each reader makes at least 60 requests, and goes on until the writer has replaced the file
  // 50 times and both versions have been seen (10 s at most).
  std::atomic<int> seen_a{0}, seen_b{0}, other{0};
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  std::vector<std::thread> readers;
  for (int t = 0; t < 4; ++t) {
    readers.emplace_back([&] {
      for (int i = 0;
           i < 60 || ((writes < 50 || seen_a == 0 || seen_b == 0) && std::chrono::steady_clock::now() < give_up); ++i) {
        const Reply r = Get(server.port(), "/r/live.json");
        if (r.status == 200 && r.body == page_a) {
          seen_a++;
        } else if (r.status == 200 && r.body == page_b) {
          seen_b++;
        } else {
          other++;
        }
      }
    });
  }
  for (auto& r : readers) r.join();
  done = true;
  writer.join();
  EXPECT_EQ(other.load(), 0);
  EXPECT_GE(seen_a.load() + seen_b.load(), 240);
  EXPECT_GT(seen_a.load(), 0);
  EXPECT_GT(seen_b.load(), 0);
  EXPECT_GE(writes.load(), 50);
  // Once the writer stops, the next request gives the file as it is now.
  const bool last_is_a = writes.load() % 2 == 0;  // write i wrote b for even i: the last, i = writes-1
  EXPECT_EQ(Get(server.port(), "/r/live.json").body, last_is_a ? page_a : page_b);
  // And a replacement after a cached render is picked up.
  WriteText(dir_ / ".t", a.dump());
  fs::rename(dir_ / ".t", live);
  EXPECT_EQ(Get(server.port(), "/r/live.json").body, page_a);
  WriteText(dir_ / ".t", b.dump());
  fs::rename(dir_ / ".t", live);
  EXPECT_EQ(Get(server.port(), "/r/live.json").body, page_b);
}

TEST_F(ServeTest, RateLimitAnswers429ThenRecovers) {
  options_.max_requests_per_s = 5;
  Server server(options_);
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<int> statuses;
  for (int i = 0; i < 12; ++i) statuses.push_back(Get(server.port(), "/healthz").status);
  const double elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  // The bucket holds 5 (one second's worth) and refills at 5/s.
  for (int i = 0; i < 5; ++i) EXPECT_EQ(statuses[i], 200) << i;
  const int ok = static_cast<int>(std::count(statuses.begin(), statuses.end(), 200));
  const int limited = static_cast<int>(std::count(statuses.begin(), statuses.end(), 429));
  EXPECT_EQ(ok + limited, 12);
  EXPECT_LE(ok, 5 + static_cast<int>(elapsed_s * 5) + 1);
  EXPECT_GE(limited, 1);
  const Reply r = Get(server.port(), "/healthz");
  if (r.status == 429) {
    EXPECT_CONTAINS(r.head, "Retry-After: 1");
  }
  std::this_thread::sleep_for(milliseconds(1100));
  EXPECT_EQ(Get(server.port(), "/healthz").status, 200);
}

TEST_F(ServeTest, StopEndsServeWithinASecondEvenWithAnIdleConnection) {
  Server server(options_);
  const int idle = Connect(server.port());  // connected, sends nothing
  ASSERT_GE(idle, 0);
  const int keep = Connect(server.port());  // one request, then kept alive
  ASSERT_GE(keep, 0);
  const std::string req = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n";
  ASSERT_EQ(::send(keep, req.data(), req.size(), MSG_NOSIGNAL), static_cast<ssize_t>(req.size()));
  char buf[4096];
  ASSERT_GT(::recv(keep, buf, sizeof(buf), 0), 0);
  std::this_thread::sleep_for(milliseconds(50));
  const milliseconds took = server.Stop();
  EXPECT_LT(took.count(), 1000);
  ::close(idle);
  ::close(keep);
}

TEST_F(ServeTest, StopBeforeListeningReturns) {
  std::atomic<bool> stop{true};
  const auto t0 = std::chrono::steady_clock::now();
  int port = 0;
  Serve(ServeOptions{.dir = dir_.string(), .port = 0}, stop, [&](int p) { port = p; });
  EXPECT_GT(port, 0);
  EXPECT_LT(std::chrono::duration_cast<milliseconds>(std::chrono::steady_clock::now() - t0).count(), 1000);
}

TEST_F(ServeTest, BadOptionsAreInputErrors) {
  std::atomic<bool> stop{true};
  auto serve = [&](ServeOptions o) {
    SCOPED_TRACE(o.dir + " " + o.host + ":" + std::to_string(o.port));
    Serve(o, stop, nullptr);
  };
  EXPECT_CONTAINS(InputErrorOf([&] { serve({.dir = (root_ / "nope").string(), .port = 0}); }), "is not a directory");
  EXPECT_CONTAINS(InputErrorOf([&] { serve({.dir = (dir_ / "a.json").string(), .port = 0}); }), "is not a directory");
  EXPECT_CONTAINS(InputErrorOf([&] { serve({.dir = dir_.string(), .port = 70000}); }),
                  "--port 70000 is not a TCP port");
  EXPECT_CONTAINS(InputErrorOf([&] { serve({.dir = dir_.string(), .port = 0, .max_request_bytes = 10}); }),
                  "max_request_bytes 10");
  EXPECT_CONTAINS(InputErrorOf([&] { serve({.dir = dir_.string(), .port = 0, .max_requests_per_s = 0}); }),
                  "max_requests_per_s 0");
  EXPECT_CONTAINS(InputErrorOf([&] { serve({.dir = dir_.string(), .host = "203.0.113.7", .port = 0}); }),
                  "cannot listen on 203.0.113.7");
  // A port already taken.
  Server first(options_);
  EXPECT_CONTAINS(InputErrorOf([&] { serve({.dir = dir_.string(), .port = first.port()}); }),
                  "cannot listen on 127.0.0.1:" + std::to_string(first.port()));
}

// ---- load (issue 32): idle keep-alive sockets must not hold the workers ----------------------

// One keep-alive connection: sends a request, reads one whole response (Content-Length), and
// reconnects when the server closed the connection after the previous answer.
class KeepAliveClient {
 public:
  explicit KeepAliveClient(int port) : port_(port) {}
  ~KeepAliveClient() { Close(); }
  // The status of GET `target`, 0 when no answer came.
  int Request(const std::string& target) {
    for (int attempt = 0; attempt < 2; ++attempt) {
      if (sock_ < 0 && (sock_ = Connect(port_)) < 0) return 0;
      const std::string req = "GET " + target + " HTTP/1.1\r\nHost: x\r\n\r\n";
      if (::send(sock_, req.data(), req.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(req.size())) {
        const int status = ReadResponse();
        if (status != 0) return status;
      }
      Close();  // closed by the server between requests: once more on a new connection
    }
    return 0;
  }
  void Close() {
    if (sock_ >= 0) ::close(sock_);
    sock_ = -1;
    buf_.clear();
  }

 private:
  int ReadResponse() {
    char chunk[16384];
    for (;;) {
      const size_t end = buf_.find("\r\n\r\n");
      if (end != std::string::npos) {
        const std::string head = buf_.substr(0, end);
        const size_t cl = head.find("Content-Length: ");
        const size_t body = cl == std::string::npos ? 0 : std::stoul(head.substr(cl + 16));
        if (buf_.size() >= end + 4 + body) {
          const int status = head.starts_with("HTTP/1.1 ") ? std::stoi(head.substr(9, 3)) : 0;
          const bool closing = head.find("Connection: close") != std::string::npos;
          buf_.erase(0, end + 4 + body);
          if (closing) Close();
          return status;
        }
      }
      const ssize_t n = ::recv(sock_, chunk, sizeof(chunk), 0);
      if (n <= 0) return 0;
      buf_.append(chunk, static_cast<size_t>(n));
    }
  }

  int port_;
  int sock_ = -1;
  std::string buf_;
};

// The health-check bound: 100 ms (issue 32). Under AddressSanitizer every request costs several
// times more CPU on the same two cores, so the sanitizer run checks the same starvation (a
// 5-10 s wait before the fix) against 1 s.
#if defined(__SANITIZE_ADDRESS__)
constexpr double kHealthzBoundMs = 1000;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr double kHealthzBoundMs = 1000;
#else
constexpr double kHealthzBoundMs = 100;
#endif
#else
constexpr double kHealthzBoundMs = 100;
#endif

// Milliseconds a fresh /healthz takes, the median of five.
double HealthzMs(int port) {
  std::vector<double> ms;
  for (int i = 0; i < 5; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    const Reply r = Get(port, "/healthz");
    ms.push_back(r.status == 200
                     ? std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count()
                     : 1e9);
  }
  std::sort(ms.begin(), ms.end());
  return ms[2];
}

// 16 idle keep-alive sockets used to hold 8 workers for their 5 s keep-alive wait: /healthz
// took 10 s. Now an idle connection yields its worker to a waiting one.
TEST_F(ServeTest, IdleKeepAliveSocketsDoNotDelayHealthz) {
  Server server(options_);
  std::vector<std::unique_ptr<KeepAliveClient>> idle;
  for (int i = 0; i < 16; ++i) {
    idle.push_back(std::make_unique<KeepAliveClient>(server.port()));
    ASSERT_EQ(idle.back()->Request("/healthz"), 200);
  }
  EXPECT_LT(HealthzMs(server.port()), kHealthzBoundMs);
}

// 200 clients in parallel, three requests each on a keep-alive connection (default threads; the
// rate per address raised, as all 600 come from 127.0.0.1): every request answered 200, and
// /healthz meanwhile in under 100 ms (median of five).
TEST_F(ServeTest, TwoHundredKeepAliveClientsAllAnswered) {
  options_.max_requests_per_s = ServeOptions{}.max_requests_per_s * 10;  // 600 requests from one address in a burst
  Server server(options_);
  std::atomic<int> ok{0}, failed{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> clients;
  for (int c = 0; c < 200; ++c) {
    clients.emplace_back([&, c] {
      KeepAliveClient client(server.port());
      while (!go.load()) std::this_thread::yield();
      for (int i = 0; i < 3; ++i) (client.Request((c + i) % 2 ? "/healthz" : "/") == 200 ? ok : failed)++;
    });
  }
  go = true;
  const double healthz_ms = HealthzMs(server.port());
  for (auto& t : clients) t.join();
  EXPECT_EQ(ok.load(), 600);
  EXPECT_EQ(failed.load(), 0);
  EXPECT_LT(healthz_ms, kHealthzBoundMs);
}

// Issue 32: "Content-Length: -5" was served as if absent. An invalid length is a 400 and the
// connection closes (RFC 9112 section 6.3); a valid one is fine.
TEST_F(ServeTest, InvalidContentLengthIs400) {
  Server server(options_);
  for (const char* bad : {"-5", "99999999999999999999", "abc", "0x10"}) {
    SCOPED_TRACE(bad);
    const Reply r =
        Exchange(server.port(), std::string("GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: ") + bad + "\r\n\r\n");
    EXPECT_EQ(r.status, 400);
    EXPECT_CONTAINS(r.body, "invalid Content-Length");
  }
  const Reply two =
      Exchange(server.port(), "GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nContent-Length: 5\r\n\r\n");
  EXPECT_EQ(two.status, 400);
  EXPECT_EQ(
      Exchange(server.port(), "GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
          .status,
      200);
}

// serve writes one access-log line per answered request.
TEST_F(ServeTest, AccessLogHasOneLinePerRequest) {
  std::mutex m;
  std::vector<std::string> lines;
  options_.access_log = [&](const std::string& line) {
    std::lock_guard lock(m);
    lines.push_back(line);
  };
  {
    Server server(options_);
    EXPECT_EQ(Get(server.port(), "/healthz").status, 200);
    EXPECT_EQ(Get(server.port(), "/r/missing.json").status, 404);
  }
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_CONTAINS(lines[0], "127.0.0.1 \"GET /healthz\" 200 3 ");
  EXPECT_CONTAINS(lines[1], "\"GET /r/missing.json\" 404 ");
  EXPECT_TRUE(lines[0].ends_with(" ms"));
}

// A document nested 100,000 deep (600 KB) killed serve with SIGSEGV; it is a 422 with the reason.
TEST_F(ServeTest, DeeplyNestedDocumentIs422) {
  WriteText(dir_ / "deep.json",
            "{\"schema\":\"paratune.estimate/1\",\"x\":" + std::string(100000, '[') + std::string(100000, ']') + "}");
  Server server(options_);
  const Reply r = Get(server.port(), "/r/deep.json");
  EXPECT_EQ(r.status, 422);
  EXPECT_CONTAINS(r.body, "deep.json: JSON nested deeper than 64 levels");
  EXPECT_EQ(Get(server.port(), "/").status, 200);
}

}  // namespace
}  // namespace paratune
