// Between the validation CSV's rows (PublishedRun, published_runs_dev.csv's schema) and the run
// registry: a row recorded as a measured run (`paratune runs record --csv`), and a recorded run
// read back as a row to fit (`paratune calibrate --from-runs`). The row's scenario travels as
// paratune.scenario/1 JSON (validate/scenario_json.h), so the fit estimates it exactly as the
// row was read.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "hardware/hardware_catalog.h"
#include "runs/run_record.h"
#include "validate/published_runs.h"

namespace paratune {

// What was left out, and why: (row id or run name, reason).
using Skipped = std::vector<std::pair<std::string, std::string>>;

struct CsvRecords {
  std::vector<RunRecord> records;
  Skipped skipped;
};

// One record per modelable row with a measured tokens/s per GPU: named by the row's id, cluster
// `cluster` ("" = the row's GPU name), model, GPU and world size, the layout and the scenario,
// the measured tokens/s per GPU (and step time and peak memory where the row gives them), the
// cost model's prediction of the same figures with the row's calibration, and tags source,
// confidence, precision and hf_model (where given). Rows that cannot be modelled, have no
// target, or whose layout the cost model rejects are skipped with the reason.
CsvRecords RecordsOfPublishedRuns(const std::vector<PublishedRun>& rows, const std::string& cluster);

struct RunsToFit {
  std::vector<PublishedRun> runs;
  Skipped skipped;
};

// The runs a fit can use: each record with a scenario and a measured tokens/s per GPU, read back
// as a modelable row (id = run name, confidence = its `confidence` tag). The starting
// calibration is `hardware`'s for the run's GPU (the model as it stands, not as it was when the
// run was recorded); a GPU the catalog does not know keeps the recorded one. A scenario that no
// longer reads is skipped with its error.
RunsToFit PublishedRunsOfRecords(const std::vector<RunRecord>& records, const HardwareCatalog& hardware);

}  // namespace paratune
