// The registry's reliability (issue 14 acceptance), on every back end:
//  * crash: a recording process is killed with SIGKILL at a random moment, 50 times; the store
//    stays consistent (SQLite PRAGMA integrity_check) and every run is wholly present (its
//    source, figure and series counts those of a complete record) or wholly absent;
//  * concurrency: 8 processes record 100 runs each at once; all 800 are present.
// The recording processes are forks of this test running the same Record/RecordRun code the
// CLI runs (`paratune runs record` is PrepareRecord + CommitRecord); a fork reports through a
// pipe when its transaction began and committed, so the test can say where each kill landed.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <random>
#include <thread>

#include "runs/registry.h"
#include "runs/runs_test_util.h"
#include "util/test_util.h"

namespace paratune {
namespace {

using Clock = std::chrono::steady_clock;

class Reliability : public testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    const std::string tag = std::string("rel_") + testing::UnitTest::GetInstance()->current_test_info()->name();
    std::string clean;
    for (char c : tag) clean += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    PARATUNE_BACKEND_OR_SKIP(GetParam());
    location_ = runs_test::FreshLocation(GetParam(), clean);
    dir_ = runs_test::ScratchDir(clean);  // the test's input files
    OpenRegistry(location_);              // migrated before the children race
  }
  std::string location_;
  runs_test::fs::path dir_;
};

// Forks a child that records `files` as run `name`, writing 'b' to `fd` when its transaction
// began and 'c' when it committed. Returns the child's pid.
pid_t ForkRecorder(const std::string& location, const std::vector<std::string>& files, const std::string& name,
                   int fd) {
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  int status = 0;
  try {
    auto db = OpenRegistry(location);
    RecordOptions o;
    o.name = name;
    o.observer = [fd](const char* phase) {
      const char c = phase[0];
      (void)!::write(fd, &c, 1);
    };
    Record(*db, files, o);
  } catch (...) {
    status = 3;
  }
  ::_exit(status);
}

TEST_P(Reliability, KilledRecordLeavesTheRunWholeOrAbsent) {
  // A big record: a long training log (two series of 6,000 points) with three JSON files.
  const auto log = dir_ / "train.log";
  runs_test::WriteText(log, runs_test::MegatronLog(6000));
  const std::vector<std::string> files = {TestDataPath("report/estimate.json"), TestDataPath("report/analyze.json"),
                                          TestDataPath("report/diagnose.json"), log.string()};
  // A complete record, timed: what every present run must equal.
  int pipe_fd[2];
  ASSERT_EQ(::pipe(pipe_fd), 0);
  const auto t0 = Clock::now();
  const pid_t ref = ForkRecorder(location_, files, "reference", pipe_fd[1]);
  int st = 0;
  ::waitpid(ref, &st, 0);
  const double full_s = std::chrono::duration<double>(Clock::now() - t0).count();
  ::close(pipe_fd[0]), ::close(pipe_fd[1]);
  ASSERT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  auto db = OpenRegistry(location_);
  auto count = [&](const char* table, const std::string& run) {
    return AsInt(db->Query(std::string("SELECT COUNT(*) FROM ") + table + " WHERE run = ?", {run})[0][0]);
  };
  const char* kTables[] = {"run_sources", "figures", "series", "findings", "tags", "policy_figures"};
  std::vector<int64_t> complete;
  for (const char* t : kTables) complete.push_back(count(t, "reference"));
  ASSERT_EQ(complete[0], 4);
  ASSERT_EQ(complete[2], 2 * 6000 + 600 + 301);  // the log's two series + diagnose.json's two (600 and 301 points)

  constexpr int kTrials = 50;
  std::mt19937_64 rng(20261201);
  std::uniform_real_distribution<double> when(0.0, 1.1 * full_s);
  int before = 0, during = 0, after = 0, present = 0;
  for (int i = 0; i < kTrials; ++i) {
    ASSERT_EQ(::pipe(pipe_fd), 0);
    const std::string name = "crash-" + std::to_string(i);
    const pid_t pid = ForkRecorder(location_, files, name, pipe_fd[1]);
    ::close(pipe_fd[1]);
    std::this_thread::sleep_for(std::chrono::duration<double>(when(rng)));
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &st, 0);
    std::string phases;
    char buf[8];
    for (ssize_t n; (n = ::read(pipe_fd[0], buf, sizeof buf)) > 0;) phases.append(buf, static_cast<size_t>(n));
    ::close(pipe_fd[0]);
    if (phases.find('c') != std::string::npos)
      ++after;
    else if (phases.find('b') != std::string::npos)
      ++during;
    else
      ++before;
    const bool exists = !db->Query("SELECT name FROM runs WHERE name = ?", {name}).empty();
    present += exists;
    for (size_t t = 0; t < std::size(kTables); ++t)
      EXPECT_EQ(count(kTables[t], name), exists ? complete[t] : 0)
          << name << " " << kTables[t] << " phases '" << phases << "'";
    if (phases.find('c') != std::string::npos) EXPECT_TRUE(exists) << name;
  }
  if (db->Kind() == "sqlite") {
    const auto rows = db->Query("PRAGMA integrity_check");
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(AsText(rows[0][0]), "ok");
  }
  RecordProperty("kills_before_transaction", before);
  RecordProperty("kills_during_transaction", during);
  RecordProperty("kills_after_commit", after);
  std::printf(
      "crash test (%s): complete record %.3f s; %d kills before the transaction, %d during it, %d after commit; "
      "%d runs present\n",
      GetParam().c_str(), full_s, before, during, after, present);
  // The test means something only when kills land inside the transaction.
  EXPECT_GE(during, 10);
}

