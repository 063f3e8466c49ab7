#include "trace/kineto_reader.h"

#if defined(__SSE2__)
#include <emmintrin.h>  // SSE2: part of the x86-64 baseline
#endif
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>
#include <new>
#include <simdjson.h>

#include "trace/name_table.h"
#include "util/error.h"
#include "util/file.h"
#include "util/json_parse.h"
#include "util/text.h"

namespace paratune {
namespace {

namespace od = simdjson::ondemand;

// ---------------------------------------------------------------------------------------------
// A growable byte buffer that, unlike std::string, never zero-fills the space it reads into. The
// SIMDJSON_PADDING bytes after its end (as far as its capacity goes) are always zero, so what
// simdjson may read past the text never depends on the heap (CI's fuzzing once found the
// in-memory and chunked readings disagreeing on uninitialised padding); zeroing only those bytes,
// not the whole buffer, leaves the pages a small file never reaches untouched.
class Buffer {
 public:
  const char* data() const { return data_.get(); }
  char* data() { return data_.get(); }
  size_t size() const { return size_; }
  size_t capacity() const { return cap_; }
  char operator[](size_t i) const { return data_[i]; }
  void reserve(size_t n) {
    if (n <= cap_) return;
    std::unique_ptr<char[]> d(new char[n]);
    if (size_) std::memcpy(d.get(), data_.get(), size_);
    data_ = std::move(d);
    cap_ = n;
    ZeroPadding();
  }
  // Room for `n` more bytes at the end; Commit(k) then adds the k bytes written there.
  char* Append(size_t n) {
    if (size_ + n > cap_) reserve(std::max(cap_ * 2, size_ + n));
    return data_.get() + size_;
  }
  void Commit(size_t n) {
    size_ += n;
    ZeroPadding();
  }
  void Clear() {
    size_ = 0;
    ZeroPadding();
  }
  void EraseFront(size_t n) {
    std::memmove(data_.get(), data_.get() + n, size_ - n);
    size_ -= n;
    ZeroPadding();
  }
  std::string substr(size_t pos, size_t n) const { return std::string(data_.get() + pos, n); }

 private:
  void ZeroPadding() {
    if (cap_ > size_) std::memset(data_.get() + size_, 0, std::min(cap_ - size_, size_t{simdjson::SIMDJSON_PADDING}));
  }

  std::unique_ptr<char[]> data_;
  size_t size_ = 0, cap_ = 0;
};

// Byte source: zlib's gzread reads gzip and plain files alike (zlib.h: "gzread ... will read a
// file that is not in gzip format transparently").
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Appends up to `max` bytes to `out`; returns the count, 0 at the end. Throws on a read error.
  virtual size_t Read(Buffer& out, size_t max) = 0;
  // The line (from 1) of byte `offset` of the decompressed input, or 0 when it cannot be known.
  virtual int64_t LineOf(int64_t offset) = 0;
  // Bytes of the underlying file read so far (compressed bytes for gzip).
  virtual int64_t FileOffset() = 0;
  // True when the last Read stopped at a gzip error after some data (a truncated .gz).
  bool truncated = false;
};

class GzSource : public ByteSource {
 public:
  explicit GzSource(const std::string& path) : path_(path) {
    std::error_code ec;
    if (!std::filesystem::exists(std::filesystem::symlink_status(path, ec)))
      throw InputError(path + ": cannot open: " + std::strerror(ENOENT));
    RequireRegularFile(path);  // a FIFO or device would block or never end; a link loop says so
    f_ = gzopen(path.c_str(), "rb");
    if (!f_) throw InputError(path + ": cannot open: " + std::strerror(errno));
    gzbuffer(f_, 1 << 20);
    gzipped_ = gzdirect(f_) == 0;
  }
  bool gzipped() const { return gzipped_; }
  int64_t FileOffset() override { return static_cast<int64_t>(gzoffset(f_)); }
  // Reads the file again from its start (only for a message, so the first pass needs no count).
  int64_t LineOf(int64_t offset) override {
    gzFile f = gzopen(path_.c_str(), "rb");
    if (!f) return 0;
    int64_t line = 1, done = 0;
    std::vector<char> buf(1 << 16);
    while (done < offset) {
      const int n = gzread(f, buf.data(), static_cast<unsigned>(std::min<int64_t>(buf.size(), offset - done)));
      if (n <= 0) break;
      line += std::count(buf.data(), buf.data() + n, '\n');
      done += n;
    }
    gzclose(f);
    return done == offset ? line : 0;
  }
  ~GzSource() override {
    if (f_) gzclose(f_);
  }
  size_t Read(Buffer& out, size_t max) override {
    char* dst = out.Append(max + simdjson::SIMDJSON_PADDING);
    const int n = gzread(f_, dst, static_cast<unsigned>(max));
    if (n < 0) {
      int code = 0;
      const char* msg = gzerror(f_, &code);
      if (code == Z_BUF_ERROR || code == Z_DATA_ERROR) {  // truncated or corrupt stream
        truncated = true;
        return 0;
      }
      throw InputError(path_ + ": cannot read: " + (msg ? msg : "zlib error"));
    }
    out.Commit(static_cast<size_t>(n));
    if (n == 0) {
      int code = 0;
      gzerror(f_, &code);
      if (code == Z_BUF_ERROR) truncated = true;  // gzip stream ended early
    }
    return static_cast<size_t>(n);
  }

 private:
  std::string path_;
  gzFile f_ = nullptr;
  bool gzipped_ = false;
};

class MemorySource : public ByteSource {
 public:
  explicit MemorySource(std::string_view data) : data_(data) {}
  int64_t LineOf(int64_t offset) override {
    const size_t n = std::min(static_cast<size_t>(offset), data_.size());
    return 1 + std::count(data_.data(), data_.data() + n, '\n');
  }
  size_t Read(Buffer& out, size_t max) override {
    const size_t n = std::min(max, data_.size() - pos_);
    if (n) std::memcpy(out.Append(n + simdjson::SIMDJSON_PADDING), data_.data() + pos_, n);
    out.Commit(n);
    pos_ += n;
    return n;
  }
  int64_t FileOffset() override { return static_cast<int64_t>(pos_); }

