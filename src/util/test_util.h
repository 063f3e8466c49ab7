// Helpers shared by the unit tests (included only by *_test.cc files).
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "util/error.h"

#define EXPECT_CONTAINS(hay, needle)                                          \
  EXPECT_NE(std::string(hay).find(needle), std::string::npos)                 \
      << "message: \"" << (hay) << "\"\n does not contain: \"" << (needle) << "\""

namespace paratune {

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
