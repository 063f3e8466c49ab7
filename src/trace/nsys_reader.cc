#include "trace/nsys_reader.h"

#include <sqlite3.h>

#include <algorithm>
#include <cerrno>
#include <compare>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "trace/name_table.h"
#include "util/error.h"
#include "util/file.h"
#include "util/text.h"

namespace paratune {
namespace {

// Table names of `nsys export --type sqlite` (Nsight Systems documentation, "SQLite Export Schema
// Reference"). Tables are created lazily: a report without NVTX has no NVTX_EVENTS, and so on.
constexpr const char* kStringIds = "StringIds";
constexpr const char* kKernelTable = "CUPTI_ACTIVITY_KIND_KERNEL";
constexpr const char* kMemcpyTable = "CUPTI_ACTIVITY_KIND_MEMCPY";
constexpr const char* kMemsetTable = "CUPTI_ACTIVITY_KIND_MEMSET";
constexpr const char* kRuntimeTable = "CUPTI_ACTIVITY_KIND_RUNTIME";
constexpr const char* kNvtxTable = "NVTX_EVENTS";
constexpr const char* kGpuInfoTable = "TARGET_INFO_GPU";

// NVTX_EVENTS.eventType values (ENUM_NSYS_EVENT_TYPE): 59 NvtxPushPopRange, 60 NvtxStartEndRange.
// Marks (34), domain and category definitions carry no range and are not read.
constexpr int kNvtxPushPopRange = 59;
constexpr int kNvtxStartEndRange = 60;

// globalTid / globalPid are "serialized GlobalIds" (docs, "Serialized process and thread
// identifiers"): TID in the low 24 bits, PID in the next 24, hardware and VM ids above. The bits
// from 24 up name a process on a machine; globalPid is globalTid with the TID bits zero.
int64_t ProcessOf(int64_t global_id) { return global_id >> 24; }
int32_t ThreadOf(int64_t global_tid) { return static_cast<int32_t>(global_tid & 0xFFFFFF); }

// CUpti_ActivityMemcpyKind and CUpti_ActivityMemoryKind (CUPTI activity API), spelled as Kineto
// spells them in its event names (libkineto/src/cupti_strings.cpp), so that an nsys memcpy reads
// "Memcpy HtoD (Pageable -> Device)" as it does in a PyTorch profiler trace.
const char* MemcpyKindName(int64_t kind) {
  static constexpr const char* kNames[] = {"HtoD", "DtoH", "HtoA", "AtoH", "AtoA",
                                           "AtoD", "DtoA", "DtoD", "HtoH", "PtoP"};
  return kind >= 1 && kind <= 10 ? kNames[kind - 1] : nullptr;
}

const char* MemoryKindName(int64_t kind) {
  static constexpr const char* kNames[] = {"Unknown", "Pageable", "Pinned",        "Device",
                                           "Array",   "Managed",  "Device Static", "Managed Static"};
  return kind >= 0 && kind <= 7 ? kNames[kind] : "Unrecognized";
}

// "cudaLaunchKernel_v7000" -> "cudaLaunchKernel": nsys names runtime calls with the API version
// suffix of their CUPTI callback id, Kineto without.
std::string_view StripVersionSuffix(std::string_view name) {
  size_t i = name.size();
  while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9') --i;
  if (i == name.size() || i < 2 || name[i - 1] != 'v' || name[i - 2] != '_') return name;
  return name.substr(0, i - 2);
}

std::string QuoteIdentifier(std::string_view identifier) { return "\"" + std::string(identifier) + "\""; }

struct CloseDb {
  void operator()(sqlite3* db) const { sqlite3_close(db); }
};
struct FinalizeStmt {
  void operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }
};
using StmtPtr = std::unique_ptr<sqlite3_stmt, FinalizeStmt>;

// The export file, opened read-only, with its list of tables. SQLite failures become InputError
// naming the file and the table being read.
class Export {
 public:
  explicit Export(const std::string& path) : path_(path) {
    RequireRegularFile(path);
    if (!std::ifstream(path, std::ios::binary)) throw InputError(path + ": cannot read: " + std::strerror(errno));
    sqlite3* db = nullptr;
    // One thread uses the connection: no SQLite mutexes (they cost ~10% of a large read).
    const int rc = sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nullptr);
    db_.reset(db);  // a handle comes back even on failure and must be closed
    if (rc != SQLITE_OK)
      throw InputError(path + ": cannot open as SQLite (" + (db ? sqlite3_errmsg(db) : sqlite3_errstr(rc)) + ")");
    // Map the file rather than copy its pages through the page cache (faster on large exports;
    // ignored where SQLite was built without mmap).
    sqlite3_exec(db, "PRAGMA mmap_size = 1099511627776", nullptr, nullptr, nullptr);
    // Reading the schema is the first access to the file: a file that is not SQLite fails here.
    sqlite3_stmt* raw = nullptr;
    int prc = sqlite3_prepare_v2(db, "SELECT name FROM sqlite_master WHERE type = 'table'", -1, &raw, nullptr);
    StmtPtr stmt(raw);
    while (prc == SQLITE_OK) {
      const int step = sqlite3_step(stmt.get());
      if (step == SQLITE_DONE) break;
      if (step != SQLITE_ROW) {
        prc = step;
        break;
      }
      if (const unsigned char* name = sqlite3_column_text(stmt.get(), 0))
        tables_.insert(reinterpret_cast<const char*>(name));
    }
    if (prc != SQLITE_OK && prc != SQLITE_DONE) {
      if (sqlite3_errcode(db) == SQLITE_NOTADB)
        throw InputError(path + ": not an SQLite database (" + sqlite3_errmsg(db) +
                         "); export an .nsys-rep with `nsys export --type sqlite`");
      throw InputError(path + ": cannot read the SQLite schema (" + sqlite3_errmsg(db) + ")");
    }
  }

