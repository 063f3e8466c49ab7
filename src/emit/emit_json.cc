#include "emit/emit_json.h"

#include <nlohmann/json.hpp>

namespace paratune {

nlohmann::json EmittedToJson(Framework f, const Emitted& e) {
  return {{"schema", kEmitSchema}, {"framework", FrameworkName(f)}, {"text", e.text}, {"notes", e.notes}};
}

}  // namespace paratune
