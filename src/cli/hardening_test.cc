// Issue 32, through the binary: outputs pointed at devices, FIFOs and symlinks; "-" for standard
// output; an output that is an input; write errors on a full device; inputs that are FIFOs or
// link loops. Each case failed on main 58edfcf. docs/files.md.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <fcntl.h>
#include <future>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/cli_test_util.h"
#include "util/test_util.h"
#include "validate/published_runs_test_util.h"

namespace paratune::cli_test {
namespace {

constexpr const char* kJobTrace =
    "name,submit_s,gpus,run_s,class,checkpoint_interval_s,restart_overhead_s\n"
    "exp,0,8,10000,experimental,1000,100\n";

class Hardening : public Cli {
 protected:
  // An estimate document to report on.
  std::string EstimateDoc() {
    const Result e = Run({"estimate", "--json"});
    EXPECT_EQ(e.status, 0) << e.err;
    return Write("est.json", e.out);
  }
  // `paratune ARGS` with stdout sent to `stdout_to` (a shell redirection target), killed after
  // 30 s: a hang is a failure, not a stuck suite.
  Result RunTo(const std::vector<std::string>& args, const std::string& stdout_to) {
    std::string cmd = "timeout -s KILL 30 " + Quote(PARATUNE_BINARY);
    for (const std::string& a : args) cmd.append(" ").append(Quote(a));
    const fs::path err = dir_ / "stderr.txt";
    cmd.append(" </dev/null >").append(stdout_to).append(" 2>").append(Quote(err.string()));
    const int raw = std::system(cmd.c_str());
    Result r;
    r.status = (raw != -1 && WIFEXITED(raw)) ? WEXITSTATUS(raw) : -1;
    r.err = Slurp(err);
    return r;
  }
  std::string Fifo(const std::string& name) {
    const std::string p = (dir_ / name).string();
    EXPECT_EQ(::mkfifo(p.c_str(), 0600), 0);
    return p;
  }
  static bool IsFifo(const std::string& p) {
    struct stat st {};
    return ::lstat(p.c_str(), &st) == 0 && S_ISFIFO(st.st_mode);
  }
};

// A FIFO with a reader is written through and stays a FIFO; a symlink stays a link and the file
// it names gets the report; /dev/null stays the character device (as root it was replaced).
TEST_F(Hardening, OutputsWriteThroughFifosSymlinksAndDevices) {
  const std::string doc = EstimateDoc();
  const std::string fifo = Fifo("out.fifo");
  auto read = std::async(std::launch::async, [&] { return Slurp(fifo); });
  const Result r = Run({"report", doc, "--out", fifo});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_CONTAINS(read.get(), "<!doctype html>");
  EXPECT_TRUE(IsFifo(fifo));

  const std::string target = Write("real.html", "old");
  fs::create_symlink(target, dir_ / "link.html");
  ASSERT_EQ(Run({"report", doc, "--out", (dir_ / "link.html").string()}).status, 0);
  EXPECT_TRUE(fs::is_symlink(dir_ / "link.html"));
  EXPECT_CONTAINS(Slurp(target), "<!doctype html>");

  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"report", doc, "--out", "/dev/null"},
        {"simulate", "--trace-out", "/dev/null"},
        {"plan", "--top", "1", "--quiet", "--emit", "megatron", "--emit-out", "/dev/null"}}) {
    const Result d = Run(args);
    EXPECT_EQ(d.status, 0) << args[0] << ": " << d.err;
    struct stat st {};
    ASSERT_EQ(::stat("/dev/null", &st), 0);
    EXPECT_TRUE(S_ISCHR(st.st_mode)) << args[0] << " replaced /dev/null";
  }
}

// A FIFO nobody reads, a directory, a dangling link and a link loop are refused on one line.
TEST_F(Hardening, OutputsThatCannotBeWrittenAreRefused) {
  const std::string doc = EstimateDoc();
  EXPECT_CONTAINS(RunBad({"report", doc, "--out", Fifo("noreader.fifo")}),
                  "noreader.fifo: cannot write: no process is reading this FIFO");
  EXPECT_CONTAINS(RunBad({"report", doc, "--out", dir_.string()}), ": cannot write: is a directory");
  fs::create_symlink(dir_ / "missing" / "x.html", dir_ / "dangling.html");
  EXPECT_CONTAINS(RunBad({"report", doc, "--out", (dir_ / "dangling.html").string()}),
                  "dangling.html: cannot write: symbolic link to a missing file");
  fs::create_symlink(dir_ / "loop2", dir_ / "loop1");
  fs::create_symlink(dir_ / "loop1", dir_ / "loop2");
  EXPECT_CONTAINS(RunBad({"report", doc, "--out", (dir_ / "loop1").string()}),
                  "loop1: cannot write: symbolic link loop");
  EXPECT_CONTAINS(RunBad({"simulate", "--trace-out", ""}), "--trace-out: empty file name");
}

