// Headless Chromium for the browser tests (browser_test_util.h, docs/report-browser.md).
//
// Chromium is started with --remote-debugging-pipe: it reads Chrome DevTools Protocol commands
// from fd 3 and writes replies and events to fd 4, each message one JSON object followed by a NUL
// byte (Chromium source, content/browser/devtools/devtools_pipe_handler.cc; protocol reference:
// chromedevtools.github.io/devtools-protocol/). Both fds are one end of a socketpair here, so a
// browser that dies gives EOF (or EPIPE without SIGPIPE) instead of a hang or a signal.
// The page is opened in a fresh target, the Page, Runtime, Log and Network domains are enabled,
// the page is navigated and, once the load event of the navigated document has fired, the DOM is read with
// Runtime.evaluate and the viewport captured with Page.captureScreenshot. Everything runs under one deadline
// (timeout_s, 20 s unless told): past it the browser's process group is killed and LoadPage reports the timeout.
// Network access is cut off: every host name resolves to nothing and every proxied request goes
// to 127.0.0.1:9 (discard, nothing listens), so an external fetch fails at once and still shows
// in Network.requestWillBeSent; loopback (the served pages) bypasses the proxy by Chromium's
// default (net/proxy_resolution/proxy_bypass_rules.cc, implicit "<-loopback>").
#include "report/browser_test_util.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <png.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace paratune::browser {
namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr std::chrono::milliseconds kExitGrace{3000};   // Browser.close to exit, then SIGKILL
constexpr size_t kMaxMessageBytes = size_t{256} << 20;  // a screenshot is a few MB of base64

bool IsExecutable(const std::string& path) { return !path.empty() && ::access(path.c_str(), X_OK) == 0; }

// ---- PNG (libpng) ------------------------------------------------------------------------------

std::optional<PngImage> PngFail(std::string* error, const std::string& what) {
  if (error) *error = "PNG: " + what;
  return std::nullopt;
}

// ---- the DevTools pipe -----------------------------------------------------------------------

struct Collected {
  std::vector<std::string> console_errors;
  std::vector<std::string> requests;
  std::string main_frame;
  std::set<std::string> loaded;  // loader ids (one per document) whose load event fired
  std::string detached;          // why the page went away, when it did
  int http_status = 0;
};

std::string RemoteObjectText(const json& obj) {
  if (obj.contains("value")) {
    const json& v = obj["value"];
    return v.is_string() ? v.get<std::string>() : v.dump();
  }
  if (obj.contains("description")) return obj["description"].get<std::string>();
  if (obj.contains("unserializableValue")) return obj["unserializableValue"].get<std::string>();
  return obj.value("type", std::string("?"));
}

class DevToolsPipe {
 public:
  DevToolsPipe(int fd, Clock::time_point deadline, double timeout_s)
      : fd_(fd), deadline_(deadline), timeout_s_(timeout_s) {}

  // Sends a command and reads messages (dispatching events to `on_event`) until its reply;
  // returns the result or throws std::runtime_error naming the method.
  json Call(const std::string& method, const json& params, const std::string& session,
            const std::function<void(const json&)>& on_event) {
    const int id = next_id_++;
    json msg = {{"id", id}, {"method", method}, {"params", params}};
    if (!session.empty()) msg["sessionId"] = session;
    Write(msg.dump());
    for (;;) {
      json m = Read(method);
      if (m.contains("id")) {
        if (m["id"] != id) continue;  // a late reply to an earlier command
        if (m.contains("error"))
          throw std::runtime_error(method + ": " + m["error"].value("message", m["error"].dump()));
        return m.value("result", json::object());
      }
      on_event(m);
    }
  }

  // Reads events until `done()` is true.
  void WaitFor(const std::function<bool()>& done, const std::string& what,
               const std::function<void(const json&)>& on_event) {
    while (!done()) on_event(Read(what));
  }

