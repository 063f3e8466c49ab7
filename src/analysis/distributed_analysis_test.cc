#include "analysis/distributed_analysis.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>
#include <nlohmann/json.hpp>

#include "analysis/analysis_json.h"
#include "util/error.h"
#include "util/json_document.h"
#include "util/test_util.h"

namespace paratune {
namespace {

namespace fs = std::filesystem;

// The processes of a launcher played by threads of this one: AllGather is a barrier that hands
// every thread all threads' bytes.
struct ThreadExchange {
  explicit ThreadExchange(int n) : size(n), slots(static_cast<size_t>(n)) {}
  std::vector<std::string> Gather(int index, std::string_view mine) {
    std::unique_lock<std::mutex> lock(mutex);
    slots[static_cast<size_t>(index)] = std::string(mine);
    if (++arrived == size) {
      result = slots;
      arrived = 0;
      ++generation;
      cv.notify_all();
    } else {
      const int64_t g = generation;
      cv.wait(lock, [&] { return generation != g; });
    }
    return result;
  }
  const int size;
  std::mutex mutex;
  std::condition_variable cv;
  int arrived = 0;
  int64_t generation = 0;
  std::vector<std::string> slots, result;
};

class ThreadProcess : public ProcessGroup {
 public:
  ThreadProcess(ThreadExchange& x, int index) : x_(x), index_(index) {}
  int Index() const override { return index_; }
  int Size() const override { return x_.size; }
  std::vector<std::string> AllGather(std::string_view mine) override { return x_.Gather(index_, mine); }

 private:
  ThreadExchange& x_;
  int index_;
};

// What each of `n` processes made of the set: the analyze document's text, or "error: " + the
// InputError's line.
std::vector<std::string> AcrossProcesses(const std::vector<std::string>& inputs, int n,
                                         const AnalysisOptions& asked = {}) {
  ThreadExchange x(n);
  std::vector<std::string> out(static_cast<size_t>(n));
  std::vector<std::thread> threads;
  for (int i = 0; i < n; ++i)
    threads.emplace_back([&, i] {
      ThreadProcess p(x, i);
      try {
        TraceSetOptions read;
        read.threads = 1;
        AnalysisOptions options = asked;
        options.threads = 1;
        out[static_cast<size_t>(i)] = DocumentText(AnalysisJson(AnalyzeTracesAcross(inputs, read, options, p)));
      } catch (const InputError& e) {
        out[static_cast<size_t>(i)] = std::string("error: ") + e.what();
      }
    });
  for (std::thread& t : threads) t.join();
  return out;
}

std::string OneProcess(const std::vector<std::string>& inputs, const AnalysisOptions& options = {}) {
  try {
    return DocumentText(AnalysisJson(AnalyzeTraces(ReadTraceSet(inputs), options)));
  } catch (const InputError& e) {
    return std::string("error: ") + e.what();
  }
}

// The two ranks of HTA's trace_filter fixture, and a third file named between them.
std::string SetWith(const std::string& name, const std::string& middle_text) {
  const std::string dir = testing::TempDir() + "/paratune_distributed_" + name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  for (const char* f : {"sampled_rank-0.json.gz", "sampled_rank-1.json.gz"})
    fs::copy_file(TestDataPath(std::string("traces/hta/trace_filter/") + f), dir + "/" + f);
  if (!middle_text.empty()) std::ofstream(dir + "/sampled_rank-05.json") << middle_text;
  return dir;
}

TEST(ShareFiles, LargestFirstToTheLeastLoadedProcess) {
  // Sizes 2, 10, 5, 7, 3 bytes (files 0-4): 10 -> p0; 7 -> p1; 5 -> p1 (7 < 10); 3 -> p0
  // (10 < 12); 2 -> p1 (12 < 13).
  const std::string dir = testing::TempDir() + "/paratune_share_files";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::vector<std::string> files;
  for (int size : {2, 10, 5, 7, 3}) {
    files.push_back(dir + "/f" + std::to_string(files.size()));
    std::ofstream(files.back()) << std::string(static_cast<size_t>(size), 'x');
  }
  const auto share = ShareFiles(files, 2);
  ASSERT_EQ(share.size(), 2u);
  EXPECT_EQ(share[0], (std::vector<size_t>{1, 4}));
  EXPECT_EQ(share[1], (std::vector<size_t>{0, 2, 3}));
  // More processes than files: the rest get none.
  const auto wide = ShareFiles(files, 7);
  EXPECT_EQ(wide[0], std::vector<size_t>{1});
  EXPECT_TRUE(wide[5].empty() && wide[6].empty());
}

TEST(AnalyzeTracesAcross, EveryProcessCountGivesTheOneProcessDocument) {
  const std::string dir = SetWith("same", "");
  const std::string one = OneProcess({dir});
  ASSERT_EQ(one.rfind("error", 0), std::string::npos) << one;
  const nlohmann::json doc = nlohmann::json::parse(one);
  ASSERT_EQ(doc.at("ranks").size(), 2u);
  EXPECT_GT(doc.at("stragglers").at("collectives_matched").get<int64_t>(), 0);
  for (int n : {1, 2, 3})
    for (const std::string& text : AcrossProcesses({dir}, n)) EXPECT_EQ(text, one) << n << " processes";
  AnalysisOptions cp;  // with each rank's critical path
  cp.critical_path.emplace();
  const std::string with_path = OneProcess({dir}, cp);
  for (const std::string& text : AcrossProcesses({dir}, 2, cp)) EXPECT_EQ(text, with_path);
}

// Rank r of a step that all-reduces for `kernel_us` then waits for it (cudaStreamSynchronize):
// the kernel is on the critical path.
std::string AllReduceRank(int rank, int kernel_us) {
  const std::string d = std::to_string(kernel_us);
  return R"({"distributedInfo": {"rank": )" + std::to_string(rank) + R"(, "world_size": 2}, "traceEvents": [
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 10000},
    {"ph": "X", "cat": "cpu_op", "name": "c10d::allreduce_", "pid": 1, "tid": 1, "ts": 10, "dur": 20},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 12, "dur": 5,
     "args": {"correlation": 1}},
    {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_f32_RING_LL", "pid": 0, "tid": 7, "ts": 20,
     "dur": )" +
         d + R"(, "args": {"stream": 7, "correlation": 1, "Collective name": "allreduce",
     "Process Group Name": "0", "In msg nelems": 1048576, "Out msg nelems": 1048576, "Group size": 2,
     "dtype": "Float"}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamSynchronize", "pid": 1, "tid": 1, "ts": 40,
     "dur": )" +
         std::to_string(kernel_us + 10) + R"(, "args": {"correlation": 2}},
    {"ph": "X", "cat": "cuda_sync", "name": "Stream Sync", "pid": 0, "tid": 7, "ts": )" +
         std::to_string(kernel_us + 20) + R"(, "dur": 5, "args": {"stream": 7, "correlation": 2}}]})";
}