  const std::string& path() const { return path_; }
  bool HasTable(const std::string& table) const { return tables_.count(table) > 0; }

  // Column names of `table` (PRAGMA table_info).
  std::unordered_set<std::string> Columns(const std::string& table) {
    std::unordered_set<std::string> columns;
    StmtPtr stmt = Prepare("PRAGMA table_info(" + QuoteIdentifier(table) + ")", table);
    while (Step(stmt.get(), table)) {
      if (const unsigned char* name = sqlite3_column_text(stmt.get(), 1))
        columns.insert(reinterpret_cast<const char*>(name));
    }
    return columns;
  }

  StmtPtr Prepare(const std::string& sql, const std::string& table) {
    sqlite3_stmt* raw = nullptr;
    const int rc = sqlite3_prepare_v2(db_.get(), sql.c_str(), -1, &raw, nullptr);
    StmtPtr stmt(raw);
    if (rc != SQLITE_OK) Fail(table);
    return stmt;
  }

  // Called every 65,536 rows Step reads (ReadNsightSqlite's on_rows).
  void OnRows(std::function<void()> on_rows) { on_rows_ = std::move(on_rows); }

  // Advances `stmt`: true on a row, false when done.
  bool Step(sqlite3_stmt* stmt, const std::string& table) {
    const int rc = sqlite3_step(stmt);
    if (on_rows_ && (++rows_ & 0xffff) == 0) on_rows_();
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    Fail(table);
  }

 private:
  [[noreturn]] void Fail(const std::string& table) {
    throw InputError(path_ + ": table " + table + ": " + sqlite3_errmsg(db_.get()));
  }

  std::string path_;
  std::unique_ptr<sqlite3, CloseDb> db_;
  std::unordered_set<std::string> tables_;
  std::function<void()> on_rows_;
  int64_t rows_ = 0;  // Step calls, for on_rows_
};

// The columns of one table, checked against the ones the reader needs.
class Columns {
 public:
  Columns(Export& db, const std::string& table) : path_(db.path()), table_(table), names_(db.Columns(table)) {}

