// The PostgreSQL back end against a real server (scripts/pg-test-server.sh, started by CTest's
// runs_pg fixture); the tests that need no server (bad locations, redaction) run everywhere.
#include "runs/postgres_database.h"

#include <gtest/gtest.h>

#include <atomic>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "runs/test_databases.h"
#include "util/error.h"
#include "util/test_util.h"

namespace paratune {
namespace {

// Nothing listens on TCP port 1 of the loopback interface (tcpmux, never enabled), so a connection
// there is refused at once.
constexpr const char* kClosed = "127.0.0.1:1";

TEST(PostgresOpen, PasswordInAUriNeverInTheMessage) {
  const std::string msg =
      InputErrorOf([] { OpenPostgresDatabase(std::string("postgresql://alice:secret@") + kClosed + "/runs"); });
  EXPECT_EQ(msg.find("secret"), std::string::npos) << msg;
  EXPECT_CONTAINS(msg, "postgresql://alice:***@127.0.0.1:1/runs");
  EXPECT_CONTAINS(msg, "cannot open PostgreSQL store");
  EXPECT_CONTAINS(msg, "127.0.0.1");  // libpq's reason, joined onto the line
}

TEST(PostgresOpen, PasswordInAKeyValueStringNeverInTheMessage) {
  const std::string msg = InputErrorOf(
      [] { OpenPostgresDatabase("postgresql:host=127.0.0.1 port=1 user=alice password=secret dbname=runs"); });
  EXPECT_EQ(msg.find("secret"), std::string::npos) << msg;
  EXPECT_CONTAINS(msg, "***");
}

TEST(PostgresOpen, PasswordInAQueryParameterNeverInTheMessage) {
  const std::string msg =
      InputErrorOf([] { OpenPostgresDatabase(std::string("postgres://alice@") + kClosed + "/runs?password=secret"); });
  EXPECT_EQ(msg.find("secret"), std::string::npos) << msg;
}

TEST(PostgresOpen, MalformedPasswordQuotedByLibpqIsScrubbed) {
  // libpq quotes the offending token of a bad percent-encoding: here, the password itself.
  const std::string msg =
      InputErrorOf([] { OpenPostgresDatabase(std::string("postgresql://alice:sec%zzret@") + kClosed + "/runs"); });
  EXPECT_EQ(msg.find("sec%zzret"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("zzret"), std::string::npos) << msg;
}

TEST(PostgresOpen, BadUrlIsOneLineInputError) {
  const std::string msg = InputErrorOf([] { OpenPostgresDatabase("postgresql://localhost:notaport/runs"); });
  EXPECT_CONTAINS(msg, "postgresql://localhost:notaport/runs");
  EXPECT_CONTAINS(msg, "notaport");  // libpq: invalid integer value "notaport" for connection option "port"
  const std::string msg2 = InputErrorOf([] { OpenPostgresDatabase("postgresql://localhost/runs?nosuchoption=1"); });
  EXPECT_CONTAINS(msg2, "nosuchoption");
}

TEST(PostgresOpen, UnreachableHostTimesOutInsteadOfHanging) {
  // 192.0.2.0/24 is TEST-NET-1 (RFC 5737): never routed, so only the timeout ends the attempt.
  const auto start = std::chrono::steady_clock::now();
  InputErrorOf([] { OpenPostgresDatabase("postgresql://u:secret@192.0.2.1:5432/runs?connect_timeout=2"); });
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(15));
}

class Postgres : public testing::Test {
 protected:
  void SetUp() override {
    PARATUNE_BACKEND_OR_SKIP("postgresql");
    location_ = FreshTestLocation("postgresql", testing::UnitTest::GetInstance()->current_test_info()->name());
    db_ = OpenPostgresDatabase(location_);
  }
  std::string location_;
  std::unique_ptr<Database> db_;
};

TEST_F(Postgres, KindAndWhere) {
  EXPECT_EQ(db_->Kind(), "postgresql");
  EXPECT_EQ(db_->Where(), RedactLocation(location_));
}

TEST_F(Postgres, ValuesRoundTripExactly) {
  db_->Exec("CREATE TABLE v (k BIGINT PRIMARY KEY, i BIGINT, d DOUBLE PRECISION, s TEXT)");
  const std::string text =
      "na\xc3\xafve 'quoted' \"double\" ? back\\slash \xe6\x97\xa5\xe6\x9c\xac \xe2\x80\x9c?\xe2\x80\x9d";
  const std::vector<std::vector<DbValue>> rows = {
      {int64_t{1}, std::numeric_limits<int64_t>::max(), 0.1, text},
      {int64_t{2}, std::numeric_limits<int64_t>::min(), 1.0 / 3.0, std::string()},
      {int64_t{3}, int64_t{-1}, std::numeric_limits<double>::max(), std::string("?")},
      {int64_t{4}, int64_t{0}, std::numeric_limits<double>::denorm_min(), std::string("$1")},
      {int64_t{5}, std::monostate{}, -2.5e-300, std::monostate{}},
      {int64_t{6}, int64_t{42}, std::monostate{}, std::string("x")},
      {int64_t{7}, int64_t{7}, -0.0, std::string("y")},
  };
  for (const auto& r : rows) db_->Exec("INSERT INTO v (k, i, d, s) VALUES (?, ?, ?, ?)", r);
  const auto got = db_->Query("SELECT k, i, d, s FROM v ORDER BY k");
  ASSERT_EQ(got.size(), rows.size());
  for (size_t r = 0; r < rows.size(); ++r) {
    ASSERT_EQ(got[r].size(), 4u);
    for (size_t c = 0; c < 4; ++c) {
      EXPECT_EQ(got[r][c].index(), rows[r][c].index()) << "row " << r << " column " << c;
      if (const double* d = std::get_if<double>(&rows[r][c])) {  // bit for bit, -0.0 included
        EXPECT_EQ(std::bit_cast<uint64_t>(AsDouble(got[r][c])), std::bit_cast<uint64_t>(*d)) << "row " << r;
      } else {
        EXPECT_EQ(got[r][c], rows[r][c]) << "row " << r << " column " << c;
      }
    }
  }
  // A bound value compares as its column's type.
  const auto one = db_->Query("SELECT k FROM v WHERE i = ? AND s = ?", {std::numeric_limits<int64_t>::max(), text});
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(AsInt(one[0][0]), 1);
  EXPECT_EQ(db_->Query("SELECT k FROM v WHERE d = ?", {1.0 / 3.0}).at(0).at(0), DbValue(int64_t{2}));
}

TEST_F(Postgres, NonFiniteDoublesRoundTrip) {
  const auto got =
      db_->Query("SELECT ?::float8, ?::float8, ?::float8",
                 {std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(), std::nan("")});
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(AsDouble(got[0][0]), std::numeric_limits<double>::infinity());
  EXPECT_EQ(AsDouble(got[0][1]), -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(AsDouble(got[0][2])));
}

TEST_F(Postgres, ColumnTypesMapToIntDoubleText) {
  const auto got = db_->Query(
      "SELECT 1::int2, 2::int4, 3::int8, 1.5::float4, 2.25::float8, 0.125::numeric, true, false, 'x'::text, "
      "'y'::varchar, NULL::bigint, count(*) FROM (VALUES (1), (2)) AS t(a)");
  ASSERT_EQ(got.size(), 1u);
  const DbRow want = {
      int64_t{1},       int64_t{2},       int64_t{3},       1.5,       2.25, 0.125, int64_t{1}, int64_t{0},
      std::string("x"), std::string("y"), std::monostate{}, int64_t{2}};
  EXPECT_EQ(got[0], want);
  // sum() over BIGINT is NUMERIC on PostgreSQL: integral, it reads as an integer as on SQLite.
  EXPECT_EQ(
      db_->Query("SELECT sum(a), sum(a) / 4.0, 12345678901234567890::numeric FROM (VALUES (1::int8), (2)) AS t(a)")
          .at(0),
      (DbRow{int64_t{3}, 0.75, 12345678901234567890.0}));
  // A bare parameter keeps the type it was bound with.
  EXPECT_EQ(db_->Query("SELECT ?, ?, ?, ?", {int64_t{-5}, 0.5, std::string("t"), std::monostate{}}).at(0),
            (DbRow{int64_t{-5}, 0.5, std::string("t"), std::monostate{}}));
}

TEST_F(Postgres, NumericBeyondADoubleIsAnErrorNotInfinity) {
  const std::string msg = InputErrorOf([&] { db_->Query("SELECT 1e400::numeric"); });
  EXPECT_CONTAINS(msg, "does not fit a double");
}

TEST_F(Postgres, QuestionMarksInLiteralsIdentifiersAndCommentsAreNotPlaceholders) {
  const auto got =
      db_->Query("SELECT '?' AS \"why?\", 'it''s ?', E'\\'?', $$a?b$$, $tag$ ? $tag$, ? /* ? /* ? */ ? */ -- ?\n , ?",
                 {std::string("one"), int64_t{2}});
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0], (DbRow{std::string("?"), std::string("it's ?"), std::string("'?"), std::string("a?b"),
                           std::string(" ? "), std::string("one"), int64_t{2}}));
}

