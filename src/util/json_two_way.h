// One field list, both directions: a --json document's struct declares its fields once, as a
// function template over a visitor,
//   template <class V> void Fields(Thing& x, V& v) { v("count", x.count); v.List("rows", x.rows, RowFields<V>); }
// and JsonWriter turns the struct into JSON while JsonReader reads it back, each error naming the
// file and field (util/json_fields.h). Writing and reading cannot drift: there is no second list.
// A field is one of
//   v(key, x)                     number, integer, bool, string, or a vector of those or of pairs;
//                                 an nlohmann::json is any value, kept as it is (a part of another
//                                 document stored whole, read with that document's own list)
//   v(key, x, names)              an enum, by its EnumNames table (util/enum_names.h)
//   v.Nullable(key, x)            a double written as null when not finite (read back as NaN),
//                                 a string written as null when empty (read back as ""), or a
//                                 vector of doubles whose non-finite elements are null
//   v.Derived(key, value)         written only: a figure computed from other fields (a share)
//   v.Nested(key, f) / v.List(key, items, f) / v.Maybe(key, optional, f)
//                                 an object, an array of objects, an object or null (or absent,
//                                 with kOmittedWhenEmpty), each with its own field list
//                                 f(item, visitor)
//   v.Members(key, pairs) / v.Members(key, pairs, f)
//                                 an object whose member names are data (a vector of (name,
//                                 value) pairs, read back in name order): values that are strings
//                                 or doubles (null when not finite, read back as NaN), or objects
//                                 with their field list f
// Every form takes a last Presence: kLater marks a field that joined the schema after its first
// documents; the reader keeps the default where such a document lacks it. Other fields are
// required. Members a reader does not know are ignored (a newer writer may add some).
#pragma once

#include <climits>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <type_traits>
#include <utility>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "util/enum_names.h"
#include "util/error.h"
#include "util/json_fields.h"

namespace paratune {

// kLater: absent in older documents (the reader keeps the default). kOmittedWhenEmpty: the writer
// leaves the member out when it holds nothing (an empty list or string, 0, NaN), the reader
// keeps the default when it is absent.
enum class Presence { kRequired, kLater, kOmittedWhenEmpty };

namespace json_two_way {
template <class T>
struct IsPair : std::false_type {};
template <class A, class B>
struct IsPair<std::pair<A, B>> : std::true_type {};

template <class T>
bool IsEmpty(const T& x) {
  if constexpr (std::is_floating_point_v<T>)
    return !std::isfinite(x);
  else if constexpr (std::is_arithmetic_v<T>)
    return x == 0;
  else
    return x.empty();
}
}  // namespace json_two_way

class JsonWriter {
 public:
  explicit JsonWriter(nlohmann::json& j) : j_(j) {}
  template <class T>
  void operator()(const char* key, const T& x, Presence p = Presence::kRequired) {
    if (p == Presence::kOmittedWhenEmpty && json_two_way::IsEmpty(x)) return;
    j_[key] = x;
  }
  template <class E, size_t N>
  void operator()(const char* key, const E& e, const EnumNames<E, N>& names, Presence = Presence::kRequired) {
    j_[key] = names.Name(e);
  }
  void Nullable(const char* key, const double& x, Presence = Presence::kRequired) {
    j_[key] = std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr);
  }
  void Nullable(const char* key, const std::string& s, Presence = Presence::kRequired) {
    j_[key] = s.empty() ? nlohmann::json(nullptr) : nlohmann::json(s);
  }
  void Nullable(const char* key, const std::vector<double>& xs, Presence = Presence::kRequired) {
    nlohmann::json& a = j_[key] = nlohmann::json::array();
    for (double x : xs) a.push_back(std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr));
  }
  template <class T>
  void Derived(const char* key, const T& value) {
    j_[key] = value;
  }
  template <class T, class F>
  void Nested(const char* key, T& x, F&& f, Presence = Presence::kRequired) {
    JsonWriter w(j_[key] = nlohmann::json::object());
    f(x, w);
  }
  template <class Items, class F>
  void List(const char* key, Items& items, F&& f, Presence = Presence::kRequired) {
    nlohmann::json& out = j_[key] = nlohmann::json::array();
    for (auto& item : items) {
      nlohmann::json o = nlohmann::json::object();
      JsonWriter w(o);
      f(item, w);
      out.push_back(std::move(o));
    }
  }
  template <class T>
  void Members(const char* key, const std::vector<std::pair<std::string, T>>& pairs, Presence = Presence::kRequired) {
    nlohmann::json& o = j_[key] = nlohmann::json::object();
    for (const auto& [name, x] : pairs) {
      if constexpr (std::is_floating_point_v<T>)
        o[name] = std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr);
      else
        o[name] = x;
    }
  }
  template <class Pairs, class F>
  void Members(const char* key, Pairs& pairs, F&& f, Presence = Presence::kRequired) {
    nlohmann::json& o = j_[key] = nlohmann::json::object();
    for (auto& [name, x] : pairs) {
      JsonWriter w(o[name] = nlohmann::json::object());
      f(x, w);
    }
  }
  template <class Optional, class F>
  void Maybe(const char* key, Optional& x, F&& f, Presence p = Presence::kRequired) {
    if (!x) {
      if (p != Presence::kOmittedWhenEmpty) j_[key] = nullptr;
      return;
    }
    Nested(key, *x, f);
  }

 private:
  nlohmann::json& j_;
};

