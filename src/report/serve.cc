// Serve: cpp-httplib (https://github.com/yhirose/cpp-httplib, v0.11.4 as in Debian 12) with
// its connection loop replaced by a bounded one: the request head (request line and headers) is
// read into a buffer of at most `max_request_bytes` before httplib parses it (httplib 0.11.4
// bounds each header line, 8,192 bytes, but not their number: httplib.h, read_headers), the
// whole head must arrive within the read timeout, a connection serves a bounded number of
// requests, and the idle wait between them polls the stop flag. An idle keep-alive connection
// gives its worker back as soon as another connection waits for one, and a client holding more
// than kMaxKeepAlivePerClient connections gets each answered and closed, so idle sockets never
// starve the others (a health check is answered within a poll slice under load). Pages are rendered from the
// files on every request unless the file is the one already rendered (same device, inode, size
// and modification time before and after the read; a file replaced by rename is a new inode).
// docs/report-serve.md.
#include "report/serve.h"

#include <httplib.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string_view>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "report/page.h"
#include "report/report.h"
#include "report/svg.h"
#include "util/error.h"
#include "util/percent_encode.h"
#include "util/text.h"
#include "util/timestamp.h"

namespace paratune {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// Connection limits. The read and write timeouts bound each wait on the socket; the head
// timeout bounds the whole request head (a client trickling a header a byte at a time is cut
// off); the response deadline bounds a slow reader.
constexpr int kReadTimeoutS = 5;
constexpr int kWriteTimeoutS = 5;
constexpr int kKeepAliveTimeoutS = 5;
constexpr size_t kKeepAliveMaxRequests = 100;
constexpr auto kHeadTimeout = milliseconds(kReadTimeoutS * 1000);
constexpr auto kResponseDeadline = std::chrono::seconds(30);
constexpr auto kDrainTime = milliseconds(200);
constexpr int kPollSliceMs = 20;  // how often a waiting connection looks at the stop flag
constexpr int kListenBacklog = 256;
constexpr size_t kMaxKeepAlivePerClient = 8;  // connections of one address kept open between requests
constexpr size_t kMaxRateClients = 4096;      // token buckets kept before idle ones go
constexpr size_t kMaxCachedHtmlBytes = size_t{256} << 20;
constexpr size_t kMinRequestBytes = 256;

// The statuses serve answers with, and their reason phrases (RFC 9110 section 15; 429 and 431:
// RFC 6585 sections 4 and 5). Error bodies and the raw 431 are written from this list.
struct StatusText {
  int status;
  const char* text;
};
constexpr StatusText kStatusTexts[] = {
    {400, "Bad Request"},           {404, "Not Found"},
    {405, "Method Not Allowed"},    {413, "Content Too Large"},
    {414, "URI Too Long"},          {422, "Unprocessable Content"},
    {429, "Too Many Requests"},     {431, "Request Header Fields Too Large"},
    {500, "Internal Server Error"},
};
std::string StatusLine(int status) {
  for (const auto& s : kStatusTexts)
    if (s.status == status) return std::to_string(status) + " " + s.text;
  return std::to_string(status);
}

// Set on the worker thread that runs the request when the connection must close after the
// response: an error answer (a refused method's body, if any, was not read).
thread_local bool tl_close_after_response = false;
// When the request on this worker thread started (its head complete), for the access log.
thread_local std::chrono::steady_clock::time_point tl_request_start;

// A request target as the access log shows it: control bytes escaped, at most 200 bytes.
std::string OneLinePath(const std::string& target) {
  std::string out;
  for (const char c : target.substr(0, 200)) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f || c == '"')
      out += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
    else
      out += c;
  }
  return target.size() > 200 ? out + "..." : out;
}

// ---- the connection: a socket with the request head buffered --------------------------------

int MsLeft(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now()).count();
  return left <= 0 ? 0 : static_cast<int>(std::min<long long>(left, 1 << 30));
}

// poll(2) on one descriptor: >0 ready, 0 timeout, <0 error (EINTR is retried as a timeout).
int PollOne(int sock, short events, int timeout_ms) {
  pollfd p{sock, events, 0};
  const int r = ::poll(&p, 1, timeout_ms);
  if (r < 0 && errno == EINTR) return 0;
  if (r > 0 && (p.revents & (POLLERR | POLLNVAL))) return -1;
  return r;
}