 private:
  void Write(const std::string& text) {
    std::string data = text;
    data.push_back('\0');
    size_t off = 0;
    while (off < data.size()) {
      WaitReady(POLLOUT, "writing to chromium");
      const ssize_t n = ::send(fd_, data.data() + off, data.size() - off, MSG_NOSIGNAL);
      if (n < 0) {
        if (errno == EINTR || errno == EAGAIN) continue;
        throw std::runtime_error(std::string("writing to chromium: ") + std::strerror(errno));
      }
      off += static_cast<size_t>(n);
    }
  }

  json Read(const std::string& waiting_for) {
    for (;;) {
      const size_t nul = buffer_.find('\0', scanned_);
      if (nul != std::string::npos) {
        const std::string text = buffer_.substr(0, nul);
        buffer_.erase(0, nul + 1);
        scanned_ = 0;
        json m = json::parse(text, nullptr, false);
        if (m.is_discarded() || !m.is_object())
          throw std::runtime_error("chromium sent a message that is not a JSON object");
        return m;
      }
      scanned_ = buffer_.size();
      if (buffer_.size() > kMaxMessageBytes) throw std::runtime_error("chromium sent a message over 256 MiB");
      WaitReady(POLLIN, "waiting for " + waiting_for);
      char chunk[65536];
      const ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
      if (n < 0) {
        if (errno == EINTR || errno == EAGAIN) continue;
        throw std::runtime_error(std::string("reading from chromium: ") + std::strerror(errno));
      }
      if (n == 0) throw std::runtime_error("chromium exited while " + waiting_for);
      buffer_.append(chunk, static_cast<size_t>(n));
    }
  }

  void WaitReady(short events, const std::string& what) {
    for (;;) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - Clock::now()).count();
      if (left <= 0) {
        char s[32];
        std::snprintf(s, sizeof s, "%g", timeout_s_);
        throw std::runtime_error(std::string("timed out after ") + s + " s " + what);
      }
      pollfd p{fd_, events, 0};
      const int r = ::poll(&p, 1, static_cast<int>(left));
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) throw std::runtime_error(std::string("poll: ") + std::strerror(errno));
      if (r > 0) return;
    }
  }

  int fd_;
  Clock::time_point deadline_;
  double timeout_s_;
  int next_id_ = 1;
  std::string buffer_;
  size_t scanned_ = 0;
};

void OnEvent(const json& m, const std::string& session, Collected* c) {
  const std::string method = m.value("method", std::string());
  const json params = m.value("params", json::object());
  if (method == "Target.detachedFromTarget" || method == "Inspector.detached") {
    if (m.value("sessionId", params.value("sessionId", std::string())) == session) c->detached = method;
    return;
  }
  if (m.value("sessionId", std::string()) != session) return;
  if (method == "Page.lifecycleEvent") {
    // Page.loadEventFired names no document, so the blank page's own load could pass for the
    // navigated one's; the lifecycle event names the loader.
    if (params.value("name", std::string()) == "load" && params.value("frameId", std::string()) == c->main_frame)
      c->loaded.insert(params.value("loaderId", std::string()));
  } else if (method == "Runtime.consoleAPICalled") {
    const std::string type = params.value("type", std::string());
    if (type != "error" && type != "assert") return;
    std::string text = "console." + type + ":";
    for (const json& arg : params.value("args", json::array())) text += " " + RemoteObjectText(arg);
    c->console_errors.push_back(text);
  } else if (method == "Runtime.exceptionThrown") {
    const json d = params.value("exceptionDetails", json::object());
    std::string text =
        d.contains("exception") ? RemoteObjectText(d["exception"]) : d.value("text", std::string("exception"));
    c->console_errors.push_back("uncaught: " + text);
  } else if (method == "Log.entryAdded") {
    const json e = params.value("entry", json::object());
    if (e.value("level", std::string()) != "error") return;
    std::string text = e.value("source", std::string("log")) + ": " + e.value("text", std::string());
    if (e.contains("url")) text += " (" + e["url"].get<std::string>() + ")";
    c->console_errors.push_back(text);
  } else if (method == "Network.responseReceived") {
    if (params.value("type", std::string()) == "Document" && params.value("frameId", std::string()) == c->main_frame) {
      const json r = params.value("response", json::object());
      if (r.value("url", std::string()).rfind("http", 0) == 0) c->http_status = r.value("status", 0);
    }
  } else if (method == "Network.requestWillBeSent") {
    const std::string url = params.value("request", json::object()).value("url", std::string());
    // The page's own document (and its redirects) is not a request "beyond the page"; data: URLs
    // are decoded in the renderer and never touch the network.
    if (params.value("type", std::string()) == "Document" && params.value("frameId", std::string()) == c->main_frame)
      return;
    if (url.rfind("data:", 0) == 0) return;
    c->requests.push_back(url);
  }
}