 private:
  std::string_view data_;
  size_t pos_ = 0;
};

// ---------------------------------------------------------------------------------------------
// Numbers. Kineto writes ts/dur in µs, as integers (older) or with three decimals (ns
// resolution). They are converted to integer ns without going through a double, so epoch
// timestamps (~1.7e15 µs) keep their nanoseconds.

// JSON whitespace (RFC 8259, section 2).
inline bool IsJsonWs(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// A raw number token without the whitespace simdjson leaves after it.
std::string_view TrimRight(std::string_view s) {
  while (!s.empty() && IsJsonWs(s.back())) s.remove_suffix(1);
  return s;
}

// A value's raw JSON text for a message: whitespace trimmed, as util/text.h shows it.
std::string Token(std::string_view raw) { return Shown(TrimRight(raw)); }

NumberParse ParseMicrosToNanos(std::string_view s, int64_t* ns, bool* fractional) {
  s = TrimRight(s);
  if (s.empty()) return NumberParse::kNotANumber;
  bool neg = false;
  size_t i = 0;
  if (s[0] == '-') {
    neg = true;
    ++i;
  }
  if (i >= s.size() || s[i] < '0' || s[i] > '9') return NumberParse::kNotANumber;
  // Integer part.
  // µs below 2^63 / 1000 fit in int64 ns; more digits overflow.
  uint64_t v = 0;
  constexpr uint64_t kLimit = static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) / 1000 - 1;
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
    v = v * 10 + static_cast<unsigned>(s[i] - '0');
    if (v > kLimit) return NumberParse::kOutOfRange;
  }
  v *= 1000;
  *fractional = false;
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (i >= s.size() || s[i] < '0' || s[i] > '9') return NumberParse::kNotANumber;
    unsigned scale = 100;
    bool round_up = false;
    for (int d = 0; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i, ++d) {
      const unsigned digit = static_cast<unsigned>(s[i] - '0');
      if (digit != 0) *fractional = true;
      if (d < 3) {
        v += digit * scale;
        scale /= 10;
      } else if (d == 3) {
        round_up = digit >= 5;  // sub-ns digits: round to the nearest ns
      }
    }
    if (round_up) v += 1;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    // Exponent form (not written by Kineto): fall back to a double.
    double d = 0;
    if (const NumberParse st = ParseNumber(s, &d); st != NumberParse::kOk)
      return st == NumberParse::kOutOfRange ? st : NumberParse::kNotANumber;  // 1e400: out of range
    const double n = d * 1000.0;
    if (!(std::abs(n) < 9.2e18)) return NumberParse::kOutOfRange;
    *ns = static_cast<int64_t>(std::llround(n));
    *fractional = n != std::floor(n / 1000.0) * 1000.0;
    return NumberParse::kOk;
  }
  if (i != s.size()) return NumberParse::kNotANumber;
  *ns = neg ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
  return NumberParse::kOk;
}

// Kinds recorded on a GPU stream, whose "tid" is the stream (Kineto writes "cat" before "tid").
bool OnDevice(EventKind k) {
  return k == EventKind::kKernel || k == EventKind::kMemcpy || k == EventKind::kMemset || k == EventKind::kCudaSync ||
         k == EventKind::kGpuUserAnnotation;
}

// "tid" as a key that tells threads apart (TraceEvent::tid): the FNV-1a hash of the value's
// JSON text (an integer's digits, or a string such as the 2021 layout's "stream 7" with its
// quotes), folded to 32 bits; equal values give equal keys. Read from the raw token, without
// parsing a number, as it is only compared. Not a measured number, so nothing is counted as bad.
int32_t ThreadKey(od::value v) {
  const std::string_view raw = v.raw_json_token();
  uint64_t h = 1469598103934665603ull;
  const bool quoted = !raw.empty() && raw.front() == '"';
  for (size_t i = 0; i < raw.size(); ++i) {
    const char c = raw[i];
    if (quoted ? (i > 0 && c == '"')
               : (c == ',' || c == '}' || c == ']' || c == ' ' || c == '\n' || c == '\r' || c == '\t'))
      break;
    h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  }
  return static_cast<int32_t>(h ^ (h >> 32));
}

// An integer field (stream, correlation, rank): JSON integer, integral double, or a string of
// digits (HTA converts numeric strings). `raw`, when given, receives the value's JSON text (for
// messages).
NumberParse IntegerValue(od::value v, int64_t* out, std::string_view* raw_out = nullptr) {
  od::json_type t;
  if (v.type().get(t)) return NumberParse::kNotANumber;
  if (t != od::json_type::number && raw_out) *raw_out = v.raw_json_token();
  if (t == od::json_type::number) {
    const std::string_view raw = TrimRight(v.raw_json_token());
    if (raw_out) *raw_out = raw;
    const NumberParse st = ParseInteger(raw, out);
    if (st != NumberParse::kNotANumber) return st;  // an integer, or one beyond 64 bits
    double d = 0;
    if (const NumberParse dst = ParseNumber(raw, &d); dst != NumberParse::kOk)
      return dst == NumberParse::kOutOfRange ? dst : NumberParse::kNotANumber;  // 1e400: out of range
    if (!(std::abs(d) < 9.2e18)) return NumberParse::kOutOfRange;
    if (d != std::floor(d)) return NumberParse::kNotANumber;
    *out = static_cast<int64_t>(d);
    return NumberParse::kOk;
  }
  if (t == od::json_type::string) {
    std::string_view s;
    if (v.get_string().get(s)) return NumberParse::kNotANumber;
    return ParseInteger(s, out);
  }
  return NumberParse::kNotANumber;
}

EventKind KindOfCategory(std::string_view cat, bool* legacy) {
  switch (cat.size()) {
    case 6:
      if (cat == "cpu_op") return EventKind::kCpuOp;
      if (cat == "kernel") return EventKind::kKernel;
      if (cat == "Kernel") return *legacy = true, EventKind::kKernel;
      if (cat == "Memcpy") return *legacy = true, EventKind::kMemcpy;
      if (cat == "Memset") return *legacy = true, EventKind::kMemset;
      break;
    case 7:
      if (cat == "Runtime") return *legacy = true, EventKind::kRuntime;
      break;
    case 8:
      if (cat == "Operator") return *legacy = true, EventKind::kCpuOp;
      break;
    case 9:
      if (cat == "cuda_sync") return EventKind::kCudaSync;
      break;
    case 10:
      if (cat == "gpu_memcpy") return EventKind::kMemcpy;
      if (cat == "gpu_memset") return EventKind::kMemset;
      break;
    case 11:
      if (cat == "cuda_driver") return EventKind::kRuntime;
      break;
    case 12:
      if (cat == "cuda_runtime") return EventKind::kRuntime;
      break;
    case 15:
      if (cat == "user_annotation") return EventKind::kUserAnnotation;
      if (cat == "python_function") return EventKind::kPythonFunction;
      break;
    case 19:
      if (cat == "gpu_user_annotation") return EventKind::kGpuUserAnnotation;
      break;
    default:
      break;
  }
  return EventKind::kOther;
}

// Replaces bytes that are not valid UTF-8 by '?'; returns how many sequences were replaced.
int64_t SanitizeUtf8(char* p, size_t n) {
  int64_t bad = 0;
  size_t i = 0;
  auto u = [&](size_t k) { return static_cast<unsigned char>(p[k]); };
  while (i < n) {
    const unsigned c = u(i);
    size_t len = 0;
    if (c < 0x80)
      len = 1;
    else if (c >= 0xC2 && c <= 0xDF)
      len = 2;
    else if (c >= 0xE0 && c <= 0xEF)
      len = 3;
    else if (c >= 0xF0 && c <= 0xF4)
      len = 4;
    bool ok = len > 0 && i + len <= n;
    for (size_t k = 1; ok && k < len; ++k) ok = (u(i + k) & 0xC0) == 0x80;
    if (ok && len == 3) {
      const unsigned c1 = u(i + 1);
      ok = !(c == 0xE0 && c1 < 0xA0) && !(c == 0xED && c1 >= 0xA0);
    }
    if (ok && len == 4) {
      const unsigned c1 = u(i + 1);
      ok = !(c == 0xF0 && c1 < 0x90) && !(c == 0xF4 && c1 >= 0x90);
    }
    if (!ok) {
      p[i] = '?';
      ++bad;
      len = 1;
    }
    i += len;
  }
  return bad;
}