  bool Has(const std::string& column) const { return names_.count(column) > 0; }

  // `column` quoted for a SELECT; throws when the table lacks it.
  std::string Require(const std::string& column) const {
    if (!Has(column)) Missing(column);
    return QuoteIdentifier(column);
  }
  // `column` quoted, or NULL when the table lacks it (optional columns).
  std::string Optional(const std::string& column) const { return Has(column) ? QuoteIdentifier(column) : "NULL"; }

  [[noreturn]] void Missing(const std::string& column) const {
    throw InputError(path_ + ": table " + table_ + " lacks column " + column +
                     " (nsys export of an unsupported version?)");
  }

 private:
  std::string path_;
  std::string table_;
  std::unordered_set<std::string> names_;
};

// One integer cell of the current row: the value, NULL, or not an integer.
enum class Cell { kOk, kNull, kBad };

Cell IntAt(sqlite3_stmt* stmt, int col, int64_t* out) {
  switch (sqlite3_column_type(stmt, col)) {
    case SQLITE_INTEGER:
      *out = sqlite3_column_int64(stmt, col);
      return Cell::kOk;
    case SQLITE_NULL:
      return Cell::kNull;
    default:
      return Cell::kBad;
  }
}

std::string_view TextAt(sqlite3_stmt* stmt, int col) {
  const unsigned char* p = sqlite3_column_text(stmt, col);
  if (p == nullptr) return {};
  return std::string_view(reinterpret_cast<const char*>(p), static_cast<size_t>(sqlite3_column_bytes(stmt, col)));
}

// The cells of the current row of one table, with the row's place for messages: an unusable
// number is counted (bad_number, negative_duration) and the first one described as
// "FILE: table T, row N: column C: 'VALUE' is not an integer" (row N: the N-th row of the table).
class RowCells {
 public:
  RowCells(sqlite3_stmt* stmt, const std::string& path, const char* table) : s_(stmt), path_(path), table_(table) {}
  void Next() { ++row_; }

  void Bad(TraceWarnings& w, int64_t TraceWarnings::*counter, const std::string& what) const {
    ++(w.*counter);
    if (w.first_bad_value.empty())
      w.first_bad_value = path_ + ": table " + table_ + ", row " + std::to_string(row_) + ": " + what;
  }

  // The cell's text for a message: quoted, at most 40 bytes, control bytes as '?'.
  std::string Text(int col) const {
    if (sqlite3_column_type(s_, col) == SQLITE_BLOB) return "a blob";
    return Quote(TextAt(s_, col));
  }
  std::string Column(int col) const {
    const char* n = sqlite3_column_name(s_, col);
    return n ? n : "?";
  }

  // Integer column `col` in [lo, hi]: kOk with *out set, kNull, or kBad (counted as a bad number
  // in `w`) for a non-integer (text, a real such as 1e400) or a value out of the range.
  Cell Int(int col, int64_t lo, int64_t hi, int64_t* out, TraceWarnings& w) const {
    int64_t v = 0;
    const Cell c = IntAt(s_, col, &v);
    if (c == Cell::kNull) return c;
    if (c == Cell::kBad) {
      Bad(w, &TraceWarnings::bad_number, "column " + Column(col) + ": " + Text(col) + " is not an integer");
      return c;
    }
    if (v < lo || v > hi) {
      Bad(w, &TraceWarnings::bad_number,
          "column " + Column(col) + ": " + std::to_string(v) + " is outside " + std::to_string(lo) + ".." +
              std::to_string(hi));
      return Cell::kBad;
    }
    *out = v;
    return c;
  }
  // The same with NULL read as `null_value`; false only for a bad value.
  bool IntOr(int col, int64_t lo, int64_t hi, int64_t null_value, int64_t* out, TraceWarnings& w) const {
    const Cell c = Int(col, lo, hi, out, w);
    if (c == Cell::kNull) *out = null_value;
    return c != Cell::kBad;
  }

