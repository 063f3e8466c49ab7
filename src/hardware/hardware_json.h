// The JSON form of the hardware catalog, schema "paratune.gpus/1" (docs/json.md): every GPU with
// its chip figures and its reference system's fabric, and every named fabric.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "hardware/hardware_catalog.h"

namespace paratune {

inline constexpr const char* kGpusSchema = "paratune.gpus/1";

nlohmann::json FabricJson(const Fabric& f);
nlohmann::json GpusJson(const HardwareCatalog& hw);

}  // namespace paratune