// ---------------------------------------------------------------------------------------------
// Byte classes for the value scanner: 1 quote, 2 opening bracket, 3 closing bracket.
constexpr std::array<uint8_t, 256> MakeClassTable() {
  std::array<uint8_t, 256> t{};
  t['"'] = 1;
  t['{'] = 2;
  t['['] = 2;
  t['}'] = 3;
  t[']'] = 3;
  return t;
}
constexpr std::array<uint8_t, 256> kClass = MakeClassTable();

#if defined(__SSE2__)
// Bit k set: byte k of the 64-byte block is that character.
struct BlockMasks {
  uint64_t quote, backslash, open, close;
};

inline BlockMasks ScanBlock(const char* p) {
  BlockMasks m{0, 0, 0, 0};
  const __m128i q = _mm_set1_epi8('"'), bs = _mm_set1_epi8('\\'), ob = _mm_set1_epi8('{'), oa = _mm_set1_epi8('['),
                cb = _mm_set1_epi8('}'), ca = _mm_set1_epi8(']');
  for (int k = 0; k < 4; ++k) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k));
    auto bits = [&](__m128i x) {
      return static_cast<uint64_t>(static_cast<uint32_t>(_mm_movemask_epi8(x))) << (16 * k);
    };
    m.quote |= bits(_mm_cmpeq_epi8(v, q));
    m.backslash |= bits(_mm_cmpeq_epi8(v, bs));
    m.open |= bits(_mm_or_si128(_mm_cmpeq_epi8(v, ob), _mm_cmpeq_epi8(v, oa)));
    m.close |= bits(_mm_or_si128(_mm_cmpeq_epi8(v, cb), _mm_cmpeq_epi8(v, ca)));
  }
  return m;
}

// Bit k of the result: parity of the set bits of x at positions <= k (inside a string).
inline uint64_t PrefixXor(uint64_t x) {
  x ^= x << 1;
  x ^= x << 2;
  x ^= x << 4;
  x ^= x << 8;
  x ^= x << 16;
  x ^= x << 32;
  return x;
}
#endif

class KinetoReader {
 public:
  KinetoReader(ByteSource& src, std::string label, size_t chunk) : src_(src), label_(std::move(label)), chunk_(chunk) {
    trace_.path = label_;
    buf_.reserve(chunk_ * 2 + simdjson::SIMDJSON_PADDING);
    // The one JSON nesting bound (util/json_parse.h); simdjson keeps it when it grows the parser.
    if (parser_.allocate(chunk_ * 2, kMaxJsonDepth)) throw std::bad_alloc();
  }

  void ReserveEvents(size_t n) { trace_.events.reserve(n); }
  void OnRead(std::function<void(int64_t)> on_read) { on_read_ = std::move(on_read); }

  RankTrace Run() {
    // A UTF-8 byte-order mark (some editors and Windows tools write one) is skipped.
    while (buf_.size() < 3 && Refill()) {
    }
    if (buf_.size() >= 3 && static_cast<unsigned char>(buf_[0]) == 0xEF &&
        static_cast<unsigned char>(buf_[1]) == 0xBB && static_cast<unsigned char>(buf_[2]) == 0xBF)
      pos_ = 3;
    SkipWs();
    if (AtEnd()) {
      if (src_.truncated)
        throw InputError(label_ + ": truncated gzip stream: it ends before any data (no trace events to analyse)");
      throw InputError(label_ + ": empty file (expected a Chrome-trace JSON object)");
    }
    const char c = buf_[pos_];
    if (c == '[') {
      ReadEventArray();  // Chrome-trace "JSON Array Format"
    } else if (c == '{') {
      ReadTopObject();
    } else {
      const unsigned char u = static_cast<unsigned char>(c);
      // The first character itself (printable) or its code, never a number that reads as an offset.
      const std::string shown = u >= 0x20 && u < 0x7f ? std::string("'") + c + "'" : fmt::format("byte 0x{:02X}", u);
      throw InputError(label_ + ": not a Chrome-trace JSON file (its first character is " + shown +
                       ", expected '{' or '[')");
    }
    if (!saw_events_) throw InputError(label_ + ": no \"traceEvents\" array (not a PyTorch profiler trace?)");
    Finish();
    return std::move(trace_);
  }

 private:
  // --- buffer management ---
  bool Refill() {
    if (eof_) return false;
    if (pos_ > 0 && pos_ >= buf_.size() / 2) {
      buf_.EraseFront(pos_);
      consumed_ += pos_;
      pos_ = 0;
    }
    const size_t n = src_.Read(buf_, chunk_);
    if (n == 0) eof_ = true;
    trace_.bytes_read += static_cast<int64_t>(n);
    if (on_read_) on_read_(src_.FileOffset());
    return n > 0;
  }
  bool AtEnd() {
    while (pos_ >= buf_.size())
      if (!Refill()) return true;
    return false;
  }
  // Skips whitespace in the buffer only; true when a non-space byte is at pos_.
  bool SkipWsInBuffer() {
    while (pos_ < buf_.size() && IsJsonWs(buf_[pos_])) ++pos_;
    return pos_ < buf_.size();
  }
  // Skips whitespace, refilling as needed.
  void SkipWs() {
    while (!SkipWsInBuffer())
      if (!Refill()) return;
  }
  size_t Offset() const { return consumed_ + pos_; }
  // Counts an unusable number and keeps the first one: `what` names the field and the value; its
  // place is the byte at `off` in buf_, turned into a line number by Finish (counting newlines
  // only when there is something to report keeps the reading fast).
  void BadValue(int64_t* counter, size_t off, const std::string& what) {
    ++*counter;
    if (bad_offset_ < 0) {
      bad_offset_ = static_cast<int64_t>(consumed_ + off);
      bad_what_ = what;
      trace_.warnings.first_bad_value = what;  // completed with the file, line and byte in Finish
    }
  }

  [[noreturn]] void Fail(const std::string& what) {
    throw InputError(label_ + ": byte " + std::to_string(Offset()) + ": " + what);
  }

  // Where CutValue is in the value it scans: the next byte, the bracket depth, inside a string.
  struct ScanState {
    size_t i;
    int depth = 0;
    bool in_str = false;
  };

