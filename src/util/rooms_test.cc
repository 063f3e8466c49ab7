// The direction of the library: every #include of a room's sources names only the room itself or
// the rooms cmake/rooms.cmake lets it use (transitively), every directory under src/ is a
// declared room, and docs/architecture.md lists the rooms in the declared order. The build
// enforces the same through per-room include directories; this test names the offending line.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace paratune {
namespace {

namespace fs = std::filesystem;

const fs::path kRoot = PARATUNE_SOURCE_DIR;

std::string Slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Rooms {
  std::vector<std::string> order;
  std::map<std::string, std::set<std::string>> allowed;  // closure, the room itself included
};

Rooms ReadRooms() {
  Rooms r;
  const std::string text = Slurp(kRoot / "cmake/rooms.cmake");
  const std::regex line(R"(^paratune_room\((\w+)(?:\s+DEPS((?:\s+\w+)*))?\s*\))");
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) {
    std::smatch m;
    if (!std::regex_search(l, m, line)) continue;
    const std::string name = m[1];
    std::set<std::string> closure = {name};
    std::istringstream deps(m[2].str());
    for (std::string d; deps >> d;) {
      EXPECT_TRUE(r.allowed.contains(d)) << "room " << name << " depends on " << d << ", declared after it";
      closure.insert(r.allowed[d].begin(), r.allowed[d].end());
    }
    r.order.push_back(name);
    r.allowed[name] = closure;
  }
  return r;
}

TEST(Rooms, DeclaredInDependencyOrder) {
  const Rooms r = ReadRooms();
  ASSERT_GE(r.order.size(), 10u);
  EXPECT_EQ(r.order.front(), "util");
  EXPECT_EQ(r.order.back(), "cli");
  // The readers know nothing of the cost model, and the cost model nothing of the simulator.
  EXPECT_FALSE(r.allowed.at("trace").contains("cost"));
  EXPECT_FALSE(r.allowed.at("trace").contains("step"));
  EXPECT_FALSE(r.allowed.at("cost").contains("pipeline"));
  EXPECT_FALSE(r.allowed.at("analysis").contains("step"));
  EXPECT_TRUE(r.allowed.at("compare").contains("analysis"));
  EXPECT_TRUE(r.allowed.at("compare").contains("step"));
  // The Python module and the CLI sit side by side at the top: neither uses the other.
  EXPECT_FALSE(r.allowed.at("python").contains("cli"));
  EXPECT_FALSE(r.allowed.at("cli").contains("python"));
}

TEST(Rooms, EveryIncludePointsDown) {
  const Rooms r = ReadRooms();
  std::set<std::string> rooms(r.order.begin(), r.order.end());
  const std::regex include(R"(^\s*#\s*include\s+"(\w+)/[^"]+")");
  int checked = 0;
  for (const auto& dir : fs::directory_iterator(kRoot / "src")) {
    if (!dir.is_directory()) continue;
    const std::string room = dir.path().filename().string();
    ASSERT_TRUE(rooms.contains(room)) << "src/" << room << " is not a room of cmake/rooms.cmake";
    for (const auto& f : fs::directory_iterator(dir.path())) {
      const std::string ext = f.path().extension().string();
      if (ext != ".h" && ext != ".cc") continue;
      std::istringstream in(Slurp(f.path()));
      int n = 0;
      for (std::string l; std::getline(in, l);) {
        ++n;
        std::smatch m;
        if (!std::regex_search(l, m, include) || !rooms.contains(m[1])) continue;
        ++checked;
        EXPECT_TRUE(r.allowed.at(room).contains(m[1]))
            << "src/" << room << "/" << f.path().filename().string() << ":" << n << " includes " << m[1]
            << "/, which room " << room << " may not use (cmake/rooms.cmake)";
      }
    }
  }
  EXPECT_GT(checked, 100);
}

TEST(Rooms, ArchitectureDocListsTheRoomsInOrder) {
  const Rooms r = ReadRooms();
  // The rooms table of docs/architecture.md: lines "src/<room>/ ...", bottom to top.
  std::istringstream in(Slurp(kRoot / "docs/architecture.md"));
  const std::regex row(R"(^src/(\w+)/)");
  std::vector<std::string> listed;
  for (std::string l; std::getline(in, l);) {
    std::smatch m;
    if (std::regex_search(l, m, row)) listed.push_back(m[1]);
  }
  EXPECT_EQ(listed, r.order);
}

}  // namespace
}  // namespace paratune