// "-" is standard output wherever a file is written; the command's own lines go to stderr.
TEST_F(Hardening, DashIsStandardOutput) {
  const std::string doc = EstimateDoc();
  const Result r = Run({"report", doc, "--out", "-"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(r.out.starts_with("<!doctype html>")) << r.out.substr(0, 80);
  EXPECT_FALSE(fs::exists(dir_ / "-"));
  const std::string trace = Write("t.csv", kJobTrace);
  const Result c =
      Run({"cluster", "--job-history", trace, "--nodes", "1", "--gpu", "H100", "--policy", "fifo", "--series", "-"});
  ASSERT_EQ(c.status, 0) << c.err;
  EXPECT_TRUE(c.out.starts_with("policy,")) << c.out.substr(0, 80);
  EXPECT_CONTAINS(c.err, "fifo");  // the summary table, on stderr
  const Result p = Run({"plan", "--top", "1", "--quiet", "--emit", "megatron", "--emit-out", "-"});
  ASSERT_EQ(p.status, 0) << p.err;
  EXPECT_CONTAINS(p.out, "--tensor-model-parallel-size");
  EXPECT_CONTAINS(RunBad({"cluster", "--job-history", trace, "--nodes", "1", "--series", "-", "--jobs-out", "-"}),
                  "--series and --jobs-out both name standard output (-)");
}

// `report in.json --out in.json` overwrote its input.
TEST_F(Hardening, OutputThatIsAnInputIsRefused) {
  const std::string doc = EstimateDoc();
  const std::string before = Slurp(doc);
  EXPECT_CONTAINS(RunBad({"report", doc, "--out", doc}), "--out " + doc + ": is an input of this command");
  EXPECT_EQ(Slurp(doc), before);
  fs::create_symlink(doc, dir_ / "alias.json");
  EXPECT_CONTAINS(RunBad({"report", doc, "--out", (dir_ / "alias.json").string()}), "is an input of this command");
  EXPECT_CONTAINS(RunBad({"report", dir_.string(), "--out", doc}), "is an input of this command");
  const std::string trace = Write("t.csv", kJobTrace);
  EXPECT_CONTAINS(RunBad({"cluster", "--job-history", trace, "--nodes", "1", "--jobs-out", trace}),
                  "--jobs-out " + trace + ": is an input");
  EXPECT_EQ(Slurp(trace), kJobTrace);
}

// A full device: standard output and files both fail with the name and exit non-zero.
TEST_F(Hardening, WriteErrorsAreReported) {
  const Result out = RunTo({"estimate"}, "/dev/full");
  EXPECT_EQ(out.status, 2);
  EXPECT_EQ(out.err, "paratune: error: standard output: cannot write: No space left on device\n");
  const Result big = RunTo({"simulate", "--json", "--timeline"}, "/dev/full");  // more than stdio's buffer
  EXPECT_EQ(big.status, 2);
  EXPECT_CONTAINS(big.err, "standard output: cannot write: No space left on device");
  const std::string doc = EstimateDoc();
  EXPECT_EQ(RunBad({"report", doc, "--out", "/dev/full"}), "/dev/full: cannot write: No space left on device");
  const Result dash = RunTo({"report", doc, "--out", "-"}, "/dev/full");
  EXPECT_EQ(dash.status, 2);
  EXPECT_CONTAINS(dash.err, "standard output: cannot write: No space left on device");
}

// A FIFO given where a file is read blocked forever (12 places); now one line, at once. Nothing
// writes to these FIFOs: a reader that opened one would wait for the 30 s kill.
TEST_F(Hardening, FifoInputsAreRefused) {
  const std::string f = Fifo("in.fifo");
  const std::string doc = EstimateDoc();
  const std::vector<std::vector<std::string>> cases = {
      {"analyze", f},
      {"estimate", "--model", f},
      {"estimate", "--hardware", f},
      {"validate", f},
      {"calibrate", f},
      {"diagnose", f},
      {"report", f, "--out", (dir_ / "r.html").string()},
      {"runs", "record", f, "--name", "x", "--db", (dir_ / "runs.db").string()},
      {"cluster", "--job-history", f, "--nodes", "1"},
      {"cluster", "--job-history", Write("t.csv", kJobTrace), "--topology", f},
  };
  for (const auto& args : cases) {
    SCOPED_TRACE(args[0] + " " + args[1]);
    const Result r = RunTo(args, Quote((dir_ / "stdout.txt").string()));
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_CONTAINS(r.err, "in.fifo: cannot read: is a FIFO (named pipe), not a regular file");
  }
  EXPECT_FALSE(fs::exists(dir_ / "r.html"));
  EXPECT_FALSE(fs::exists(dir_ / "runs.db"));
}

// A symlink loop was "no such file".
TEST_F(Hardening, SymlinkLoopSaysSo) {
  fs::create_symlink(dir_ / "b.json", dir_ / "a.json");
  fs::create_symlink(dir_ / "a.json", dir_ / "b.json");
  EXPECT_CONTAINS(RunBad({"analyze", (dir_ / "a.json").string()}), "a.json: cannot read: symbolic link loop");
  EXPECT_CONTAINS(RunBad({"diagnose", (dir_ / "a.json").string()}), "a.json: cannot read: symbolic link loop");
  EXPECT_CONTAINS(RunBad({"estimate", "--model", (dir_ / "a.json").string()}),
                  "a.json: cannot read: symbolic link loop");
}

// JSON nested 100,000 deep and a config.json naming a key twice are refused on one line.
TEST_F(Hardening, DeepJsonAndDuplicateKeysAreRefused) {
  const std::string deep = Write("deep.json", "{\"schema\":\"paratune.estimate/1\",\"x\":" + std::string(100000, '[') +
                                                  std::string(100000, ']') + "}");
  EXPECT_CONTAINS(RunBad({"report", deep, "--out", (dir_ / "r.html").string()}),
                  "deep.json: JSON nested deeper than 64 levels");
  const std::string cfg = Write(
      "dup/config.json", R"({"architectures": ["LlamaForCausalLM"], "num_hidden_layers": 2, "num_hidden_layers": 80,
      "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 32000, "intermediate_size": 11008})");
  EXPECT_CONTAINS(RunBad({"estimate", "--model", cfg}),
                  "config.json: key \"num_hidden_layers\" appears twice in one object");
}

// `diagnose an.json` on analyze's output of the README's trace failed: "schema" came after the
// 64 KiB window in which diagnose recognises a file. Every document now starts with it, and an
// older document with it last is still recognised.
TEST_F(Hardening, DocumentsStartWithTheirSchemaAndAreRecognisedByIt) {
  const std::string trace = std::string(PARATUNE_SOURCE_DIR) + "/testdata/traces/hta/trace_filter";
  const Result a = Run({"analyze", trace, "--json", "--quiet"});
  ASSERT_EQ(a.status, 0) << a.err;
  EXPECT_TRUE(a.out.starts_with("{\n  \"schema\": \"paratune.analyze/1\",")) << a.out.substr(0, 80);
  ASSERT_GT(a.out.size(), 64u * 1024);  // the case that failed: the tables fill the window
  const Result d = Run({"diagnose", Write("an.json", a.out), "--json"});
  EXPECT_EQ(d.status, 0) << d.err;
  EXPECT_TRUE(d.out.starts_with("{\n  \"schema\": \"paratune.diagnose/1\","));
  const std::string sorted = nlohmann::json::parse(a.out).dump(2);  // schema after "ranks"
  ASSERT_GT(sorted.find("\"schema\""), 64u * 1024);
  const Result old = Run({"diagnose", Write("old.json", sorted), "--json"});
  EXPECT_EQ(old.status, 0) << old.err;
  for (const std::vector<std::string>& args : {std::vector<std::string>{"estimate", "--json"},
                                               {"plan", "--top", "1", "--json", "--quiet"},
                                               {"simulate", "--json"},
                                               {"models", "--json"},
                                               {"gpus", "--json"}}) {
    const Result r = Run(args);
    EXPECT_TRUE(r.out.starts_with("{\n  \"schema\": \"paratune.")) << args[0] << ": " << r.out.substr(0, 60);
  }
}

// `report DIR` with a file beside the documents that is not one skips it with a note.
TEST_F(Hardening, ReportDirSkipsOtherFilesWithANote) {
  const Result e = Run({"estimate", "--json"});
  Write("docs/est.json", e.out);
  Write("docs/notes.txt", "not a document");
  const Result r = Run({"report", (dir_ / "docs").string(), "--out", (dir_ / "r.html").string()});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_CONTAINS(r.err, "paratune: note: " + (dir_ / "docs" / "notes.txt").string() +
                             ": not the --json document of a paratune command; skipped");
  EXPECT_CONTAINS(r.out, "from 1 input");
}

// A Megatron log cut mid-line by a crash was rejected whole; --allow-partial skips malformed lines.
TEST_F(Hardening, CutTrainingLogIsReadWithANote) {
  std::string log;
  for (int i = 1; i <= 20; ++i)
    log += fmt::format(
        " [2024-05-01 12:00:{:02d}] iteration {:8d}/  500000 | consumed samples: {:12d} | elapsed time per iteration "
        "(ms): 1000.0 | "
        "global batch size:   512 | lm loss: 2.3E+00 |\n",
        i, i * 10, i * 5120);
  const std::string cut =
      Write("train.log",
            log + " [2024-05-01 12:00:21] iteration      210/  500000 | consumed samples:   107520 | elapsed ti");
  const Result r = Run({"diagnose", cut});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_CONTAINS(r.err, "paratune: note: " + cut +
                             ":21: the file ends inside this line (the job stopped mid-write); it is ignored");
  const std::string bad =
      Write("bad.log", log + " iteration 211/ 500000 | elapsed time per iteration (ms): abc |\n" + log);
  EXPECT_CONTAINS(RunBad({"diagnose", bad}), "bad.log:21: elapsed time per iteration (ms): 'abc' is not a number");
  const Result p = Run({"diagnose", bad, "--allow-partial"});
  EXPECT_EQ(p.status, 0) << p.err;
  EXPECT_CONTAINS(p.err, "1 malformed line(s) skipped (--allow-partial)");
}

// The same file twice (directly or through a link) doubled every finding.
TEST_F(Hardening, SameInputTwiceIsRefused) {
  const std::string trace = std::string(PARATUNE_SOURCE_DIR) + "/testdata/traces/hta/trace_filter";
  const Result a = Run({"analyze", trace, "--json", "--quiet"});
  const std::string an = Write("an.json", a.out);
  fs::create_symlink(an, dir_ / "again.json");
  EXPECT_CONTAINS(RunBad({"diagnose", an, (dir_ / "again.json").string()}),
                  "again.json: given twice (also as " + an + ")");
}

// Every row of a job trace skipped: exit 2, not a summary of zeros.
TEST_F(Hardening, EveryJobSkippedIsAnError) {
  const std::string t = Write("big.csv", "name,submit_s,gpus,run_s,class\nbig,0,4096,100,experimental\n");
  EXPECT_CONTAINS(RunBad({"cluster", "--job-history", t, "--nodes", "1"}),
                  "every row was skipped (1); the first, line 2: ");
}

// A read never creates a store; unknown schemes and empty locations are refused.
TEST_F(Hardening, RegistryReadsCreateNothing) {
  EXPECT_CONTAINS(RunBad({"runs", "list", "--db", (dir_ / "none" / "runs.db").string()}),
                  "runs.db: no run registry here (runs record creates one)");
  EXPECT_FALSE(fs::exists(dir_ / "none"));
  EXPECT_CONTAINS(RunBad({"runs", "list", "--db", "mysql://u@h/db"}), "unknown store scheme 'mysql'");
  EXPECT_CONTAINS(RunBad({"runs", "list", "--db", ""}), "--db: empty location");
  EXPECT_CONTAINS(RunBad({"runs", "show", "x", "--db", (dir_ / "r2.db").string()}), "no run registry here");
  EXPECT_FALSE(fs::exists(dir_ / "r2.db"));
}

// Nonsense that was accepted, and errors a new user could not read: each one line naming the
// flag and the value.
TEST_F(Hardening, NonsenseValuesAreRefusedByName) {
  const std::string jobs = Write("t.csv", kJobTrace);
  EXPECT_EQ(RunBad({"cluster", "--job-history", jobs, "--nodes", "1", "--checkpoint-interval", "nan"}),
            "--checkpoint-interval: 'nan' is not a finite number");
  EXPECT_EQ(RunBad({"cluster", "--job-history", jobs, "--nodes", "1", "--policy", "fifo,fifo"}),
            "--policy: 'fifo' is named twice (each policy is replayed once)");
  const std::string trace = std::string(PARATUNE_SOURCE_DIR) + "/testdata/traces/hta/trace_filter";
  EXPECT_EQ(RunBad({"analyze", trace, "--rank", "-1"}), "--rank -1: ranks are numbered from 0");
  const std::vector<std::string> dims = {"estimate", "--layers", "2", "--hidden", "256", "--ffn",
                                         "512",      "--heads",  "4", "--vocab",  "1000"};
  auto with = [&](std::vector<std::string> more) {
    std::vector<std::string> a = dims;
    a.insert(a.end(), more.begin(), more.end());
    return a;
  };
  EXPECT_CONTAINS(RunBad(with({"--kv-heads", "-4"})), "kv-heads");
  EXPECT_CONTAINS(RunBad(with({"--kv-heads", "-4"})), "must be positive, got -4");
  EXPECT_CONTAINS(RunBad(with({"--topk", "2"})), "(2) needs");
  EXPECT_EQ(RunBad({"plan", "--tp", "8", "--max-tp", "4", "--quiet"}),
            "--tp 8 is above --max-tp 4: the two exclude each other");
  EXPECT_EQ(RunBad({"estimate", "--global-batch", "99999999999999999999"}),
            "--global-batch: '99999999999999999999' does not fit a 64-bit integer");
  EXPECT_EQ(RunBad({"estimate", "--tp", "2", "--tp", "4"}), "--tp is given 2 times; give it once");
  EXPECT_EQ(RunBad({"runs", "bogus"}),
            "unknown runs subcommand 'bogus'; the runs subcommands are record, list, show, compare, baseline, export");
  EXPECT_EQ(RunBad({"runs", "lst"}), "unknown runs subcommand 'lst' (did you mean runs list?)");
  EXPECT_CONTAINS(RunBad({"estimate", "--offload-layers", "-1"}), "--offload-layers");
  // The micro-batch count was the problem and the message said "lower pp or vp".
  EXPECT_CONTAINS(
      RunBad({"simulate", "--global-batch", "2000000", "--pp", "4", "--trace-out", (dir_ / "t.json").string()}),
      "fewer micro-batches");
  const Result e = Run({"estimate", "--json"});
  EXPECT_CONTAINS(RunBad({"runs", "record", Write("e.json", e.out), "--name", "  ", "--db", (dir_ / "r.db").string()}),
                  "a run name must not be blank");
}

// `runs record a.json b.json` joined a measured 607 ms step with a predicted 36.9 s one without a word.
TEST_F(Hardening, RecordWarnsWhenFilesDescribeDifferentRuns) {
  const std::string report = std::string(PARATUNE_SOURCE_DIR) + "/testdata/report/";
  const Result r = Run({"runs", "record", report + "analyze.json", report + "estimate.json", "--name", "demo", "--db",
                        (dir_ / "r.db").string()});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_CONTAINS(r.err, "paratune: warning: " + report + "analyze.json and " + report +
                             "estimate.json: measured step time 0.608 s beside a predicted 36.9 s (+5978%)");
  const Result same =
      Run({"runs", "record", report + "estimate.json", "--name", "one", "--db", (dir_ / "r.db").string()});
  EXPECT_EQ(same.err, "");
}

// `estimate` of a layout that does not fit printed its throughput first: it leads with DOES NOT
// FIT and the fastest one-knob change that fits. 70B on 8 H100s at tp 1, pp 1, ZeRO 1 cannot fit.
TEST_F(Hardening, EstimateThatDoesNotFitLeadsWithIt) {
  // 8B on 8 B300s, micro-batch 8 of 8,192 tokens without recomputation: 421.7 GB of 288.4.
  const Result r = Run({"estimate", "--model", "llama-3.1-8b", "--gpu", "B300", "--gpus", "8", "--tp", "1", "--pp", "1",
                        "--mbs", "8", "--global-batch", "64", "--seq", "8192", "--recompute", "none"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(r.out.starts_with("DOES NOT FIT: pipeline stage 0 needs 421.7 GB per GPU, the B300 has 288.4 GB."))
      << r.out.substr(0, 200);
  EXPECT_CONTAINS(r.out.substr(0, 400), "fits with mbs 4: 243.1 GB");
  // 70B on 8 B300s at tp 1, pp 1: no one knob is enough.
  const Result big = Run({"estimate", "--model", "llama-3.1-70b", "--gpu", "B300", "--gpus", "8", "--tp", "1", "--pp",
                          "1", "--zero", "1", "--global-batch", "64"});
  EXPECT_CONTAINS(big.out.substr(0, 400), "no one-knob change (recompute, ZeRO, micro-batch, 2x tp, 2x pp) fits");
  // --json holds the same change (docs/json.md "fitting_change"), null when none fits, absent when it fits.
  const Result j = Run({"estimate", "--model", "llama-3.1-8b", "--gpu",       "B300",  "--gpus", "8",
                        "--tp",     "1",       "--pp",         "1",           "--mbs", "8",      "--global-batch",
                        "64",       "--seq",   "8192",         "--recompute", "none",  "--json"});
  ASSERT_EQ(j.status, 0) << j.err;
  const nlohmann::json doc = nlohmann::json::parse(j.out);
  EXPECT_FALSE(doc["memory"]["fits"].get<bool>());
  EXPECT_EQ(doc["fitting_change"]["change"], "mbs 4");
  EXPECT_NEAR(doc["fitting_change"]["peak_memory_bytes"].get<double>(), 243.1e9, 0.05e9);
  EXPECT_GT(doc["fitting_change"]["tokens_per_s_per_gpu"].get<double>(), 0);
  const Result jbig = Run({"estimate", "--model", "llama-3.1-70b", "--gpu", "B300", "--gpus", "8", "--tp", "1", "--pp",
                           "1", "--zero", "1", "--global-batch", "64", "--json"});
  EXPECT_TRUE(nlohmann::json::parse(jbig.out).at("fitting_change").is_null());
  const Result fits = Run({"estimate", "--json"});
  EXPECT_FALSE(nlohmann::json::parse(fits.out).contains("fitting_change"));
  // A batch of 16.4B tokens per step warns.
  const Result b = Run({"estimate", "--global-batch", "4000000", "--seq", "4096"});
  EXPECT_CONTAINS(b.out, "tokens per step, over 260 times the largest published");
}

// A file none of whose rows can be modelled printed "n 0, MAPE 0.0%" (validate) and was "fitted"
// (calibrate): exit 2 naming the file and the first row's reason.
TEST_F(Hardening, NoModellableRowIsAnError) {
  const std::string row =
      ",lab,test,GPT "
      "x,dense,24,2048,8192,16,16,51200,2048,,,Z900-SXM,Z900,8,8,1,1,,8,1,,yes,,4,256,selective,bf16,BF16,"
      "tokens_per_s_per_gpu,1000,1000,,synthetic,,high,,\n";
  const std::string csv = Write("unmod.csv", std::string(paratune::test::kPublishedRunsHeader) + "a" + row + "b" + row);
  EXPECT_EQ(
      RunBad({"validate", csv}),
      csv + ": none of its 2 rows could be modelled; the first, a: GPU 'Z900-SXM' is not in the hardware catalog");
  EXPECT_CONTAINS(RunBad({"calibrate", csv, "--quiet"}), csv + ": none of its 2 rows can be fitted");
  EXPECT_FALSE(fs::exists(dir_ / "out.toml"));
}

// A CSV saved with a UTF-8 byte-order mark reads like one without ("missing column 'id'" before).
TEST_F(Hardening, CsvWithByteOrderMarkReads) {
  const std::string csv = Write("bom.csv", "\xEF\xBB\xBF" + std::string(paratune::test::kPublishedRunsHeader));
  EXPECT_EQ(RunBad({"validate", csv}), csv + ": no data rows (only the header)");
}

}  // namespace
}  // namespace paratune::cli_test