  // Scans [x.i, limit) of a string, object or array byte by byte; returns the value's length
  // when it ends there, else 0.
  size_t ScanBytes(const char* p, size_t limit, ScanState& x) const {
    while (x.i < limit) {
      if (x.in_str) {
        while (x.i < limit && p[x.i] != '"' && p[x.i] != '\\') ++x.i;
        if (x.i >= limit) break;
        if (p[x.i] == '\\') {
          x.i += 2;
          continue;
        }
        ++x.i;
        x.in_str = false;
        if (x.depth == 0) return x.i - pos_;
        continue;
      }
      const uint8_t k = kClass[static_cast<unsigned char>(p[x.i++])];
      if (k == 0) continue;
      if (k == 1) {
        x.in_str = true;
      } else if (k == 2) {
        ++x.depth;
      } else if (--x.depth == 0) {
        return x.i - pos_;
      }
    }
    return 0;
  }

  // Scans what the buffer holds of a string, object or array from x.i; returns the value's
  // length when it ends in the buffer, else 0 (x.i at the buffer's end).
  size_t ScanComposite(char first, ScanState& x) const {
    const char* p = buf_.data();
    const size_t n = buf_.size();
    while (x.i < n) {
#if defined(__SSE2__)
      if (first != '"' && x.i + 64 <= n) {
        // 64 bytes at a time (SSE2): strings found by a prefix XOR of the quote mask, then only
        // the brackets outside strings are visited. A block holding a backslash goes byte by byte.
        const BlockMasks m = ScanBlock(p + x.i);
        if (m.backslash == 0) {
          uint64_t instr = PrefixXor(m.quote);
          if (x.in_str) instr = ~instr;
          uint64_t structural = (m.open | m.close) & ~instr;
          while (structural) {
            const int b = __builtin_ctzll(structural);
            if ((m.open >> b) & 1) {
              ++x.depth;
            } else if (--x.depth == 0) {
              return x.i + static_cast<size_t>(b) + 1 - pos_;
            }
            structural &= structural - 1;
          }
          if (__builtin_popcountll(m.quote) & 1) x.in_str = !x.in_str;
          x.i += 64;
          continue;
        }
        if (const size_t len = ScanBytes(p, x.i + 64, x)) return len;
        continue;
      }
#endif
      return ScanBytes(p, n, x);
    }
    return 0;
  }

  // Finds the end of the JSON value starting at pos_ (object, array, string or scalar), refilling
  // as needed (unless !allow_refill). Returns its length, or 0 at the end of input (a scalar may
  // end at the end of input).
  size_t CutValue(bool allow_refill = true) {
    ScanState x{pos_};
    const char first = buf_[pos_];
    const bool scalar = first != '{' && first != '[' && first != '"';
    for (;;) {
      if (scalar) {
        const char* p = buf_.data();
        const size_t n = buf_.size();
        while (x.i < n) {
          const char c = p[x.i];
          if (c == ',' || c == '}' || c == ']' || c == ' ' || c == '\n' || c == '\r' || c == '\t') return x.i - pos_;
          ++x.i;
        }
      } else if (const size_t len = ScanComposite(first, x)) {
        return len;
      }
      // Need more bytes; keep i relative to pos_ across the buffer compaction.
      const size_t rel = x.i - pos_;
      if (rel > kMaxValueBytes) Fail("a single JSON value is larger than 256 MiB");
      if (!allow_refill) return 0;
      if (!Refill()) {
        if (scalar) return buf_.size() - pos_;  // a scalar may end at the end of input
        return 0;
      }
      x.i = pos_ + rel;
      if (x.i > buf_.size()) x.i = buf_.size();
    }
  }

  void EnsurePaddingAt(size_t off, size_t len) {
    const size_t need = off + len + simdjson::SIMDJSON_PADDING;
    if (buf_.capacity() < need) buf_.reserve(need);
  }
  // Makes sure the parser may read SIMDJSON_PADDING bytes past pos_ + len.
  void EnsurePadding(size_t len) {
    const size_t need = pos_ + len + simdjson::SIMDJSON_PADDING;
    if (buf_.capacity() < need) buf_.reserve(need);
  }

  void Expect(char c, const char* what) {
    SkipWs();
    if (AtEnd() || buf_[pos_] != c) Fail(std::string("expected ") + what);
    ++pos_;
  }

  void ReadTopObject() {
    ++pos_;  // '{'
    SkipWs();
    if (!AtEnd() && buf_[pos_] == '}') return;
    for (;;) {
      SkipWs();
      if (AtEnd()) return Truncated("inside the top-level object");
      if (buf_[pos_] != '"') Fail("expected a key string");
      const size_t key_len = CutValue();
      if (key_len < 2) return Truncated("inside a key of the top-level object");
      const std::string key = buf_.substr(pos_ + 1, key_len - 2);
      pos_ += key_len;
      Expect(':', "':' after a key");
      SkipWs();
      if (AtEnd()) return Truncated("inside the top-level object");
      if (key == "traceEvents") {
        if (buf_[pos_] != '[') Fail("\"traceEvents\" is not an array");
        if (!ReadEventArray()) return;
      } else {
        const size_t len = CutValue();
        if (len == 0) return Truncated("inside the value of \"" + key + "\"");
        HandleTopValue(key, len);
        pos_ += len;
      }
      SkipWs();
      if (AtEnd()) return Truncated("after the value of \"" + key + "\"");
      const char c = buf_[pos_];
      if (c != '}' && c != ',') Fail("expected ',' or '}' in the top-level object");
      ++pos_;
      if (c == '}') return;
    }
  }

  void Truncated(const std::string& where) {
    if (trace_.events.empty() && !saw_events_) throw InputError(label_ + ": file ends " + where + " (truncated?)");
    trace_.warnings.truncated = 1;
    if (trace_.warnings.truncated_at.empty()) trace_.warnings.truncated_at = where;
  }

  // Returns false when the input ended inside the array (truncated).
  bool ReadEventArray() {
    saw_events_ = true;
    ++pos_;  // '['
    SkipWs();
    if (AtEnd()) return Truncated("inside \"traceEvents\""), false;
    if (buf_[pos_] == ']') {
      ++pos_;
      return true;
    }
    for (;;) {
      SkipWs();
      if (AtEnd()) return Truncated("inside \"traceEvents\""), false;
      // Cut as many whole events as the buffer holds (without refilling, so positions stay
      // valid) and parse them as one array: simdjson's indexing pays its set-up once per batch.
      batch_.clear();
      bool end_of_array = false;
      bool separator_pending = false;  // the buffer ended between the last event and its ',' or ']'
      while (pos_ < buf_.size() && batch_bytes_ < kBatchBytes) {
        const size_t len = CutValue(/*allow_refill=*/false);
        if (len == 0) break;
        batch_.push_back({pos_, len});
        batch_bytes_ += len;
        pos_ += len;
        if (!SkipWsInBuffer()) {
          separator_pending = true;
          break;
        }
        const char c = buf_[pos_];
        if (c != ']' && c != ',') Fail("expected ',' or ']' between events");
        ++pos_;
        if (c == ']') {
          end_of_array = true;
          break;
        }
        SkipWsInBuffer();
      }
      batch_bytes_ = 0;
      if (!batch_.empty()) {
        HandleBatch();
        if (end_of_array) return true;
        if (!separator_pending) continue;
      } else {
        // An event larger than what the buffer holds: cut it with refills, parse it alone.
        const size_t len = CutValue();
        if (len == 0) return Truncated("inside an event of \"traceEvents\""), false;
        EnsurePadding(len);
        HandleEvent(buf_.data() + pos_, len);
        pos_ += len;
      }
      SkipWs();
      if (AtEnd()) return Truncated("inside \"traceEvents\""), false;
      const char c = buf_[pos_];
      if (c != ']' && c != ',') Fail("expected ',' or ']' between events");
      ++pos_;
      if (c == ']') return true;
    }
  }

