#include "hardware/hardware_catalog.h"

#include <algorithm>
#include <cmath>
#include <cctype>
#include <set>
#include <toml++/toml.h>

#include "util/embedded_data.h"
#include "util/error.h"

namespace paratune {
namespace {

std::string Upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::toupper(c); });
  return s;
}

std::string At(const std::string& where, const toml::node& n) {
  const auto& src = n.source();
  return where + ":" + std::to_string(src.begin.line);
}

toml::table ParseToml(std::string_view text, const std::string& where) {
  try {
    return toml::parse(text, where);
  } catch (const toml::parse_error& e) {
    throw InputError(where + ":" + std::to_string(e.source().begin.line) + ": invalid TOML: " +
                     std::string(e.description()));
  }
}

// Unit conversions at input (docs/hardware.md): TFLOP/s, GB, TB/s, GB/s, microseconds.
struct FieldDef {
  const char* key;
  double scale;
};

double Number(const toml::node& n, const std::string& where, const std::string& table,
              const std::string& key, bool positive) {
  auto v = n.value<double>();
  if (!v || !std::isfinite(*v) || *v < 0 || (positive && *v == 0))
    throw InputError(At(where, n) + ": [" + table + "] field '" + key + "' must be a " +
                     (positive ? "positive" : "non-negative") + " number");
  return *v;
}

int SmCountFor(const std::string& generation) {
  if (generation == "ampere") return 108;
  if (generation == "hopper") return 132;
  return 148;  // blackwell (B200); B300 gives its own
}

void ApplyGpuTable(const toml::table& t, const std::string& where, const std::string& name,
                   GpuSpec& g, bool is_new) {
  static const std::set<std::string> kKnown = {
      "description", "generation", "bf16_dense_tflops", "fp8_dense_tflops", "fp4_dense_tflops",
      "fp32_tflops", "hbm_gb", "hbm_tb_per_s", "gpus_per_node", "nvlink_domain",
      "nvlink_gb_per_s", "nvlink_latency_us", "net_gb_per_s", "net_latency_us", "sm_count",
      "tdp_w", "source", "note"};
  for (const auto& [k, v] : t) {
    const std::string key(k.str());
    if (!kKnown.contains(key))
      throw InputError(At(where, v) + ": [" + name + "] unknown field '" + key + "'");
  }
  if (is_new) {
    for (const char* req : {"generation", "bf16_dense_tflops", "hbm_gb", "hbm_tb_per_s",
                            "gpus_per_node", "nvlink_domain", "nvlink_gb_per_s", "net_gb_per_s"})
      if (!t.contains(req))
        throw InputError(At(where, t) + ": [" + name + "] new GPU is missing required field '" + req + "'");
  }
  auto str = [&](const char* key, std::string& out) {
    if (const toml::node* n = t.get(key)) {
      auto v = n->value<std::string>();
      if (!v) throw InputError(At(where, *n) + ": [" + name + "] field '" + key + "' must be a string");
      out = *v;
    }
  };
  auto num = [&](const char* key, double scale, double& out, bool positive) {
    if (const toml::node* n = t.get(key)) out = Number(*n, where, name, key, positive) * scale;
  };
  auto count = [&](const char* key, int& out) {
    if (const toml::node* n = t.get(key)) {
      auto v = n->value<int64_t>();
      if (!v || *v <= 0 || *v > 1'000'000)
        throw InputError(At(where, *n) + ": [" + name + "] field '" + key +
                         "' must be a positive integer");
      out = static_cast<int>(*v);
    }
  };
  str("description", g.description);
  str("generation", g.generation);
  str("source", g.source);
  str("note", g.note);
  num("bf16_dense_tflops", 1e12, g.bf16_flops, true);
  num("fp8_dense_tflops", 1e12, g.fp8_flops, false);
  num("fp4_dense_tflops", 1e12, g.fp4_flops, false);
  num("fp32_tflops", 1e12, g.fp32_flops, false);
  num("hbm_gb", 1e9, g.hbm_bytes, true);
  num("hbm_tb_per_s", 1e12, g.hbm_bytes_per_s, true);
  num("nvlink_gb_per_s", 1e9, g.nvlink_bytes_per_s, true);
  num("nvlink_latency_us", 1e-6, g.nvlink_latency_s, false);
  num("net_gb_per_s", 1e9, g.net_bytes_per_s, true);
  num("net_latency_us", 1e-6, g.net_latency_s, false);
  num("tdp_w", 1.0, g.tdp_w, false);
  count("gpus_per_node", g.gpus_per_node);
  count("nvlink_domain", g.nvlink_domain);
  count("sm_count", g.sm_count);
  if (g.generation != "ampere" && g.generation != "hopper" && g.generation != "blackwell")
    throw InputError(At(where, t.contains("generation") ? *t.get("generation") : t) + ": [" + name +
                     "] field 'generation' must be ampere, hopper or "
                     "blackwell, got '" + g.generation + "'");
  if (g.nvlink_domain < g.gpus_per_node && g.nvlink_domain != 1)
    throw InputError(At(where, t.contains("nvlink_domain") ? *t.get("nvlink_domain") : t) + ": [" + name +
                     "] nvlink_domain (" + std::to_string(g.nvlink_domain) +
                     ") is smaller than gpus_per_node (" + std::to_string(g.gpus_per_node) + ")");
  if (g.sm_count == 0) g.sm_count = SmCountFor(g.generation);
  if (g.nvlink_latency_s == 0) g.nvlink_latency_s = 5e-6;
  if (g.net_latency_s == 0) g.net_latency_s = 10e-6;
}

