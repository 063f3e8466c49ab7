// Reading and atomically writing whole files, with errors as InputError naming the path.
#pragma once

#include <cstddef>
#include <string>

namespace paratune {

// The bytes of `path`; throws InputError("PATH: cannot read: REASON").
std::string ReadFile(const std::string& path);

// The bytes of a plain or gzip-compressed file (zlib reads plain files transparently), at most
// `max_bytes` after decompression: a larger file, a truncated or corrupt gzip stream, or an
// unreadable file throws InputError naming the path.
std::string ReadMaybeGzipFile(const std::string& path, size_t max_bytes = size_t{4} << 30);

// Up to `n` bytes from the start of a plain or gzip file (decompressed): enough to tell what the
// file is. Throws InputError when the file cannot be opened.
std::string ReadFileHead(const std::string& path, size_t n);

// Writes `content` to a temporary file beside `path`, then renames it over `path`, so that a
// failure never leaves a half-written file. Throws InputError on failure.
void WriteFileAtomic(const std::string& path, const std::string& content);

}  // namespace paratune
