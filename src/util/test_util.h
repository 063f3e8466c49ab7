// Helpers shared by the unit tests (included only by *_test.cc files).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <random>
#include <string>

#include "util/error.h"

#ifndef EXPECT_CONTAINS
#define EXPECT_CONTAINS(hay, needle)                          \
  EXPECT_NE(std::string(hay).find(needle), std::string::npos) \
      << "message: \"" << (hay) << "\"\n does not contain: \"" << (needle) << "\""
#endif

// In a test body: declares `var` as the path of `relative` under ../shared (the project's
// read-only data beside the checkout: real traces, HTA's reference outputs, published runs), or
// skips the test with a message naming the missing path, so that a clone without ../shared
// passes. Tests that cannot do without a real trace use the small copies under testdata/
// instead (TestDataPath).
#define PARATUNE_SHARED_OR_SKIP(var, relative)                       \
  const std::string var = ::paratune::SharedPathIfPresent(relative); \
  if (var.empty()) GTEST_SKIP() << ::paratune::MissingSharedMessage(relative)

namespace paratune {

// True in a sanitizer build (the "asan" and "fuzz" presets): GCC defines __SANITIZE_ADDRESS__,
// clang answers __has_feature(address_sanitizer). A test whose only cost is arithmetic (tens of
// seconds in release, some 30 times that instrumented) may skip its heaviest part there, saying
// so; the release run still asserts it.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kSanitizerBuild = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kSanitizerBuild = true;
#else
inline constexpr bool kSanitizerBuild = false;
#endif
#else
inline constexpr bool kSanitizerBuild = false;
#endif

#ifdef PARATUNE_SOURCE_DIR
// ../shared beside the source tree.
inline std::string SharedDataDir() { return std::string(PARATUNE_SOURCE_DIR) + "/../shared"; }

// The path of `relative` under SharedDataDir(), or "" when it does not exist.
inline std::string SharedPathIfPresent(const std::string& relative) {
  const std::string path = SharedDataDir() + "/" + relative;
  std::error_code ec;
  return std::filesystem::exists(path, ec) ? path : std::string();
}

inline std::string MissingSharedMessage(const std::string& relative) {
  return "skipped: needs " + SharedDataDir() + "/" + relative +
         ", which is absent (../shared is not beside this checkout)";
}

// A committed fixture: testdata/README.md gives each file's source and licence.
inline std::string TestDataPath(const std::string& relative) {
  return std::string(PARATUNE_SOURCE_DIR) + "/testdata/" + relative;
}
#endif

// Runs `f`, expects an InputError and returns its message (checked to be a single line).
inline std::string InputErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.find('\n'), std::string::npos) << "message is not one line: " << msg;
    return msg;
  }
  ADD_FAILURE() << "expected an InputError, nothing was thrown";
  return "";
}

}  // namespace paratune

namespace paratune::testing_util {

// Gaussian draws that are the same on every standard library: mt19937_64 (fully specified by the
// standard) through Box-Muller (std::normal_distribution is not specified), for tests that
// assert detection rates over seeded noise.
class Normal {
 public:
  explicit Normal(uint64_t seed) : gen_(seed) {}
  double operator()() {
    const double u1 = 1.0 - Uniform(), u2 = Uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }
  double Uniform() { return static_cast<double>(gen_() >> 11) * 0x1.0p-53; }

 private:
  std::mt19937_64 gen_;
};

}  // namespace paratune::testing_util