void ApplyCalibration(const toml::table& t, const std::string& where, const std::string& gen,
                      Calibration& c) {
  struct F { const char* key; double* out; };
  const F fields[] = {{"gemm_bf16", &c.gemm_bf16}, {"gemm_fp8", &c.gemm_fp8},
                      {"gemm_fp4", &c.gemm_fp4},   {"attention", &c.attention},
                      {"hbm", &c.hbm},             {"nvlink", &c.nvlink},
                      {"net", &c.net}};
  for (const auto& [k, v] : t) {
    const std::string key(k.str());
    const F* f = std::find_if(std::begin(fields), std::end(fields),
                              [&](const F& x) { return key == x.key; });
    if (f == std::end(fields)) {
      if (key == "note" || key == "source") continue;
      throw InputError(At(where, v) + ": [calibration." + gen + "] unknown field '" + key + "'");
    }
    const double x = Number(v, where, "calibration." + gen, key, true);
    if (x > 1.0)
      throw InputError(At(where, v) + ": [calibration." + gen + "] field '" + key +
                       "' is a fraction of peak and must be at most 1");
    *f->out = x;
  }
}

}  // namespace

HardwareCatalog HardwareCatalog::BuiltIn() {
  HardwareCatalog c;
  auto cal = FindEmbeddedFile("calibration.toml");
  if (cal) c.Merge(*cal, "data/calibration.toml");
  auto gpus = FindEmbeddedFile("gpus.toml");
  if (!gpus) throw InputError("data/gpus.toml missing from the build");
  c.Merge(*gpus, "data/gpus.toml");
  return c;
}

void HardwareCatalog::Merge(std::string_view toml_text, const std::string& where) {
  toml::table doc = ParseToml(toml_text, where);
  // Calibration first, so that GPUs defined in the same file pick it up.
  if (const toml::node* cal = doc.get("calibration")) {
    const toml::table* ct = cal->as_table();
    if (!ct) throw InputError(At(where, *cal) + ": 'calibration' must be a table");
    for (const auto& [gen, v] : *ct) {
      const toml::table* gt = v.as_table();
      if (!gt) throw InputError(At(where, v) + ": [calibration." + std::string(gen.str()) + "] must be a table");
      ApplyCalibration(*gt, where, std::string(gen.str()), calibrations_[std::string(gen.str())]);
    }
  }
  for (const auto& [k, v] : doc) {
    const std::string name(k.str());
    if (name == "calibration") continue;
    const toml::table* t = v.as_table();
    if (!t) throw InputError(At(where, v) + ": top-level key '" + name + "' must be a [table] describing a GPU");
    const std::string key = Upper(name);
    auto it = gpus_.find(key);
    const bool is_new = it == gpus_.end();
    GpuSpec g = is_new ? GpuSpec{} : it->second;
    if (is_new) g.name = name;
    ApplyGpuTable(*t, where, name, g, is_new);
    gpus_[key] = g;
  }
  for (auto& [k, g] : gpus_) {
    auto c = calibrations_.find(g.generation);
    g.calibration = c != calibrations_.end() ? c->second : Calibration{};
  }
}

const GpuSpec& HardwareCatalog::Find(const std::string& name) const {
  auto it = gpus_.find(Upper(name));
  if (it != gpus_.end()) return it->second;
  std::string list;
  for (const auto& [k, g] : gpus_) list += (list.empty() ? "" : ", ") + g.name;
  throw InputError("--gpu: unknown GPU '" + name + "'; known: " + list);
}

std::vector<const GpuSpec*> HardwareCatalog::All() const {
  std::vector<const GpuSpec*> out;
  for (const auto& [k, g] : gpus_) out.push_back(&g);
  return out;
}

}  // namespace paratune