void AddressOf(int sock, bool peer, std::string& ip, int& port) {
  sockaddr_storage addr{};
  socklen_t len = sizeof(addr);
  const int r = peer ? ::getpeername(sock, reinterpret_cast<sockaddr*>(&addr), &len)
                     : ::getsockname(sock, reinterpret_cast<sockaddr*>(&addr), &len);
  if (r != 0) return;
  char host[NI_MAXHOST];
  char serv[NI_MAXSERV];
  if (::getnameinfo(reinterpret_cast<sockaddr*>(&addr), len, host, sizeof(host), serv, sizeof(serv),
                    NI_NUMERICHOST | NI_NUMERICSERV) == 0) {
    ip = host;
    port = std::atoi(serv);
  }
}

enum class Head { kReady, kClosed, kTimeout, kTooLarge, kStopping };

class ConnectionStream : public httplib::Stream {
 public:
  explicit ConnectionStream(int sock) : sock_(sock) {}

  // Reads until the buffered bytes hold a whole request head (up to the blank line; a bare-LF
  // blank line also ends it, and httplib then answers 400), at most `max_bytes` of it.
  // `first_byte_wait` is how long to wait for the request to start (the keep-alive idle time).
  // `yield` ends the wait for the first byte early (kStopping): another connection needs the worker.
  template <class Stopping, class Yield>
  Head ReadHead(size_t max_bytes, milliseconds first_byte_wait, const Stopping& stopping, const Yield& yield) {
    buf_.erase(0, pos_);
    pos_ = 0;
    auto deadline = Clock::now() + first_byte_wait;
    bool started = !buf_.empty();
    if (started) deadline = Clock::now() + kHeadTimeout;
    for (;;) {
      const size_t crlf = buf_.find("\r\n\r\n");
      const size_t lf = buf_.find("\n\n");
      const size_t end = std::min(crlf == std::string::npos ? crlf : crlf + 4, lf == std::string::npos ? lf : lf + 2);
      if (end != std::string::npos) return end <= max_bytes ? Head::kReady : Head::kTooLarge;
      if (buf_.size() > max_bytes) return Head::kTooLarge;
      if (stopping() || (!started && yield())) return Head::kStopping;
      const int left = MsLeft(deadline);
      if (left == 0) return Head::kTimeout;
      const int ready = PollOne(sock_, POLLIN, std::min(left, kPollSliceMs));
      if (ready < 0) return Head::kClosed;
      if (ready == 0) continue;
      char chunk[4096];
      const size_t want = std::min(sizeof(chunk), max_bytes + 1 - buf_.size());
      const ssize_t n = ::recv(sock_, chunk, want, 0);
      if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) continue;
      if (n <= 0) return buf_.empty() ? Head::kClosed : Head::kReady;  // httplib answers a cut head with 400
      buf_.append(chunk, static_cast<size_t>(n));
      if (!started) {
        started = true;
        deadline = Clock::now() + kHeadTimeout;
      }
    }
  }

  void StartResponse() { response_deadline_ = Clock::now() + kResponseDeadline; }

  bool is_readable() const override { return pos_ < buf_.size() || PollOne(sock_, POLLIN, kReadTimeoutS * 1000) > 0; }
  bool is_writable() const override {
    const int left = MsLeft(response_deadline_);
    return left > 0 && PollOne(sock_, POLLOUT, std::min(left, kWriteTimeoutS * 1000)) > 0;
  }
  ssize_t read(char* ptr, size_t size) override {
    if (pos_ < buf_.size()) {
      const size_t n = std::min(size, buf_.size() - pos_);
      std::memcpy(ptr, buf_.data() + pos_, n);
      pos_ += n;
      return static_cast<ssize_t>(n);
    }
    if (PollOne(sock_, POLLIN, kReadTimeoutS * 1000) <= 0) return -1;
    return ::recv(sock_, ptr, size, 0);
  }
  using httplib::Stream::write;
  ssize_t write(const char* ptr, size_t size) override {
    if (!is_writable()) return -1;
    return ::send(sock_, ptr, size, MSG_NOSIGNAL);
  }
  void get_remote_ip_and_port(std::string& ip, int& port) const override { AddressOf(sock_, true, ip, port); }
  void get_local_ip_and_port(std::string& ip, int& port) const override { AddressOf(sock_, false, ip, port); }
  socket_t socket() const override { return sock_; }

  // Writes a whole response that httplib never saw (the head was too large to parse).
  void WriteRaw(int status, const std::string& body) {
    const std::string out =
        "HTTP/1.1 " + StatusLine(status) +
        "\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: " + std::to_string(body.size()) +
        "\r\nConnection: close\r\n\r\n" + body;
    StartResponse();
    for (size_t done = 0; done < out.size();) {
      const ssize_t n = write(out.data() + done, out.size() - done);
      if (n <= 0) return;
      done += static_cast<size_t>(n);
    }
  }

 private:
  int sock_;
  std::string buf_;  // received bytes; [pos_, size) not yet given to httplib
  size_t pos_ = 0;
  Clock::time_point response_deadline_ = Clock::now() + kResponseDeadline;
};

