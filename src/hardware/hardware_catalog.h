// HardwareCatalog: the GPU chips of data/gpus.toml (compiled in), each with the fabric of its
// reference system (HGX node, NVL72 rack), per-generation calibration from data/calibration.toml,
// and optional [fabric.NAME] tables; extended or overridden by a user TOML file with the same
// schema (--hardware FILE.toml): a table whose name exists overrides the fields it gives; a new
// name must give every required field.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "hardware/cluster.h"
#include "hardware/fabric.h"
#include "hardware/gpu_spec.h"

namespace paratune {

class HardwareCatalog {
 public:
  // The built-in catalog. Throws only if the compiled-in data is broken.
  static HardwareCatalog BuiltIn();

  // Applies a TOML document (the text of a --hardware file; `where` names it in errors).
  // Throws InputError naming the file, line and field on a problem.
  void Merge(std::string_view toml_text, const std::string& where);

  // Throws InputError for an unknown name, listing the known ones. Case-insensitive; a GPU's
  // aliases (its `aliases` list in the TOML) find it too.
  const GpuSpec& Find(const std::string& name) const;
  // A fabric: a GPU's reference system (same name as the GPU) or a [fabric.NAME] table.
  const Fabric& FindFabric(const std::string& name) const;
  // `gpus` GPUs of chip `gpu` on `fabric` (empty: the GPU's reference system).
  ClusterSpec Cluster(const std::string& gpu, int gpus, const std::string& fabric = "") const;

  std::vector<const GpuSpec*> All() const;
  std::vector<const Fabric*> Fabrics() const;

 private:
  std::map<std::string, GpuSpec> gpus_;    // key: upper-case name
  std::map<std::string, Fabric> fabrics_;  // key: upper-case name
  std::map<std::string, Calibration> calibrations_;
  std::map<std::string, std::string> aliases_;  // upper-case alias -> key in gpus_
};

}  // namespace paratune
