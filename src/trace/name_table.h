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
  // Inline: the readers call it once per event.
  uint32_t Intern(std::string_view name) {
    const auto it = ids_.find(name);
    return it != ids_.end() ? it->second : Add(name);
  }
  size_t size() const { return storage_.size(); }
  const std::string& operator[](uint32_t id) const { return storage_[id]; }
  // The names by index; the table is empty afterwards.
  std::vector<std::string> Take();

 private:
  // Long kernel names differ mostly at their ends: the hash takes the length and up to 48 bytes
  // from each end (FNV-1a), so interning costs the same for a 20- or a 2,000-byte name.
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const {
      uint64_t h = 1469598103934665603ull ^ s.size();
      const size_t head = s.size() < 48 ? s.size() : 48;
      for (size_t i = 0; i < head; ++i) h = (h ^ static_cast<unsigned char>(s[i])) * 1099511628211ull;
      for (size_t i = s.size() > 96 ? s.size() - 48 : head; i < s.size(); ++i)
        h = (h ^ static_cast<unsigned char>(s[i])) * 1099511628211ull;
      return static_cast<size_t>(h);
    }
  };
  uint32_t Add(std::string_view name);
  std::deque<std::string> storage_;  // a deque never moves its elements: the map's keys view them
  std::unordered_map<std::string_view, uint32_t, Hash, std::equal_to<>> ids_;
};

}  // namespace paratune