// Ends a connection without losing the response in flight: closing a socket whose receive
// buffer still holds bytes (an unread request body, the rest of a too-large head) sends a reset
// that can discard the response at the client, so the write side is shut first and what the
// client still sends is read and dropped for a short while.
void CloseGracefully(int sock, bool drain) {
  ::shutdown(sock, SHUT_WR);
  if (drain) {
    const auto deadline = Clock::now() + kDrainTime;
    char sink[4096];
    for (int left; (left = MsLeft(deadline)) > 0;) {
      if (PollOne(sock, POLLIN, left) <= 0) break;
      if (::recv(sock, sink, sizeof(sink), 0) <= 0) break;
    }
  }
  ::close(sock);
}

// httplib::Server with the connection loop above (Server::process_and_close_socket is its
// virtual hook for one accepted socket; httplib.h, Server::listen_internal).
class BoundedServer : public httplib::Server {
 public:
  BoundedServer(size_t max_head_bytes, size_t threads, std::function<void(const std::string&)> access_log)
      : max_head_bytes_(max_head_bytes), access_log_(std::move(access_log)) {
    new_task_queue = [this, threads] { return new CountingPool(threads, waiting_); };
  }

  // One line per answered request for the access log (the logger calls it).
  void LogRequest(const httplib::Request& req, const httplib::Response& res) const {
    if (!access_log_) return;
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - tl_request_start).count();
    access_log_(fmt::format("{} \"{} {}\" {} {} {:.1f} ms", req.remote_addr, req.method, OneLinePath(req.target),
                            res.status, res.body.size(), ms));
  }

  bool Stopping() const { return svr_sock_ == INVALID_SOCKET; }
  // Stops the accept loop once it runs; false while it has not started yet.
  bool StopIfListening() {
    if (!is_running() || Stopping()) return false;
    stop();
    return true;
  }
  // Closes the listening socket when the accept loop never ran.
  void CloseUnusedListener() {
    const socket_t s = svr_sock_.exchange(INVALID_SOCKET);
    if (s != INVALID_SOCKET) ::close(s);
  }
  // httplib listens with a backlog of 5 (CPPHTTPLIB_LISTEN_BACKLOG); listen(2) again raises it.
  void RaiseBacklog() { ::listen(svr_sock_, kListenBacklog); }

 private:
  // httplib's thread pool, counting the accepted connections that wait for a worker.
  class CountingPool : public httplib::TaskQueue {
   public:
    CountingPool(size_t threads, std::atomic<int>& waiting) : pool_(threads), waiting_(waiting) {}
    void enqueue(std::function<void()> fn) override {
      ++waiting_;
      pool_.enqueue([this, fn = std::move(fn)] {
        --waiting_;
        fn();
      });
    }
    void shutdown() override { pool_.shutdown(); }

   private:
    httplib::ThreadPool pool_;
    std::atomic<int>& waiting_;
  };

  // The open connections of each client address, for the keep-alive cap.
  class PerClient {
   public:
    PerClient(BoundedServer& s, std::string ip) : s_(s), ip_(std::move(ip)) {
      std::lock_guard lock(s_.clients_mutex_);
      count_ = ++s_.open_per_client_[ip_];
    }
    ~PerClient() {
      std::lock_guard lock(s_.clients_mutex_);
      if (--s_.open_per_client_[ip_] == 0) s_.open_per_client_.erase(ip_);
    }
    bool OverCap() const { return count_ > kMaxKeepAlivePerClient; }

   private:
    BoundedServer& s_;
    std::string ip_;
    size_t count_ = 0;
  };

  bool process_and_close_socket(socket_t sock) override {
    ConnectionStream strm(sock);
    std::string ip;
    int port = 0;
    AddressOf(sock, true, ip, port);
    const PerClient client(*this, ip);
    bool ret = false;
    bool drain = true;
    for (size_t served = 0; served < kKeepAliveMaxRequests; ++served) {
      const auto wait = served == 0 ? milliseconds(kReadTimeoutS * 1000) : milliseconds(kKeepAliveTimeoutS * 1000);
      const bool idle = served > 0;  // waiting between requests: yield to a waiting connection
      const Head head = strm.ReadHead(
          max_head_bytes_, wait, [this] { return Stopping(); }, [&] { return idle && waiting_.load() > 0; });
      if (head == Head::kTooLarge) {
        strm.WriteRaw(431, StatusLine(431) + ": the request line and headers exceed " +
                               std::to_string(max_head_bytes_) + " bytes\n");
        break;
      }
      if (head != Head::kReady) {
        drain = head != Head::kStopping;
        break;
      }
      strm.StartResponse();
      tl_close_after_response = false;
      tl_request_start = Clock::now();
      bool connection_closed = false;
      const bool close_connection = served + 1 == kKeepAliveMaxRequests || Stopping() || client.OverCap();
      ret = process_request(strm, close_connection, connection_closed, nullptr);
      if (!ret || connection_closed || close_connection || tl_close_after_response) break;
    }
    CloseGracefully(sock, drain && !Stopping());
    return ret;
  }

  size_t max_head_bytes_;
  std::function<void(const std::string&)> access_log_;
  std::atomic<int> waiting_{0};
  std::mutex clients_mutex_;
  std::map<std::string, size_t> open_per_client_;
};