  // Parses batch_ (events at their offsets in buf_) as one JSON array copied into batch_buf_.
  // If anything in it fails (a malformed event, invalid UTF-8), the batch's effects are undone
  // and its events are parsed one by one, so that only the bad event is lost.
  void HandleBatch() {
    size_t total = 2;
    for (const auto& [off, len] : batch_) total += len + 1;
    batch_buf_.Clear();
    char* d = batch_buf_.Append(total + simdjson::SIMDJSON_PADDING);
    size_t k = 0;
    d[k++] = '[';
    for (size_t i = 0; i < batch_.size(); ++i) {
      if (i) d[k++] = ',';
      std::memcpy(d + k, buf_.data() + batch_[i].first, batch_[i].second);
      k += batch_[i].second;
    }
    d[k++] = ']';
    batch_buf_.Commit(k);
    const size_t events_before = trace_.events.size(), colls_before = trace_.collectives.size();
    const size_t memory_before = trace_.memory.size(), bandwidth_before = trace_.memory_bandwidth_gbps.size(),
                 waits_before = trace_.sync_waits.size();
    const TraceWarnings warnings_before = trace_.warnings;
    const int64_t skipped_before = trace_.skipped_events;
    const bool frac_before = trace_.fractional_ts;
    const int64_t bad_offset_before = bad_offset_;
    simdjson::error_code err = simdjson::SUCCESS;
    od::document doc;
    od::array arr;
    if (!(err = parser_.iterate(batch_buf_.data(), k, batch_buf_.capacity()).get(doc)) &&
        !(err = doc.get_array().get(arr))) {
      size_t i = 0;
      for (auto item : arr) {
        od::object obj;
        if ((err = std::move(item).get_object().get(obj))) break;
        event_off_ = batch_[std::min(i++, batch_.size() - 1)].first;
        if ((err = ParseEvent(obj))) break;
      }
    }
    if (!err) return;
    trace_.events.resize(events_before);
    trace_.collectives.resize(colls_before);
    trace_.memory.resize(memory_before);
    trace_.memory_bandwidth_gbps.resize(bandwidth_before);
    trace_.sync_waits.resize(waits_before);
    trace_.warnings = warnings_before;
    trace_.skipped_events = skipped_before;
    trace_.fractional_ts = frac_before;
    bad_offset_ = bad_offset_before;
    for (const auto& [off, len] : batch_) {
      EnsurePaddingAt(off, len);
      HandleEvent(buf_.data() + off, len);
    }
  }

  // Parses the small top-level values paratune uses.
  // "baseTimeNanoseconds": the time base of ns-resolution traces, or a counted bad value.
  void ReadBaseTime(size_t len) {
    const size_t off = pos_;
    int64_t v = 0;
    const char* p = buf_.data() + pos_;
    const NumberParse st = ParseInteger(std::string_view(p, len), &v);
    if (st == NumberParse::kOk && v >= -kMaxTraceTimeNs && v <= kMaxTraceTimeNs) {
      trace_.base_time_ns = v;
      return;
    }
    const char* why = st == NumberParse::kOutOfRange ? "does not fit 64 bits"
                      : st == NumberParse::kOk       ? "is beyond the +-4e18 ns supported"
                                                     : "is not an integer";
    BadValue(&trace_.warnings.bad_number, off,
             "field 'baseTimeNanoseconds': " + Token(std::string_view(p, len)) + " " + why);
  }

  // An integer of a top-level value in [lo, hi), or a counted bad value naming the field (the
  // value starts at `off`).
  bool TopInteger(od::value v, size_t off, const char* field, int64_t lo, int64_t hi, int64_t* out) {
    std::string_view raw;
    const NumberParse st = IntegerValue(v, out, &raw);
    if (st == NumberParse::kOk && *out >= lo && *out < hi) return true;
    const std::string why = st == NumberParse::kOutOfRange ? "does not fit 64 bits"
                            : st == NumberParse::kNotANumber
                                ? "is not an integer"
                                : "is outside " + std::to_string(lo) + ".." + std::to_string(hi - 1);
    BadValue(&trace_.warnings.bad_number, off, std::string("field '") + field + "': " + Token(raw) + " " + why);
    return false;
  }

  // "distributedInfo": the rank and world size.
  void ReadDistributedInfo(od::document& doc, size_t off) {
    od::object obj;
    if (doc.get_object().get(obj)) return;
    for (auto field : obj) {
      od::field f;
      if (std::move(field).get(f)) return;
      std::string_view k;
      if (f.unescaped_key().get(k)) return;
      int64_t v = 0;
      if (k == "rank") {
        if (TopInteger(f.value(), off, "distributedInfo.rank", 0, 1 << 24, &v)) {
          trace_.rank = static_cast<int>(v);
          trace_.rank_source = "distributedInfo";
        }
      } else if (k == "world_size") {
        if (TopInteger(f.value(), off, "distributedInfo.world_size", 1, 1 << 24, &v))
          trace_.world_size = static_cast<int>(v);
      }
    }
  }

  // deviceProperties: [{"id": 0, "name": "...", ...}, ...]
  void ReadDeviceProperties(od::document& doc, size_t off) {
    od::array arr;
    if (doc.get_array().get(arr)) return;
    for (auto item : arr) {
      od::object obj;
      if (item.get_object().get(obj)) return;
      int64_t id = -1;
      std::string name;
      for (auto field : obj) {
        od::field f;
        if (std::move(field).get(f)) return;
        std::string_view k;
        if (f.unescaped_key().get(k)) return;
        if (k == "id") {
          if (!TopInteger(f.value(), off, "deviceProperties.id", 0, 1 << 24, &id)) id = -1;
        } else if (k == "name") {
          std::string_view s;
          if (!f.value().get_string().get(s)) name = std::string(s);
        }
      }
      if (id >= 0) device_names_[id] = name;
    }
  }

  // A top-level value other than traceEvents: the ones read are the time base, the rank and the
  // devices; the rest are skipped.
  void HandleTopValue(const std::string& key, size_t len) {
    if (key == "baseTimeNanoseconds") return ReadBaseTime(len);
    if (key != "distributedInfo" && key != "deviceProperties") return;
    const size_t off = pos_;
    EnsurePadding(len);
    od::document doc;
    if (parser_.iterate(buf_.data() + pos_, len, buf_.capacity() - pos_).get(doc)) return;
    if (key == "distributedInfo")
      ReadDistributedInfo(doc, off);
    else
      ReadDeviceProperties(doc, off);
  }