  // start (column 0) and end (column 1) into ev; false (and a warning) when unusable.
  bool Times(TraceEvent* ev, TraceWarnings& w) const {
    int64_t start = 0, end = 0;
    const Cell a = Int(0, -kMaxTraceTimeNs, kMaxTraceTimeNs, &start, w);
    if (a == Cell::kBad) return false;
    const Cell b = Int(1, -kMaxTraceTimeNs, kMaxTraceTimeNs, &end, w);
    if (b == Cell::kBad) return false;
    if (a == Cell::kNull || b == Cell::kNull) {
      ++w.missing_field;
      return false;
    }
    if (end < start) {
      Bad(w, &TraceWarnings::negative_duration,
          "end " + std::to_string(end) + " is before start " + std::to_string(start) + " (negative duration)");
      return false;
    }
    ev->ts_ns = start;
    ev->dur_ns = end - start;
    return true;
  }

 private:
  sqlite3_stmt* s_;
  const std::string& path_;
  const char* table_;
  int64_t row_ = 0;
};

constexpr int64_t kMaxInt = std::numeric_limits<int64_t>::max();

class NsysReader {
 public:
  NsysReader(const std::string& path, const std::function<void()>& on_rows) : db_(path) { db_.OnRows(on_rows); }

  std::vector<RankTrace> Run() {
    const std::string& path = db_.path();
    if (!db_.HasTable(kStringIds))
      throw InputError(path + ": no table " + kStringIds + " (not an Nsight Systems SQLite export?)");
    const Columns strings(db_, kStringIds);
    string_stmt_ = db_.Prepare("SELECT " + strings.Require("value") + " FROM " + QuoteIdentifier(kStringIds) +
                                   " WHERE " + strings.Require("id") + " = ?",
                               kStringIds);

    const char* gpu_tables[] = {kKernelTable, kMemcpyTable, kMemsetTable};
    std::vector<std::string> present;
    for (const char* t : gpu_tables)
      if (db_.HasTable(t)) present.push_back(t);
    if (present.empty())
      throw InputError(path + ": no GPU kernels, memcpy or memset in the export (no table " + kKernelTable + ", " +
                       kMemcpyTable + " or " + kMemsetTable + "; profiled without --trace=cuda?)");

    // Check every schema before reading any row, so a bad export fails at once. Rows are matched
    // by process when every table read has the process (globalPid, globalTid) column.
    std::vector<std::pair<std::string, std::string>> gpu_queries;  // table, SELECT
    for (const std::string& t : present) gpu_queries.emplace_back(t, GpuQuery(t));
    std::string runtime_query, nvtx_query;
    if (db_.HasTable(kRuntimeTable)) runtime_query = RuntimeQuery();
    if (db_.HasTable(kNvtxTable)) nvtx_query = NvtxQuery();

    for (const auto& [table, sql] : gpu_queries) ReadGpuTable(table, sql);
    if (events_.empty()) {
      std::string counts;
      for (const auto& [table, sql] : gpu_queries)
        counts += (counts.empty() ? "" : ", ") + table + " " + std::to_string(rows_[table]);
      throw InputError(path + ": no GPU kernels, memcpy or memset in the export (rows: " + counts + "; none usable)");
    }
    for (const auto& [device, events] : events_) all_devices_.insert(device);
    std::sort(launches_.begin(), launches_.end());
    if (!runtime_query.empty()) ReadRuntime(runtime_query);
    launches_ = {};
    if (!nvtx_query.empty()) ReadNvtx(nvtx_query);
    return Finish();
  }

 private:
  // GPU work launched by (process, correlationId): CUPTI correlation ids are unique within a
  // process only. Kept sorted, searched by binary search (runtime rows come in nearly the same
  // order, so the searches stay in cache; a hash map of millions of nodes is slower).
  struct Launch {
    int64_t process;
    int64_t correlation;
    int64_t device;
    auto operator<=>(const Launch&) const = default;
  };