// ---- requests per client: a token bucket ----------------------------------------------------

class RateLimiter {
 public:
  explicit RateLimiter(int per_s) : rate_per_s_(per_s), burst_(per_s) {}

  // Whether `client` may make one more request now (buckets hold a second's worth).
  bool Allow(const std::string& client) {
    const auto now = Clock::now();
    std::lock_guard lock(mutex_);
    if (buckets_.size() >= kMaxRateClients && !buckets_.contains(client)) Prune(now);
    auto [it, fresh] = buckets_.try_emplace(client, Bucket{burst_, now});
    Bucket& b = it->second;
    if (!fresh) Refill(b, now);
    if (b.tokens < 1) return false;
    b.tokens -= 1;
    return true;
  }

 private:
  struct Bucket {
    double tokens;
    Clock::time_point last;
  };
  void Refill(Bucket& b, Clock::time_point now) const {
    const double dt_s = std::chrono::duration<double>(now - b.last).count();
    b.tokens = std::min(burst_, b.tokens + dt_s * rate_per_s_);
    b.last = now;
  }
  // Drops the buckets that have refilled (clients idle for a second); when every client is
  // busy, all of them (a flood from many addresses then starts afresh rather than growing).
  void Prune(Clock::time_point now) {
    for (auto it = buckets_.begin(); it != buckets_.end();) {
      Refill(it->second, now);
      it = it->second.tokens >= burst_ ? buckets_.erase(it) : std::next(it);
    }
    if (buckets_.size() >= kMaxRateClients) buckets_.clear();
  }

  double rate_per_s_;
  double burst_;
  std::mutex mutex_;
  std::map<std::string, Bucket> buckets_;
};

// ---- the directory ------------------------------------------------------------------------