TEST_F(Postgres, PlaceholderCountMismatchIsAProgrammingError) {
  EXPECT_THROW(db_->Query("SELECT ?, ?", {int64_t{1}}), std::logic_error);
}

TEST_F(Postgres, SqlErrorIsOneLineNamingTheStoreAndSqlstate) {
  const std::string msg = InputErrorOf([&] { db_->Exec("SELECT * FROM no_such_table"); });
  EXPECT_CONTAINS(msg, db_->Where());
  EXPECT_CONTAINS(msg, "no_such_table");
  EXPECT_CONTAINS(msg, "SQLSTATE 42P01");  // undefined_table
}

TEST_F(Postgres, TransactionCommitsAndIsVisibleToAnotherConnection) {
  db_->Exec("CREATE TABLE t (a BIGINT)");
  db_->Transaction([&] {
    db_->Exec("INSERT INTO t VALUES (?)", {int64_t{1}});
    db_->Exec("INSERT INTO t VALUES (?)", {int64_t{2}});
  });
  auto other = OpenPostgresDatabase(location_);
  EXPECT_EQ(AsInt(other->Query("SELECT sum(a) FROM t").at(0).at(0)), 3);
}

TEST_F(Postgres, TransactionRollsBackOnAnyException) {
  db_->Exec("CREATE TABLE t (a BIGINT PRIMARY KEY)");
  EXPECT_THROW(db_->Transaction([&] {
    db_->Exec("INSERT INTO t VALUES (?)", {int64_t{1}});
    throw std::runtime_error("killed halfway");
  }),
               std::runtime_error);
  int tries = 0;
  EXPECT_THROW(db_->Transaction([&] {
    ++tries;
    db_->Exec("INSERT INTO t VALUES (?)", {int64_t{2}});
    db_->Exec("INSERT INTO t VALUES (?)", {int64_t{2}});  // unique_violation: not retried
  }),
               InputError);
  EXPECT_EQ(tries, 1);
  // Nothing of either is left, and the connection is usable again (not in an aborted transaction).
  EXPECT_EQ(AsInt(db_->Query("SELECT count(*) FROM t").at(0).at(0)), 0);
  db_->Exec("INSERT INTO t VALUES (?)", {int64_t{3}});
  EXPECT_EQ(AsInt(db_->Query("SELECT count(*) FROM t").at(0).at(0)), 1);
}

