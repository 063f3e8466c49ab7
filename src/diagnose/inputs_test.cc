#include "diagnose/inputs.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "util/error.h"

namespace paratune {
namespace {

namespace fs = std::filesystem;

class Inputs : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(testing::TempDir()) / ("paratune_inputs_" + std::to_string(::getpid()) + "_" +
                                           testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  // Names deliberately say nothing (or mislead): the kind comes from the content.
  std::string Write(const std::string& name, const std::string& text) {
    const fs::path p = dir_ / name;
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
  }
  fs::path dir_;
};

const char* kMegatron =
    " [2024-05-01 12:00:00] iteration       10/    1000 | consumed samples:         5120 | elapsed time per iteration "
    "(ms): "
    "1234.5 | throughput per GPU (TFLOP/s/GPU): 412.3 | learning rate: 1.000000E-04 | global batch size:   512 | lm "
    "loss: "
    "2.345678E+00 | loss scale: 1.0 | grad norm: 0.321 | number of skipped iterations:   0 | number of nan iterations: "
    "  0 |\n"
    " [2024-05-01 12:00:12] iteration       20/    1000 | consumed samples:        10240 | elapsed time per iteration "
    "(ms): "
    "1234.5 | throughput per GPU (TFLOP/s/GPU): 412.3 | learning rate: 1.000000E-04 | global batch size:   512 | lm "
    "loss: "
    "2.345678E+00 | loss scale: 1.0 | grad norm: 0.321 | number of skipped iterations:   0 | number of nan iterations: "
    "  0 |\n";

const char* kTopo =
    "\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n"
    "GPU0\t X \tNV18\t0-51\t0\t\tN/A\n"
    "GPU1\tNV18\t X \t0-51\t0\t\tN/A\n"
    "\nLegend:\n\n  X    = Self\n  NV#  = Connection traversing a bonded set of # NVLinks\n";

const char* kNccl =
    "# nThread 1 nGpus 1 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 "
    "validation: 1 "
    "graph: 0\n#\n# Using devices\n#  Rank  0 Group  0 Pid  1234 on     node1 device  0 [0x1b] NVIDIA H100 80GB HBM3\n"
    "#  Rank  1 Group  0 Pid  1235 on     node1 device  1 [0x2c] NVIDIA H100 80GB HBM3\n#\n"
    "#                                                              out-of-place                       in-place        "
    "  \n"
    "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw "
    "#wrong\n"
    "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)     "
    "  \n"
    "   134217728      33554432     float     sum      -1    800.0  167.77  167.77      0    799.0  167.98  167.98     "
    " 0\n"
    "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 167.87 \n#\n";

TEST_F(Inputs, KindComesFromTheContentNotTheName) {
  EXPECT_EQ(DetectInputKind(Write("a.csv", kMegatron)), InputKind::kTrainingLog);
  EXPECT_EQ(DetectInputKind(Write("b.log", kTopo)), InputKind::kTopology);
  EXPECT_EQ(DetectInputKind(Write("c.txt", kNccl)), InputKind::kNcclTests);
  EXPECT_EQ(DetectInputKind(Write("d", R"({"schemaVersion": 1, "traceEvents": []})")), InputKind::kTrace);
  EXPECT_EQ(DetectInputKind(Write("e.json", R"(  {"schema": "paratune.analyze/1", "ranks": []})")),
            InputKind::kAnalysisJson);
  EXPECT_EQ(DetectInputKind(Write("f.json", std::string("SQLite format 3") + '\0')), InputKind::kTrace);
}

TEST_F(Inputs, UnknownAndEmptyFilesAreNamed) {
  const std::string junk = Write("x.log", "hello world\nnothing to see\n");
  try {
    DetectInputKind(junk);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(junk + ": not a file diagnose reads", 0), 0u) << e.what();
  }
  const std::string empty = Write("empty.txt", "");
  EXPECT_THROW(DetectInputKind(empty), InputError);
  EXPECT_THROW(LoadDiagnoseInputs({(dir_ / "missing.txt").string()}), InputError);
  EXPECT_THROW(LoadDiagnoseInputs({}), InputError);
  fs::create_directories(dir_ / "none");
  EXPECT_THROW(LoadDiagnoseInputs({(dir_ / "none").string()}), InputError);
}

TEST_F(Inputs, ADirectoryContributesEachFileOnce) {
  fs::create_directories(dir_ / "run");
  std::ofstream(dir_ / "run" / "log") << kMegatron;
  std::ofstream(dir_ / "run" / "topo") << kTopo;
  std::ofstream(dir_ / "run" / ".hidden") << "ignored";
  const DiagnoseInputs in = LoadDiagnoseInputs({(dir_ / "run").string()});
  ASSERT_EQ(in.files.size(), 2u);
  EXPECT_EQ(in.files[0].kind, InputKind::kTrainingLog);
  EXPECT_EQ(in.files[1].kind, InputKind::kTopology);
  ASSERT_EQ(in.logs.size(), 1u);
  EXPECT_EQ(in.logs[0].iterations.size(), 2u);
  ASSERT_EQ(in.topologies.size(), 1u);
  EXPECT_EQ(in.topologies[0].gpu_count, 2);
}

}  // namespace
}  // namespace paratune