// NAME is a plain *.json file name: none of '/', '\\', NUL, control bytes or "..", and no
// leading '.' (hidden files). NAME is what httplib decoded once from the path: "%2e%2e" arrives
// as "..", "%252e%252e" as the literal "%2e%2e".
bool IsPlainJsonName(std::string_view name) {
  if (name.empty() || name.size() > 255 || name.front() == '.') return false;
  if (name.find("..") != std::string_view::npos) return false;
  for (const char c : name)
    if (c == '/' || c == '\\' || static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return false;
  return name.size() > 5 && name.ends_with(".json");
}

// DIR/NAME when it is a regular file whose real path (symlinks resolved) lies directly in DIR.
std::optional<fs::path> ResolveInDir(const fs::path& dir, std::string_view name) {
  if (!IsPlainJsonName(name)) return std::nullopt;
  std::error_code ec;
  const fs::path real = fs::weakly_canonical(dir / fs::path(std::string(name)), ec);
  if (ec || real.parent_path() != dir) return std::nullopt;
  if (!fs::is_regular_file(real, ec) || ec) return std::nullopt;
  return real;
}

// What identifies one version of a file: a file replaced by rename has another inode.
struct FileKey {
  dev_t dev = 0;
  ino_t ino = 0;
  off_t size = 0;
  long long mtime_ns = 0;
  bool operator==(const FileKey&) const = default;
};
std::optional<FileKey> KeyOf(const fs::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return FileKey{st.st_dev, st.st_ino, st.st_size,
                 static_cast<long long>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec};
}

// The result of reading (and, for a page, rendering) one version of a file.
struct Rendered {
  FileKey key;
  std::string schema;  // empty when the document does not read
  std::string error;   // one line; empty when it reads (and renders, when html is set)
  std::optional<std::string> html;
};

class Site {
 public:
  explicit Site(fs::path dir) : dir_(std::move(dir)) {}

  // The page of NAME: 200 and the report, 422 and the reason it does not render, 404.
  void Report(const std::string& name, httplib::Response& res) {
    const auto path = ResolveInDir(dir_, name);
    if (!path) return NotFound(res);
    const auto r = Load(name, *path, true);
    if (!r) return NotFound(res);  // vanished between the check and the read
    if (r->error.empty()) {
      res.set_content(*r->html, "text/html; charset=utf-8");
    } else {
      res.status = 422;
      res.set_content(ErrorPage(name, "Cannot render " + name, r->error), "text/html; charset=utf-8");
    }
  }

  // `/`: one row per *.json file: name (link), schema (or why it does not read), size, time.
  std::string Index(bool with_registry = false) {
    struct Row {
      std::string name;
      Rendered r;
    };
    std::vector<Row> rows;
    std::error_code ec;
    for (fs::directory_iterator it(dir_, ec), end; !ec && it != end; it.increment(ec)) {
      const std::string name = it->path().filename().string();
      const auto path = ResolveInDir(dir_, name);
      if (!path) continue;
      if (auto r = Load(name, *path, false)) rows.push_back({name, std::move(*r)});
    }
    std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.name < b.name; });
    Forget([&](const std::string& n) {
      return std::any_of(rows.begin(), rows.end(), [&](const Row& row) { return row.name == n; });
    });

    std::string html =
        "<p>" + std::to_string(rows.size()) + (rows.size() == 1 ? " document" : " documents") +
        " in the served directory, read again when they change.</p>\n"
        "<table class=\"listing\"><caption>Reports</caption>\n<thead><tr><th scope=\"col\">Name</th><th "
        "scope=\"col\">Schema</th>"
        "<th scope=\"col\">Size (bytes)</th><th scope=\"col\">Modified (UTC)</th></tr></thead>\n<tbody>\n";
    for (const Row& row : rows) {
      const double mtime_s = static_cast<double>(row.r.key.mtime_ns) / 1e9;
      html += "<tr><td><a href=\"/r/" + XmlEscape(PercentEncode(row.name)) + "\">" + XmlEscape(row.name) +
              "</a></td><td>" +
              (row.r.schema.empty() ? "<span class=\"error\">" + XmlEscape(row.r.error) + "</span>"
                                    : "<code>" + XmlEscape(row.r.schema) + "</code>") +
              "</td><td class=\"num\">" + std::to_string(row.r.key.size) + "</td><td>" +
              XmlEscape(FormatTimestamp(mtime_s)) + "</td></tr>\n";
    }
    html += "</tbody></table>\n";
    if (with_registry)
      html += "<p><a href=\"/runs\">The run registry</a>: recorded runs, baselines and comparisons.</p>\n";
    return RenderPage(Page{"paratune serve", "", {PageSection{"reports", "Reports", html}}});
  }

  static std::string ErrorPage(const std::string& title, const std::string& heading, const std::string& reason) {
    return RenderPage(
        Page{title, "", {PageSection{"error", heading, "<p class=\"error\">" + XmlEscape(reason) + "</p>\n"}}});
  }

 private:
  static void NotFound(httplib::Response& res) { res.status = 404; }

  // One line naming the file as the client knows it (NAME, not the server's path).
  std::string Reason(std::string message, const std::string& name, const fs::path& path) const {
    for (const std::string& p : {path.string(), (dir_ / name).string()}) {
      for (size_t at; !p.empty() && (at = message.find(p)) != std::string::npos;) message.replace(at, p.size(), name);
    }
    std::replace(message.begin(), message.end(), '\n', ' ');
    return message;
  }

  // The file's document read (and rendered, with `render`), from the cache when the file is
  // the version cached. A version is cached only when the file was the same before and after
  // the read, so a replacement during the read is never stored under the old key.
  std::optional<Rendered> Load(const std::string& name, const fs::path& path, bool render) {
    const auto before = KeyOf(path);
    if (!before) return std::nullopt;
    {
      std::lock_guard lock(mutex_);
      auto it = cache_.find(name);
      if (it != cache_.end() && it->second.key == *before && (!render || it->second.html || !it->second.error.empty()))
        return it->second;
    }
    Rendered r{*before, {}, {}, std::nullopt};
    try {
      ReportInput in = ReadReportInput(path.string());
      in.path = name;  // the page names the file as served, not by the server's path
      r.schema = in.doc.at("schema").get<std::string>();
      if (render) r.html = RenderReport({in}, ReportOptions{.title = name, .compare = false});
    } catch (const InputError& e) {
      r.error = Reason(e.what(), name, path);
    } catch (const nlohmann::json::exception& e) {
      r.error = Reason(name + ": " + e.what(), name, path);
    }
    if (KeyOf(path) == before) {
      std::lock_guard lock(mutex_);
      Rendered& slot = cache_[name];
      cached_html_bytes_ -= slot.html ? slot.html->size() : 0;
      slot = r;
      if (slot.html && cached_html_bytes_ + slot.html->size() > kMaxCachedHtmlBytes)
        slot.html.reset();  // served, not kept
      cached_html_bytes_ += slot.html ? slot.html->size() : 0;
    }
    return r;
  }

  // Drops cached files no longer in the directory.
  template <class Present>
  void Forget(const Present& present) {
    std::lock_guard lock(mutex_);
    for (auto it = cache_.begin(); it != cache_.end();) {
      if (present(it->first)) {
        ++it;
      } else {
        cached_html_bytes_ -= it->second.html ? it->second.html->size() : 0;
        it = cache_.erase(it);
      }
    }
  }

  fs::path dir_;
  std::mutex mutex_;
  std::map<std::string, Rendered> cache_;
  size_t cached_html_bytes_ = 0;
};