  void HandleEvent(char* p, size_t len) {
    event_off_ = static_cast<size_t>(p - buf_.data());
    if (p[0] != '{') {
      ++trace_.warnings.malformed_event;
      return;
    }
    od::document doc;
    auto err = parser_.iterate(p, len, buf_.capacity() - static_cast<size_t>(p - buf_.data())).get(doc);
    od::object obj;
    if (!err) err = doc.get_object().get(obj);
    if (!err) err = ParseEvent(obj);
    if (err == simdjson::UTF8_ERROR) {
      // Replace the offending bytes and try once more; the event stays, its text changes.
      trace_.warnings.invalid_utf8 += SanitizeUtf8(p, len) > 0 ? 1 : 0;
      if (parser_.iterate(p, len, buf_.capacity() - static_cast<size_t>(p - buf_.data())).get(doc) ||
          doc.get_object().get(obj) || ParseEvent(obj) != simdjson::SUCCESS)
        ++trace_.warnings.malformed_event;
      return;
    }
    if (err) ++trace_.warnings.malformed_event;
  }

  // One event's fields as ParseEvent reads them.
  struct EventFields {
    TraceEvent ev;
    bool has_ts = false, has_dur = false, has_cat = false, has_name = false, is_trace = false, bad = false;
    bool frac = false;
    std::string_view name;
    CollectiveArgs coll;
    bool has_coll = false;
    int64_t device = -1;
    double bandwidth_gbps = -1;  // "memory bandwidth (GB/s)" of a memcpy or memset; -1: absent
    SyncWait wait;               // a cuda_sync event's "wait_on_stream" and "wait_on_cuda_event_record_corr_id"
    MemoryEvent memory;          // the args of a "[memory]" event
    bool has_memory = false;
    const char* bad_field = nullptr;  // the first unusable numeric field, and what is wrong with it
    std::string bad_what;
  };

  // Marks the event bad; the first bad field of the file is kept for the message.
  void MarkBad(EventFields& x, const char* field, std::string_view raw, const char* why) {
    x.bad = true;
    if (x.bad_field == nullptr && trace_.warnings.first_bad_value.empty()) {
      x.bad_field = field;
      x.bad_what = Token(raw) + " " + why;
    }
  }

  // µs -> ns for ts and dur.
  bool Micros(EventFields& x, od::value v, const char* field, int64_t* out, bool* fr) {
    const std::string_view raw = v.raw_json_token();
    const NumberParse st = ParseMicrosToNanos(raw, out, fr);
    if (st == NumberParse::kOk) return true;
    MarkBad(x, field, raw, st == NumberParse::kOutOfRange ? "us does not fit 64-bit ns" : "is not a number");
    return false;
  }

  // An integer argument in [lo, hi]; `absent` is the value that means "none", accepted too.
  bool Integer(EventFields& x, od::value v, const char* field, int64_t lo, int64_t hi, int64_t absent, int64_t* out) {
    std::string_view raw;
    int64_t n = 0;
    const NumberParse st = IntegerValue(v, &n, &raw);
    if (st == NumberParse::kOk && ((n >= lo && n <= hi) || n == absent)) {
      *out = n;
      return true;
    }
    MarkBad(x, field, raw,
            st == NumberParse::kOutOfRange   ? "does not fit 64 bits"
            : st == NumberParse::kNotANumber ? "is not an integer"
            : n < lo                         ? "is negative or too small"
                                             : "is too large");
    return false;
  }

  // "cat": categories are short ASCII words, compared as the raw token, no unescaping.
  void ReadCategory(EventFields& x, od::value v) {
    const std::string_view raw = v.raw_json_token();
    std::string_view cat = raw;
    while (!cat.empty() && cat.back() != '"') cat.remove_suffix(1);
    if (cat.size() < 2 || cat.front() != '"') {
      MarkBad(x, "cat", raw, "is not a string");  // counted if another "cat" makes it an event
      return;
    }
    cat = cat.substr(1, cat.size() - 2);
    x.has_cat = true;
    if (cat == "Trace")
      x.is_trace = true;
    else
      x.ev.kind = KindOfCategory(cat, &legacy_);
  }

  // "name": most names have no escapes, taken straight from the input (the document was
  // UTF-8-validated by the parser); otherwise unescaped into the parser's string buffer, valid
  // for this whole document.
  simdjson::error_code ReadName(EventFields& x, od::value v) {
    std::string_view raw = v.raw_json_token();
    while (!raw.empty() && raw.back() != '"') raw.remove_suffix(1);
    if (raw.size() >= 2 && raw.front() == '"' && std::memchr(raw.data() + 1, '\\', raw.size() - 2) == nullptr) {
      x.name = raw.substr(1, raw.size() - 2);
    } else if (auto e = v.get_string().get(x.name)) {
      if (e == simdjson::UTF8_ERROR) return e;
      MarkBad(x, "name", raw, "is not a string");
      return simdjson::SUCCESS;
    }
    x.has_name = true;
    return simdjson::SUCCESS;
  }

  // One of "args": the stream, correlation and device, and a collective's description.
  void ReadArg(EventFields& x, od::field& a, char k0) {
    constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
    const od::raw_json_string k = a.key();
    std::string_view s;
    switch (k0) {
      case 's':
        if (k.unsafe_is_equal("stream")) Integer(x, a.value(), "args.stream", 0, kMax, -1, &x.ev.stream);
        break;
      case 'c':
        if (k.unsafe_is_equal("correlation")) Integer(x, a.value(), "args.correlation", 0, kMax, -1, &x.ev.correlation);
        break;
      case 'd':
        if (first_device_ < 0 && k.unsafe_is_equal("device")) {
          Integer(x, a.value(), "args.device", 0, (1 << 24) - 1, 0, &x.device);
        } else if (k.unsafe_is_equal("dtype")) {
          if (!a.value().get_string().get(s)) x.coll.dtype = std::string(s);
        }
        break;
      case 'C':
        if (k.unsafe_is_equal("Collective name") && !a.value().get_string().get(s))
          x.coll.collective = std::string(s), x.has_coll = true;
        break;
      case 'I':
        if (k.unsafe_is_equal("In msg nelems") || k.unsafe_is_equal("In msg size")) {
          Integer(x, a.value(), "args.In msg nelems", 0, kMax, -1, &x.coll.in_nelems);
          x.has_coll = true;
        }
        break;
      case 'O':
        if (k.unsafe_is_equal("Out msg nelems") || k.unsafe_is_equal("Out msg size")) {
          Integer(x, a.value(), "args.Out msg nelems", 0, kMax, -1, &x.coll.out_nelems);
          x.has_coll = true;
        }
        break;
      case 'G':
        if (int64_t g = -1;
            k.unsafe_is_equal("Group size") && Integer(x, a.value(), "args.Group size", 1, (1 << 24) - 1, -1, &g))
          x.coll.group_size = static_cast<int32_t>(g);
        break;
      case 'P':
        if (k.unsafe_is_equal("Process Group Name") && !a.value().get_string().get(s))
          x.coll.process_group = std::string(s);
        break;
      case 'B':
      case 'T':
      case 'D':
        ReadMemoryArg(x, a);
        break;
      case 'm':
        if (k.unsafe_is_equal("memory bandwidth (GB/s)")) ReadBandwidth(x, a.value());
        break;
      case 'w':
        ReadSyncWaitArg(x, a);
        break;
      default:
        break;
    }
  }