// Kills the browser's process group and reaps it; removes the profile directory.
class BrowserProcess {
 public:
  BrowserProcess() = default;
  BrowserProcess(const BrowserProcess&) = delete;
  BrowserProcess& operator=(const BrowserProcess&) = delete;
  ~BrowserProcess() {
    if (fd_ >= 0) ::close(fd_);
    if (pid_ > 0) {
      ::kill(-pid_, SIGKILL);
      ::kill(pid_, SIGKILL);
      int status = 0;
      while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
      }
    }
    if (!profile_.empty()) {
      std::error_code ec;
      std::filesystem::remove_all(profile_, ec);
    }
  }

  bool Start(const std::string& binary, int width, int height, std::string* error) {
    std::error_code ec;
    std::string tmpl = (std::filesystem::temp_directory_path(ec) / "paratune-chromium-XXXXXX").string();
    if (ec) tmpl = "/tmp/paratune-chromium-XXXXXX";
    if (!::mkdtemp(tmpl.data())) return Fail(error, "mkdtemp " + tmpl + ": " + std::strerror(errno));
    profile_ = tmpl;
    const std::string log = profile_ + "/chromium.log";
    std::vector<std::string> args = {
        binary,
        "--headless=new",
        "--no-sandbox",  // the tests run as root in CI, where the sandbox refuses to start
        "--disable-gpu",
        "--disable-dev-shm-usage",  // containers give /dev/shm 64 MB
        "--remote-debugging-pipe",
        "--user-data-dir=" + profile_ + "/profile",
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-extensions",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-default-apps",
        "--disable-crash-reporter",
        "--disable-breakpad",
        "--metrics-recording-only",
        "--mute-audio",
        "--hide-scrollbars",
        "--force-color-profile=srgb",  // screenshots in the page's own colours
        "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost",
        "--proxy-server=127.0.0.1:9",
        "--window-size=" + std::to_string(width) + "," + std::to_string(height),
        "about:blank",
    };
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);

    int sv[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
      return Fail(error, std::string("socketpair: ") + std::strerror(errno));
    const pid_t pid = ::fork();
    if (pid < 0) {
      ::close(sv[0]);
      ::close(sv[1]);
      return Fail(error, std::string("fork: ") + std::strerror(errno));
    }
    if (pid == 0) {  // child: async-signal-safe calls only
      ::setpgid(0, 0);
      const int hi = ::fcntl(sv[1], F_DUPFD, 10);  // not CLOEXEC, and not 3 or 4
      if (hi < 0 || ::dup2(hi, 3) < 0 || ::dup2(hi, 4) < 0) ::_exit(126);
      ::close(hi);
      const int devnull = ::open("/dev/null", O_RDONLY);
      if (devnull >= 0) ::dup2(devnull, 0);
      const int out = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      if (out >= 0) {
        ::dup2(out, 1);
        ::dup2(out, 2);
      }
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    pid_ = pid;
    ::setpgid(pid, pid);  // also here, so the group exists whichever runs first
    ::close(sv[1]);
    fd_ = sv[0];
    log_ = log;
    return true;
  }

  int fd() const { return fd_; }

  // Waits up to `grace` for the browser to exit by itself (after Browser.close).
  void AwaitExit(std::chrono::milliseconds grace) {
    const auto until = Clock::now() + grace;
    while (pid_ > 0 && Clock::now() < until) {
      int status = 0;
      const pid_t r = ::waitpid(pid_, &status, WNOHANG);
      if (r == pid_) {
        ::kill(-pid_, SIGKILL);  // helpers left behind in the group
        pid_ = -1;
        return;
      }
      ::usleep(10000);
    }
  }

  // The last lines of Chromium's own output, for error messages.
  std::string LogTail() const {
    std::ifstream in(log_);
    std::string line, last;
    std::vector<std::string> lines;
    while (std::getline(in, line))
      if (!line.empty()) lines.push_back(line);
    for (size_t i = lines.size() > 3 ? lines.size() - 3 : 0; i < lines.size(); ++i)
      last += (last.empty() ? "" : " | ") + lines[i];
    return last;
  }

 private:
  static bool Fail(std::string* error, const std::string& what) {
    if (error) *error = what;
    return false;
  }
  pid_t pid_ = -1;
  int fd_ = -1;
  std::string profile_, log_;
};

}  // namespace