class JsonReader {
 public:
  explicit JsonReader(const JsonView& node) : v_(node) {
    if (!v_.node().is_object()) v_.root().Fail(v_.prefix(), "is not an object");
  }

  void operator()(const char* key, double& x, Presence p = Presence::kRequired) {
    if (Present(key, p)) x = v_.Number(key);
  }
  void operator()(const char* key, int64_t& x, Presence p = Presence::kRequired) {
    if (Present(key, p)) x = v_.Integer(key);
  }
  void operator()(const char* key, int& x, Presence p = Presence::kRequired) {
    if (!Present(key, p)) return;
    const int64_t i = v_.Integer(key);
    if (i < INT_MIN || i > INT_MAX) v_.Fail(key, "is out of range");
    x = static_cast<int>(i);
  }
  void operator()(const char* key, bool& x, Presence p = Presence::kRequired) {
    if (Present(key, p)) x = v_.Bool(key);
  }
  void operator()(const char* key, std::string& x, Presence p = Presence::kRequired) {
    if (Present(key, p)) x = v_.String(key);
  }
  void operator()(const char* key, nlohmann::json& x, Presence p = Presence::kRequired) {
    if (Present(key, p)) x = *v_.Find(key);
  }
  template <class T>
  void operator()(const char* key, std::vector<T>& x, Presence p = Presence::kRequired) {
    if (!Present(key, p)) return;
    const JsonView a = Array(key);
    x.clear();
    for (size_t i = 0; i < a.node().size(); ++i) x.push_back(Element<T>(a.Element(i)));
  }
  template <class E, size_t N>
  void operator()(const char* key, E& e, const EnumNames<E, N>& names, Presence p = Presence::kRequired) {
    if (Present(key, p)) e = names.Parse(v_.String(key), v_.Where(key), "name");
  }
  void Nullable(const char* key, double& x, Presence p = Presence::kRequired) {
    if (!Present(key, p)) return;
    x = v_.Find(key)->is_null() ? std::nan("") : v_.Number(key);
  }
  void Nullable(const char* key, std::string& s, Presence p = Presence::kRequired) {
    if (!Present(key, p)) return;
    s = v_.Find(key)->is_null() ? std::string() : v_.String(key);
  }
  void Nullable(const char* key, std::vector<double>& xs, Presence p = Presence::kRequired) {
    if (!Present(key, p)) return;
    const JsonView a = Array(key);
    xs.clear();
    for (size_t i = 0; i < a.node().size(); ++i) {
      const JsonView e = a.Element(i);
      xs.push_back(e.node().is_null() ? std::nan("") : Element<double>(e));
    }
  }
  template <class T>
  void Derived(const char*, const T&) {}
  template <class T, class F>
  void Nested(const char* key, T& x, F&& f, Presence p = Presence::kRequired) {
    if (!Present(key, p)) return;
    JsonReader r(v_.Child(key));
    f(x, r);
  }
  template <class T, class F>
  void List(const char* key, std::vector<T>& items, F&& f, Presence p = Presence::kRequired) {
    if (!Present(key, p)) return;
    const JsonView a = Array(key);
    items.clear();
    for (size_t i = 0; i < a.node().size(); ++i) {
      JsonReader r(a.Element(i));
      f(items.emplace_back(), r);
    }
  }
  template <class T>
  void Members(const char* key, std::vector<std::pair<std::string, T>>& pairs, Presence p = Presence::kRequired) {
    if (!Present(key, p)) return;
    const JsonView o = Object(key);
    pairs.clear();
    for (const auto& [name, x] : o.node().items()) {
      const JsonView e = o.Child(name);
      if constexpr (std::is_floating_point_v<T>)
        pairs.emplace_back(name, x.is_null() ? std::nan("") : Element<T>(e));
      else
        pairs.emplace_back(name, Element<T>(e));
    }
  }
  template <class T, class F>
  void Members(const char* key, std::vector<std::pair<std::string, T>>& pairs, F&& f,
               Presence p = Presence::kRequired) {
    if (!Present(key, p)) return;
    const JsonView o = Object(key);
    pairs.clear();
    for (const auto& item : o.node().items()) {
      JsonReader r(o.Child(item.key()));
      f(pairs.emplace_back(item.key(), T{}).second, r);
    }
  }
  template <class T, class F>
  void Maybe(const char* key, std::optional<T>& x, F&& f, Presence p = Presence::kRequired) {
    x.reset();
    if (!Present(key, p) || v_.Find(key)->is_null()) return;
    JsonReader r(v_.Child(key));
    f(x.emplace(), r);
  }

