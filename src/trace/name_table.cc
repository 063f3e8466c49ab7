#include "trace/name_table.h"

#include <iterator>

namespace paratune {

uint32_t NameTable::Add(std::string_view name) {
  const uint32_t id = static_cast<uint32_t>(storage_.size());
  storage_.emplace_back(name);
  ids_.emplace(std::string_view(storage_.back()), id);
  return id;
}

std::vector<std::string> NameTable::Take() {
  ids_.clear();
  std::vector<std::string> names(std::make_move_iterator(storage_.begin()), std::make_move_iterator(storage_.end()));
  storage_.clear();
  return names;
}

}  // namespace paratune
