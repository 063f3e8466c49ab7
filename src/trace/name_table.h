// Interned event names, written once for both readers (Kineto JSON, Nsight SQLite): each
// distinct name is stored once and events refer to it by a dense index (TraceEvent::name), which
// keeps a trace of millions of events at tens of bytes per event.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace paratune {

class NameTable {
 public:
  // The index of `name`, adding it when new. Indices are dense, in order of first appearance.
  uint32_t Intern(std::string_view name);
  size_t size() const { return storage_.size(); }
  const std::string& operator[](uint32_t id) const { return storage_[id]; }
  // The names by index; the table is empty afterwards.
  std::vector<std::string> Take();

 private:
  // Long kernel names differ mostly at their ends: the hash takes the length and up to 48 bytes
  // from each end (FNV-1a), so interning costs the same for a 20- or a 2,000-byte name.
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const;
  };
  std::deque<std::string> storage_;  // a deque never moves its elements: the map's keys view them
  std::unordered_map<std::string_view, uint32_t, Hash, std::equal_to<>> ids_;
};

}  // namespace paratune
