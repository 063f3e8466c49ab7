#include "util/file.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>
#include <unistd.h>

#include <zlib.h>

#include "util/error.h"

namespace paratune {

std::string ReadFile(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw InputError(path + ": cannot read: is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot read: " + std::strerror(errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw InputError(path + ": cannot read: I/O error");
  return ss.str();
}

namespace {

// Reads through gzread until `limit` bytes or the end; `truncated` when the gzip stream ended
// early or was corrupt.
std::string GzRead(const std::string& path, size_t limit, bool whole) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw InputError(path + ": cannot read: is a directory");
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) throw InputError(path + ": cannot read: " + std::strerror(errno));
  gzbuffer(f, 1 << 17);
  std::string out;
  char buf[1 << 16];
  while (out.size() < limit) {
    const size_t want = std::min(sizeof buf, limit - out.size());
    const int n = gzread(f, buf, static_cast<unsigned>(want));
    if (n < 0) {
      int code = 0;
      const std::string msg = gzerror(f, &code);
      gzclose(f);
      throw InputError(path + ": cannot read: " + (code == Z_DATA_ERROR ? "corrupt gzip data" : msg));
    }
    if (n == 0) {
      int code = 0;
      gzerror(f, &code);
      gzclose(f);
      if (whole && code == Z_BUF_ERROR) throw InputError(path + ": truncated gzip stream");
      return out;
    }
    out.append(buf, static_cast<size_t>(n));
  }
  const bool more = whole && gzread(f, buf, 1) > 0;
  gzclose(f);
  if (more) throw InputError(path + ": larger than " + std::to_string(limit >> 20) + " MiB after decompression; refusing to read it whole");
  return out;
}

}  // namespace

std::string ReadMaybeGzipFile(const std::string& path, size_t max_bytes) { return GzRead(path, max_bytes, true); }

std::string ReadFileHead(const std::string& path, size_t n) { return GzRead(path, n, false); }

void WriteFileAtomic(const std::string& path, const std::string& content) {
  const std::string tmp = path + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw InputError(path + ": cannot write: " + std::strerror(errno));
    out << content;
    out.flush();
    if (!out) {
      std::remove(tmp.c_str());
      throw InputError(path + ": cannot write: I/O error");
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::remove(tmp.c_str());
    throw InputError(path + ": cannot write: " + ec.message());
  }
}

}  // namespace paratune
