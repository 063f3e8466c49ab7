// Published training runs (the schema of ../shared/validation/published_runs_dev.csv, described
// in its README): each row's model dimensions, GPU, layout, batch, recompute and precision
// mapped onto paratune's inputs, or the reason the row cannot be modelled.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hardware/cluster.h"
#include "hardware/hardware_catalog.h"
#include "layout/layout.h"
#include "model/model_spec.h"

namespace paratune {

struct PublishedRun {
  int line = 0;
  std::string id, source, model_name, arch, gpu_name, precision_raw, confidence, flags;
  std::string sharding_raw;  // column zero_stage_or_fsdp as written
  std::string hf_model;      // Hugging Face repository id of the model's config.json; empty if none
  int num_gpus = 0;
  double target_tokens_per_s_per_gpu = 0;  // 0: the row has no target
  // Figures some files add (0 = not given; the columns are optional): the measured step time
  // (`target_step_time_s`), the measured peak memory (`measured_peak_mem_gib`: the largest
  // torch.cuda.max_memory_allocated over the ranks), and SimuMax's own predictions for the row
  // (`simumax_pred_mem_gib`, `simumax_pred_step_time_s`; ../shared/validation/README.md).
  double target_step_time_s = 0;
  double measured_peak_memory_bytes = 0;
  double simumax_peak_memory_bytes = 0;
  double simumax_step_time_s = 0;

  bool modelable = false;
  std::string reason;                    // why not, when !modelable
  bool unmapped_sharding = false;        // its zero_stage_or_fsdp text matches no sharding family
  std::vector<std::string> assumptions;  // defaults filled in for empty cells

  ModelSpec model;
  ClusterSpec cluster;
  Training training;
  Layout layout;
};

// Reads the CSV text; `where` names it in errors. Throws InputError for a malformed file or a
// missing column; a row that cannot be modelled is returned with modelable = false and a reason.
// The sharding texts (column zero_stage_or_fsdp) no family matched, each with the ids of its
// rows, in order of first appearance.
std::vector<std::pair<std::string, std::vector<std::string>>> UnmappedShardingTexts(
    const std::vector<PublishedRun>& runs);

std::vector<PublishedRun> ReadPublishedRuns(std::string_view csv_text, const std::string& where,
                                            const HardwareCatalog& hardware);

}  // namespace paratune