  // A cuda_sync event's "wait_on_stream" and "wait_on_cuda_event_record_corr_id" (-1: none).
  void ReadSyncWaitArg(EventFields& x, od::field& a) {
    constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
    const od::raw_json_string k = a.key();
    if (k.unsafe_is_equal("wait_on_stream"))
      Integer(x, a.value(), "args.wait_on_stream", 0, kMax, -1, &x.wait.wait_on_stream);
    else if (k.unsafe_is_equal("wait_on_cuda_event_record_corr_id"))
      Integer(x, a.value(), "args.wait_on_cuda_event_record_corr_id", 0, kMax, -1, &x.wait.record_correlation);
  }

  // A memcpy's or memset's "memory bandwidth (GB/s)": a finite number from 0 to 1e9 (1 EB/s).
  void ReadBandwidth(EventFields& x, od::value v) {
    od::json_type t;
    if (v.type().get(t) || t != od::json_type::number)
      return MarkBad(x, "args.memory bandwidth (GB/s)", v.raw_json_token(), "is not a number");
    const std::string_view raw = TrimRight(v.raw_json_token());
    double gbps = 0;
    const NumberParse st = ParseNumber(raw, &gbps);
    if (st == NumberParse::kOk && gbps >= 0 && gbps <= 1e9)
      x.bandwidth_gbps = gbps;
    else
      MarkBad(x, "args.memory bandwidth (GB/s)", raw, st == NumberParse::kOk ? "is out of range" : "is not a number");
  }

  // The args of a "[memory]" event ("Bytes", "Total Allocated", "Total Reserved", "Device Type",
  // "Device Id"); no other Kineto event has keys starting with 'B', 'T' or 'D'.
  void ReadMemoryArg(EventFields& x, od::field& a) {
    constexpr int64_t kBytes = int64_t{1} << 60;  // 1 EiB: beyond any device
    const od::raw_json_string k = a.key();
    int64_t n = 0;
    if (k.unsafe_is_equal("Bytes")) {
      x.has_memory = Integer(x, a.value(), "args.Bytes", -kBytes, kBytes, 0, &x.memory.bytes) || x.has_memory;
    } else if (k.unsafe_is_equal("Total Allocated")) {
      x.has_memory = Integer(x, a.value(), "args.Total Allocated", 0, kBytes, -1, &x.memory.total_allocated);
    } else if (k.unsafe_is_equal("Total Reserved")) {
      Integer(x, a.value(), "args.Total Reserved", 0, kBytes, -1, &x.memory.total_reserved);
    } else if (k.unsafe_is_equal("Device Type")) {
      if (Integer(x, a.value(), "args.Device Type", 0, 255, -1, &n)) x.memory.device_type = static_cast<int32_t>(n);
    } else if (k.unsafe_is_equal("Device Id")) {
      if (Integer(x, a.value(), "args.Device Id", -1, (1 << 24) - 1, -1, &n))
        x.memory.device_id = static_cast<int32_t>(n);
    }
  }

  // "args". CPU operators carry many args (shapes, types); only a stream matters for them (HTA
  // counts CPU ops with a stream, e.g. Triton launches, as GPU events). Dispatch on the first
  // character: most of a kernel's dozen args are rejected by one comparison.
  simdjson::error_code ReadArgs(EventFields& x, od::value v) {
    const bool cpu_side = x.ev.kind == EventKind::kCpuOp || x.ev.kind == EventKind::kUserAnnotation ||
                          x.ev.kind == EventKind::kPythonFunction;
    od::object args;
    if (v.get_object().get(args)) return simdjson::SUCCESS;
    for (auto af : args) {
      od::field a;
      if (auto e = std::move(af).get(a)) return e;
      const char k0 = a.key().raw()[0];
      if (cpu_side && k0 != 's') continue;
      ReadArg(x, a, k0);
    }
    return simdjson::SUCCESS;
  }

  // One field of the event object. Raw key comparison: Kineto's keys are plain ASCII, no
  // unescaping needed.
  simdjson::error_code ReadField(EventFields& x, od::field& f) {
    const od::raw_json_string key = f.key();
    switch (key.raw()[0]) {
      case 't':
        if (key.unsafe_is_equal("ts")) {
          bool fr = false;
          if (Micros(x, f.value(), "ts", &x.ev.ts_ns, &fr)) x.has_ts = true;
          x.frac = x.frac || fr;
        } else if (key.unsafe_is_equal("tid") && (!x.has_cat || !OnDevice(x.ev.kind))) {
          x.ev.tid = ThreadKey(f.value());  // the call stacks need it on the CPU side only
        }
        break;
      case 'd':
        if (key.unsafe_is_equal("dur")) {
          bool fr = false;
          if (Micros(x, f.value(), "dur", &x.ev.dur_ns, &fr)) x.has_dur = true;
        }
        break;
      case 'c':
        if (key.unsafe_is_equal("cat")) ReadCategory(x, f.value());
        break;
      case 'n':
        if (key.unsafe_is_equal("name")) return ReadName(x, f.value());
        break;
      case 'a':
        if (key.unsafe_is_equal("args")) return ReadArgs(x, f.value());
        break;
      default:
        break;
    }
    return simdjson::SUCCESS;
  }

  // Reads one event object; appends it to trace_.events when it is a complete event with a
  // duration and a category (HTA's rule: rows without dur or cat, and cat "Trace", are dropped).
  // A numeric field that is not a number, does not fit 64 bits or lies outside its range makes the
  // event a bad_number (skipped); the first such value is kept, located, in first_bad_value.
  simdjson::error_code ParseEvent(od::object& obj) {
    EventFields x;
    for (auto field : obj) {
      od::field f;
      if (auto e = std::move(field).get(f)) return e;
      if (auto e = ReadField(x, f)) return e;
    }
    if (x.has_name && x.name == "[memory]" && KeepMemory(x)) return simdjson::SUCCESS;
    KeepEvent(x);
    return simdjson::SUCCESS;
  }

  // A "[memory]" event into trace_.memory. True when it is also fully accounted for here: a bad
  // number in a 2021-layout event (no category, which KeepEvent would count as merely skipped).
  bool KeepMemory(EventFields& x) {
    if (x.bad) {
      if (x.has_cat) return false;  // KeepEvent counts it as a bad number
      BadValue(&trace_.warnings.bad_number, event_off_,
               EventWhat(x, x.bad_field ? std::string("field '") + x.bad_field + "': " + x.bad_what
                                        : std::string("a field is unusable")));
      return true;
    }
    if (x.has_memory && x.has_ts && x.ev.ts_ns >= -kMaxTraceTimeNs && x.ev.ts_ns <= kMaxTraceTimeNs) {
      x.memory.ts_ns = x.ev.ts_ns;
      trace_.memory.push_back(x.memory);
    }
    return false;
  }

