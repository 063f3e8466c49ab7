#include "util/json_parse.h"

#include <gtest/gtest.h>

#include <string>

#include "util/error.h"
#include "util/test_util.h"

namespace paratune {
namespace {

std::string Nested(size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

TEST(ParseJson, AcceptsUpToTheDepthLimit) {
  EXPECT_EQ(ParseJson(Nested(kMaxJsonDepth), "a.json").dump().size(), 2 * kMaxJsonDepth);
  const nlohmann::json j = ParseJson(R"({"a": [1, {"b": "]]]}}}"}], "c": "\"[[["})", "a.json");
  EXPECT_EQ(j.at("a").at(1).at("b"), "]]]}}}");
  EXPECT_EQ(j.at("c"), "\"[[[");
}

// The 600 KB document nested 100,000 deep that killed serve (issue 32) is refused on one line;
// so are 65 objects one inside the other.
TEST(ParseJson, RefusesDeeperThanTheLimit) {
  EXPECT_EQ(InputErrorOf([] { ParseJson(Nested(100000), "deep.json"); }),
            "deep.json: JSON nested deeper than 64 levels");
  std::string objects;
  for (int i = 0; i < 65; ++i) objects += "{\"k\":";
  objects += '1';
  objects.append(65, '}');
  EXPECT_EQ(InputErrorOf([&] { ParseJson(objects, "o.json"); }), "o.json: JSON nested deeper than 64 levels");
}

// A key named twice in one object is refused (which value was meant?); the same key in two
// objects is fine.
TEST(ParseJson, RefusesDuplicateKeys) {
  EXPECT_EQ(InputErrorOf([] { ParseJson(R"({"hidden_size": 4096, "hidden_size": 8192})", "config.json"); }),
            "config.json: key \"hidden_size\" appears twice in one object");
  EXPECT_EQ(ParseJson(R"({"a": {"x": 1}, "b": {"x": 2}})", "c.json").at("b").at("x"), 2);
}

// Syntax errors stay nlohmann's, with their byte, for the caller to word; NaN is not JSON.
TEST(ParseJson, SyntaxErrorsKeepTheirByte) {
  try {
    ParseJson(R"({"a": NaN})", "n.json");
    FAIL() << "NaN parsed";
  } catch (const nlohmann::json::parse_error& e) {
    EXPECT_EQ(e.byte, 7u);
  }
}

}  // namespace
}  // namespace paratune