std::string ChromiumPath() {
  if (const char* env = std::getenv("PARATUNE_CHROMIUM")) return IsExecutable(env) ? env : std::string();
  // Debian's /usr/bin/chromium is a shell wrapper that adds flags (extensions, GPU rasterisation)
  // the tests do not want; the binary itself lies beside its resources.
  for (const char* p : {"/usr/lib/chromium/chromium", "/usr/bin/chromium", "/usr/bin/chromium-browser",
                        "/usr/bin/google-chrome", "/usr/bin/google-chrome-stable"})
    if (IsExecutable(p)) return p;
  return "";
}

std::optional<PageLoad> LoadPage(const std::string& url, int width, int height, std::string* error, double timeout_s) {
  LoadOptions options;
  options.width = width;
  options.height = height;
  options.timeout_s = timeout_s;
  return LoadPage(url, options, error);
}

std::optional<PageLoad> LoadPage(const std::string& url, const LoadOptions& options, std::string* error) {
  const int width = options.width, height = options.height;
  const double timeout_s = options.timeout_s;
  auto fail = [&](const std::string& what) -> std::optional<PageLoad> {
    if (error) *error = what;
    return std::nullopt;
  };
  if (width <= 0 || height <= 0 || width > 8192 || height > 8192)
    return fail("window size " + std::to_string(width) + "x" + std::to_string(height) + " is outside 1..8192");
  if (!(timeout_s > 0 && timeout_s <= 600))
    return fail("timeout " + std::to_string(timeout_s) + " s is outside (0, 600]");
  const std::string binary = ChromiumPath();
  if (binary.empty()) return fail("chromium not installed (scripts/install-deps.sh installs it)");

  BrowserProcess browser;  // killed and its profile removed on every return
  if (!browser.Start(binary, width, height, error)) return std::nullopt;
  const auto deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s));
  DevToolsPipe pipe(browser.fd(), deadline, timeout_s);
  Collected c;
  std::string session;
  auto on_event = [&](const json& m) { OnEvent(m, session, &c); };
  try {
    const json target = pipe.Call("Target.createTarget", {{"url", "about:blank"}}, "", on_event);
    const json attached =
        pipe.Call("Target.attachToTarget", {{"targetId", target.at("targetId")}, {"flatten", true}}, "", on_event);
    session = attached.at("sessionId").get<std::string>();
    for (const char* domain : {"Page.enable", "Runtime.enable", "Log.enable", "Network.enable"})
      pipe.Call(domain, json::object(), session, on_event);
    pipe.Call("Page.setLifecycleEventsEnabled", {{"enabled", true}}, session, on_event);
    pipe.Call("Emulation.setDeviceMetricsOverride",
              {{"width", width}, {"height", height}, {"deviceScaleFactor", 1}, {"mobile", false}}, session, on_event);
    if (options.scheme != LoadOptions::Scheme::kDefault || options.print) {
      json features = json::array();
      if (options.scheme != LoadOptions::Scheme::kDefault)
        features.push_back({{"name", "prefers-color-scheme"},
                            {"value", options.scheme == LoadOptions::Scheme::kDark ? "dark" : "light"}});
      pipe.Call("Emulation.setEmulatedMedia", {{"media", options.print ? "print" : ""}, {"features", features}},
                session, on_event);
    }
    // The main frame's id before navigating: the document's own request arrives before
    // Page.navigate's reply.
    c.main_frame = pipe.Call("Page.getFrameTree", json::object(), session, on_event)
                       .at("frameTree")
                       .at("frame")
                       .at("id")
                       .get<std::string>();
    const json nav = pipe.Call("Page.navigate", {{"url", url}}, session, on_event);
    if (nav.contains("errorText") && !nav["errorText"].get<std::string>().empty())
      return fail("chromium could not load " + url + ": " + nav["errorText"].get<std::string>());
    const std::string loader = nav.value("loaderId", std::string());
    if (loader.empty()) return fail("chromium did not start a document for " + url);
    pipe.WaitFor([&] { return c.loaded.count(loader) > 0 || !c.detached.empty(); }, "the load event of " + url,
                 on_event);
    if (!c.detached.empty()) return fail("the page " + url + " went away (" + c.detached + ")");

    PageLoad out;
    const json dom =
        pipe.Call("Runtime.evaluate", {{"expression", "document.documentElement.outerHTML"}, {"returnByValue", true}},
                  session, on_event);
    out.dom = dom.at("result").value("value", std::string());
    // The load time as the page measured it: Navigation Timing's loadEventStart (ms from the
    // navigation's start, W3C Navigation Timing Level 2, PerformanceNavigationTiming), the
    // Level 1 performance.timing difference where the entry is missing.
    const json timing = pipe.Call(
        "Runtime.evaluate",
        {{"expression",
          "(() => { const n = performance.getEntriesByType('navigation')[0]; if (n && n.loadEventStart > 0) return "
          "n.loadEventStart; const t = performance.timing; return t.loadEventStart > 0 ? t.loadEventStart - "
          "t.navigationStart : -1; })()"},
         {"returnByValue", true}},
        session, on_event);
    if (const json& v = timing.at("result");
        v.contains("value") && v["value"].is_number() && v["value"].get<double>() >= 0)
      out.load_s = v["value"].get<double>() / 1000;
    for (const std::string& expr : options.expressions) {
      const json r =
          pipe.Call("Runtime.evaluate", {{"expression", expr}, {"returnByValue", true}, {"awaitPromise", true}},
                    session, on_event);
      if (r.contains("exceptionDetails")) {
        const json d = r["exceptionDetails"];
        return fail(
            "the expression `" + expr + "` threw: " +
            (d.contains("exception") ? RemoteObjectText(d["exception"]) : d.value("text", std::string("exception"))));
      }
      const json v = r.at("result");
      out.evaluated.push_back(v.contains("value") ? v["value"].dump() : "undefined");
    }
    const json shot = pipe.Call("Page.captureScreenshot", {{"format", "png"}}, session, on_event);
    const auto png = Base64Decode(shot.at("data").get<std::string>());
    if (!png) return fail("chromium's screenshot is not base64");
    std::string png_error;
    const auto image = DecodePng(*png, &png_error);
    if (!image) return fail("chromium's screenshot: " + png_error);
    out.screenshot_png = *png;
    out.screenshot_width = image->width;
    out.screenshot_height = image->height;
    out.screenshot_blank = IsBlank(*image);
    try {
      pipe.Call("Browser.close", json::object(), "", on_event);
    } catch (const std::exception&) {
      // the browser may close the pipe before it replies
    }
    browser.AwaitExit(kExitGrace);
    out.console_errors = std::move(c.console_errors);
    out.requests = std::move(c.requests);
    out.http_status = c.http_status;
    return out;
  } catch (const std::exception& e) {
    std::string why = e.what();
    const std::string tail = browser.LogTail();
    if (!tail.empty()) why += " (chromium: " + tail + ")";
    return fail(why);
  }
}

