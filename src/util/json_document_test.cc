#include "util/json_document.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace paratune {
namespace {

// "schema" first, and otherwise byte for byte what dump() writes (same indentation, nesting and
// escapes), so the document reads back equal.
TEST(DocumentText, SchemaComesFirst) {
  const nlohmann::json doc = {
      {"ranks", {{{"rank", 0}, {"busy", {1, 2}}}}}, {"schema", "paratune.analyze/1"}, {"a", "x\ny"}};
  EXPECT_EQ(DocumentText(doc, 2),
            "{\n"
            "  \"schema\": \"paratune.analyze/1\",\n"
            "  \"a\": \"x\\ny\",\n"
            "  \"ranks\": [\n"
            "    {\n"
            "      \"busy\": [\n"
            "        1,\n"
            "        2\n"
            "      ],\n"
            "      \"rank\": 0\n"
            "    }\n"
            "  ]\n"
            "}");
  EXPECT_EQ(DocumentText(doc, -1), R"({"schema":"paratune.analyze/1","a":"x\ny","ranks":[{"busy":[1,2],"rank":0}]})");
  EXPECT_EQ(nlohmann::json::parse(DocumentText(doc, 2)), doc);
}

TEST(DocumentText, OtherValuesAreDumpedAsIs) {
  EXPECT_EQ(DocumentText(nlohmann::json{{"b", 1}, {"a", 2}}, 2), nlohmann::json({{"b", 1}, {"a", 2}}).dump(2));
  EXPECT_EQ(DocumentText(nlohmann::json{{"schema", "x"}}, 2), "{\n  \"schema\": \"x\"\n}");
  EXPECT_EQ(DocumentText(nlohmann::json::array({1, 2}), -1), "[1,2]");
}

}  // namespace
}  // namespace paratune