  // The message of a skipped event: "event 'NAME': WHAT" (FILE:LINE is added with the offset).
  static std::string EventWhat(const EventFields& x, const std::string& what) {
    std::string n = x.has_name ? std::string(x.name.substr(0, 60)) : std::string();
    for (char& c : n)
      if (static_cast<unsigned char>(c) < 0x20) c = '?';
    if (x.has_name && x.name.size() > 60) n += "...";
    return (x.has_name ? "event '" + n + "'" : std::string("an event")) + ": " + what;
  }

  // True when the event read is not kept; counts it where it goes (skipped, bad, missing).
  bool Rejected(const EventFields& x) {
    if (x.is_trace || !x.has_cat) {
      ++trace_.skipped_events;
      return true;
    }
    if (x.bad && x.bad_field != nullptr) {
      BadValue(&trace_.warnings.bad_number, event_off_,
               EventWhat(x, std::string("field '") + x.bad_field + "': " + x.bad_what));
      return true;
    }
    // bad without bad_field: an earlier event already holds the first message.
    if (!x.has_dur) {
      if (x.bad)
        BadValue(&trace_.warnings.bad_number, event_off_, EventWhat(x, "a field is unusable"));
      else
        ++trace_.skipped_events;  // instant, flow and counter events have no dur
      return true;
    }
    if (x.bad) {
      BadValue(&trace_.warnings.bad_number, event_off_, EventWhat(x, "a field is unusable"));
      return true;
    }
    if (!x.has_ts || !x.has_name) {
      ++trace_.warnings.missing_field;
      return true;
    }
    const TraceEvent& ev = x.ev;
    if (ev.dur_ns < 0) {
      BadValue(&trace_.warnings.negative_duration, event_off_,
               EventWhat(x, "field 'dur' is negative: " + std::to_string(ev.dur_ns / 1000) + " us"));
      return true;
    }
    if (ev.ts_ns < -kMaxTraceTimeNs || ev.ts_ns > kMaxTraceTimeNs || ev.dur_ns > kMaxTraceTimeNs - ev.ts_ns) {
      const bool ts_out = ev.ts_ns < -kMaxTraceTimeNs || ev.ts_ns > kMaxTraceTimeNs;
      BadValue(&trace_.warnings.bad_number, event_off_,
               EventWhat(x, std::string(ts_out ? "field 'ts'" : "fields 'ts' + 'dur'") +
                                " beyond the +-4e18 ns (126 years) supported around the time base"));
      return true;
    }
    return false;
  }

  // Appends the event read to trace_.events, or counts why not.
  void KeepEvent(EventFields& x) {
    if (Rejected(x)) return;
    TraceEvent& ev = x.ev;
    if (x.frac) trace_.fractional_ts = true;
    ev.name = names_.Intern(x.name);
    if (x.has_coll && (ev.kind == EventKind::kKernel)) {
      ev.collective = static_cast<int32_t>(trace_.collectives.size());
      trace_.collectives.push_back(std::move(x.coll));
    }
    if (x.device >= 0 && first_device_ < 0 && (ev.kind == EventKind::kKernel)) first_device_ = x.device;
    if (x.bandwidth_gbps >= 0 && trace_.events.size() < std::numeric_limits<uint32_t>::max())
      trace_.memory_bandwidth_gbps.emplace_back(static_cast<uint32_t>(trace_.events.size()), x.bandwidth_gbps);
    if ((x.wait.wait_on_stream >= 0 || x.wait.record_correlation >= 0) && ev.kind == EventKind::kCudaSync &&
        trace_.events.size() < std::numeric_limits<uint32_t>::max()) {
      x.wait.event = static_cast<uint32_t>(trace_.events.size());
      trace_.sync_waits.push_back(x.wait);
    }
    trace_.events.push_back(ev);
  }

  void Finish() {
    trace_.names = names_.Take();
    if (bad_offset_ >= 0) {
      const int64_t line = src_.LineOf(bad_offset_);
      trace_.warnings.first_bad_value = label_ + ":" + (line > 0 ? std::to_string(line) + ":" : std::string()) + " " +
                                        bad_what_ + " (byte " + std::to_string(bad_offset_) + ")";
    }
    trace_.legacy_layout = legacy_;
    if (src_.truncated) {
      trace_.warnings.truncated = 1;
      if (trace_.warnings.truncated_at.empty())
        trace_.warnings.truncated_at = "in the gzip stream, after the JSON ended";
    }
    if (first_device_ >= 0) {
      auto it = device_names_.find(first_device_);
      if (it != device_names_.end()) trace_.device_name = it->second;
    } else if (device_names_.size() == 1) {
      trace_.device_name = device_names_.begin()->second;
    }
    // Reserved capacity beyond the events stays virtual (never touched), so it is not shrunk:
    // shrinking would copy every event once more.
  }

  static constexpr size_t kMaxValueBytes = 256u << 20;
  static constexpr size_t kBatchBytes = 1u << 20;
  std::vector<std::pair<size_t, size_t>> batch_;  // (offset in buf_, length) of each event
  size_t batch_bytes_ = 0;
  Buffer batch_buf_;
  ByteSource& src_;
  std::string label_;
  size_t chunk_;
  std::function<void(int64_t)> on_read_;  // KinetoReadOptions::on_read
  Buffer buf_;
  size_t pos_ = 0;
  size_t consumed_ = 0;
  int64_t bad_offset_ = -1;  // byte of the first unusable number (-1: none), and what it is
  std::string bad_what_;
  size_t event_off_ = 0;  // offset in buf_ of the event being parsed (for messages)
  bool eof_ = false;
  bool saw_events_ = false;
  bool legacy_ = false;
  int64_t first_device_ = -1;
  std::unordered_map<int64_t, std::string> device_names_;
  od::parser parser_;
  RankTrace trace_;
  NameTable names_;
};

}  // namespace

RankTrace ReadKinetoTrace(const std::string& path, const KinetoReadOptions& options) {
  GzSource src(path);
  KinetoReader r(src, path, std::max<size_t>(options.chunk_bytes, 4096));
  // Reserve the event vector once from the file size (Kineto events take 150-900 bytes of JSON;
  // a gzip file inflates about 10x), so it never grows by copying.
  std::error_code ec;
  const uintmax_t size = std::filesystem::file_size(path, ec);
  if (!ec) r.ReserveEvents(static_cast<size_t>(std::min<uintmax_t>(size / (src.gzipped() ? 15 : 150), 50'000'000)));
  r.OnRead(options.on_read);
  return r.Run();
}

RankTrace ParseKinetoTrace(std::string_view json, const std::string& label) {
  MemorySource src(json);
  KinetoReader r(src, label, 1 << 16);
  return r.Run();
}

}  // namespace paratune