  const JsonView& view() const { return v_; }

 private:
  // Whether the member is there; a required one that is not fails.
  bool Present(const char* key, Presence p) const {
    if (v_.node().contains(key)) return true;
    if (p == Presence::kRequired) v_.Fail(key, "is missing");
    return false;
  }
  // One element of a list of scalars (string, number, integer) or of pairs of them ([a, b]).
  template <class T>
  static T Element(const JsonView& e) {
    const nlohmann::json& n = e.node();
    if constexpr (json_two_way::IsPair<T>::value) {
      if (!n.is_array() || n.size() != 2) e.root().Fail(e.prefix(), "is not a pair [a, b]");
      return {Element<typename T::first_type>(e.Element(0)), Element<typename T::second_type>(e.Element(1))};
    } else if constexpr (std::is_same_v<T, std::string>) {
      if (!n.is_string()) e.root().Fail(e.prefix(), "is not a string");
      return n.get<std::string>();
    } else if constexpr (std::is_floating_point_v<T>) {
      if (!n.is_number() || !std::isfinite(n.get<double>())) e.root().Fail(e.prefix(), "is not a number");
      return n.get<T>();
    } else {
      if (!n.is_number_integer()) e.root().Fail(e.prefix(), "is not an integer");
      if (n.is_number_unsigned()
              ? n.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<T>::max())
              : n.get<int64_t>() < std::numeric_limits<T>::min() || n.get<int64_t>() > std::numeric_limits<T>::max())
        e.root().Fail(e.prefix(), "is out of range");
      return n.get<T>();
    }
  }
  JsonView Array(const char* key) const {
    const JsonView a = v_.Child(key);
    if (!a.node().is_array()) v_.Fail(key, "is not an array");
    return a;
  }
  JsonView Object(const char* key) const {
    const JsonView o = v_.Child(key);
    if (!o.node().is_object()) v_.Fail(key, "is not an object");
    return o;
  }

  JsonView v_;
};

// `x` as a JSON object, written by its field list `fields(x, writer)`.
template <class T, class Fields>
nlohmann::json WriteJson(const T& x, Fields&& fields) {
  nlohmann::json j = nlohmann::json::object();
  JsonWriter w(j);
  fields(x, w);
  return j;
}

// A whole document: `x` written by its field list, with its "schema" member (ReadDocument reads it).
template <class T, class Fields>
nlohmann::json WriteDocument(const T& x, const std::string& schema, Fields&& fields) {
  nlohmann::json j = WriteJson(x, fields);
  j["schema"] = schema;
  return j;
}

// A whole document: an object whose "schema" member is `schema`, read by its field list
// `fields(x, reader)`. Throws InputError naming the file (and the field).
template <class T, class Fields>
T ReadDocument(const nlohmann::json& doc, const std::string& where, const std::string& schema, Fields&& fields) {
  if (!doc.is_object()) throw InputError(where + ": not a JSON object (expected " + schema + ")");
  const JsonFields f(doc, where);
  const JsonView root(f, doc, "");
  if (const std::string s = root.String("schema"); s != schema) f.Fail("schema", "is '" + s + "', not " + schema);
  T x;
  JsonReader r(root);
  fields(x, r);
  return x;
}

}  // namespace paratune
