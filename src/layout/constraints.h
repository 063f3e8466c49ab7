// The validity constraints of a layout (its "rules" in messages and the plan's report; not the
// diagnose rules of diagnose/rule.h): one table (constraints.cc), each constraint a named check
// that says why it fails, with the layout dimensions it reads. CheckLayout runs every constraint
// on a whole layout, so the user sees all that is wrong at once; the planner runs each one as
// soon as the dimensions it reads are fixed in its enumeration (ConstraintsReading), so estimate
// and plan can never disagree on what is valid.
//
// Messages name layout and training fields in backquotes (`tp`, `global_batch`); the CLI turns
// them into its flags (--tp, --global-batch).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hardware/cluster.h"
#include "layout/layout.h"
#include "model/model_spec.h"

namespace paratune {

// The dimensions of a layout a search fixes one after another (a bit set).
enum Dim : uint32_t {
  kDimPrecision = 1u << 0,
  kDimTp = 1u << 1,
  kDimPp = 1u << 2,
  kDimVp = 1u << 3,
  kDimCp = 1u << 4,  // with tp and pp it fixes dp
  kDimEp = 1u << 5,
  kDimEtp = 1u << 6,
  kDimZero = 1u << 7,
  kDimRecompute = 1u << 8,
  kDimMbs = 1u << 9,
  kDimSplit = 1u << 10,     // pp_layout: the layers of each pipeline chunk (layout/pipeline_split.h)
  kDimSchedule = 1u << 11,  // the pipeline schedule
  kDimSwitches = 1u << 12,  // the overlap, flash-attention and SP switches, fixed with the layout
  kDimAll = (1u << 13) - 1,
};

// Largest accepted training shape: a billion sequences per step, a hundred million tokens each.
inline constexpr int64_t kMaxGlobalBatch = 1'000'000'000;
inline constexpr int64_t kMaxSequence = 100'000'000;

struct ConstraintViolation {
  std::string rule;     // short id, e.g. "tp-divides-heads"
  std::string message;  // one line: what is wrong, with the numbers
};

struct ConstraintOptions {
  bool allow_cross_domain_tp = false;  // tensor (and expert tensor) parallelism beyond NVLink
};

// What a rule looks at. `layout.dp` is derived (0 when the world is not divisible).
struct ConstraintInput {
  const ModelSpec& model;
  const ClusterSpec& cluster;
  const Training& training;
  const Layout& layout;
  const ConstraintOptions& options;
};

struct LayoutConstraint {
  const char* id;
  uint32_t reads;  // the Dims it needs fixed; model, cluster, sequence and batch are always known
  // Empty when the rule holds, else the one-line message.
  std::string (*check)(const ConstraintInput&);
};

// The table, in the order violations are reported. The first rule, positive-size, gates the
// others: when a size is not positive, nothing can be divided by it and only it is reported.
const std::vector<LayoutConstraint>& LayoutConstraints();

// Rules that read `dim` and nothing outside `fixed` (which includes dim): those a search can
// decide the moment it fixes `dim`.
std::vector<const LayoutConstraint*> ConstraintsReading(uint32_t dim, uint32_t fixed);

// layout.dp = world / (tp*pp*cp), or 0 if that does not divide. Sizes must be positive.
void DeriveDp(const ClusterSpec& cluster, Layout& layout);

// Fills layout.dp and returns every violated rule.
std::vector<ConstraintViolation> CheckLayout(const ModelSpec& model, const ClusterSpec& cluster,
                                             const Training& training, Layout& layout,
                                             const ConstraintOptions& options = {});

// Joins violations into one line: "invalid layout: A; B; C".
std::string DescribeViolations(const std::vector<ConstraintViolation>& v);

}  // namespace paratune
