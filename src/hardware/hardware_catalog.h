// HardwareCatalog: the GPU table of data/gpus.toml (compiled in) plus per-generation calibration
// from data/calibration.toml, optionally extended or overridden by a user TOML file with the
// same schema (--hardware FILE.toml): a table whose name exists overrides the fields it gives;
// a new name must give every required field.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "hardware/gpu_spec.h"

namespace paratune {

class HardwareCatalog {
 public:
  // The built-in catalog. Throws only if the compiled-in data is broken.
  static HardwareCatalog BuiltIn();

  // Applies a TOML document (the text of a --hardware file; `where` names it in errors).
  // Throws InputError naming the file, line and field on a problem.
  void Merge(std::string_view toml_text, const std::string& where);

  // Throws InputError for an unknown name, listing the known ones. Case-insensitive.
  const GpuSpec& Find(const std::string& name) const;
  std::vector<const GpuSpec*> All() const;

 private:
  std::map<std::string, GpuSpec> gpus_;  // key: upper-case name
  std::map<std::string, Calibration> calibrations_;
};

}  // namespace paratune