namespace {

std::string Lower(std::string s) {
  for (char& ch : s)
    if (ch >= 'A' && ch <= 'Z') ch = static_cast<char>(ch - 'A' + 'a');
  return s;
}

void AppendUtf8(std::string* out, uint32_t cp) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xc0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xe0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  } else {
    out->push_back(static_cast<char>(0xf0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3f)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  }
}

// The character references Chromium writes in attribute values (HTML standard, "serialising
// HTML fragments", escaping a string), and numeric ones; anything else is kept as written.
std::string DecodeEntities(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    if (s[i] == '&') {
      const size_t semi = s.find(';', i);
      if (semi != std::string::npos && semi - i <= 10) {
        const std::string name = s.substr(i + 1, semi - i - 1);
        static const std::map<std::string, std::string> kNamed = {{"amp", "&"}, {"quot", "\""}, {"lt", "<"},
                                                                  {"gt", ">"},  {"apos", "'"},  {"nbsp", "\xc2\xa0"}};
        if (auto it = kNamed.find(name); it != kNamed.end()) {
          out += it->second;
          i = semi + 1;
          continue;
        }
        if (name.size() > 1 && name[0] == '#') {
          const bool hex = name[1] == 'x' || name[1] == 'X';
          const std::string digits = name.substr(hex ? 2 : 1);
          char* end = nullptr;
          const unsigned long cp = digits.empty() ? 0 : std::strtoul(digits.c_str(), &end, hex ? 16 : 10);
          if (!digits.empty() && end && *end == '\0' && cp > 0 && cp <= 0x10ffff) {
            AppendUtf8(&out, static_cast<uint32_t>(cp));
            i = semi + 1;
            continue;
          }
        }
      }
    }
    out.push_back(s[i++]);
  }
  return out;
}

