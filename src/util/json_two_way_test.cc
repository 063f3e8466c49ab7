#include "util/json_two_way.h"

#include <gtest/gtest.h>

#include "util/error.h"

namespace paratune {
namespace {

enum class Shape { kRound, kSquare };
inline constexpr EnumNames<Shape, 2> kShapes{{{{Shape::kRound, "round"}, {Shape::kSquare, "square"}}}};

struct Item {
  int64_t n = 0;
  double ratio = 0;
};
struct Doc {
  std::string name;
  int count = 0;
  bool on = false;
  Shape shape = Shape::kRound;
  double spread = 0;  // nullable
  std::string note;   // nullable
  double added = 7;   // joined later
  std::vector<int64_t> steps;
  std::vector<Item> items;
  std::optional<Item> extra;
  double total() const { return count * 2.0; }
};

template <class T, class V>
void ItemFields(T& i, V& v) {
  v("n", i.n);
  v.Nullable("ratio", i.ratio);
}

template <class T, class V>
void DocFields(T& d, V& v) {
  v("name", d.name);
  v("count", d.count);
  v("on", d.on);
  v("shape", d.shape, kShapes);
  v.Nullable("spread", d.spread);
  v.Nullable("note", d.note);
  v("added_s", d.added, Presence::kLater);
  v("steps", d.steps);
  v.Derived("total", d.total());
  v.List("items", d.items, [](auto& x, auto& w) { ItemFields(x, w); });
  v.Maybe(
      "extra", d.extra, [](auto& x, auto& w) { ItemFields(x, w); }, Presence::kLater);
}

nlohmann::json Write(const Doc& d) {
  nlohmann::json j = nlohmann::json::object();
  JsonWriter w(j);
  DocFields(d, w);
  return j;
}

Doc Read(const nlohmann::json& j) {
  const JsonFields f(j, "d.json");
  JsonReader r(JsonView(f, j, ""));
  Doc d;
  DocFields(d, r);
  return d;
}

std::string ErrorOf(const nlohmann::json& j) {
  try {
    Read(j);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(JsonTwoWay, WritesEveryFormAndReadsItBack) {
  Doc d;
  d.name = "x", d.count = 3, d.on = true, d.shape = Shape::kSquare, d.spread = std::nan(""), d.added = 1.5;
  d.steps = {4, 5}, d.items = {{1, 0.5}, {2, std::nan("")}};
  const nlohmann::json j = Write(d);
  EXPECT_EQ(j, nlohmann::json::parse(R"({"name": "x", "count": 3, "on": true, "shape": "square", "spread": null,
      "note": null, "added_s": 1.5, "steps": [4, 5], "total": 6.0, "items": [{"n": 1, "ratio": 0.5},
      {"n": 2, "ratio": null}], "extra": null})"));
  const Doc back = Read(j);
  EXPECT_EQ(back.shape, Shape::kSquare);
  EXPECT_TRUE(std::isnan(back.spread));
  EXPECT_EQ(back.note, "");
  EXPECT_EQ(back.steps, (std::vector<int64_t>{4, 5}));
  ASSERT_EQ(back.items.size(), 2u);
  EXPECT_TRUE(std::isnan(back.items[1].ratio));
  EXPECT_FALSE(back.extra);
  EXPECT_EQ(Write(back), j);
  d.extra = Item{9, 0.25};
  EXPECT_EQ(Read(Write(d)).extra->n, 9);
}

TEST(JsonTwoWay, ALaterFieldMayBeAbsentARequiredOneMayNot) {
  nlohmann::json j = Write(Doc{});
  j.erase("added_s");
  j.erase("extra");
  j.erase("total");  // derived: never read
  EXPECT_EQ(Read(j).added, 7);
  j.erase("count");
  EXPECT_EQ(ErrorOf(j), "d.json: field 'count' is missing");
}

TEST(JsonTwoWay, EachErrorNamesTheFileAndField) {
  const nlohmann::json good = Write(Doc{.items = {{1, 0}}});
  auto with = [&](const char* key, nlohmann::json v) {
    nlohmann::json j = good;
    j[key] = std::move(v);
    return ErrorOf(j);
  };
  EXPECT_EQ(with("count", 1.5), "d.json: field 'count' is not an integer");
  EXPECT_EQ(with("count", int64_t{1} << 40), "d.json: field 'count' is out of range");
  EXPECT_EQ(with("on", 1), "d.json: field 'on' is not true or false");
  EXPECT_EQ(with("name", 2), "d.json: field 'name' is not a string");
  EXPECT_EQ(with("added_s", -1), "d.json: field 'added_s' is negative (a duration, size or rate)");
  EXPECT_EQ(with("steps", nlohmann::json::array({1, "a"})), "d.json: field 'steps[1]' is not an integer");
  EXPECT_EQ(with("items", 3), "d.json: field 'items' is not an array");
  EXPECT_EQ(with("items", nlohmann::json::array({{{"n", "one"}}})), "d.json: field 'items[0].n' is not an integer");
  EXPECT_EQ(with("items", nlohmann::json::array({5})), "d.json: field 'items[0]' is not an object");
  EXPECT_EQ(with("shape", "oval"), "d.json: field 'shape': unknown name 'oval' (expected round or square)");
}

// Objects whose member names are data (a run's tags, its figures by metric) and a value kept whole.
struct Keyed {
  std::vector<std::pair<std::string, std::string>> tags;
  std::vector<std::pair<std::string, double>> figures;
  std::vector<std::pair<std::string, Item>> items;
  nlohmann::json stored;
};

template <class T, class V>
void KeyedFields(T& k, V& v) {
  v.Members("tags", k.tags);
  v.Members("figures", k.figures);
  v.Members("items", k.items, [](auto& x, auto& w) { ItemFields(x, w); });
  v("stored", k.stored);
}

Keyed ReadKeyed(const nlohmann::json& j) {
  const JsonFields f(j, "k.json");
  JsonReader r(JsonView(f, j, ""));
  Keyed k;
  KeyedFields(k, r);
  return k;
}

TEST(JsonTwoWay, MembersNamedByDataReadBackInNameOrder) {
  const Keyed k{{{"b", "2"}, {"a", "1"}},
                {{"mfu", 0.5}, {"hfu", std::nan("")}},
                {{"x", {3, 0.25}}},
                nlohmann::json::parse(R"({"tp": 2, "pp": [1, 2]})")};
  const nlohmann::json j = WriteJson(k, [](const auto& x, auto& w) { KeyedFields(x, w); });
  EXPECT_EQ(j, nlohmann::json::parse(R"({"tags": {"a": "1", "b": "2"}, "figures": {"hfu": null, "mfu": 0.5},
      "items": {"x": {"n": 3, "ratio": 0.25}}, "stored": {"tp": 2, "pp": [1, 2]}})"));
  const Keyed back = ReadKeyed(j);
  EXPECT_EQ(back.tags, (std::vector<std::pair<std::string, std::string>>{{"a", "1"}, {"b", "2"}}));
  ASSERT_EQ(back.figures.size(), 2u);
  EXPECT_EQ(back.figures[0].first, "hfu");
  EXPECT_TRUE(std::isnan(back.figures[0].second));
  EXPECT_EQ(back.figures[1].second, 0.5);
  ASSERT_EQ(back.items.size(), 1u);
  EXPECT_EQ(back.items[0].second.n, 3);
  EXPECT_EQ(back.stored, k.stored);
  auto error_with = [&](const char* key, const nlohmann::json& v) {
    nlohmann::json bad = j;
    bad[key] = v;
    try {
      ReadKeyed(bad);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error_with("tags", nlohmann::json::array()), "k.json: field 'tags' is not an object");
  EXPECT_EQ(error_with("tags", {{"a", 1}}), "k.json: field 'tags.a' is not a string");
  EXPECT_EQ(error_with("figures", {{"mfu", "high"}}), "k.json: field 'figures.mfu' is not a number");
  EXPECT_EQ(error_with("items", {{"x", {{"n", "three"}, {"ratio", 0}}}}),
            "k.json: field 'items.x.n' is not an integer");
}

}  // namespace
}  // namespace paratune
