#include "validate/validation.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include "hardware/hardware_catalog.h"
#include "step/estimate.h"
#include "util/error.h"
#include "util/file.h"
#include "util/test_util.h"
#include "validate/published_runs_test_util.h"

namespace paratune {
namespace {

// ../shared/validation/published_runs_dev.csv: the tests that read it skip when it is absent.
constexpr const char* kDevCsv = "validation/published_runs_dev.csv";

TEST(Summarize, ByHand) {
  const ErrorStats s = Summarize({0.10, 0.02, 0.30, 0.04, 0.05, 0.06, 0.07, 0.08, 0.09, 0.01});
  EXPECT_EQ(s.n, 10);
  EXPECT_DOUBLE_EQ(s.mean, 0.082);
  EXPECT_DOUBLE_EQ(s.median, 0.065);
  EXPECT_DOUBLE_EQ(s.p90, 0.10);  // nearest rank: the 9th of 10 sorted values
  EXPECT_DOUBLE_EQ(s.max, 0.30);
  EXPECT_EQ(Summarize({}).n, 0);
}

// Issue 3's acceptance on the development file: every row with a target is predicted or listed
// with a reason; MAPE <= 10% and p90 <= 20% (over all rows, and without the low-confidence rows
// the dataset's README asks to report separately); Korthikanti et al. 2022 Table 5 step-time
// error below Calculon's 3.65% mean; every qualifying pair ordered as measured.
TEST(Validation, DevelopmentSetAcceptance) {
  PARATUNE_SHARED_OR_SKIP(csv, kDevCsv);
  const HardwareCatalog hw = HardwareCatalog::BuiltIn();
  const auto runs = ReadPublishedRuns(ReadFile(csv), csv, hw);
  ASSERT_EQ(runs.size(), 166u);
  const ValidationReport rep = Validate(runs);
  int with_target = 0, predicted = 0;
  for (const RunPrediction& p : rep.rows) {
    if (p.run->target_tokens_per_s_per_gpu <= 0) continue;
    ++with_target;
    if (p.predicted)
      ++predicted;
    else
      EXPECT_FALSE(p.reason.empty()) << p.run->id;
  }
  EXPECT_EQ(with_target, 166);
  EXPECT_GE(predicted, 150);
  EXPECT_GE(predicted, 158);  // issue 33: at least 95% of the rows modelled (158 since 2026-12-06)
  // Issue 10's targets: MAPE <= 6% and P90 <= 12% (measured 2026-12-02: 5.87% / 11.64%).
  EXPECT_LE(rep.overall.mean, 0.06);
  EXPECT_LE(rep.overall.p90, 0.12);
  EXPECT_LE(rep.overall_without_low_confidence.mean, 0.06);
  EXPECT_LE(rep.overall_without_low_confidence.p90, 0.12);
  EXPECT_EQ(rep.korthikanti_step_time.n, 8);
  EXPECT_LT(rep.korthikanti_step_time.mean, 0.0365);
  EXPECT_GE(rep.ranking.pairs, 25);
  EXPECT_EQ(rep.ranking.agree, rep.ranking.pairs);
  EXPECT_EQ(rep.ranking_without_low_confidence.agree, rep.ranking_without_low_confidence.pairs);
}

// Issue 33's targets on the second development file that hold (measured 2026-12-06): every row
// modelled, the torchtitan rows within 10% MAPE in sample (7.3%), 95% of the ranking pairs
// ordered as measured (30 of 31). Its overall and Megatron-Bridge targets do not hold yet
// (docs/validation.md).
TEST(Validation, SecondDevelopmentSetAcceptance) {
  PARATUNE_SHARED_OR_SKIP(csv, "validation/published_runs_dev2.csv");
  const HardwareCatalog hw = HardwareCatalog::BuiltIn();
  const auto runs = ReadPublishedRuns(ReadFile(csv), csv, hw);
  ASSERT_EQ(runs.size(), 57u);
  const ValidationReport rep = Validate(runs);
  for (const RunPrediction& p : rep.rows) EXPECT_TRUE(p.predicted) << p.run->id << ": " << p.reason;
  const auto source = std::find_if(rep.groups.begin(), rep.groups.end(), [](const GroupStats& g) {
    return g.dimension == "source" && g.value == "torchtitan";
  });
  ASSERT_NE(source, rep.groups.end());
  EXPECT_EQ(source->stats.n, 12);
  EXPECT_LE(source->stats.mean, 0.10);
  EXPECT_GE(rep.ranking.pairs, 30);
  EXPECT_GE(rep.ranking.agree, 0.95 * rep.ranking.pairs);
}

// Row mapping: a Korthikanti Table 5 row becomes the layout the paper ran.
TEST(PublishedRuns, MapsKorthikantiRow) {
  PARATUNE_SHARED_OR_SKIP(csv, kDevCsv);
  const HardwareCatalog hw = HardwareCatalog::BuiltIn();
  const auto runs = ReadPublishedRuns(ReadFile(csv), csv, hw);
  const PublishedRun* r = nullptr;
  for (const PublishedRun& x : runs)
    if (x.id == "KOR22-T5-02b") r = &x;
  ASSERT_NE(r, nullptr);
  ASSERT_TRUE(r->modelable) << r->reason;
  EXPECT_EQ(r->model.layers, 96);
  EXPECT_EQ(r->model.hidden, 12288);
  EXPECT_EQ(r->model.mlp, MlpKind::kPlain);
  EXPECT_EQ(r->layout.tp, 8);
  EXPECT_EQ(r->layout.pp, 8);
  EXPECT_TRUE(r->layout.sp);
  EXPECT_EQ(r->layout.recompute, Recompute::kSelective);
  EXPECT_FALSE(r->layout.flash_attention);
  EXPECT_EQ(r->cluster.gpu.name, "A100-80GB");
  EXPECT_EQ(r->training.global_batch, 64);
}

std::string Header() { return test::kPublishedRunsHeader; }

TEST(PublishedRuns, RowsThatCannotBeModelledCarryAReason) {
  const HardwareCatalog hw = HardwareCatalog::BuiltIn();
  const std::string csv =
      Header() +
      "A,s,t,m,dense,32,4096,14336,32,8,128256,8192,,,H100-SXM,,8,8,1,1,,8,1,,,,1,128,,bf16,,,,1000,,,,high,,\n"
      "B,s,t,m,dense,32,,14336,32,8,128256,8192,,,H100-SXM,,8,8,1,1,,8,1,,,,1,128,,bf16,,,,1000,,,,high,,\n"
      "C,s,t,m,dense,32,4096,14336,32,8,128256,8192,,,TPUv5,,8,8,1,1,,8,1,,,,1,128,,bf16,,,,1000,,,,high,,\n"
      "D,s2,t,m,dense,32,4096,14336,32,8,128256,8192,,,H100-SXM,,8,8,1,1,,8,1,,,,1,,,bf16,,,,1000,,,,high,,\n";
  const auto runs = ReadPublishedRuns(csv, "x.csv", hw);
  ASSERT_EQ(runs.size(), 4u);
  EXPECT_TRUE(runs[0].modelable) << runs[0].reason;
  EXPECT_EQ(runs[1].reason, "column 'hidden' is empty");
  EXPECT_EQ(runs[2].reason, "GPU 'TPUv5' is not in the hardware catalog");
  EXPECT_EQ(runs[3].reason, "global batch not given");
  const ValidationReport rep = Validate(runs);
  EXPECT_TRUE(rep.rows[0].predicted);
  EXPECT_EQ(rep.overall.n, 1);
}

// Korthikanti et al.'s abstract run states no batch: it takes the sequences per GPU, micro-batch
// and virtual stages of the same source's run of the same model and GPU, each said.
TEST(PublishedRuns, AnUnstatedBatchIsTheSameSourcesBatchPerGpu) {
  const HardwareCatalog hw = HardwareCatalog::BuiltIn();
  const std::string csv =
      Header() +
      "A,s,t,m,dense,32,4096,14336,32,8,128256,8192,,,H100-SXM,,8,8,1,2,2,4,1,,,,2,64,,bf16,,,,1000,,,,high,,\n"
      "E,s,t,m,dense,32,4096,14336,32,8,128256,8192,,,H100-SXM,,32,8,1,2,,16,1,,,,,,,bf16,,,,1000,,,,high,,\n"
      "F,s,t,m,dense,32,4096,14336,32,8,128256,8192,,,A100-80GB,,32,8,1,2,,16,1,,,,,,,bf16,,,,1000,,,,high,,\n";
  const auto runs = ReadPublishedRuns(csv, "x.csv", hw);
  ASSERT_EQ(runs.size(), 3u);
  ASSERT_TRUE(runs[1].modelable) << runs[1].reason;
  EXPECT_EQ(runs[1].training.global_batch, 256);  // 64 / 8 GPUs x 32
  EXPECT_EQ(runs[1].layout.mbs, 2);
  EXPECT_EQ(runs[1].layout.vp, 2);
  const std::vector<std::string> said = {
      "global batch 256: 8 sequence(s) per GPU as row A of the same source and model", "micro_batch 2 as row A",
      "vp 2 as row A"};
  for (const std::string& a : said)
    EXPECT_NE(std::find(runs[1].assumptions.begin(), runs[1].assumptions.end(), a), runs[1].assumptions.end()) << a;
  // Another GPU is another run: nothing to borrow.
  EXPECT_EQ(runs[2].reason, "global batch not given");
}

TEST(PublishedRuns, BrokenFilesAreErrors) {
  const HardwareCatalog hw = HardwareCatalog::BuiltIn();
  EXPECT_THROW(ReadPublishedRuns("", "e.csv", hw), InputError);
  try {
    ReadPublishedRuns("id,source\nA,B\n", "h.csv", hw);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("h.csv:1: missing column 'model'"), std::string::npos) << e.what();
  }
  const std::string bad =
      Header() +
      "A,s,t,m,dense,-3,4096,14336,32,8,128256,8192,,,H100-SXM,,8,8,1,1,,8,1,,,,1,128,,bf16,,,,1000,,,,high,,\n";
  try {
    ReadPublishedRuns(bad, "n.csv", hw);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("n.csv:2: column 'layers' must be a non-negative integer"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(ReadPublishedRuns(Header() + "A,\"unterminated\n", "u.csv", hw), InputError);
}

// A file with only the header is an error (validate and calibrate both read through here),
// not an empty table with MAPE 0.0 %.
TEST(PublishedRuns, HeaderOnlyFileIsAnError) {
  const HardwareCatalog hw = HardwareCatalog::BuiltIn();
  EXPECT_EQ(InputErrorOf([&] { ReadPublishedRuns(Header(), "h.csv", hw); }), "h.csv: no data rows (only the header)");
  EXPECT_EQ(InputErrorOf([&] { ReadPublishedRuns(Header() + "\n\n", "h.csv", hw); }),
            "h.csv: no data rows (only the header)");
}

// A modelable dense row and a MoE row, to put extreme values in one cell at a time.
const char* kDenseRow =
    "A,s,t,m,dense,32,4096,14336,32,8,128256,8192,,,H100-SXM,,8,8,1,1,,8,1,,,,1,128,,bf16,,,,1000,,,,high,,";
const char* kMoeRow =
    "M,s,t,m,moe,32,4096,14336,32,8,128256,8192,8,2,H100-SXM,,8,8,1,1,,8,1,,,,1,128,,bf16,,,,1000,,,,high,,";

// `row` with column `column` (by the header's names) set to `value`, without a line end.
std::string WithCell(const std::string& row, const std::string& column, const std::string& value) {
  std::vector<std::string> names, cells;
  std::stringstream h(Header().substr(0, Header().size() - 1)), r(row + ",");
  for (std::string x; std::getline(h, x, ',');) names.push_back(x);
  for (std::string x; std::getline(r, x, ',');) cells.push_back(x);
  cells.resize(names.size());
  const auto at = std::find(names.begin(), names.end(), column) - names.begin();
  cells.at(static_cast<size_t>(at)) = value;
  std::string out;
  for (size_t i = 0; i < cells.size(); ++i) out += (i ? "," : "") + cells[i];
  return out;
}

const char* const kIntColumns[] = {"layers",  "hidden",      "ffn_hidden", "heads",    "kv_heads",      "vocab",
                                   "seq_len", "num_experts", "topk",       "num_gpus", "gpus_per_node", "tp",
                                   "pp",      "vp",          "cp",         "ep",       "micro_batch",   "global_batch"};

// Extreme values in every numeric column: beyond 32 bits (num_gpus = 10^12 used to read as
// -727379968), beyond 64 bits, 1e400, negative, not a number, and past the reader's bound of
// 2^24. Each is one error naming the file, the line and the column, never a wrapped value, also
// in a row that cannot be modelled anyway.
TEST(PublishedRuns, ExtremeNumbersAreOneLineErrorsNamingLineAndColumn) {
  const HardwareCatalog hw = HardwareCatalog::BuiltIn();
  for (const char* column : kIntColumns) {
    for (const char* value : {"1000000000000", "2147483648", "16777217", "99999999999999999999999", "-1", "1e400",
                              "abc", "1.5", "+3", "0x10"}) {
      for (const char* row : {kDenseRow, kMoeRow}) {
        SCOPED_TRACE(std::string(column) + " = " + value);
        const std::string csv = Header() + WithCell(kDenseRow, "id", "ok") + "\n" + WithCell(row, column, value) + "\n";
        EXPECT_EQ(InputErrorOf([&] { ReadPublishedRuns(csv, "x.csv", hw); }),
                  std::string("x.csv:3: column '") + column +
                      "' must be a non-negative integer of at most 16777216, got '" + value + "'");
      }
    }
  }
  for (const char* value : {"1e400", "-1", "-0.5", "abc", "inf", "nan", "1e3x"}) {
    SCOPED_TRACE(value);
    const std::string csv = Header() + WithCell(kDenseRow, "target_tokens_per_s_per_gpu", value) + "\n";
    EXPECT_EQ(InputErrorOf([&] { ReadPublishedRuns(csv, "x.csv", hw); }),
              std::string("x.csv:2: column 'target_tokens_per_s_per_gpu' must be a finite non-negative number, got '") +
                  value + "'");
  }
  // A row without a target is not modelled, but a broken cell in it still breaks the file.
  const std::string untargeted = WithCell(WithCell(kDenseRow, "target_tokens_per_s_per_gpu", ""), "vp", "-4") + "\n";
  EXPECT_CONTAINS(InputErrorOf([&] { ReadPublishedRuns(Header() + untargeted, "x.csv", hw); }), "x.csv:2: column 'vp'");
  EXPECT_EQ(ReadPublishedRuns(Header() + WithCell(kDenseRow, "target_tokens_per_s_per_gpu", "") + "\n", "x.csv", hw)
                .at(0)
                .reason,
            "no target");
}

// The largest accepted value (2^24) and 0 in every integer column read and validate without a
// crash or, under the sanitizers, an overflow (0 pipeline stages or GPUs per node used to divide
// by zero; 2^31 - 1 GPUs per node overflowed the node count): each row is predicted or comes
// back with its reason.
TEST(PublishedRuns, ZeroAndTheLargestIntegerInEveryColumnNeverCrash) {
  const HardwareCatalog hw = HardwareCatalog::BuiltIn();
  for (const char* column : kIntColumns)
    for (const char* value : {"0", "16777216"})
      for (const char* row : {kDenseRow, kMoeRow}) {
        SCOPED_TRACE(std::string(column) + " = " + value);
        const auto runs = ReadPublishedRuns(Header() + WithCell(row, column, value) + "\n", "x.csv", hw);
        ASSERT_EQ(runs.size(), 1u);
        const ValidationReport rep = Validate(runs);
        ASSERT_EQ(rep.rows.size(), 1u);
        if (!rep.rows[0].predicted) {
          EXPECT_FALSE(rep.rows[0].reason.empty());
        } else {
          EXPECT_TRUE(std::isfinite(rep.rows[0].predicted_tokens_per_s_per_gpu));
        }
      }
  // The dense row's own prediction is unaffected by the checks.
  EXPECT_TRUE(Validate(ReadPublishedRuns(Header() + kDenseRow + "\n", "x.csv", hw)).rows[0].predicted);
}

// Peak memory and step time against measured, ours beside SimuMax's (simumax_runs_dev.csv's
// optional columns), on a hand-made file: two B200 rows with SimuMax's figures, one H100 row
// with a measured peak only, one row without either.
TEST(Validation, MemoryAndStepTimeBesideSimuMax) {
  const HardwareCatalog hw = HardwareCatalog::BuiltIn();
  const std::string header = Header().substr(0, Header().size() - 1) +
                             ",measured_peak_mem_gib,simumax_pred_step_time_s,simumax_pred_mem_gib\n";
  const std::string b200 = WithCell(WithCell(kDenseRow, "gpu", "B200"), "target_step_time_s", "2.0");
  const std::string csv = header + WithCell(b200, "id", "M1") + ",40,1.9,39\n" +  //
                          WithCell(b200, "id", "M2") + ",50,2.2,51\n" +           //
                          WithCell(kDenseRow, "id", "M3") + ",45,,\n" +           //
                          WithCell(kDenseRow, "id", "M4") + ",,,\n";
  const auto runs = ReadPublishedRuns(csv, "m.csv", hw);
  ASSERT_EQ(runs.size(), 4u);
  EXPECT_DOUBLE_EQ(runs[0].measured_peak_memory_bytes, 40.0 * 1024 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(runs[0].simumax_peak_memory_bytes, 39.0 * 1024 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(runs[0].simumax_step_time_s, 1.9);
  EXPECT_DOUBLE_EQ(runs[0].target_step_time_s, 2.0);
  EXPECT_EQ(runs[3].measured_peak_memory_bytes, 0);
  const ValidationReport rep = Validate(runs);
  for (const RunPrediction& p : rep.rows) ASSERT_TRUE(p.predicted) << p.run->id << ": " << p.reason;
  // Ours: the estimate's peak allocated bytes against the measured peak.
  const Estimate e = EstimateStep(runs[0].model, runs[0].cluster, runs[0].training, runs[0].layout);
  EXPECT_DOUBLE_EQ(rep.rows[0].predicted_peak_allocated_bytes, e.peak_allocated_bytes);
  EXPECT_DOUBLE_EQ(*rep.rows[0].memory_ape, std::abs(e.peak_allocated_bytes / (40.0 * 1024 * 1024 * 1024) - 1));
  // SimuMax's: |39 - 40| / 40 and |51 - 50| / 50; step times |1.9 - 2| / 2 and |2.2 - 2| / 2.
  EXPECT_DOUBLE_EQ(*rep.rows[0].simumax_memory_ape, 0.025);
  EXPECT_DOUBLE_EQ(*rep.rows[1].simumax_memory_ape, 0.02);
  EXPECT_NEAR(*rep.rows[0].simumax_step_time_ape, 0.05, 1e-12);
  EXPECT_NEAR(*rep.rows[1].simumax_step_time_ape, 0.1, 1e-12);
  EXPECT_DOUBLE_EQ(*rep.rows[0].step_time_ape, std::abs(e.step_time_s - 2.0) / 2.0);
  // The H100 row has a measured peak but no SimuMax figure; the last row neither.
  EXPECT_TRUE(rep.rows[2].memory_ape.has_value());
  EXPECT_FALSE(rep.rows[2].simumax_memory_ape.has_value());
  EXPECT_FALSE(rep.rows[2].step_time_ape.has_value());  // no SimuMax step time to compare with
  EXPECT_FALSE(rep.rows[3].memory_ape.has_value());
  EXPECT_EQ(rep.memory.overall.ours.n, 3);
  EXPECT_EQ(rep.memory.overall.simumax.n, 2);
  EXPECT_EQ(rep.memory.overall.ours_on_simumax_rows.n, 2);
  EXPECT_DOUBLE_EQ(rep.memory.overall.simumax.mean, 0.0225);
  EXPECT_DOUBLE_EQ(rep.memory.overall.simumax.max, 0.025);
  EXPECT_EQ(rep.step_time.overall.ours.n, 2);
  EXPECT_NEAR(rep.step_time.overall.simumax.mean, 0.075, 1e-12);
  // By GPU: B200 has both rows with SimuMax's figures, H100 one row of ours only; every
  // dimension of kGroupDimensions is there.
  std::map<std::string, const GroupComparison*> gpu;
  std::set<std::string> dims;
  for (const GroupComparison& g : rep.memory.groups) {
    dims.insert(g.dimension);
    if (g.dimension == "gpu") gpu[g.value] = &g;
  }
  EXPECT_EQ(dims.size(), std::size(kGroupDimensions));
  ASSERT_TRUE(gpu.contains("B200") && gpu.contains("H100-SXM"));
  EXPECT_EQ(gpu["B200"]->stats.ours.n, 2);
  EXPECT_EQ(gpu["B200"]->stats.simumax.n, 2);
  EXPECT_EQ(gpu["H100-SXM"]->stats.ours.n, 1);
  EXPECT_EQ(gpu["H100-SXM"]->stats.simumax.n, 0);
  // Without the optional columns there is nothing to compare.
  EXPECT_EQ(Validate(ReadPublishedRuns(Header() + kDenseRow + "\n", "x.csv", hw)).memory.overall.ours.n, 0);
  // A broken optional cell is one error naming the line and the column.
  EXPECT_EQ(InputErrorOf([&] { ReadPublishedRuns(header + WithCell(b200, "id", "M1") + ",-4,1.9,39\n", "m.csv", hw); }),
            "m.csv:2: column 'measured_peak_mem_gib' must be a finite non-negative number, got '-4'");
}

// The development file with measured peaks (../shared/validation/simumax_runs_dev.csv): the
// predicted peak allocated memory is within 2% MAPE of the measured one over the rows paratune
// can model (all 42 once the catalog has the A100-PCIe-80GB), within half a point of SimuMax's
// own error on the dense rows, and the software the notes state reaches the layouts.
TEST(Validation, SimuMaxRowsPeakMemory) {
  PARATUNE_SHARED_OR_SKIP(csv, "validation/simumax_runs_dev.csv");
  const HardwareCatalog hw = HardwareCatalog::BuiltIn();
  const auto runs = ReadPublishedRuns(ReadFile(csv), csv, hw);
  ASSERT_EQ(runs.size(), 42u);
  for (const PublishedRun& r : runs) {
    EXPECT_GT(r.measured_peak_memory_bytes, 0) << r.id;
    if (!r.modelable) continue;
    if (r.gpu_name == "B200") {  // TE 2.11.0, '_cef' cases
      EXPECT_TRUE(r.layout.cached_wgrad_placeholders) << r.id;
      EXPECT_TRUE(r.layout.fused_cross_entropy) << r.id;
    } else {  // TE release_v2.1, no fused cross-entropy stated
      EXPECT_FALSE(r.layout.cached_wgrad_placeholders) << r.id;
      EXPECT_FALSE(r.layout.fused_cross_entropy) << r.id;
    }
  }
  const ValidationReport rep = Validate(runs);
  EXPECT_GE(rep.memory.overall.ours.n, 12);
  EXPECT_LE(rep.memory.overall.ours.mean, 0.02);
  // On the dense rows (whose model the columns give in full) within half a point of SimuMax.
  const GroupComparison* dense = nullptr;
  for (const GroupComparison& g : rep.memory.groups)
    if (g.dimension == "arch" && g.value == "dense") dense = &g;
  ASSERT_NE(dense, nullptr);
  EXPECT_LE(dense->stats.ours_on_simumax_rows.mean, dense->stats.simumax.mean + 0.005);
}

// The step time of the SimuMax rows against the measured one, SimuMax's own error beside it
// (issue 10: <= 6% MAPE). Their launchers (config_source) pass no --overlap-grad-reduce or
// --overlap-param-gather, so the DP collectives are exposed; a row naming another launcher
// keeps Megatron-Core's overlapped defaults.
TEST(Validation, SimuMaxRowsStepTime) {
  const HardwareCatalog hw = HardwareCatalog::BuiltIn();
  const std::string header = Header().substr(0, Header().size() - 1) + ",config_source\n";
  const auto inline_runs = ReadPublishedRuns(
      header + WithCell(kDenseRow, "id", "L1") +
          ",MooreThreads/SimuMax@acdbb667: simu_tools/megatron_scripts/scripts/run_pretrain_llama3.sh\n" +
          WithCell(kDenseRow, "id", "L2") + ",examples/llama/train_llama3_8b_h100_fp8.sh\n",
      "l.csv", hw);
  ASSERT_EQ(inline_runs.size(), 2u);
  EXPECT_FALSE(inline_runs[0].layout.overlap_grad_reduce);
  EXPECT_FALSE(inline_runs[0].layout.overlap_param_gather);
  EXPECT_TRUE(inline_runs[1].layout.overlap_grad_reduce);
  EXPECT_TRUE(inline_runs[1].layout.overlap_param_gather);

  PARATUNE_SHARED_OR_SKIP(csv, "validation/simumax_runs_dev.csv");
  const auto runs = ReadPublishedRuns(ReadFile(csv), csv, hw);
  for (const PublishedRun& r : runs) EXPECT_FALSE(r.layout.overlap_grad_reduce) << r.id;
  const ValidationReport rep = Validate(runs);
  EXPECT_EQ(rep.step_time.overall.ours.n, 42);
  EXPECT_LE(rep.step_time.overall.ours.mean, 0.06);
  // Since 2026-12-05 (B200's measured collective latencies) below SimuMax's own error on its
  // own rows (2.18% vs 2.26%), and every pair of layouts ordered as measured.
  EXPECT_LT(rep.step_time.overall.ours.mean, rep.step_time.overall.simumax.mean);
  EXPECT_EQ(rep.ranking.pairs, 150);
  EXPECT_EQ(rep.ranking.agree, rep.ranking.pairs);
}

// Held out: SimuMax's other measured B200 runs (testdata/validation/simumax_b200_heldout.csv,
// written by scripts/simumax_b200_heldout.py from SimuMax's v1.2 summary; nothing is fitted on
// them): Llama-3-70B cut to 12 layers at tp 1-8, DeepSeek-V2 and -V3 cut to 4 layers at ep 8 and
// ep 4 pp 2 (V3 with 1 dense layer, the file's `dense_layers` column), and all-to-all context
// parallelism at 32k and 128k tokens. The step time is to be predicted better than SimuMax's own
// prediction of the same rows (6.18% mean error), and the peak memory within the 2% the
// development rows ask (docs/validation.md, "Held out").
TEST(Validation, HeldOutSimuMaxB200Runs) {
  const HardwareCatalog hw = HardwareCatalog::BuiltIn();
  const std::string csv = std::string(PARATUNE_SOURCE_DIR) + "/testdata/validation/simumax_b200_heldout.csv";
  const auto runs = ReadPublishedRuns(ReadFile(csv), csv, hw);
  ASSERT_EQ(runs.size(), 31u);
  int v3 = 0, a2a = 0;
  for (const PublishedRun& r : runs) {
    EXPECT_TRUE(r.modelable) << r.id << ": " << r.reason;
    if (r.model.experts == 256) {
      ++v3;
      EXPECT_EQ(r.model.first_dense_layers, 1) << r.id;  // the config says 3; the cut kept 1
      EXPECT_EQ(r.model.moe_layers(), 3) << r.id;
    }
    if (r.layout.cp > 1) {
      ++a2a;
      EXPECT_EQ(r.layout.cp_comm, CpComm::kA2a) << r.id;
    }
  }
  EXPECT_EQ(v3, 6);
  EXPECT_EQ(a2a, 7);
  const ValidationReport rep = Validate(runs);
  EXPECT_EQ(rep.step_time.overall.ours.n, 31);
  EXPECT_EQ(rep.step_time.overall.simumax.n, 31);
  EXPECT_NEAR(rep.step_time.overall.simumax.mean, 0.0618, 0.0005);  // SimuMax's own rel_err_pct
  EXPECT_LT(rep.step_time.overall.ours.mean, rep.step_time.overall.simumax.mean);
  EXPECT_EQ(rep.memory.overall.ours.n, 31);
  EXPECT_LE(rep.memory.overall.ours.mean, 0.02);
  EXPECT_EQ(rep.ranking.pairs, 65);
  EXPECT_EQ(rep.ranking.agree, 65);  // 62 before B200's measured collective latencies
}

// A row whose notes say "flash attention" with no Transformer Engine (llm-foundry's rows) runs
// the flash-attn 2 package; a TE stack, or no statement, the fused kernel.
TEST(PublishedRuns, FlashAttentionPackageRowsRunFa2) {
  const HardwareCatalog hw = HardwareCatalog::BuiltIn();
  const auto runs =
      ReadPublishedRuns(Header() + WithCell(kDenseRow, "notes", "grad accum 1; flash attention") + "\n" +
                            WithCell(kDenseRow, "notes", "flash attention; TE 2.11.0") + "\n" + kDenseRow + "\n",
                        "f.csv", hw);
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[0].layout.attention_kernel, AttentionKernel::kFlashAttention2);
  EXPECT_EQ(runs[1].layout.attention_kernel, AttentionKernel::kFused);
  EXPECT_EQ(runs[2].layout.attention_kernel, AttentionKernel::kFused);
  PARATUNE_SHARED_OR_SKIP(csv, kDevCsv);
  // llm-foundry's 43 rows, and dgxc-benchmarking's six Nemotron-4 340B rows, whose recipe sets
  // NVTE_FUSED_ATTN=0 (nemotron/configure.sh).
  int fa2 = 0, dgxc340b = 0;
  for (const PublishedRun& r : ReadPublishedRuns(ReadFile(csv), csv, hw))
    if (r.layout.attention_kernel == AttentionKernel::kFlashAttention2) {
      ++fa2;
      if (r.id.rfind("DGXC-NEM4-340B-", 0) == 0) {
        ++dgxc340b;
      } else {
        EXPECT_EQ(r.source, "MosaicML-llm-foundry") << r.id;
      }
    }
  EXPECT_EQ(fa2, 49);
  EXPECT_EQ(dgxc340b, 6);
}

// NVIDIA's performance recipes (NeMo, dgxc-benchmarking): FP8 runs reduce their gradients in
// BF16, and dense models overlap their TP collectives with the GEMMs (userbuffers, which need
// TP > 1 with sequence parallelism); MoE recipes leave the TP overlap off; other sources keep
// Megatron-LM's defaults (published_runs.cc MapSoftware cites the recipes).
TEST(PublishedRuns, NvidiaRecipesReduceFp8GradientsInBf16AndOverlapDenseTp) {
  const HardwareCatalog hw = HardwareCatalog::BuiltIn();
  auto row = [](const char* base, const char* source, const char* tp, const char* precision) {
    std::string r = WithCell(base, "source", source);
    r = WithCell(r, "tp", tp);
    r = WithCell(r, "dp", std::string(tp) == "1" ? "8" : "4");
    return WithCell(r, "precision", precision) + "\n";
  };
  const auto runs = ReadPublishedRuns(
      Header() + row(kDenseRow, "NeMo-perf-summary", "2", "fp8") +
          row(kDenseRow, "NVIDIA-dgxc-benchmarking", "2", "bf16") + row(kMoeRow, "NeMo-perf-summary", "2", "fp8") +
          row(kDenseRow, "NVIDIA-dgxc-benchmarking", "1", "fp8") + row(kDenseRow, "MosaicML-llm-foundry", "2", "fp8"),
      "f.csv", hw);
  ASSERT_EQ(runs.size(), 5u);
  for (const PublishedRun& r : runs) ASSERT_TRUE(r.modelable) << r.id << ": " << r.reason;
  EXPECT_FALSE(runs[0].layout.grad_reduce_in_fp32);
  EXPECT_TRUE(runs[0].layout.overlap_tp_comm);
  EXPECT_TRUE(runs[1].layout.grad_reduce_in_fp32);  // BF16: Megatron's FP32 gradient buffer
  EXPECT_TRUE(runs[1].layout.overlap_tp_comm);
  EXPECT_FALSE(runs[2].layout.grad_reduce_in_fp32);
  EXPECT_FALSE(runs[2].layout.overlap_tp_comm);  // MoE recipe
  EXPECT_FALSE(runs[3].layout.grad_reduce_in_fp32);
  EXPECT_FALSE(runs[3].layout.overlap_tp_comm);  // tp 1: nothing to overlap
  EXPECT_TRUE(runs[4].layout.grad_reduce_in_fp32);
  EXPECT_FALSE(runs[4].layout.overlap_tp_comm);
  // Each choice is listed among the row's assumptions.
  auto listed = [](const PublishedRun& r, const std::string& what) {
    return std::any_of(r.assumptions.begin(), r.assumptions.end(),
                       [&](const std::string& a) { return a.find(what) != std::string::npos; });
  };
  EXPECT_TRUE(listed(runs[0], "grad_reduce_in_fp32 = False"));
  EXPECT_TRUE(listed(runs[0], "tp_comm_overlap"));
  EXPECT_FALSE(listed(runs[4], "grad_reduce_in_fp32 = False"));
}

// The NeMo generation of NVIDIA's recipes. NeMo 1's recipes (the NeMo 24.07 tables, dgxc v25.03)
// run Apex's DistributedFusedAdam: the master kept as 16-bit remainders (FP32 under dgxc's
// fp8_params), BF16 states without a master for Nemotron-4 340B, gradients reduced in BF16 where
// the recipe says grad_sync_dtype: bf16; dgxc's Nemotron-4 15B runs Megatron-Core's optimizer
// (FP32 master, FP32 gradients); dgxc's 340B runs NVTE_FUSED_ATTN=0 (flash-attn 2). NeMo 2 (the
// 25.x tables) and the NeMo 1 llama3 / nemotron configs fuse the cross-entropy. Other sources:
// defaults.
TEST(PublishedRuns, NemoGenerationsSetOptimizerStatesAttentionAndLossFusion) {
  const HardwareCatalog hw = HardwareCatalog::BuiltIn();
  auto row = [](const char* source, const char* section, const char* model, const char* precision = "bf16") {
    std::string r = WithCell(kDenseRow, "source", source);
    r = WithCell(r, "table_or_section", section);
    r = WithCell(r, "precision", precision);
    return WithCell(r, "model", model) + "\n";
  };
  const auto runs = ReadPublishedRuns(
      Header() + row("NeMo-perf-summary", "performance_summary.md (NeMo 24.07 DGX-H100 FP8)", "Nemotron-340B") +
          row("NeMo-perf-summary", "performance_summary.md (NeMo 24.07 DGX-H100 FP8)", "LLAMA2-70B") +
          row("NVIDIA-dgxc-benchmarking", "dgxc-benchmarking (v25.03) nemotron/README_340b.md", "Nemotron-4 340B") +
          row("NeMo-perf-summary", "performance_summary (NeMo 25.02 FP8) System DGX-B200", "Nemotron-340B") +
          row("NVIDIA-dgxc-benchmarking", "dgxc-benchmarking (v25.03) llama3.1/README_8b.md", "Llama-3.1-8B") +
          row("MosaicML-llm-foundry", "NeMo 25.02 nemotron/README_340b.md", "Nemotron-340B") +
          row("NVIDIA-dgxc-benchmarking", "dgxc-benchmarking (v25.03) llama3.1/README_8b.md", "Llama-3.1-8B", "fp8") +
          row("NVIDIA-dgxc-benchmarking", "dgxc-benchmarking (v25.03) nemotron/README_15b.md", "Nemotron-4 15B",
              "fp8") +
          row("NeMo-perf-summary", "performance_summary.md (NeMo 24.07 DGX-H100 FP8)", "LLAMA3-8B"),
      "f.csv", hw);
  ASSERT_EQ(runs.size(), 9u);
  for (const PublishedRun& r : runs) ASSERT_TRUE(r.modelable) << r.id << ": " << r.reason;
  const OptimizerStates kFp32 = OptimizerStates::kFp32, kBf16 = OptimizerStates::kBf16,
                        kRem = OptimizerStates::kFp32Remainders;
  const AttentionKernel kFused = AttentionKernel::kFused, kFa2 = AttentionKernel::kFlashAttention2;
  const std::vector<OptimizerStates> states = {kBf16, kRem, kBf16, kFp32, kRem, kFp32, kFp32, kFp32, kRem};
  const std::vector<bool> grads_fp32 = {false, false, false, true, false, true, false, true, false};
  const std::vector<AttentionKernel> kernels = {kFused, kFused, kFa2, kFused, kFused, kFused, kFused, kFused, kFused};
  const std::vector<bool> fused_loss = {false, false, true, true, true, false, true, true, true};
  for (size_t i = 0; i < runs.size(); ++i) {
    const Layout& l = runs[i].layout;
    EXPECT_EQ(l.optimizer_states, states[i]) << i;
    EXPECT_EQ(l.grad_reduce_in_fp32, grads_fp32[i]) << i;
    EXPECT_EQ(l.attention_kernel, kernels[i]) << i;
    EXPECT_EQ(l.fused_cross_entropy, fused_loss[i]) << i;
  }
  auto listed = [](const PublishedRun& r, const std::string& what) {
    return std::any_of(r.assumptions.begin(), r.assumptions.end(),
                       [&](const std::string& a) { return a.find(what) != std::string::npos; });
  };
  EXPECT_TRUE(listed(runs[0], "BF16 optimizer states"));
  EXPECT_TRUE(listed(runs[1], "16-bit remainders"));
  EXPECT_TRUE(listed(runs[2], "NVTE_FUSED_ATTN=0"));
  EXPECT_TRUE(listed(runs[3], "cross_entropy_loss_fusion"));
  EXPECT_TRUE(listed(runs[4], "llama3.1_{8b,70b,405b}.yaml"));
  EXPECT_FALSE(listed(runs[5], "cross_entropy_loss_fusion"));
  EXPECT_FALSE(listed(runs[8], "grad_reduce_in_fp32 = False"));  // the NeMo 1 entry, not the NeMo 2 FP8 rule
  // On the development rows: the seven NeMo 1 Nemotron-4 340B rows now fit in 80 GB.
  PARATUNE_SHARED_OR_SKIP(csv, kDevCsv);
  int nemotron = 0;
  for (const PublishedRun& r : ReadPublishedRuns(ReadFile(csv), csv, hw)) {
    if (r.layout.optimizer_states != kBf16) continue;
    ++nemotron;
    EXPECT_TRUE(r.id == "NEMO2407-10" || r.id.rfind("DGXC-NEM4-340B-", 0) == 0) << r.id;
    EXPECT_TRUE(EstimateStep(r.model, r.cluster, r.training, r.layout).fits) << r.id;
  }
  EXPECT_EQ(nemotron, 7);
}

// Issue 10: the development rows that are published runs fit, but for the one whose stated
// input paratune does not model (NEMO2507-GB200-03: NeMo's GB200 config offloads the activations
// of 95 layers to the host, docs/validation.md). DGXC-L31-8B-01 and DGXC-L31-405B-01 fit with
// their recipe's 16-bit gradients and remainder states (kNemo1Recipes). 158 of 166 rows are
// modelled: Korthikanti's two abstract rows with their Table 5 batch per GPU (BorrowBatch).
TEST(PublishedRuns, DevelopmentRowsThatRanFit) {
  PARATUNE_SHARED_OR_SKIP(csv, kDevCsv);
  const HardwareCatalog hw = HardwareCatalog::BuiltIn();
  std::vector<std::string> not_fitting;
  int estimated = 0;
  for (const PublishedRun& r : ReadPublishedRuns(ReadFile(csv), csv, hw)) {
    if (!r.modelable) continue;
    ++estimated;
    if (!EstimateStep(r.model, r.cluster, r.training, r.layout).fits) not_fitting.push_back(r.id);
  }
  EXPECT_EQ(estimated, 158);
  EXPECT_EQ(not_fitting, std::vector<std::string>{});
}

// NeMo 25.07's Llama-3.1-405B FP8 run on GB200 (tp 2, pp 1, Megatron-FSDP) offloads 95 layers'
// activations, as NeMo's recommended config for it says (model_configs_gb200.csv).
TEST(PublishedRuns, NemoRecommendedOffloadIsMapped) {
  PARATUNE_SHARED_OR_SKIP(csv, kDevCsv);
  const HardwareCatalog hw = HardwareCatalog::BuiltIn();
  int offloading = 0;
  for (const PublishedRun& r : ReadPublishedRuns(ReadFile(csv), csv, hw)) {
    if (r.layout.offload_layers == 0) continue;
    ++offloading;
    EXPECT_EQ(r.id, "NEMO2507-GB200-03");
    EXPECT_EQ(r.layout.offload_layers, 95);
    const Estimate e = EstimateStep(r.model, r.cluster, r.training, r.layout);
    EXPECT_TRUE(e.fits);
    EXPECT_GE(e.time.offload_s, 0);
  }
  EXPECT_EQ(offloading, 1);
}

// The header with the optional last column hf_model, as both development files have it.
std::string HeaderWithHf() { return Header().substr(0, Header().size() - 1) + ",hf_model\n"; }

// hf_model selects the catalog config; the row's layers and vocab win; any other dimension it
// gives must agree with the config.
// Pipeline splits a row does not state: 126 layers on pp*vp 64 count the embedding and loss as
// layers (Megatron's account-for flags); 29 layers on pp 4 (nor 31) take the most balanced
// layout string (BalancedSplit), said as an assumption; 3 layers on pp 4 cannot be split.
TEST(PublishedRuns, UnstatedUnevenSplitsAreTheFrameworksOwn) {
  const HardwareCatalog hw = HardwareCatalog::BuiltIn();
  const std::string base = WithCell(WithCell(kDenseRow, "num_gpus", "32"), "pp", "4");
  const std::string csv = Header() + WithCell(WithCell(WithCell(base, "layers", "126"), "pp", "8"), "vp", "8") + "\n" +
                          WithCell(base, "layers", "29") + "\n" + WithCell(base, "layers", "3") + "\n";
  const auto runs = ReadPublishedRuns(csv, "x.csv", hw);
  ASSERT_EQ(runs.size(), 3u);
  ASSERT_TRUE(runs[0].modelable) << runs[0].reason;
  EXPECT_EQ(runs[0].layout.pp_layout.front(), 1);  // (126 + 2) / 64 = 2, less the embedding
  ASSERT_TRUE(runs[1].modelable) << runs[1].reason;
  EXPECT_EQ(runs[1].layout.pp_layout, (std::vector<int>{7, 8, 7, 7}));
  EXPECT_NE(std::find(runs[1].assumptions.begin(), runs[1].assumptions.end(),
                      "layers split 7,8,7,7 over the pp*vp chunks (the most balanced split)"),
            runs[1].assumptions.end());
  EXPECT_EQ(runs[2].reason, "fewer layers than pipeline chunks (pp*vp)");
}

TEST(PublishedRuns, HfModelUsesTheCatalogConfigWithTheRowsLayers) {
  const HardwareCatalog hw = HardwareCatalog::BuiltIn();
  const std::string ds =
      "D,s,t,m,moe,4,5120,1536,128,,102400,4096,160,6,A100-PCIe-80GB,,8,8,1,1,1,8,1,8,no,"
      "distributed optimizer (ZeRO-1-like),1,16,none,bf16,,,,500,,,,medium,,,deepseek-ai/DeepSeek-V2";
  const std::string llama = WithCell(kDenseRow, "vocab", "128257") + ",meta-llama/Llama-3.1-8B";
  const std::string wrong = WithCell(kDenseRow, "hidden", "5120") + ",meta-llama/Llama-3.1-8B";
  const std::string unknown = std::string(kDenseRow) + ",acme/NotAModel-7B";
  const std::string dense_as_moe =
      WithCell(WithCell(WithCell(kMoeRow, "ffn_hidden", ""), "num_experts", ""), "topk", "") +
      ",meta-llama/Llama-3.1-8B";
  const auto runs = ReadPublishedRuns(
      HeaderWithHf() + ds + "\n" + llama + "\n" + wrong + "\n" + unknown + "\n" + dense_as_moe + "\n", "x.csv", hw);
  ASSERT_EQ(runs.size(), 5u);
  EXPECT_EQ(runs[4].reason, "column 'arch' (moe) disagrees with llama-3.1-8b (dense)");
  ASSERT_TRUE(runs[0].modelable) << runs[0].reason;
  const ModelSpec& m = runs[0].model;
  EXPECT_EQ(m.layers, 4);                       // the row's cut
  EXPECT_EQ(m.attention, AttentionKind::kMla);  // from the config
  EXPECT_EQ(m.kv_lora_rank, 512);
  EXPECT_EQ(m.first_dense_layers, 1);
  EXPECT_EQ(m.moe_layers(), 3);
  EXPECT_EQ(m.shared_experts, 1);  // DeepSeek's n_shared_experts 2 as one MLP of 2 x 1536
  EXPECT_EQ(m.shared_ffn_hidden, 3072);
  EXPECT_EQ(runs[0].cluster.gpu.name, "A100-PCIe-80GB");
  EXPECT_EQ(runs[0].cluster.fabric.scale_up, LinkClass::kPcie);
  ASSERT_TRUE(runs[1].modelable) << runs[1].reason;
  EXPECT_EQ(runs[1].model.vocab, 128257);  // the run's padded vocabulary
  EXPECT_EQ(runs[1].model.rope_scaling.kind, RopeScalingKind::kLlama3);
  EXPECT_NE(std::find(runs[1].assumptions.begin(), runs[1].assumptions.end(),
                      "vocab 128257 (the row's) instead of 128256 (llama-3.1-8b)"),
            runs[1].assumptions.end());
  // A dimension the row gives wins too, said as an assumption; head_dim follows hidden/heads.
  ASSERT_TRUE(runs[2].modelable) << runs[2].reason;
  EXPECT_EQ(runs[2].model.hidden, 5120);
  EXPECT_EQ(runs[2].model.head_dim, 160);
  EXPECT_NE(std::find(runs[2].assumptions.begin(), runs[2].assumptions.end(),
                      "hidden 5120 (the row's) instead of 4096 (llama-3.1-8b)"),
            runs[2].assumptions.end());
  // A repository the catalog lacks: the row's own columns, said as an assumption.
  ASSERT_TRUE(runs[3].modelable) << runs[3].reason;
  EXPECT_EQ(runs[3].model.hidden, 4096);
  EXPECT_EQ(runs[3].assumptions.front(),
            "hf_model acme/NotAModel-7B is not in the catalog; modelled from the row's columns");
}

// testdata/validation/hf_model_not_in_catalog.csv: rows whose hf_model the catalog lacks are
// modelled from their own columns (dense and MoE), with the assumption listed; without the
// dimensions they need, they are not modelled, and the reason names both; a catalog repository
// in the same file still takes its config.
TEST(PublishedRuns, HfModelNotInTheCatalogIsModelledFromTheColumns) {
  const HardwareCatalog hw = HardwareCatalog::BuiltIn();
  const std::string csv = std::string(PARATUNE_SOURCE_DIR) + "/testdata/validation/hf_model_not_in_catalog.csv";
  const auto runs = ReadPublishedRuns(ReadFile(csv), csv, hw);
  ASSERT_EQ(runs.size(), 4u);
  const std::string said = "hf_model acme/NotAModel-7B is not in the catalog; modelled from the row's columns";
  ASSERT_TRUE(runs[0].modelable) << runs[0].reason;
  EXPECT_EQ(runs[0].assumptions.at(0), said);
  const ModelSpec& dense = runs[0].model;
  EXPECT_EQ(dense.name, "Acme 7B");
  EXPECT_EQ(dense.architecture, "LlamaForCausalLM");  // ffn 11008 is not 4h: a gated MLP
  EXPECT_EQ(dense.layers, 32);
  EXPECT_EQ(dense.ffn_hidden, 11008);
  EXPECT_EQ(dense.vocab, 32000);
  ASSERT_TRUE(runs[1].modelable) << runs[1].reason;
  EXPECT_EQ(runs[1].assumptions.at(0),
            "hf_model acme/NotAModel-8x1B is not in the catalog; modelled from the row's columns");
  EXPECT_EQ(runs[1].model.experts, 8);
  EXPECT_EQ(runs[1].model.topk, 2);
  EXPECT_EQ(runs[1].model.moe_ffn_hidden, 1024);
  EXPECT_EQ(runs[1].model.kv_heads, 4);
  EXPECT_FALSE(runs[2].modelable);
  EXPECT_EQ(runs[2].reason,
            "hf_model 'acme/NotAModel-7B' is not in the model catalog (data/models) and column 'hidden' is empty");
  ASSERT_TRUE(runs[3].modelable) << runs[3].reason;
  EXPECT_EQ(runs[3].model.rope_scaling.kind, RopeScalingKind::kLlama3);  // from the catalog config
  for (const std::string& a : runs[3].assumptions) EXPECT_EQ(a.find("not in the catalog"), std::string::npos) << a;
}

// The optional dense_layers column: the leading dense layers of a cut MoE model override the
// config's; a malformed cell names line and column; more than the layers is a row that cannot
// be modelled, with the reason.
TEST(PublishedRuns, DenseLayersColumnOverridesTheConfig) {
  const HardwareCatalog hw = HardwareCatalog::BuiltIn();
  const std::string header = HeaderWithHf().substr(0, HeaderWithHf().size() - 1) + ",dense_layers\n";
  const std::string v3 =
      "V,s,t,m,moe,4,7168,2048,128,,129280,4096,256,8,B200,,8,8,1,1,1,8,1,8,no,"
      "distributed optimizer (ZeRO-1-like),1,32,none,bf16,,,,500,,,,medium,,,deepseek-ai/DeepSeek-V3";
  const auto runs = ReadPublishedRuns(header + v3 + ",1\n" + v3 + ",\n" + v3 + ",5\n", "d.csv", hw);
  ASSERT_EQ(runs.size(), 3u);
  ASSERT_TRUE(runs[0].modelable) << runs[0].reason;
  EXPECT_EQ(runs[0].model.first_dense_layers, 1);
  EXPECT_EQ(runs[0].model.moe_layers(), 3);
  ASSERT_TRUE(runs[1].modelable) << runs[1].reason;
  EXPECT_EQ(runs[1].model.first_dense_layers, 3);  // the config's first_k_dense_replace
  EXPECT_FALSE(runs[2].modelable);
  EXPECT_NE(runs[2].reason.find("first_k_dense_replace must be between 0 and num_hidden_layers"), std::string::npos)
      << runs[2].reason;
  EXPECT_EQ(InputErrorOf([&] { ReadPublishedRuns(header + v3 + ",one\n", "d.csv", hw); }),
            "d.csv:2: column 'dense_layers' must be a non-negative integer of at most 16777216, got 'one'");
}

// Every sharding family the validation README lists maps onto a ZeRO stage; texts no family
// matches are listed with their rows.
TEST(PublishedRuns, ShardingFamilies) {
  const HardwareCatalog hw = HardwareCatalog::BuiltIn();
  // fp32_shards: PyTorch FSDP/FSDP2 mixed precision (Layout::fp32_shards); grad16: DeepSpeed's
  // 16-bit gradients (not Megatron's FP32 buffer).
  struct Case {
    const char* text;
    int zero;
    bool per_tensor;
    bool fp32_shards;
    bool grad16;
  };
  const Case cases[] = {{"", 1, false, false, false},
                        {"DDP", 1, false, false, false},
                        {"DDP (FSDP=0)", 1, false, false, false},
                        {"ZeRO-1", 1, false, false, false},
                        {"ZeRO-1 (BF16_Optimizer)", 1, false, false, false},
                        {"distributed optimizer (ZeRO-1-like)", 1, false, false, false},
                        {"ZeRO-2", 2, false, false, false},
                        {"ZeRO-3 (DeepSpeed) without model parallelism", 3, true, false, true},
                        {"FSDP", 3, false, true, false},
                        {"FSDP FULL_SHARD", 3, false, true, false},
                        {"FSDP SHARD_GRAD_OP", 2, false, true, false},
                        {"FSDP2 (8)", 3, false, true, false},
                        {"Megatron-FSDP (8)", 3, false, false, false},
                        {"FSDP + Megatron TP (degrees not stated)", 3, false, true, false}};
  for (const Case& k : cases) {
    SCOPED_TRACE(k.text);
    // dp 8 (the dense row: 8 GPUs, tp 1, pp 1, cp 1).
    const auto runs =
        ReadPublishedRuns(Header() + WithCell(kDenseRow, "zero_stage_or_fsdp", k.text) + "\n", "x.csv", hw);
    ASSERT_TRUE(runs[0].modelable) << runs[0].reason;
    EXPECT_EQ(runs[0].layout.zero, k.zero);
    EXPECT_EQ(runs[0].layout.zero3_per_tensor, k.per_tensor);
    EXPECT_EQ(runs[0].layout.fp32_shards, k.fp32_shards);
    EXPECT_EQ(runs[0].layout.grad_reduce_in_fp32, !k.grad16);
    EXPECT_FALSE(runs[0].unmapped_sharding);
  }
  // NVIDIA's recipes say "FSDP" for Megatron-FSDP, which keeps a 16-bit shard.
  const auto nemo = ReadPublishedRuns(
      Header() + WithCell(WithCell(kDenseRow, "zero_stage_or_fsdp", "FSDP"), "source", "NeMo-perf-summary") + "\n",
      "x.csv", hw);
  ASSERT_TRUE(nemo[0].modelable) << nemo[0].reason;
  EXPECT_EQ(nemo[0].layout.zero, 3);
  EXPECT_FALSE(nemo[0].layout.fp32_shards);
  // A sharding group smaller than dp (hybrid sharding) is said; one that does not divide it is
  // not modelled.
  const auto hsdp =
      ReadPublishedRuns(Header() + WithCell(kDenseRow, "zero_stage_or_fsdp", "FSDP2 (4)") + "\n", "x.csv", hw);
  ASSERT_TRUE(hsdp[0].modelable);
  EXPECT_NE(std::find(hsdp[0].assumptions.begin(), hsdp[0].assumptions.end(),
                      "sharding group 4 < dp 8 (hybrid sharding) modelled as sharding over all of dp"),
            hsdp[0].assumptions.end());
  const auto bad =
      ReadPublishedRuns(Header() + WithCell(kDenseRow, "zero_stage_or_fsdp", "Megatron-FSDP (3)") + "\n", "x.csv", hw);
  EXPECT_EQ(bad[0].reason, "sharding group 3 of 'Megatron-FSDP (3)' does not divide the data-parallel size 8");
  // Unmapped texts: listed once each, with every row id, in order of first appearance.
  const std::string csv = Header() + WithCell(WithCell(kDenseRow, "id", "U1"), "zero_stage_or_fsdp", "HSDP of sorts") +
                          "\n" + WithCell(WithCell(kDenseRow, "id", "K"), "zero_stage_or_fsdp", "ZeRO-1") + "\n" +
                          WithCell(WithCell(kDenseRow, "id", "U2"), "zero_stage_or_fsdp", "Colossal gemini") + "\n" +
                          WithCell(WithCell(kDenseRow, "id", "U3"), "zero_stage_or_fsdp", "HSDP of sorts") + "\n";
  const auto runs = ReadPublishedRuns(csv, "x.csv", hw);
  EXPECT_EQ(runs[0].reason, "unknown sharding 'HSDP of sorts'");
  const ValidationReport rep = Validate(runs);
  ASSERT_EQ(rep.unmapped_sharding.size(), 2u);
  EXPECT_EQ(rep.unmapped_sharding[0].first, "HSDP of sorts");
  EXPECT_EQ(rep.unmapped_sharding[0].second, (std::vector<std::string>{"U1", "U3"}));
  EXPECT_EQ(rep.unmapped_sharding[1].first, "Colossal gemini");
  EXPECT_EQ(rep.unmapped_sharding[1].second, (std::vector<std::string>{"U2"}));
}

// ../shared/validation/simumax_runs_dev.csv: all 42 rows are modelled and predicted (30 on
// A100-PCIe-80GB, over PCIe; 12 on B200), their models from hf_model where given.
TEST(Validation, SimuMaxRowsArePredicted) {
  PARATUNE_SHARED_OR_SKIP(csv, "validation/simumax_runs_dev.csv");
  const HardwareCatalog hw = HardwareCatalog::BuiltIn();
  const auto runs = ReadPublishedRuns(ReadFile(csv), csv, hw);
  ASSERT_EQ(runs.size(), 42u);
  const ValidationReport rep = Validate(runs);
  int pcie = 0;
  for (const RunPrediction& p : rep.rows) {
    EXPECT_TRUE(p.predicted) << p.run->id << ": " << p.reason;
    if (p.run->gpu_name == "A100-PCIe-80GB") {
      ++pcie;
      EXPECT_EQ(p.run->cluster.fabric.scale_up, LinkClass::kPcie);
    }
    if (p.run->hf_model == "deepseek-ai/DeepSeek-V2") {
      EXPECT_EQ(p.run->model.attention, AttentionKind::kMla) << p.run->id;
    }
  }
  EXPECT_EQ(pcie, 30);
  EXPECT_TRUE(rep.unmapped_sharding.empty());
}

// The development file's sharding texts all map.
TEST(Validation, DevelopmentSetShardingAllMapped) {
  PARATUNE_SHARED_OR_SKIP(csv, kDevCsv);
  const HardwareCatalog hw = HardwareCatalog::BuiltIn();
  const ValidationReport rep = Validate(ReadPublishedRuns(ReadFile(csv), csv, hw));
  EXPECT_TRUE(rep.unmapped_sharding.empty());
}

}  // namespace
}  // namespace paratune
