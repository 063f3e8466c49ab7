// libFuzzer target: a recorded run's scenario (paratune.scenario/1, the JSON `calibrate
// --from-runs` reads back from the registry) must be read or rejected with one InputError on
// any bytes; a scenario read is a fixed point of writing and reading again (the same JSON).
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string_view>

#include "util/error.h"
#include "validate/scenario_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > (1 << 20)) return 0;
  try {
    const paratune::Scenario s =
        paratune::ScenarioFromJsonText(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.json");
    const nlohmann::json once = paratune::ScenarioToJson(s);
    const std::string text = once.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    nlohmann::json twice;
    try {
      twice = paratune::ScenarioToJson(paratune::ScenarioFromJsonText(text, "again"));
    } catch (const paratune::InputError&) {
      __builtin_trap();  // what ScenarioToJson wrote must read back
    }
    if (twice != once) __builtin_trap();
  } catch (const paratune::InputError&) {
  }
  return 0;
}
