#include "trace/trace_set.h"

#include <mutex>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "trace/kineto_reader.h"
#include "trace/nsys_reader.h"
#include "util/error.h"
#include "util/file.h"
#include "util/thread_pool.h"
#include "util/text.h"

namespace paratune {
namespace {

namespace fs = std::filesystem;

bool EndsWith(const std::string& s, const char* suffix) {
  const size_t n = std::strlen(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

bool IsTraceFileName(const std::string& name) {
  return EndsWith(name, ".json") || EndsWith(name, ".json.gz") || EndsWith(name, ".sqlite");
}

// SQLite files start with "SQLite format 3\0" (sqlite.org/fileformat.html, section 1.3).
bool IsSqliteFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char head[16] = {};
  in.read(head, sizeof head);
  return in.gcount() == 16 && std::memcmp(head, "SQLite format 3", 16) == 0;
}

}  // namespace

std::vector<std::string> ExpandTraceInputs(const std::vector<std::string>& inputs) {
  std::vector<std::string> files;
  for (const std::string& in : inputs) {
    std::error_code ec;
    if (fs::is_directory(in, ec)) {
      std::vector<std::string> found;
      for (const auto& entry : fs::directory_iterator(in, ec)) {
        if (!entry.is_regular_file(ec)) continue;
        const std::string name = entry.path().filename().string();
        if (IsTraceFileName(name)) found.push_back(entry.path().string());
      }
      if (ec) throw InputError(in + ": cannot list directory: " + ec.message());
      if (found.empty()) throw InputError(in + ": no trace files (*.json, *.json.gz, *.sqlite) in this directory");
      std::sort(found.begin(), found.end());
      files.insert(files.end(), found.begin(), found.end());
    } else if (!fs::exists(fs::symlink_status(in, ec))) {
      throw InputError(in + ": no such file or directory");
    } else {
      RequireRegularFile(in);  // a link loop, a dangling link, a FIFO or a device each say so
      files.push_back(in);
    }
  }
  if (files.empty()) throw InputError("no trace files given");
  // One file named twice (directly, through a link or a directory) would count its rank twice.
  for (size_t i = 0; i < files.size(); ++i)
    for (size_t j = 0; j < i; ++j) {
      std::error_code ec;
      if (fs::equivalent(files[i], files[j], ec))
        throw InputError(files[i] + ": given twice (also as " + files[j] + ")");
    }
  return files;
}

namespace {}  // namespace

std::string UnusableReason(const RankTrace& t, bool allow_partial) {
  const TraceWarnings& w = t.warnings;
  if (t.events.empty()) {
    std::string why;
    if (w.truncated)
      why = "the file ends " + w.truncated_at + " before the first complete event";
    else if (w.BadValues() > 0 && !w.first_bad_value.empty())
      why = "every event was unusable; the first: " + w.first_bad_value;
    else if (w.Total() > 0)
      why = "every event was unusable (" + std::to_string(w.Total()) + " broken)";
    else if (t.skipped_events > 0)
      why = "only instant, flow, metadata or counter events";
    else
      why = "\"traceEvents\" is empty";
    return t.path + ": no trace events to analyse (" + why + ")";
  }
  if (allow_partial) return "";
  if (w.truncated)
    return t.path + ": truncated: the file ends " + (w.truncated_at.empty() ? "early" : w.truncated_at) + " after " +
           std::to_string(t.events.size()) + " events (--allow-partial analyses the events read)";
  if (w.BadValues() > 0) {
    const int64_t more = w.BadValues() - 1;
    const std::string first =
        w.first_bad_value.empty() ? t.path + ": an event with an unusable number" : w.first_bad_value;
    return first + (more > 0 ? " (and " + std::to_string(more) + " more)" : std::string()) +
           "; --allow-partial skips them";
  }
  return "";
}

namespace {

// The reading threads' reports, in turn: the megabytes read of all files within a file (every
// refill, so that a long file can be stopped, e.g. by Ctrl-C in Python), the files read after each.
class ReadingProgress {
 public:
  ReadingProgress(const std::vector<std::string>& files, Progress* progress)
      : progress_(progress), read_(files.size(), 0), size_(files.size(), 0) {
    for (size_t i = 0; i < files.size(); ++i) {
      std::error_code ec;
      const uintmax_t n = fs::file_size(files[i], ec);
      size_[i] = ec ? 0 : static_cast<int64_t>(n);
      total_bytes_ += size_[i];
    }
  }
  void Read(size_t file, int64_t bytes) {
    const std::lock_guard<std::mutex> lock(mutex_);
    bytes_ += bytes - read_[file];
    read_[file] = bytes;
    ReportProgress(progress_, "reading traces, MB", bytes_ >> 20, total_bytes_ >> 20);
  }
  // A report without new bytes (an SQLite export's rows are not its bytes): Ctrl-C is seen.
  void Tick() {
    const std::lock_guard<std::mutex> lock(mutex_);
    ReportProgress(progress_, "reading traces, MB", bytes_ >> 20, total_bytes_ >> 20);
  }
  void FileDone(size_t file) {
    const std::lock_guard<std::mutex> lock(mutex_);
    bytes_ += std::max<int64_t>(0, size_[file] - read_[file]);
    read_[file] = std::max(read_[file], size_[file]);
    ReportProgress(progress_, "reading traces, files", ++files_read_, static_cast<int64_t>(read_.size()));
  }

