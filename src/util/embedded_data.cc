#include "util/embedded_data.h"

namespace paratune {

std::optional<std::string_view> FindEmbeddedFile(std::string_view path) {
  for (const EmbeddedFile& f : EmbeddedFiles())
    if (f.path == path) return f.content;
  return std::nullopt;
}

}  // namespace paratune
