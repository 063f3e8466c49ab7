#include "util/json_parse.h"

#include <unordered_set>
#include <vector>

#include "util/error.h"

namespace paratune {

nlohmann::json ParseJson(std::string_view text, const std::string& where) {
  using json = nlohmann::json;
  std::vector<std::unordered_set<std::string>> keys;  // one set per open container (arrays: empty)
  const json::parser_callback_t check = [&](int, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start:
        if (keys.size() >= kMaxJsonDepth)
          throw InputError(where + ": JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
        keys.emplace_back();
        break;
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        if (!keys.empty()) keys.pop_back();
        break;
      case json::parse_event_t::key:
        if (!keys.empty() && !keys.back().insert(parsed.get<std::string>()).second)
          throw InputError(where + ": key \"" + parsed.get<std::string>() + "\" appears twice in one object");
        break;
      case json::parse_event_t::value:
        break;
    }
    return true;
  };
  return json::parse(text.begin(), text.end(), check);
}

}  // namespace paratune