  // SELECT for a GPU activity table: start, end, deviceId, streamId, correlationId, globalPid,
  // then the table's own columns (see ReadGpuTable).
  std::string GpuQuery(const std::string& table) {
    const Columns c(db_, table);
    std::string sql = "SELECT " + c.Require("start") + ", " + c.Require("end") + ", " + c.Require("deviceId") + ", " +
                      c.Require("streamId") + ", " + c.Require("correlationId") + ", " + c.Optional("globalPid");
    if (!c.Has("globalPid")) by_process_ = false;
    if (table == kKernelTable) {
      // demangledName: full name with templates and arguments (what Kineto shows); shortName: the
      // base name; mangledName: newer versions only. All are StringIds ids.
      if (!c.Has("demangledName") && !c.Has("shortName") && !c.Has("mangledName")) c.Missing("demangledName");
      sql += ", " + c.Optional("demangledName") + ", " + c.Optional("shortName") + ", " + c.Optional("mangledName");
    } else if (table == kMemcpyTable) {
      sql += ", " + c.Require("copyKind") + ", " + c.Optional("srcKind") + ", " + c.Optional("dstKind");
    } else {
      sql += ", " + c.Optional("memKind");
    }
    return sql + " FROM " + QuoteIdentifier(table);
  }

  std::string RuntimeQuery() {
    const Columns c(db_, kRuntimeTable);
    if (!c.Has("globalTid")) by_process_ = false;
    return "SELECT " + c.Require("start") + ", " + c.Require("end") + ", " + c.Require("correlationId") + ", " +
           c.Require("nameId") + ", " + c.Optional("globalTid") + " FROM " + QuoteIdentifier(kRuntimeTable);
  }

  std::string NvtxQuery() {
    const Columns c(db_, kNvtxTable);
    if (!c.Has("text") && !c.Has("textId")) c.Missing("text");
    if (!c.Has("globalTid")) by_process_ = false;
    // Every row is read (ReadNvtx keeps the finished ranges), so that a row's number in
    // messages is its place in the table.
    return "SELECT " + c.Require("start") + ", " + c.Require("end") + ", " + c.Optional("text") + ", " +
           c.Optional("textId") + ", " + c.Optional("globalTid") + ", " + c.Require("eventType") + " FROM " +
           QuoteIdentifier(kNvtxTable);
  }

  // The name of a GPU row, from its table's own columns (kernel: a StringIds id; memcpy: the copy
  // and memory kinds; memset: the memory kind); -1 when it has none, *bad for a malformed cell.
  // `name` is a buffer kept across rows.
  int64_t GpuRowName(EventKind kind, RowCells& cells, sqlite3_stmt* s, TraceWarnings& warnings, std::string& name,
                     bool* bad) {
    int64_t name_id = -1;
    if (kind == EventKind::kKernel) {
      for (int col = 6; col <= 8 && name_id < 0 && !*bad; ++col) {
        int64_t id = 0;
        const Cell c = cells.Int(col, std::numeric_limits<int64_t>::min(), kMaxInt, &id, warnings);
        *bad = c == Cell::kBad;
        if (c == Cell::kOk) name_id = StringName(id, /*strip_version=*/false);
      }
    } else if (kind == EventKind::kMemcpy) {
      int64_t copy = 0, src = -1, dst = -1;
      *bad = !cells.IntOr(6, std::numeric_limits<int64_t>::min(), kMaxInt, 0, &copy, warnings) ||
             !cells.IntOr(7, std::numeric_limits<int64_t>::min(), kMaxInt, -1, &src, warnings) ||
             !cells.IntOr(8, std::numeric_limits<int64_t>::min(), kMaxInt, -1, &dst, warnings);
      const char* k = MemcpyKindName(copy);
      name = k ? std::string("Memcpy ") + k : std::string("Memcpy");
      if (sqlite3_column_type(s, 7) != SQLITE_NULL && sqlite3_column_type(s, 8) != SQLITE_NULL)
        name = name + " (" + MemoryKindName(src) + " -> " + MemoryKindName(dst) + ")";
      name_id = names_.Intern(name);
    } else {
      int64_t mem = 3;  // 3: Device
      *bad = !cells.IntOr(6, std::numeric_limits<int64_t>::min(), kMaxInt, 3, &mem, warnings);
      name = std::string("Memset (") + MemoryKindName(mem) + ")";
      name_id = names_.Intern(name);
    }
    return name_id;
  }

