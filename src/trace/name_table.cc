#include "trace/name_table.h"

#include <algorithm>
#include <iterator>

namespace paratune {

size_t NameTable::Hash::operator()(std::string_view s) const {
  uint64_t h = 1469598103934665603ull ^ s.size();
  const size_t head = std::min<size_t>(s.size(), 48);
  for (size_t i = 0; i < head; ++i) h = (h ^ static_cast<unsigned char>(s[i])) * 1099511628211ull;
  for (size_t i = s.size() > 96 ? s.size() - 48 : head; i < s.size(); ++i)
    h = (h ^ static_cast<unsigned char>(s[i])) * 1099511628211ull;
  return static_cast<size_t>(h);
}

uint32_t NameTable::Intern(std::string_view name) {
  auto it = ids_.find(name);
  if (it != ids_.end()) return it->second;
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