TEST_P(Reliability, EightConcurrentWritersLoseNothing) {
  constexpr int kProcs = 8, kEach = 100;
  std::vector<pid_t> pids;
  for (int p = 0; p < kProcs; ++p) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      int status = 0;
      try {
        auto db = OpenRegistry(location_);
        for (int i = 0; i < kEach; ++i) {
          RunRecord r;
          r.name = "w" + std::to_string(p) + "-" + std::to_string(i);
          r.cluster = "lab", r.model = "llama-3.1-8b", r.gpu = "H100", r.gpus = 8;
          r[Metric::kTokensPerSPerGpu].measured = 1000 * p + i;
          RecordRun(*db, r);
        }
      } catch (const std::exception& e) {
        std::fprintf(stderr, "writer %d: %s\n", p, e.what());
        status = 3;
      }
      ::_exit(status);
    }
    pids.push_back(pid);
  }
  for (pid_t pid : pids) {
    int st = 0;
    ::waitpid(pid, &st, 0);
    EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  }
  auto db = OpenRegistry(location_);
  EXPECT_EQ(AsInt(db->Query("SELECT COUNT(*) FROM runs")[0][0]), kProcs * kEach);
  EXPECT_EQ(AsInt(db->Query("SELECT COUNT(*) FROM figures WHERE metric = 'tokens_per_s_per_gpu'")[0][0]),
            kProcs * kEach);
  const auto r = db->Query("SELECT measured FROM figures WHERE run = ? AND metric = 'tokens_per_s_per_gpu'",
                           {std::string("w7-99")});
  ASSERT_EQ(r.size(), 1u);
  EXPECT_DOUBLE_EQ(AsDouble(r[0][0]), 7099);
  EXPECT_EQ(RunsOfCluster(*db, "lab").size(), static_cast<size_t>(kProcs * kEach));
}

INSTANTIATE_TEST_SUITE_P(Backends, Reliability, testing::ValuesIn(runs_test::RegistryBackends()),
                         [](const testing::TestParamInfo<std::string>& p) { return p.param; });

}  // namespace
}  // namespace paratune
