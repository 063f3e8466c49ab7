// Helpers of the registry tests (included only by *_test.cc): the back ends a parametrised
// suite runs on, a fresh store per test, and synthetic inputs.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "runs/test_databases.h"

namespace paratune::runs_test {

namespace fs = std::filesystem;

// The back ends the registry suite runs on: runs/test_databases.h (SQLite always; PostgreSQL
// when the CTest-managed server, or $PARATUNE_TEST_PG, gives one; otherwise its tests skip and
// say why).
inline std::vector<std::string> RegistryBackends() { return TestBackends(); }

// A scratch directory per process and test.
inline fs::path ScratchDir(const std::string& tag) {
  const fs::path dir = fs::temp_directory_path() / ("paratune_runs_test_" + std::to_string(::getpid())) / tag;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// A fresh, empty store of `backend` for one test (test_databases.h FreshTestLocation).
inline std::string FreshLocation(const std::string& backend, const std::string& tag) {
  return FreshTestLocation(backend, tag);
}

inline void WriteText(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
}

// A Megatron-LM log (training.py training_log(), 2024 form) of `lines` iteration lines, every
// 10 iterations from 10, elapsed time 1000 + (i % 7) ms and 400 + (i % 5) TFLOP/s/GPU on line i.
inline std::string MegatronLog(int lines) {
  std::string s = "using world size: 64, data-parallel size: 8\n";
  for (int i = 0; i < lines; ++i) {
    const int it = 10 * (i + 1);
    s += fmt::format(
        " [2024-05-01 {:02}:{:02}:{:02}] iteration {:>8}/  500000 | consumed samples: {:>12} | elapsed time per "
        "iteration (ms): "
        "{:.1f} | throughput per GPU (TFLOP/s/GPU): {:.1f} | learning rate: 1.000000E-04 | global batch size:   512 | "
        "lm loss: "
        "2.345678E+00 | loss scale: 1.0 | grad norm: 0.321 | number of skipped iterations:   0 | number of nan "
        "iterations:   0 |\n",
        (i / 3600) % 24, (i / 60) % 60, i % 60, it, it * 512, 1000.0 + i % 7, 400.0 + i % 5);
  }
  return s;
}

}  // namespace paratune::runs_test