 private:
  Progress* progress_;
  std::mutex mutex_;
  std::vector<int64_t> read_, size_;  // per file: bytes read so far, size on disk
  int64_t bytes_ = 0, total_bytes_ = 0, files_read_ = 0;
};

}  // namespace

int RankFromFileName(const std::string& path) {
  const std::string name = AsciiLower(fs::path(path).filename().string());
  for (const char* tag : {"rank", "worker"}) {
    size_t at = 0;
    while ((at = name.find(tag, at)) != std::string::npos) {
      size_t i = at + std::strlen(tag);
      if (i < name.size() && (name[i] == '-' || name[i] == '_' || name[i] == '.')) ++i;
      size_t j = i;
      while (j < name.size() && std::isdigit(static_cast<unsigned char>(name[j])) && j - i < 7) ++j;
      if (j > i && (j == name.size() || !std::isdigit(static_cast<unsigned char>(name[j]))))
        return std::stoi(name.substr(i, j - i));
      at = i;
    }
  }
  return -1;
}

namespace {

// One file's ranks, numbered: from the trace, else the file name; a lone file of a one-file set
// without either is rank 0 of a one-rank view. Throws InputError.
std::vector<RankTrace> ReadTraceFile(const std::vector<std::string>& files, size_t i, const TraceSetOptions& options,
                                     ReadingProgress& progress, size_t progress_slot) {
  std::vector<RankTrace> ranks;
  if (IsSqliteFile(files[i])) {
    ranks = ReadNsightSqlite(
        files[i], options.progress ? std::function<void()>([&progress] { progress.Tick(); }) : std::function<void()>());
  } else {
    KinetoReadOptions read;
    if (options.progress)
      read.on_read = [&progress, progress_slot](int64_t bytes) { progress.Read(progress_slot, bytes); };
    ranks.push_back(ReadKinetoTrace(files[i], read));
  }
  progress.FileDone(progress_slot);
  for (RankTrace& t : ranks) {
    if (t.rank < 0) {
      t.rank = RankFromFileName(files[i]);
      t.rank_source = "file name";
    }
    if (t.rank < 0) {
      if (files.size() != 1 || ranks.size() != 1)
        throw InputError(files[i] +
                         ": no rank in the trace (distributedInfo.rank) or the file name; name the files "
                         "rank<N>.json or pass them one rank per file");
      t.rank = 0;
      t.rank_source = "single file";
    }
  }
  return ranks;
}

}  // namespace

std::vector<TraceFileRead> ReadTraceFiles(const std::vector<std::string>& files, const std::vector<size_t>& which,
                                          const TraceSetOptions& options) {
  std::vector<std::string> mine;
  for (size_t i : which) mine.push_back(files.at(i));
  ReadingProgress progress(mine, options.progress);
  std::vector<TraceFileRead> out(which.size());
  ParallelFor(which.size(), options.threads, [&](size_t k) {
    out[k].file = which[k];
    try {
      out[k].ranks = ReadTraceFile(files, which[k], options, progress, k);
    } catch (const InputError& e) {
      out[k].ranks.clear();
      out[k].error = e.what();
    }
  });
  return out;
}

void CheckRankSet(std::vector<RankOrigin> origins) {
  std::stable_sort(origins.begin(), origins.end(), [](const RankOrigin& a, const RankOrigin& b) {
    return a.rank != b.rank ? a.rank < b.rank : a.file < b.file;
  });
  for (size_t i = 1; i < origins.size(); ++i)
    if (origins[i].rank == origins[i - 1].rank)
      throw InputError(origins[i].path + ": rank " + std::to_string(origins[i].rank) + " also comes from " +
                       origins[i - 1].path);
  for (const RankOrigin& o : origins)
    if (!o.unusable.empty()) throw InputError(o.unusable);
}

std::vector<RankTrace> ReadTraceSet(const std::vector<std::string>& inputs, const TraceSetOptions& options) {
  const std::vector<std::string> files = ExpandTraceInputs(inputs);
  std::vector<size_t> all(files.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  std::vector<TraceFileRead> reads = ReadTraceFiles(files, all, options);
  // The first file's error in the given order, whatever the scheduling.
  for (const TraceFileRead& r : reads)
    if (!r.error.empty()) throw InputError(r.error);
  std::vector<RankTrace> ranks;
  std::vector<RankOrigin> origins;
  for (TraceFileRead& r : reads)
    for (RankTrace& t : r.ranks) {
      origins.push_back({t.rank, t.path, r.file, UnusableReason(t, options.allow_partial)});
      ranks.push_back(std::move(t));
    }
  CheckRankSet(std::move(origins));
  std::stable_sort(ranks.begin(), ranks.end(), [](const RankTrace& a, const RankTrace& b) { return a.rank < b.rank; });
  return ranks;
}

}  // namespace paratune