TEST_F(Postgres, TransactionIsNotReentrant) {
  EXPECT_THROW(db_->Transaction([&] { db_->Transaction([] {}); }), std::logic_error);
  EXPECT_EQ(AsInt(db_->Query("SELECT 1").at(0).at(0)), 1);  // the outer one was rolled back
}

TEST_F(Postgres, DeadlockIsRetriedAndBothWritersCommit) {
  db_->Exec("CREATE TABLE acct (id BIGINT PRIMARY KEY, n BIGINT)");
  db_->Exec("INSERT INTO acct VALUES (1, 0), (2, 0)");
  // Two writers lock the rows in opposite orders; on their first attempt each waits for the other
  // to hold its first row, so the server detects a deadlock (after deadlock_timeout, 1 s) and
  // aborts one with SQLSTATE 40P01; that one runs again and both increments land.
  std::atomic<int> holding{0}, attempts{0};
  auto writer = [&](int64_t first, int64_t second) {
    auto db = OpenPostgresDatabase(location_);
    bool first_attempt = true;
    db->Transaction([&] {
      ++attempts;
      db->Exec("UPDATE acct SET n = n + 1 WHERE id = ?", {first});
      if (first_attempt) {
        first_attempt = false;
        ++holding;
        const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (holding < 2 && std::chrono::steady_clock::now() < until)
          std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
      db->Exec("UPDATE acct SET n = n + 1 WHERE id = ?", {second});
    });
  };
  std::thread a(writer, 1, 2), b(writer, 2, 1);
  a.join();
  b.join();
  // At least one retry; more when the victim's retry takes a row before the survivor does and
  // deadlocks again (the backoff makes that rare, not impossible).
  EXPECT_GE(attempts.load(), 3);
  const auto got = db_->Query("SELECT id, n FROM acct ORDER BY id");
  EXPECT_EQ(got, (std::vector<DbRow>{{int64_t{1}, int64_t{2}}, {int64_t{2}, int64_t{2}}}));
}

TEST_F(Postgres, FreshLocationsAreSeparateStores) {
  db_->Exec("CREATE TABLE mine (a BIGINT)");
  auto other = OpenPostgresDatabase(FreshTestLocation("postgresql", "other"));
  EXPECT_EQ(
      AsInt(other->Query("SELECT count(*) FROM pg_tables WHERE tablename = 'mine' AND schemaname = current_schema()")
                .at(0)
                .at(0)),
      0);
  other->Exec("CREATE TABLE mine (b TEXT)");  // the same name in its own schema
  EXPECT_EQ(db_->Query("SELECT count(*) FROM mine").at(0).at(0), DbValue(int64_t{0}));
}

TEST(TestDatabases, SqliteAlwaysUsableWithANewPathEachTime) {
  EXPECT_EQ(TestBackendSkipReason("sqlite"), "");
  const std::string a = FreshTestLocation("sqlite", "x"), b = FreshTestLocation("sqlite", "x");
  EXPECT_NE(a, b);
  EXPECT_FALSE(std::filesystem::exists(a));
  EXPECT_TRUE(std::filesystem::is_directory(std::filesystem::path(a).parent_path()));
  EXPECT_NE(TestBackendSkipReason("nosuch"), "");
}

}  // namespace
}  // namespace paratune
