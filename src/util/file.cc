#include "util/file.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#include "util/error.h"

namespace paratune {

namespace {

// What a path that is not a regular file is, for "PATH: cannot read/write: is a ...".
const char* KindOf(mode_t mode) {
  if (S_ISDIR(mode)) return "is a directory";
  if (S_ISFIFO(mode)) return "is a FIFO (named pipe), not a regular file";
  if (S_ISSOCK(mode)) return "is a socket, not a regular file";
  if (S_ISCHR(mode)) return "is a character device, not a regular file";
  if (S_ISBLK(mode)) return "is a block device, not a regular file";
  return "is not a regular file";
}

// strerror, with the link cases said plainly.
std::string Reason(int err) {
  if (err == ELOOP) return "symbolic link loop (too many levels of links)";
  return std::strerror(err);
}

}  // namespace

void RequireRegularFile(const std::string& path) {
  if (path.empty()) throw InputError("empty file name");
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    const int err = errno;
    struct stat link {};
    if (err == ENOENT && ::lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode))
      throw InputError(path + ": cannot read: symbolic link to a missing file");
    throw InputError(path + ": cannot read: " + Reason(err));
  }
  if (!S_ISREG(st.st_mode)) throw InputError(path + ": cannot read: " + KindOf(st.st_mode));
}

std::string ReadFile(const std::string& path) {
  RequireRegularFile(path);
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
  RequireRegularFile(path);
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
  if (more)
    throw InputError(path + ": larger than " + std::to_string(limit >> 20) +
                     " MiB after decompression; refusing to read it whole");
  return out;
}

}  // namespace

std::string ReadMaybeGzipFile(const std::string& path, size_t max_bytes) { return GzRead(path, max_bytes, true); }

std::string ReadFileHead(const std::string& path, size_t n) { return GzRead(path, n, false); }

namespace {

// Writes all of `content` to `fd`; false with errno set on failure.
bool WriteAll(int fd, const std::string& content) {
  for (size_t done = 0; done < content.size();) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = EIO;
      return false;
    }
    done += static_cast<size_t>(n);
  }
  return true;
}

// A character device or a FIFO: written through, never replaced. A FIFO is opened without
// blocking first: with no reader that fails (ENXIO) instead of waiting forever.
void WriteThrough(const std::string& path, const std::string& content, bool fifo) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | (fifo ? O_NONBLOCK : 0));
  if (fd < 0) {
    const int err = errno;
    throw InputError(path + ": cannot write: " +
                     (fifo && err == ENXIO ? std::string("no process is reading this FIFO") : Reason(err)));
  }
  if (fifo) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  const bool ok = WriteAll(fd, content);
  const int err = errno;
  if (::close(fd) != 0 && ok) throw InputError(path + ": cannot write: " + Reason(errno));
  if (!ok) throw InputError(path + ": cannot write: " + Reason(err));
}

// A regular file (new or existing; `existing` has its mode): a temporary file beside it,
// renamed over it once every byte is written and closed.
void WriteReplacing(const std::string& shown, const std::string& target, const std::string& content,
                    const struct stat* existing) {
  const std::string tmp = target + ".tmp" + std::to_string(::getpid());
  const mode_t mode = existing ? (existing->st_mode & 07777) : 0666;
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0) throw InputError(shown + ": cannot write: " + Reason(errno));
  if (existing) ::fchmod(fd, mode);  // the umask does not narrow an existing file's mode
  bool ok = WriteAll(fd, content);
  int err = errno;
  if (::close(fd) != 0 && ok) ok = false, err = errno;
  if (!ok) {
    ::unlink(tmp.c_str());
    throw InputError(shown + ": cannot write: " + Reason(err));
  }
  if (::rename(tmp.c_str(), target.c_str()) != 0) {
    err = errno;
    ::unlink(tmp.c_str());
    throw InputError(shown + ": cannot write: " + Reason(err));
  }
}

}  // namespace

void WriteFileAtomic(const std::string& path, const std::string& content) {
  if (path.empty()) throw InputError("empty output file name");
  struct stat link {};
  if (::lstat(path.c_str(), &link) != 0) {
    if (errno != ENOENT) throw InputError(path + ": cannot write: " + Reason(errno));
    return WriteReplacing(path, path, content, nullptr);  // a new file
  }
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    const int err = errno;
    throw InputError(
        path + ": cannot write: " + (err == ENOENT ? std::string("symbolic link to a missing file") : Reason(err)));
  }
  if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) return WriteThrough(path, content, S_ISFIFO(st.st_mode));
  if (!S_ISREG(st.st_mode)) throw InputError(path + ": cannot write: " + KindOf(st.st_mode));
  if (!S_ISLNK(link.st_mode)) return WriteReplacing(path, path, content, &st);
  std::error_code ec;
  const std::string target = std::filesystem::canonical(path, ec).string();  // the file the link names
  if (ec) throw InputError(path + ": cannot write: " + ec.message());
  WriteReplacing(path, target, content, &st);
}

namespace {

// Whether writing `out` would replace `in` or a file read from it.
bool Overwrites(const std::string& out, const std::string& in) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(in, ec)) {
    const fs::path o(out);
    const std::string ext = o.extension().string();
    return (ext == ".json" || ext == ".gz" || ext == ".csv" || ext == ".sqlite") &&
           fs::equivalent(o.parent_path().empty() ? "." : o.parent_path(), in, ec);
  }
  return fs::equivalent(out, in, ec);
}

}  // namespace

void RefuseOverwritingInputs(const std::string& flag, const std::string& path, const std::vector<std::string>& inputs) {
  for (const std::string& in : inputs)
    if (!in.empty() && Overwrites(path, in))
      throw InputError(flag + " " + path + ": is an input of this command (" + in + "); refusing to overwrite it");
}

}  // namespace paratune