  void ReadGpuTable(const std::string& table, const std::string& sql) {
    const EventKind kind = table == kKernelTable   ? EventKind::kKernel
                           : table == kMemcpyTable ? EventKind::kMemcpy
                                                   : EventKind::kMemset;
    StmtPtr stmt = db_.Prepare(sql, table);
    sqlite3_stmt* s = stmt.get();
    RowCells cells(s, db_.path(), table.c_str());
    int64_t& rows = rows_[table];
    std::string name;
    while (db_.Step(s, table)) {
      ++rows;
      cells.Next();
      int64_t device = 0;
      const Cell dc = cells.Int(2, 0, kMaxInt, &device, unplaced_);
      if (dc != Cell::kOk) {
        if (dc == Cell::kNull) ++unplaced_.missing_field;
        continue;
      }
      TraceWarnings& warnings = warnings_[device];
      TraceEvent ev;
      ev.kind = kind;
      if (!cells.Times(&ev, warnings)) continue;
      int64_t global_pid = 0;
      if (!cells.IntOr(3, 0, kMaxInt, -1, &ev.stream, warnings) ||
          !cells.IntOr(4, 0, kMaxInt, -1, &ev.correlation, warnings) ||
          !cells.IntOr(5, 0, kMaxInt, 0, &global_pid, warnings))
        continue;
      bool bad = false;
      const int64_t name_id = GpuRowName(kind, cells, s, warnings, name, &bad);
      if (bad) continue;
      if (name_id < 0) {
        ++warnings.missing_field;
        continue;
      }
      ev.name = static_cast<uint32_t>(name_id);
      events_[device].push_back(ev);
      const int64_t process = by_process_ ? ProcessOf(global_pid) : 0;
      process_devices_[process].insert(device);
      if (ev.correlation >= 0) launches_.push_back(Launch{process, ev.correlation, device});
    }
  }

  // The devices a CPU-side row of `process` belongs to: those its process ran GPU work on, else all.
  const std::set<int64_t>& DevicesOf(int64_t process) const {
    auto it = process_devices_.find(process);
    return it != process_devices_.end() ? it->second : all_devices_;
  }

  void ReadRuntime(const std::string& sql) {
    StmtPtr stmt = db_.Prepare(sql, kRuntimeTable);
    sqlite3_stmt* s = stmt.get();
    RowCells cells(s, db_.path(), kRuntimeTable);
    while (db_.Step(s, kRuntimeTable)) {
      cells.Next();
      TraceEvent ev;
      ev.kind = EventKind::kRuntime;
      int64_t global_tid = 0;
      // The rank is not known before these two: a bad one is counted on the first rank.
      if (!cells.IntOr(2, 0, kMaxInt, -1, &ev.correlation, unplaced_)) continue;
      const Cell tc = cells.Int(4, 0, kMaxInt, &global_tid, unplaced_);
      if (tc == Cell::kBad) continue;
      const bool has_tid = tc == Cell::kOk;
      const int64_t process = by_process_ && has_tid ? ProcessOf(global_tid) : 0;
      if (has_tid) ev.tid = ThreadOf(global_tid);
      // The device of the work this call launched; else the one device its process drives.
      int64_t device = -1;
      auto it = std::lower_bound(launches_.begin(), launches_.end(), Launch{process, ev.correlation, INT64_MIN});
      if (ev.correlation >= 0 && it != launches_.end() && it->process == process && it->correlation == ev.correlation) {
        device = it->device;
      } else if (const std::set<int64_t>& devices = DevicesOf(process); devices.size() == 1) {
        device = *devices.begin();
      } else {
        continue;  // a call on a process driving several GPUs (cudaMalloc, a sync): no one rank's
      }
      TraceWarnings& warnings = warnings_[device];
      if (!cells.Times(&ev, warnings)) continue;
      int64_t name_id = -1, id = 0;
      const Cell nc = cells.Int(3, std::numeric_limits<int64_t>::min(), kMaxInt, &id, warnings);
      if (nc == Cell::kBad) continue;
      if (nc == Cell::kOk) name_id = StringName(id, /*strip_version=*/true);
      if (name_id < 0) {
        ++warnings.missing_field;
        continue;
      }
      ev.name = static_cast<uint32_t>(name_id);
      events_[device].push_back(ev);
    }
  }

