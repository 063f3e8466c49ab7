// Reading and writing whole files, with errors as InputError naming the path: inputs must be
// regular files (a FIFO, socket or device would block or never end), outputs are written
// atomically when they are regular files and through when they are a FIFO or character device.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace paratune {

// Throws InputError("PATH: cannot read: REASON") unless `path` (symlinks followed) is a regular
// file: missing, a symbolic-link loop, a directory, a FIFO, a socket or a device each say so.
void RequireRegularFile(const std::string& path);

// The bytes of `path`; throws InputError("PATH: cannot read: REASON").
std::string ReadFile(const std::string& path);

// The bytes of a plain or gzip-compressed file (zlib reads plain files transparently), at most
// `max_bytes` after decompression: a larger file, a truncated or corrupt gzip stream, or an
// unreadable file throws InputError naming the path.
std::string ReadMaybeGzipFile(const std::string& path, size_t max_bytes = size_t{4} << 30);

// Up to `n` bytes from the start of a plain or gzip file (decompressed): enough to tell what the
// file is. Throws InputError when the file cannot be opened.
std::string ReadFileHead(const std::string& path, size_t n);

// Writes `content` to `path`. A new or regular file is written to a temporary file beside it
// and renamed over it, so a failure never leaves a half-written file (an existing file keeps its
// permission bits; a symbolic link is followed and the file it names replaced, the link kept).
// A character device (/dev/null) or a FIFO with a reader is written through, never replaced. A
// directory, socket, block device, dangling link, link loop, FIFO without a reader or a failed
// write (a full disk: /dev/full) throws InputError("PATH: cannot write: REASON").
void WriteFileAtomic(const std::string& path, const std::string& content);

// Refuses an output `path` that would replace one of `inputs` (the same file by device and
// inode, or a .json, .gz, .csv or .sqlite directly inside an input directory): InputError
// "FLAG PATH: is an input of this command (INPUT); refusing to overwrite it". `flag` names the
// option ("--trace-out", or the Python keyword).
void RefuseOverwritingInputs(const std::string& flag, const std::string& path, const std::vector<std::string>& inputs);

}  // namespace paratune
