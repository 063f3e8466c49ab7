// libFuzzer target: a report input (the --json document of a paratune command) must render or
// be rejected with InputError, whatever its bytes: every section reads its fields through
// JsonFields, which names the file and field of anything that is not what the schema says.
#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "report/report.h"
#include "util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > (size_t{1} << 20)) return 0;
  paratune::ReportInput in;
  in.path = "fuzz.json";
  in.doc = nlohmann::json::parse(reinterpret_cast<const char*>(data), reinterpret_cast<const char*>(data) + size, nullptr,
                                 false);
  if (in.doc.is_discarded() || !in.doc.is_object() || !in.doc.contains("schema") || !in.doc["schema"].is_string()) return 0;
  if (!paratune::FindSectionKind(in.doc["schema"].get<std::string>())) return 0;
  try {
    const std::string html = paratune::RenderReport({in}, paratune::ReportOptions{});
    if (html.find("</html>") == std::string::npos) __builtin_trap();
  } catch (const paratune::InputError&) {
  }
  return 0;
}
