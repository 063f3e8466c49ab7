// Rule collective_wrong_results (issue 32; docs/diagnose-network.md): an nccl-tests run whose
// "#wrong" column is above zero. nccl-tests checks every result against the expected values
// (nccl-tests README, "Performance" and "Arguments": -c 1, the default, checks correctness and
// prints the count of wrong elements per size); a collective that returns wrong data is a
// broken GPU, link or NCCL build, whatever its bandwidth: training on it corrupts gradients.
#include <fmt/format.h>

#include "diagnose/rules.h"

namespace paratune {
namespace {

constexpr const char* kRule = "collective_wrong_results";

void CheckRun(const NcclTestsRun& run, std::vector<Finding>* out) {
  int64_t wrong = 0;
  int sizes = 0;
  const NcclTestRow* first = nullptr;
  for (const NcclTestRow& r : run.rows) {
    const int64_t w = std::max<int64_t>(r.wrong, 0) + std::max<int64_t>(r.inplace_wrong, 0);
    if (w == 0) continue;
    wrong += w;
    ++sizes;
    if (!first) first = &r;
  }
  if (!first) return;
  const char* coll = NcclTestCollectiveName(run.collective);
  const std::string at = run.path + ":" + std::to_string(first->line);
  Finding f;
  f.rule = kRule;
  f.severity = Severity::kCritical;  // a correctness fault: its loss is the run, not a share of it
  f.title = fmt::format("nccl-tests {} returned wrong data: {} wrong elements in {} of {} message sizes", coll, wrong,
                        sizes, run.rows.size());
  f.message = fmt::format(
      "{}: the {} test checked its results and found {} wrong elements over {} message sizes, the first at {:.0f} "
      "bytes "
      "(line {}). A collective that returns wrong data corrupts gradients silently, whatever its bandwidth; the busbw "
      "figures of this run measure a broken path.",
      run.path, coll, wrong, sizes, first->size_bytes, first->line);
  f.fix =
      "Take the nodes of this test out of service and find the bad part: rerun nccl-tests per node and per GPU pair "
      "(-g 2 on each pair) to isolate it, run dcgmi diag -r 3 and check nvidia-smi -q for row remapping failures and "
      "uncorrectable ECC errors, check NVLink and NIC error counters (nvidia-smi nvlink -e, ethtool -S, perfquery), "
      "and test another NCCL version; never train on it.";
  f.evidence.push_back({"wrong elements (all sizes)", static_cast<double>(wrong), "", run.path});
  f.evidence.push_back({"message sizes with wrong data", static_cast<double>(sizes), "", at});
  f.where.lines.push_back(at);
  out->push_back(std::move(f));
}

class CollectiveWrongResultsRule : public Rule {
 public:
  const char* Name() const override { return kRule; }
  const char* Summary() const override { return "nccl-tests: a collective returned wrong data (#wrong above zero)"; }
  void Check(const DiagnoseInputs& in, std::vector<Finding>* out) const override {
    for (const NcclTestsRun& run : in.nccl_tests) CheckRun(run, out);
  }
};

}  // namespace

std::unique_ptr<Rule> MakeCollectiveWrongResultsRule() { return std::make_unique<CollectiveWrongResultsRule>(); }

}  // namespace paratune