  void ReadNvtx(const std::string& sql) {
    StmtPtr stmt = db_.Prepare(sql, kNvtxTable);
    sqlite3_stmt* s = stmt.get();
    RowCells cells(s, db_.path(), kNvtxTable);
    while (db_.Step(s, kNvtxTable)) {
      cells.Next();
      // Only finished push/pop and start/end ranges; marks and ranges still open at the end of
      // the capture (NULL end) are not events.
      int64_t type = 0;
      if (cells.Int(5, std::numeric_limits<int64_t>::min(), kMaxInt, &type, unplaced_) != Cell::kOk) continue;
      if ((type != kNvtxPushPopRange && type != kNvtxStartEndRange) || sqlite3_column_type(s, 1) == SQLITE_NULL)
        continue;
      TraceEvent ev;
      ev.kind = EventKind::kUserAnnotation;
      int64_t global_tid = 0;
      const Cell tc = cells.Int(4, 0, kMaxInt, &global_tid, unplaced_);
      if (tc == Cell::kBad) continue;
      const bool has_tid = tc == Cell::kOk;
      if (has_tid) ev.tid = ThreadOf(global_tid);
      const std::set<int64_t>& devices = DevicesOf(by_process_ && has_tid ? ProcessOf(global_tid) : 0);
      TraceWarnings& warnings = warnings_[*devices.begin()];
      if (!cells.Times(&ev, warnings)) continue;
      // The text is inline (`text`) or registered once and referenced (`textId`, StringIds).
      int64_t name_id = -1, id = 0;
      if (sqlite3_column_type(s, 2) != SQLITE_NULL) {
        name_id = names_.Intern(TextAt(s, 2));
      } else {
        const Cell c = cells.Int(3, std::numeric_limits<int64_t>::min(), kMaxInt, &id, warnings);
        if (c == Cell::kBad) continue;
        if (c == Cell::kOk) name_id = StringName(id, /*strip_version=*/false);
      }
      if (name_id < 0) {
        ++warnings.missing_field;
        continue;
      }
      ev.name = static_cast<uint32_t>(name_id);
      for (int64_t device : devices) events_[device].push_back(ev);
    }
  }

  // The interned name of StringIds row `id`, or -1 when there is none.
  int64_t StringName(int64_t id, bool strip_version) {
    auto& cache = strip_version ? runtime_names_ : string_names_;
    auto it = cache.find(id);
    if (it != cache.end()) return it->second;
    sqlite3_stmt* s = string_stmt_.get();
    sqlite3_reset(s);
    sqlite3_bind_int64(s, 1, id);
    int64_t result = -1;
    if (db_.Step(s, kStringIds) && sqlite3_column_type(s, 0) != SQLITE_NULL) {
      const std::string_view text = TextAt(s, 0);
      result = names_.Intern(strip_version ? StripVersionSuffix(text) : text);
    }
    cache.emplace(id, result);
    return result;
  }

  std::map<int64_t, std::string> DeviceNames() {
    std::map<int64_t, std::string> names;
    if (!db_.HasTable(kGpuInfoTable)) return names;
    const Columns c(db_, kGpuInfoTable);
    if (!c.Has("id") || !c.Has("name")) return names;  // optional table: no names then
    StmtPtr stmt = db_.Prepare("SELECT \"id\", \"name\" FROM " + QuoteIdentifier(kGpuInfoTable), kGpuInfoTable);
    RowCells cells(stmt.get(), db_.path(), kGpuInfoTable);
    while (db_.Step(stmt.get(), kGpuInfoTable)) {
      cells.Next();
      int64_t id = 0;
      if (cells.Int(0, 0, kMaxInt, &id, unplaced_) == Cell::kOk) names.emplace(id, std::string(TextAt(stmt.get(), 1)));
    }
    return names;
  }

