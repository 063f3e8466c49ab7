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
std::vector<std::string> AcrossProcesses(const std::vector<std::string>& inputs, int n) {
  ThreadExchange x(n);
  std::vector<std::string> out(static_cast<size_t>(n));
  std::vector<std::thread> threads;
  for (int i = 0; i < n; ++i)
    threads.emplace_back([&, i] {
      ThreadProcess p(x, i);
      try {
        TraceSetOptions read;
        read.threads = 1;
        AnalysisOptions options;
        options.threads = 1;
        out[static_cast<size_t>(i)] = DocumentText(AnalysisJson(AnalyzeTracesAcross(inputs, read, options, p)));
      } catch (const InputError& e) {
        out[static_cast<size_t>(i)] = std::string("error: ") + e.what();
      }
    });
  for (std::thread& t : threads) t.join();
  return out;
}

std::string OneProcess(const std::vector<std::string>& inputs) {
  try {
    return DocumentText(AnalysisJson(AnalyzeTraces(ReadTraceSet(inputs))));
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
