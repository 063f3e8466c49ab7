// The files of data/ (model and hardware catalogs, calibration) compiled into the library, so
// the binary answers without an install tree. Paths are relative to data/, e.g. "gpus.toml".
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace paratune {

struct EmbeddedFile {
  std::string_view path;
  std::string_view content;
};

const std::vector<EmbeddedFile>& EmbeddedFiles();

// The content of data/<path>, or nullopt.
std::optional<std::string_view> FindEmbeddedFile(std::string_view path);

}  // namespace paratune
