// libFuzzer target: serve's page path (and `report`'s): the bytes of a file in the served
// directory are read as a --json document (ParseReportInput: JSON nesting bounded, duplicate
// keys refused, schema checked) and rendered; either a whole page comes out or InputError. Every
// section reads its fields through JsonFields, which names the file and field of anything that
// is not what the schema says. The seeds include a document nested 100,000 deep (issue 32: serve
// died with SIGSEGV on it).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "report/report.h"
#include "util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > (size_t{1} << 20)) return 0;
  try {
    const paratune::ReportInput in =
        paratune::ParseReportInput(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.json");
    const std::string html = paratune::RenderReport({in}, paratune::ReportOptions{});
    if (html.find("</html>") == std::string::npos) __builtin_trap();
  } catch (const paratune::InputError&) {
  }
  return 0;
}