// The cross-rank edge of the critical path: rank 0's all-reduce kernel (5 ms) is on its path and
// rank 1's took 1 ms (it arrived last): 4 ms of rank 0's path waited for rank 1; the same with
// the ranks' files on two processes.
TEST(AnalyzeTracesAcross, TheCollectiveWaitOnACriticalPathCrossesProcesses) {
  const std::string dir = testing::TempDir() + "/paratune_distributed_waits";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir + "/rank0.json") << AllReduceRank(0, 5000);
  std::ofstream(dir + "/rank1.json") << AllReduceRank(1, 1000);
  AnalysisOptions cp;
  cp.critical_path.emplace();
  const std::string one = OneProcess({dir}, cp);
  ASSERT_EQ(one.rfind("error", 0), std::string::npos) << one;
  const nlohmann::json doc = nlohmann::json::parse(one);
  const nlohmann::json& path0 = doc.at("ranks").at(0).at("critical_path");
  EXPECT_NEAR(path0.at("collective_wait_s").get<double>(), 4e-3, 1e-12);
  EXPECT_EQ(path0.at("waited_for").at(0).at("rank"), 1);
  EXPECT_EQ(doc.at("ranks").at(1).at("critical_path").at("collective_wait_s").get<double>(), 0);
  for (const std::string& text : AcrossProcesses({dir}, 2, cp)) EXPECT_EQ(text, one);
}

TEST(AnalyzeTracesAcross, ABrokenFileStopsEveryProcessWithTheOneProcessError) {
  const std::string dir = SetWith(
      "broken",
      R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::zero_", "pid": 1, "tid": 1, "ts": 1682725898082467, "dur": 22.0}, {"ph": "X", "name": "b", "ts": )");
  const std::string one = OneProcess({dir});
  EXPECT_CONTAINS(one, "sampled_rank-05.json: truncated");
  for (int n : {2, 3})
    for (const std::string& text : AcrossProcesses({dir}, n)) EXPECT_EQ(text, one) << n << " processes";
}

TEST(AnalyzeTracesAcross, ARankFromTwoFilesOnTwoProcessesIsTheOneProcessError) {
  const std::string dir = SetWith("twice", "");
  fs::copy_file(dir + "/sampled_rank-1.json.gz", dir + "/z_rank1.json.gz");
  const std::string one = OneProcess({dir});
  EXPECT_EQ(one, "error: " + dir + "/z_rank1.json.gz: rank 1 also comes from " + dir + "/sampled_rank-1.json.gz");
  for (const std::string& text : AcrossProcesses({dir}, 3)) EXPECT_EQ(text, one);
}

}  // namespace
}  // namespace paratune