// Every Content-Length of the request is digits only (at most 18: below 2^63), and all agree.
bool ValidContentLength(const httplib::Request& req) {
  const auto [first, last] = req.headers.equal_range("Content-Length");
  std::string seen;
  for (auto it = first; it != last; ++it) {
    const std::string& v = it->second;
    if (v.empty() || v.size() > 18 || !std::all_of(v.begin(), v.end(), [](char c) { return c >= '0' && c <= '9'; }))
      return false;
    if (!seen.empty() && v != seen) return false;
    seen = v;
  }
  return true;
}

void CheckOptions(const ServeOptions& o) {
  if (o.port < 0 || o.port > 65535)
    throw InputError("serve: --port " + std::to_string(o.port) + " is not a TCP port (0-65535)");
  if (o.threads < 1 || o.threads > 1024)
    throw InputError("serve: threads " + std::to_string(o.threads) + " must be 1-1024");
  if (o.max_request_bytes < kMinRequestBytes)
    throw InputError("serve: max_request_bytes " + std::to_string(o.max_request_bytes) + " is below " +
                     std::to_string(kMinRequestBytes));
  if (o.max_requests_per_s < 1)
    throw InputError("serve: max_requests_per_s " + std::to_string(o.max_requests_per_s) + " must be at least 1");
  if (o.host.empty()) throw InputError("serve: --host is empty");
}