  std::vector<RankTrace> Finish() {
    const std::map<int64_t, std::string> device_names = DeviceNames();
    std::error_code ec;
    const auto file_bytes = std::filesystem::file_size(db_.path(), ec);
    std::vector<RankTrace> ranks;
    std::vector<uint32_t> local(names_.size());
    for (auto& [device, events] : events_) {
      RankTrace& t = ranks.emplace_back();
      t.path = db_.path();
      t.rank = static_cast<int>(ranks.size()) - 1;
      t.rank_source = "nsight device";
      t.base_time_ns = 0;
      if (auto it = device_names.find(device); it != device_names.end()) t.device_name = it->second;
      if (ranks.size() == 1 && !ec) t.bytes_read = static_cast<int64_t>(file_bytes);
      // Each rank gets its own name table, holding the names its events use.
      std::fill(local.begin(), local.end(), UINT32_MAX);
      for (TraceEvent& ev : events) {
        uint32_t& l = local[ev.name];
        if (l == UINT32_MAX) {
          l = static_cast<uint32_t>(t.names.size());
          t.names.push_back(names_[ev.name]);
        }
        ev.name = l;
      }
      // By start; an enclosing range before what it encloses.
      std::stable_sort(events.begin(), events.end(), [](const TraceEvent& a, const TraceEvent& b) {
        return a.ts_ns != b.ts_ns ? a.ts_ns < b.ts_ns : a.dur_ns > b.dur_ns;
      });
      t.events = std::move(events);
      t.events.shrink_to_fit();
      if (auto it = warnings_.find(device); it != warnings_.end()) {
        t.warnings = it->second;
        warnings_.erase(it);
      }
    }
    // Problems in rows of no rank (no device, or a device with no usable rows) go to the first.
    TraceWarnings& first = ranks.front().warnings;
    for (const auto& [device, w] : warnings_) Add(&first, w);
    Add(&first, unplaced_);
    return ranks;
  }

  static void Add(TraceWarnings* to, const TraceWarnings& w) {
    to->truncated += w.truncated;
    to->bad_number += w.bad_number;
    to->missing_field += w.missing_field;
    to->negative_duration += w.negative_duration;
    to->invalid_utf8 += w.invalid_utf8;
    to->malformed_event += w.malformed_event;
    if (to->first_bad_value.empty()) to->first_bad_value = w.first_bad_value;
    if (to->truncated_at.empty()) to->truncated_at = w.truncated_at;
  }

  Export db_;
  StmtPtr string_stmt_;
  bool by_process_ = true;  // every table read has globalPid / globalTid: rows match by process
  NameTable names_;         // names of all devices; renumbered per rank in Finish
  std::unordered_map<int64_t, int64_t> string_names_;   // StringIds id -> names_ index or -1
  std::unordered_map<int64_t, int64_t> runtime_names_;  // the same, version suffix stripped
  std::map<int64_t, std::vector<TraceEvent>> events_;   // by deviceId
  std::map<int64_t, TraceWarnings> warnings_;           // by deviceId
  TraceWarnings unplaced_;
  std::map<std::string, int64_t> rows_;  // rows seen per GPU table
  std::set<int64_t> all_devices_;
  std::map<int64_t, std::set<int64_t>> process_devices_;  // ProcessOf(globalPid) -> deviceIds
  std::vector<Launch> launches_;                          // sorted after the GPU tables are read
};

}  // namespace

std::vector<RankTrace> ReadNsightSqlite(const std::string& path, const std::function<void()>& on_rows) {
  NsysReader reader(path, on_rows);
  return reader.Run();
}

}  // namespace paratune
