// The storage contract on every back end available: values round-trip by type, placeholders
// bind in order, transactions commit or roll back whole, migrations apply once and forward only,
// concurrent openers migrate once, and locations never show a password.
#include "runs/database.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <limits>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "runs/migrations.h"
#include "runs/sqlite_database.h"
#include "util/test_util.h"

namespace paratune {
namespace {

namespace fs = std::filesystem;

std::string TempDb(const std::string& tag) {
  const fs::path dir = fs::temp_directory_path() / ("paratune_db_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path p = dir / (tag + ".db");
  fs::remove(p);
  fs::remove(p.string() + "-wal");
  fs::remove(p.string() + "-shm");
  return p.string();
}

TEST(Database, ValuesRoundTripByType) {
  auto db = OpenDatabase(TempDb("values"));
  EXPECT_EQ(db->Kind(), "sqlite");
  db->Exec("CREATE TABLE t (i BIGINT, d DOUBLE PRECISION, s TEXT, n TEXT)");
  const int64_t big = std::numeric_limits<int64_t>::max(), small = std::numeric_limits<int64_t>::min();
  const double third = 1.0 / 3.0;
  db->Exec("INSERT INTO t VALUES (?, ?, ?, ?)", {big, third, std::string("it's a '?' \xC3\xA9"), DbValue{}});
  db->Exec("INSERT INTO t VALUES (?, ?, ?, ?)", {small, 1e-300, std::string(""), std::string("x")});
  const auto rows = db->Query("SELECT i, d, s, n FROM t WHERE i = ? OR i = ? ORDER BY i", {big, small});
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(AsInt(rows[0][0]), small);
  EXPECT_EQ(AsDouble(rows[0][1]), 1e-300);
  EXPECT_EQ(AsText(rows[0][2]), "");
  EXPECT_EQ(AsInt(rows[1][0]), big);
  EXPECT_EQ(AsDouble(rows[1][1]), third);  // bit-exact
  EXPECT_EQ(AsText(rows[1][2]), "it's a '?' \xC3\xA9");
  EXPECT_TRUE(IsNull(rows[1][3]));
  EXPECT_THROW(AsText(rows[1][0]), std::logic_error);
  EXPECT_THROW(db->Query("SELECT ?, ?", {int64_t{1}}), std::logic_error);  // placeholders and values disagree
}

TEST(Database, TransactionCommitsOrRollsBackWhole) {
  auto db = OpenDatabase(TempDb("txn"));
  db->Exec("CREATE TABLE t (k TEXT PRIMARY KEY)");
  db->Transaction([&] {
    db->Exec("INSERT INTO t VALUES (?)", {std::string("a")});
    db->Exec("INSERT INTO t VALUES (?)", {std::string("b")});
  });
  EXPECT_THROW(db->Transaction([&] {
    db->Exec("INSERT INTO t VALUES (?)", {std::string("c")});
    db->Exec("INSERT INTO t VALUES (?)", {std::string("a")});  // duplicate key
  }),
               InputError);
  EXPECT_THROW(db->Transaction([&] {
    db->Exec("INSERT INTO t VALUES (?)", {std::string("d")});
    throw std::runtime_error("caller gave up");
  }),
               std::runtime_error);
  const auto rows = db->Query("SELECT k FROM t ORDER BY k");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(AsText(rows[0][0]), "a");
  EXPECT_EQ(AsText(rows[1][0]), "b");
}

std::vector<Migration> TwoMigrations() {
  return {{1, "first", {"CREATE TABLE a (x BIGINT)", "INSERT INTO a VALUES (1)"}, {}, {}},
          {2, "second", {"CREATE TABLE b (y TEXT)"}, {}, {}}};
}

TEST(Migrations, ApplyOnceInOrderAndRefuseANewerStore) {
  const std::string path = TempDb("migrate");
  {
    auto db = OpenDatabase(path);
    EXPECT_EQ(SchemaVersion(*db), 0);
    auto first = TwoMigrations();
    first.pop_back();
    EXPECT_EQ(ApplyMigrations(*db, first), 1);
  }
  {
    auto db = OpenDatabase(path);
    EXPECT_EQ(ApplyMigrations(*db, TwoMigrations()), 2);
    EXPECT_EQ(ApplyMigrations(*db, TwoMigrations()), 2);  // nothing re-run
    EXPECT_EQ(AsInt(db->Query("SELECT COUNT(*) FROM a")[0][0]), 1);
    const auto versions = db->Query("SELECT version, description FROM schema_version ORDER BY version");
    ASSERT_EQ(versions.size(), 2u);
    EXPECT_EQ(AsText(versions[1][1]), "second");
  }
  {
    auto db = OpenDatabase(path);
    auto older = TwoMigrations();
    older.pop_back();
    const std::string msg = InputErrorOf([&] { ApplyMigrations(*db, older); });
    EXPECT_CONTAINS(msg, "schema version 2, newer than this paratune knows (1)");
  }
}

TEST(Migrations, FailedMigrationLeavesThePreviousVersion) {
  auto db = OpenDatabase(TempDb("failed"));
  std::vector<Migration> bad = TwoMigrations();
  bad[1].statements = {"CREATE TABLE b (y TEXT)", "INSERT INTO nowhere VALUES (1)"};
  EXPECT_THROW(ApplyMigrations(*db, bad), InputError);
  EXPECT_EQ(SchemaVersion(*db), 1);
  EXPECT_TRUE(db->Query("SELECT name FROM sqlite_master WHERE name = 'b'").empty());  // rolled back
  EXPECT_EQ(ApplyMigrations(*db, TwoMigrations()), 2);
}

TEST(Migrations, ConcurrentOpenersMigrateOnce) {
  const std::string path = TempDb("concurrent");
  std::vector<std::thread> threads;
  std::mutex mutex;
  std::vector<std::string> failures;  // what each failed opener said, printed if any
  for (int i = 0; i < 8; ++i)
    threads.emplace_back([&] {
      std::string failure;
      try {
        auto db = OpenDatabase(path);
        const int version = ApplyMigrations(*db, TwoMigrations());
        if (version != 2) failure = "version " + std::to_string(version);
      } catch (const std::exception& e) {
        failure = e.what();
      }
      if (failure.empty()) return;
      const std::lock_guard<std::mutex> lock(mutex);
      failures.push_back(failure);
    });
  for (auto& t : threads) t.join();
  EXPECT_TRUE(failures.empty()) << failures.size() << " failed, the first: " << failures.front();
  auto db = OpenDatabase(path);
  EXPECT_EQ(AsInt(db->Query("SELECT COUNT(*) FROM a")[0][0]), 1);
  EXPECT_EQ(AsInt(db->Query("SELECT COUNT(*) FROM schema_version")[0][0]), 2);
}

TEST(Database, BadSqliteFilesAreOneLine) {
  const std::string path = TempDb("notadb");
  {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    std::fputs("this is not a database, it is a text file long enough to be read as a header", f);
    std::fclose(f);
  }
  EXPECT_CONTAINS(InputErrorOf([&] { OpenDatabase(path); }), path);
  EXPECT_CONTAINS(InputErrorOf([&] { OpenDatabase("/proc/no/such/dir/runs.db"); }), "/proc/no/such/dir/runs.db");
}

// `--db runs.db`: a file in the working directory, whose parent path is empty, is created there
// (it once failed with "cannot create its directory").
TEST(Database, ARelativeFileInTheWorkingDirectoryIsCreated) {
  const std::filesystem::path dir = std::filesystem::path(TempDb("relative")).parent_path() / "relative-db";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::filesystem::path before = std::filesystem::current_path();
  std::filesystem::current_path(dir);
  EXPECT_NO_THROW({ auto db = OpenDatabase("runs.db"); });
  std::filesystem::current_path(before);
  EXPECT_TRUE(std::filesystem::is_regular_file(dir / "runs.db"));
  std::filesystem::remove_all(dir);
}

TEST(Database, DefaultLocationFollowsXdg) {
  const char* keep_db = std::getenv("PARATUNE_DB");
  const std::string saved_db = keep_db ? keep_db : "";
  ::unsetenv("PARATUNE_DB");
  ::setenv("XDG_DATA_HOME", "/data/home", 1);
  EXPECT_EQ(DefaultDatabaseLocation(), "/data/home/paratune/runs.db");
  ::setenv("XDG_DATA_HOME", "relative/ignored", 1);
  ::setenv("HOME", "/home/u", 1);
  EXPECT_EQ(DefaultDatabaseLocation(), "/home/u/.local/share/paratune/runs.db");
  ::setenv("PARATUNE_DB", "postgresql://team@db/runs", 1);
  EXPECT_EQ(DefaultDatabaseLocation(), "postgresql://team@db/runs");
  if (keep_db)
    ::setenv("PARATUNE_DB", saved_db.c_str(), 1);
  else
    ::unsetenv("PARATUNE_DB");
}

TEST(Database, RedactionHidesEveryPasswordForm) {
  EXPECT_EQ(RedactLocation("postgresql://alice:s3cr%40t@db.example:5432/runs?sslmode=require"),
            "postgresql://alice:***@db.example:5432/runs?sslmode=require");
  EXPECT_EQ(RedactLocation("postgres://alice@db/runs"), "postgres://alice@db/runs");
  EXPECT_EQ(RedactLocation("postgresql:///runs?host=/tmp&password=hunter2&user=bob"),
            "postgresql:///runs?host=/tmp&password=***&user=bob");
  EXPECT_EQ(RedactLocation("postgresql:host=db password='a b\\'c' dbname=runs"),
            "postgresql:host=db password=*** dbname=runs");
  EXPECT_EQ(RedactLocation("postgresql://u:p@ss@db/x"), "postgresql://u:***@db/x");
  EXPECT_EQ(RedactLocation("/home/u/password=not-a-url.db"), "/home/u/password=not-a-url.db");
  EXPECT_TRUE(IsPostgresLocation("postgres://x"));
  EXPECT_FALSE(IsPostgresLocation("runs.db"));
}

}  // namespace
}  // namespace paratune