// The served directory, canonical (empty when only the registry is served); throws InputError
// when there is nothing to serve or --dir is not a directory.
fs::path ServedDir(const ServeOptions& options) {
  std::error_code ec;
  if (options.dir.empty() && !options.registry) throw InputError("serve: give --dir DIR or --db LOCATION (or both)");
  fs::path dir;
  if (!options.dir.empty()) {
    if (!fs::is_directory(options.dir, ec)) throw InputError("serve: --dir " + options.dir + " is not a directory");
    dir = fs::canonical(options.dir, ec);
    if (ec) throw InputError("serve: --dir " + options.dir + ": " + ec.message());
  }
  return dir;
}

// The server's timeouts, socket options, logger and default headers.
void ConfigureServer(BoundedServer& server, const ServeOptions& options) {
  server.set_read_timeout(kReadTimeoutS);
  server.set_write_timeout(kWriteTimeoutS);
  server.set_keep_alive_timeout(kKeepAliveTimeoutS);
  server.set_keep_alive_max_count(kKeepAliveMaxRequests);
  server.set_payload_max_length(options.max_request_bytes);
  // httplib's default sets SO_REUSEPORT, with which a second server binds the same port and
  // takes part of its connections; SO_REUSEADDR alone lets a restart bind while old
  // connections are in TIME_WAIT, and a port in use stays an error.
  server.set_socket_options([](socket_t sock) {
    int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  });
  // A connection closes after an error other than 404 and 422 (a malformed or refused request
  // says nothing good about what follows on it). The logger runs after the answer is written.
  server.set_logger([&server](const httplib::Request& req, const httplib::Response& res) {
    if (res.status >= 400 && res.status != 404 && res.status != 422) tl_close_after_response = true;
    server.LogRequest(req, res);
  });
  // The pages fetch nothing (docs/report.md); the policy makes the browser refuse if one tried.
  server.set_default_headers({
      {"Content-Security-Policy",
       "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'none'; form-action 'none'"},
      {"X-Content-Type-Options", "nosniff"},
      {"Referrer-Policy", "no-referrer"},
      {"Cache-Control", "no-store"},
  });
}

// Before routing: 400 for an invalid Content-Length, 429 over the rate limit, 405 for a method
// other than GET and HEAD.
void AddServeGuards(BoundedServer& server, RateLimiter& limiter) {
  server.set_pre_routing_handler([&](const httplib::Request& req, httplib::Response& res) {
    // Content-Length is 1*DIGIT, one value (RFC 9110 section 8.6); anything else leaves the
    // message's framing unknown: 400 and close (RFC 9112 section 6.3). Issue 32: "-5" was served.
    if (!ValidContentLength(req)) {
      res.status = 400;
      res.set_content(StatusLine(400) + ": invalid Content-Length\n", "text/plain; charset=utf-8");
      return httplib::Server::HandlerResponse::Handled;
    }
    if (!limiter.Allow(req.remote_addr)) {
      res.status = 429;
      res.set_header("Retry-After", "1");
      return httplib::Server::HandlerResponse::Handled;
    }
    if (req.method != "GET" && req.method != "HEAD") {
      res.status = 405;
      res.set_header("Allow", "GET, HEAD");
      return httplib::Server::HandlerResponse::Handled;
    }
    return httplib::Server::HandlerResponse::Unhandled;
  });
}