bool IsSpace(char ch) { return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\f'; }

}  // namespace

bool DomElement::has_class(const std::string& cls) const {
  const auto it = attrs.find("class");
  if (it == attrs.end()) return false;
  std::istringstream words(it->second);
  std::string w;
  while (words >> w)
    if (w == cls) return true;
  return false;
}

std::string DomElement::attr(const std::string& name) const {
  const auto it = attrs.find(name);
  return it == attrs.end() ? std::string() : it->second;
}

std::vector<DomElement> FindElements(const std::string& dom, const std::string& tag, const std::string& cls) {
  std::vector<DomElement> found;
  const std::string want = Lower(tag);
  size_t i = 0;
  while ((i = dom.find('<', i)) != std::string::npos) {
    if (dom.compare(i, 4, "<!--") == 0) {
      const size_t end = dom.find("-->", i + 4);
      if (end == std::string::npos) break;
      i = end + 3;
      continue;
    }
    size_t j = i + 1;
    if (j >= dom.size() || !std::isalpha(static_cast<unsigned char>(dom[j]))) {  // end tag, doctype, stray '<'
      ++i;
      continue;
    }
    while (j < dom.size() && !IsSpace(dom[j]) && dom[j] != '>' && dom[j] != '/') ++j;
    DomElement el;
    el.tag = Lower(dom.substr(i + 1, j - i - 1));
    el.offset = i;
    // Attributes: name, optionally = and a quoted or bare value.
    while (j < dom.size() && dom[j] != '>') {
      if (IsSpace(dom[j]) || dom[j] == '/') {
        ++j;
        continue;
      }
      size_t k = j;
      while (k < dom.size() && !IsSpace(dom[k]) && dom[k] != '=' && dom[k] != '>' && dom[k] != '/') ++k;
      std::string name = Lower(dom.substr(j, k - j));
      std::string value;
      j = k;
      if (j < dom.size() && dom[j] == '=') {
        ++j;
        if (j < dom.size() && (dom[j] == '"' || dom[j] == '\'')) {
          const char q = dom[j];
          const size_t end = dom.find(q, j + 1);
          if (end == std::string::npos) return found;  // cut short
          value = dom.substr(j + 1, end - j - 1);
          j = end + 1;
        } else {
          size_t e = j;
          while (e < dom.size() && !IsSpace(dom[e]) && dom[e] != '>') ++e;
          value = dom.substr(j, e - j);
          j = e;
        }
      }
      el.attrs.emplace(std::move(name), DecodeEntities(value));
    }
    i = j;
    if ((want.empty() || el.tag == want) && (cls.empty() || el.has_class(cls))) found.push_back(el);
    // Raw text: nothing in it is a tag.
    if (el.tag == "script" || el.tag == "style" || el.tag == "textarea") {
      const size_t end = dom.find("</" + el.tag, i);  // Chromium writes HTML tag names in lower case
      if (end == std::string::npos) break;
      i = end;
    }
  }
  return found;
}

