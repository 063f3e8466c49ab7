// `paratune runs` end to end: record, show, list, compare, baseline, export through the binary;
// bad input (one line, exit 2, nothing written); a password in a --db URL never printed.
#include <nlohmann/json.hpp>

#include "cli/cli_test_util.h"

namespace paratune::cli_test {
namespace {

using RunsCli = Cli;

std::string Report(const std::string& f) { return std::string(PARATUNE_SOURCE_DIR) + "/testdata/report/" + f; }

TEST_F(RunsCli, RecordShowListCompareExport) {
  const std::string db = (dir_ / "runs.db").string();
  Result r = Run({"runs", "record", Report("estimate.json"), "--name", "base", "--tag", "team=a", "--software",
                  "Megatron-LM core_r0.12", "--baseline", "--db", db, "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["schema"], "paratune.runs.record/1");
  EXPECT_EQ(j["created"], true);
  EXPECT_EQ(j["files_added"], 1);
  r = Run({"runs", "record", Report("analyze.json"), Report("estimate.json"), "--name", "next", "--model",
           "llama-3.1-70b", "--cluster-name", "64xH100", "--db", db});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_CONTAINS(r.out, "recorded new run next: 2 file(s) added, 0 already recorded");
  r = Run({"runs", "record", Report("analyze.json"), "--name", "next", "--db", db});
  EXPECT_CONTAINS(r.out, "updated run next: 0 file(s) added, 1 already recorded");

  r = Run({"runs", "show", "base", "--db", db, "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["schema"], "paratune.runs.show/1");
  EXPECT_EQ(j["model"], "llama-3.1-70b");
  EXPECT_EQ(j["software"], "Megatron-LM core_r0.12");
  EXPECT_EQ(j["tags"]["team"], "a");
  EXPECT_DOUBLE_EQ(j["figures"]["mfu"]["predicted"].get<double>(), 0.40284736579498026);
  EXPECT_TRUE(j["figures"]["mfu"]["measured"].is_null());
  EXPECT_EQ(j["layout"]["pp"], 4);
  r = Run({"runs", "show", "base", "--db", db});
  EXPECT_CONTAINS(r.out, "mfu");
  EXPECT_CONTAINS(r.out, "40.28%");
  EXPECT_CONTAINS(r.out, "53.85 GB");  // GB = 1e9 bytes as everywhere else (issue 32: it printed GiB)
  EXPECT_EQ(r.out.find("GiB"), std::string::npos);

  r = Run({"runs", "list", "--db", db, "--json", "--filter", "tag=team=a"});
  ASSERT_EQ(r.status, 0) << r.err;
  j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["schema"], "paratune.runs.list/1");
  ASSERT_EQ(j["runs"].size(), 1u);
  EXPECT_EQ(j["runs"][0]["name"], "base");
  EXPECT_EQ(j["total"], 1);
  r = Run({"runs", "list", "--db", db});
  EXPECT_CONTAINS(r.out, "next");
  EXPECT_LT(r.out.find("next"), r.out.find("base"));  // newest first
  EXPECT_EQ(r.out.find(" of 2 runs"), std::string::npos) << "all runs shown: no line about the rest";
  // --limit below the store's count: the text and the JSON say how many were left out.
  r = Run({"runs", "list", "--db", db, "--limit", "1"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_CONTAINS(r.out, "next");
  EXPECT_EQ(r.out.find("base"), std::string::npos);
  EXPECT_CONTAINS(r.out, "1 of 2 runs; --limit to see more\n");
  r = Run({"runs", "list", "--db", db, "--limit", "1", "--json"});
  j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["runs"].size(), 1u);
  EXPECT_EQ(j["total"], 2);

  // `compare NAME` alone: against its baseline (same cluster and model).
  r = Run({"runs", "compare", "next", "--db", db, "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["schema"], "paratune.runs.compare/1");
  EXPECT_EQ(j["a"], "base");
  EXPECT_EQ(j["baseline_scope"], "cluster=64xH100 model=llama-3.1-70b");
  r = Run({"runs", "compare", "base", "next", "--db", db});
  EXPECT_CONTAINS(r.out, "step_time_s");
  r = Run({"runs", "baseline", "show", "--db", db, "--json"});
  j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["baselines"].size(), 1u);
  EXPECT_EQ(j["baselines"][0]["run"], "base");

  const std::string csv = (dir_ / "runs.csv").string();
  r = Run({"runs", "export", "--csv", "--out", csv, "--db", db});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string text = Slurp(csv);
  EXPECT_EQ(text.rfind("name,created_utc,cluster,model,gpu,gpus,software,measured_mfu,predicted_mfu,", 0), 0u);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 3);
  // --json, as every runs command takes (the README says so): every run, no limit.
  r = Run({"runs", "export", "--json", "--db", db});
  ASSERT_EQ(r.status, 0) << r.err;
  j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["schema"], "paratune.runs.list/1");
  EXPECT_EQ(j["runs"].size(), 2u);
  EXPECT_EQ(j["total"], 2);
  EXPECT_CONTAINS(RunBad({"runs", "export", "--db", db}), "runs export: give --csv or --json");
}

TEST_F(RunsCli, BadInputIsOneLineAndWritesNothing) {
  const std::string db = (dir_ / "sub" / "runs.db").string();
  const std::string bad = Write("bad.json", "{\"schema\": \"paratune.estimate/1\"}");
  EXPECT_EQ(RunBad({"runs", "record", Report("estimate.json"), bad, "--db", db}), bad + ": field 'model' is missing");
  EXPECT_FALSE(fs::exists(db)) << "a bad record must not even create the store";
  EXPECT_CONTAINS(RunBad({"runs", "record", Report("estimate.json"), "--tag", "novalue", "--db", db}),
                  "--tag 'novalue'");
  EXPECT_FALSE(fs::exists(db));
  EXPECT_CONTAINS(RunBad({"runs", "show", "nope", "--db", db}), "no run registry here");  // a read creates no store
  EXPECT_FALSE(fs::exists(db));
  ASSERT_EQ(Run({"runs", "record", Report("estimate.json"), "--name", "one", "--db", db}).status, 0);
  EXPECT_CONTAINS(RunBad({"runs", "show", "nope", "--db", db}), "no run named 'nope'");
  EXPECT_CONTAINS(RunBad({"runs", "list", "--filter", "colour=red", "--db", db}), "unknown key 'colour'");
  EXPECT_CONTAINS(RunBad({"runs", "compare", "a", "b", "c", "--db", db}), "At Most 2 required but received 3");
}

// Issue 38: runs record --cluster is now --cluster-name (the run's cluster label, not a
// cluster file). The old name still works, hidden from --help, with one line on stderr.
TEST_F(RunsCli, RecordOldClusterFlagStillWorks) {
  const std::string db_new = (dir_ / "new.db").string(), db_old = (dir_ / "old.db").string();
  for (const bool json : {false, true}) {
    std::vector<std::string> now = {"runs", "record", Report("estimate.json"), "--name", json ? "j" : "t"};
    if (json) now.push_back("--json");
    std::vector<std::string> old = now;
    now.insert(now.end(), {"--cluster-name", "lab", "--db", db_new});
    old.insert(old.end(), {"--cluster", "lab", "--db", db_old});
    const Result n = Run(now), o = Run(old);
    ASSERT_EQ(n.status, 0) << n.err;
    ASSERT_EQ(o.status, 0) << o.err;
    EXPECT_EQ(n.err, "");
    EXPECT_EQ(o.err, "paratune: --cluster is deprecated; use --cluster-name\n");
    std::string o_out = o.out;  // the same, but for the store's name
    for (size_t at; (at = o_out.find(db_old)) != std::string::npos;) o_out.replace(at, db_old.size(), db_new);
    EXPECT_EQ(o_out, n.out);
  }
  for (const std::string& db : {db_new, db_old}) {
    const Result r = Run({"runs", "show", "j", "--db", db, "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(nlohmann::json::parse(r.out)["cluster"], "lab");
  }
  EXPECT_EQ(
      RunBad({"runs", "record", Report("estimate.json"), "--cluster", "a", "--cluster-name", "a", "--db", db_new}),
      "--cluster is the old name of --cluster-name; give only --cluster-name");
  const Result help = Run({"runs", "record", "--help"});
  EXPECT_CONTAINS(help.out, "--cluster-name TEXT");
  EXPECT_EQ(help.out.find("--cluster "), std::string::npos) << help.out;
}

TEST_F(RunsCli, PasswordInADatabaseUrlIsNeverPrinted) {
  for (const std::string url :
       {"postgresql://alice:s3cr3t-pw@127.0.0.1:1/runs", "postgresql:host=127.0.0.1 port=1 password=s3cr3t-pw"}) {
    for (const std::vector<std::string>& args : {std::vector<std::string>{"runs", "list", "--db", url},
                                                 {"runs", "record", Report("estimate.json"), "--db", url},
                                                 {"runs", "show", "x", "--db", url, "--json"}}) {
      const Result r = Run(args);
      EXPECT_NE(r.status, 0);
      EXPECT_EQ(r.out.find("s3cr3t"), std::string::npos) << r.out;
      EXPECT_EQ(r.err.find("s3cr3t"), std::string::npos) << r.err;
    }
  }
}

}  // namespace
}  // namespace paratune::cli_test