// The routes (/healthz, /, /runs, /metrics, /r/NAME) and the bodies of error statuses.
void AddServeRoutes(BoundedServer& server, Site& site, const fs::path& dir, const ServeOptions& options) {
  server.Get("/healthz", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("ok\n", "text/plain; charset=utf-8");
  });
  server.Get("/", [&](const httplib::Request&, httplib::Response& res) {
    if (dir.empty()) {  // registry only
      res.status = 302;
      res.set_header("Location", "/runs");
      return;
    }
    res.set_content(site.Index(options.registry != nullptr), "text/html; charset=utf-8");
  });
  if (options.registry) {
    // One connection to the store is shared by the request threads: one request at a time.
    auto registry_mutex = std::make_shared<std::mutex>();
    server.Get("/runs(/.*)?", [&, registry_mutex](const httplib::Request& req, httplib::Response& res) {
      std::lock_guard lock(*registry_mutex);
      const RegistryPage page = RenderRegistryPage(*options.registry, req.path, req.params);
      res.status = page.status;
      res.set_content(page.html, "text/html; charset=utf-8");
    });
    if (options.registry->metrics)
      server.Get("/metrics", [&, registry_mutex](const httplib::Request&, httplib::Response& res) {
        std::lock_guard lock(*registry_mutex);
        try {
          res.set_content(options.registry->metrics(), "text/plain; version=0.0.4; charset=utf-8");
        } catch (const InputError& e) {  // the store does not answer: the scrape fails, the server stays
          res.status = 503;
          res.set_content(std::string(e.what()) + "\n", "text/plain; charset=utf-8");
        }
      });
  }
  server.Get("/r/(.+)", [&](const httplib::Request& req, httplib::Response& res) {
    if (dir.empty()) return;  // 404: no directory served
    site.Report(req.matches[1].str(), res);
    // ?refresh=N: the browser reloads the page every N seconds (a dashboard without script).
    if (const auto it = req.params.find("refresh"); it != req.params.end()) {
      int64_t s = 0;
      if (ParseInteger(it->second, &s) == NumberParse::kOk && s >= 1 && s <= 3600)
        res.set_header("Refresh", std::to_string(s));
    }
  });
  // Error statuses without a body get a one-line one.
  server.set_error_handler(httplib::Server::HandlerWithResponse([](const httplib::Request&, httplib::Response& res) {
    if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
    res.set_content(StatusLine(res.status) + "\n", "text/plain; charset=utf-8");
    return httplib::Server::HandlerResponse::Handled;
  }));
  server.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
    res.status = 500;
    res.set_content(StatusLine(500) + "\n", "text/plain; charset=utf-8");
  });
}

// Binds the server to --host and --port (0: any free port); returns the port.
int BindServer(BoundedServer& server, const ServeOptions& options) {
  int port = options.port;
  if (port == 0) {
    port = server.bind_to_any_port(options.host);
    if (port < 0) throw InputError("serve: cannot listen on " + options.host + " (any port)");
  } else if (!server.bind_to_port(options.host, port)) {
    throw InputError("serve: cannot listen on " + options.host + ":" + std::to_string(port) +
                     " (in use, or not an address of this machine)");
  }
  return port;
}

}  // namespace

void Serve(const ServeOptions& options, const std::atomic<bool>& stop, const std::function<void(int)>& on_listening) {
  CheckOptions(options);
  const fs::path dir = ServedDir(options);

  Site site(dir);
  RateLimiter limiter(options.max_requests_per_s);
  BoundedServer server(options.max_request_bytes, static_cast<size_t>(options.threads), options.access_log);
  ConfigureServer(server, options);
  AddServeGuards(server, limiter);
  AddServeRoutes(server, site, dir, options);
  const int port = BindServer(server, options);
  server.RaiseBacklog();

  std::atomic<bool> done{false};
  std::thread watcher([&] {
    while (!done.load()) {
      if (stop.load() && server.StopIfListening()) return;
      std::this_thread::sleep_for(milliseconds(10));
    }
  });
  struct Join {
    std::atomic<bool>& done;
    std::thread& t;
    ~Join() {
      done = true;
      t.join();
    }
  } join{done, watcher};
  if (on_listening) on_listening(port);
  if (stop.load()) {
    server.CloseUnusedListener();
  } else {
    server.listen_after_bind();
  }
}

}  // namespace paratune
