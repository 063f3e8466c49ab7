// libFuzzer target: the CSV reader must throw InputError or succeed on any bytes.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "util/csv.h"
#include "util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    paratune::ParseCsv(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.csv");
  } catch (const paratune::InputError&) {
  }
  return 0;
}