std::optional<PngImage> DecodePng(const std::string& png, std::string* error) {
  // libpng's simplified API (png.h, "SIMPLIFIED API"): the file's own channels, 8 bits each; a
  // palette is expanded, 16-bit samples are converted to 8-bit sRGB.
  if (png.size() < 8 || png_sig_cmp(reinterpret_cast<png_const_bytep>(png.data()), 0, 8) != 0)
    return PngFail(error, "no PNG signature");
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_memory(&image, png.data(), png.size())) return PngFail(error, image.message);
  image.format &= ~static_cast<png_uint_32>(PNG_FORMAT_FLAG_COLORMAP | PNG_FORMAT_FLAG_LINEAR);
  if (image.width == 0 || image.height == 0 || image.width > 16384 || image.height > 16384) {
    png_image_free(&image);
    return PngFail(error,
                   "size " + std::to_string(image.width) + "x" + std::to_string(image.height) + " is outside 1..16384");
  }
  PngImage img;
  img.width = static_cast<int>(image.width);
  img.height = static_cast<int>(image.height);
  img.channels = static_cast<int>(PNG_IMAGE_SAMPLE_CHANNELS(image.format));
  img.pixels.resize(PNG_IMAGE_SIZE(image));
  if (!png_image_finish_read(&image, nullptr, img.pixels.data(), 0, nullptr)) {
    const std::string message = image.message;
    png_image_free(&image);
    return PngFail(error, message);
  }
  return img;
}

bool IsBlank(const PngImage& image) {
  const size_t n = static_cast<size_t>(image.channels);
  if (n == 0 || image.pixels.size() < n) return true;
  for (size_t i = n; i + n <= image.pixels.size(); i += n)
    if (std::memcmp(image.pixels.data() + i, image.pixels.data(), n) != 0) return false;
  return true;
}

std::optional<std::string> Base64Decode(const std::string& text) {
  if (text.size() % 4 != 0) return std::nullopt;
  auto value = [](char ch) -> int {
    if (ch >= 'A' && ch <= 'Z') return ch - 'A';
    if (ch >= 'a' && ch <= 'z') return ch - 'a' + 26;
    if (ch >= '0' && ch <= '9') return ch - '0' + 52;
    if (ch == '+') return 62;
    if (ch == '/') return 63;
    return -1;
  };
  std::string out;
  out.reserve(text.size() / 4 * 3);
  for (size_t i = 0; i < text.size(); i += 4) {
    const bool last = i + 4 == text.size();
    const int pad = (last && text[i + 3] == '=') ? (text[i + 2] == '=' ? 2 : 1) : 0;
    std::array<int, 4> v{};
    for (int k = 0; k < 4 - pad; ++k) {
      v[static_cast<size_t>(k)] = value(text[i + static_cast<size_t>(k)]);
      if (v[static_cast<size_t>(k)] < 0) return std::nullopt;
    }
    const uint32_t triple = (static_cast<uint32_t>(v[0]) << 18) | (static_cast<uint32_t>(v[1]) << 12) |
                            (static_cast<uint32_t>(v[2]) << 6) | static_cast<uint32_t>(v[3]);
    out.push_back(static_cast<char>((triple >> 16) & 0xff));
    if (pad < 2) out.push_back(static_cast<char>((triple >> 8) & 0xff));
    if (pad < 1) out.push_back(static_cast<char>(triple & 0xff));
  }
  return out;
}

}  // namespace paratune::browser
