// Which reader takes a file: a JSON object's "schema" string picks it, anything else under
// "schema" (an object, a number) is named as the one wrong field (the run_source fuzz target
// found an object there thrown through as a JSON type error).
#include "runs/source_reader.h"

#include <gtest/gtest.h>

#include <string>

#include "util/error.h"

namespace paratune {
namespace {

std::string ErrorOf(const std::string& text) {
  try {
    ReadRunSourceText("in.json", text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(SourceFile, HasSchemaOnlyWhereSchemaIsThatString) {
  const auto has = [](const char* text, std::string_view schema) {
    const nlohmann::json doc = nlohmann::json::parse(text);
    return SourceFile{"f", text, &doc}.HasSchema(schema);
  };
  EXPECT_TRUE(has(R"({"schema": "paratune.plan/1"})", "paratune.plan/1"));
  EXPECT_FALSE(has(R"({"schema": "paratune.plan/1"})", "paratune.analyze/1"));
  EXPECT_FALSE(has(R"({"schema": {"a": 1}})", "paratune.plan/1"));
  EXPECT_FALSE(has(R"({"schema": 7})", "paratune.plan/1"));
  EXPECT_FALSE(has(R"({"schema": null})", "paratune.plan/1"));
  EXPECT_FALSE(has(R"({"other": "paratune.plan/1"})", "paratune.plan/1"));
  EXPECT_FALSE(has(R"(["paratune.plan/1"])", "paratune.plan/1"));
  EXPECT_FALSE(has(R"("paratune.plan/1")", "paratune.plan/1"));
  EXPECT_FALSE((SourceFile{"f", "text", nullptr}.HasSchema("paratune.plan/1")));
}

TEST(SourceFile, ANonStringSchemaIsOneLineNamingTheField) {
  // The message up to the list of kinds it reads.
  const auto head = [](const char* text) {
    const std::string e = ErrorOf(text);
    return e.substr(0, e.find(" (it reads "));
  };
  EXPECT_EQ(head(R"({"schema": {"paratune.plan/1": 1}})"), "in.json: field 'schema' is not a string");
  EXPECT_EQ(head(R"({"schema": 3})"), "in.json: field 'schema' is not a string");
  EXPECT_EQ(head(R"({"x": 3})"), "in.json: a JSON file without a \"schema\" field");
  EXPECT_EQ(head(R"({"schema": "paratune.nope/1"})"),
            "in.json: JSON schema 'paratune.nope/1' is not one runs record reads");
  EXPECT_NE(ErrorOf(R"({"schema": 3})").find("paratune.plan/1"), std::string::npos);
}

}  // namespace
}  // namespace paratune
