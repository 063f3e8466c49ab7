#include "hardware/hardware_catalog.h"

#include <algorithm>
#include <cmath>
#include <cctype>
#include <set>
#include <toml++/toml.h>

#include "util/embedded_data.h"
#include "util/error.h"
#include "util/text.h"

namespace paratune {
namespace {

std::string At(const std::string& where, const toml::node& n) {
  const auto& src = n.source();
  return where + ":" + std::to_string(src.begin.line);
}

toml::table ParseToml(std::string_view text, const std::string& where) {
  try {
    return toml::parse(text, where);
  } catch (const toml::parse_error& e) {
    throw InputError(where + ":" + std::to_string(e.source().begin.line) +
                     ": invalid TOML: " + std::string(e.description()));
  }
}

// Unit conversions at input (docs/hardware.md): TFLOP/s, GB, TB/s, GB/s, microseconds.
double Number(const toml::node& n, const std::string& where, const std::string& table, const std::string& key,
              bool positive) {
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

// The fields of a fabric, in a GPU table (its reference system) or a [fabric.NAME] table.
constexpr const char* kFabricFields[] = {"gpus_per_node",
                                         "scale_up_link",
                                         "nvlink_domain",
                                         "nvlink_gb_per_s",
                                         "nvlink_latency_us",
                                         "call_latency_us",
                                         "net_gb_per_s",
                                         "nic_gb_per_s",
                                         "nics_per_node",
                                         "net_latency_us",
                                         "nodes_per_leaf",
                                         "spine_oversubscription",
                                         "pcie_gpus_per_switch",
                                         "pcie_host_gb_per_s",
                                         "pcie_host_ring_gb_per_s",
                                         "pcie_host_all_to_all_gb_per_s",
                                         "host_link_gb_per_s"};
constexpr const char* kChipFields[] = {"description",
                                       "generation",
                                       "bf16_dense_tflops",
                                       "fp16_dense_tflops",
                                       "fp8_dense_tflops",
                                       "fp4_dense_tflops",
                                       "fp32_tflops",
                                       "hbm_gb",
                                       "hbm_tb_per_s",
                                       "sm_count",
                                       "sfu_exp_per_clk_per_sm",
                                       "tdp_w",
                                       "source",
                                       "note",
                                       "aliases"};

bool IsIn(const std::string& key, const auto& list) {
  return std::find_if(std::begin(list), std::end(list), [&](const char* k) { return key == k; }) != std::end(list);
}

// Reads the fields of one table; `name` is how errors name the table ("H100", "fabric.x").
class TableReader {
 public:
  TableReader(const toml::table& t, const std::string& where, const std::string& name)
      : t_(t), where_(where), name_(name) {}
  bool Has(const char* key) const { return t_.contains(key); }

  void Str(const char* key, std::string& out) const {
    if (const toml::node* n = t_.get(key)) {
      auto v = n->value<std::string>();
      if (!v) throw InputError(At(where_, *n) + ": [" + name_ + "] field '" + key + "' must be a string");
      out = *v;
    }
  }
  void Num(const char* key, double scale, double& out, bool positive) const {
    if (const toml::node* n = t_.get(key)) out = Number(*n, where_, name_, key, positive) * scale;
  }
  void Count(const char* key, int& out, int min = 1) const {
    if (const toml::node* n = t_.get(key)) {
      // Integers only: toml++'s value<int64_t>() would also convert a float, with undefined
      // behaviour beyond int64's range (found by hardware_toml_fuzz).
      const auto v = n->is_integer() ? n->value<int64_t>() : std::nullopt;
      if (!v || *v < min || *v > 1'000'000)
        throw InputError(At(where_, *n) + ": [" + name_ + "] field '" + key + "' must be " +
                         (min == 0 ? "a non-negative" : "a positive") + " integer");
      out = static_cast<int>(*v);
    }
  }
  // A list of strings (a GPU's aliases); absent leaves `out` as it is.
  void StrList(const char* key, std::vector<std::string>& out) const {
    const toml::node* n = t_.get(key);
    if (!n) return;
    const toml::array* a = n->as_array();
    if (!a) throw InputError(At(where_, *n) + ": [" + name_ + "] field '" + key + "' must be a list of strings");
    out.clear();
    for (const toml::node& e : *a) {
      auto v = e.value<std::string>();
      if (!v || v->empty())
        throw InputError(At(where_, e) + ": [" + name_ + "] field '" + key + "' must be a list of non-empty strings");
      out.push_back(*v);
    }
  }
  // "FILE:LINE" of `key`, or of the table when it lacks the key.
  std::string Where(const char* key) const { return At(where_, t_.contains(key) ? *t_.get(key) : t_); }
  const std::string& name() const { return name_; }

 private:
  const toml::table& t_;
  const std::string& where_;
  std::string name_;
};

// gpus_per_node, and what an override of it alone keeps.
void ApplyNodeSize(const TableReader& r, Fabric& f) {
  // What an override of gpus_per_node alone keeps: the per-GPU figures (scale-out bandwidth per
  // GPU, one NIC per GPU on rail-optimised nodes, an NVLink domain of one node on HGX-type
  // fabrics). Issue 32: [H100] gpus_per_node = 3 gave 8 NICs to 3 GPUs (133 GB/s per GPU) and
  // kept an 8-GPU NVLink domain spanning three nodes.
  const Fabric before = f;
  const bool node_size_only = r.Has("gpus_per_node") && before.gpus_per_node > 0;
  r.Count("gpus_per_node", f.gpus_per_node);
  if (node_size_only && !r.Has("nvlink_domain") && before.nvlink_domain == before.gpus_per_node)
    f.nvlink_domain = f.gpus_per_node;
  if (node_size_only && !r.Has("nics_per_node") && !r.Has("net_gb_per_s") && !r.Has("nic_gb_per_s")) {
    const double per_gpu = before.net_bytes_per_s();
    f.nics_per_node = before.nics_per_node == before.gpus_per_node
                          ? f.gpus_per_node
                          : std::max(1, static_cast<int>(std::lround(static_cast<double>(before.nics_per_node) *
                                                                     f.gpus_per_node / before.gpus_per_node)));
    f.nic_bytes_per_s = per_gpu * f.gpus_per_node / f.nics_per_node;
  }
}

// The scale-up link class: "nvlink" (default) or "pcie" (docs/hardware.md, "Fabric").
void ApplyScaleUpLink(const TableReader& r, Fabric& f) {
  std::string link;
  r.Str("scale_up_link", link);
  if (!link.empty()) {
    if (link == LinkClassName(LinkClass::kNvlink))
      f.scale_up = LinkClass::kNvlink;
    else if (link == LinkClassName(LinkClass::kPcie))
      f.scale_up = LinkClass::kPcie;
    else
      throw InputError(r.Where("scale_up_link") + ": [" + r.name() + "] field 'scale_up_link' must be " +
                       LinkClassName(LinkClass::kNvlink) + " or " + LinkClassName(LinkClass::kPcie) + ", got " +
                       Quote(link));
  }
}

// The fabric's limits that hold whatever the table gives, and the latencies' defaults.
void CheckFabric(const TableReader& r, Fabric& f) {
  if (f.spine_oversubscription < 1)
    throw InputError(r.Where("spine_oversubscription") + ": [" + r.name() +
                     "] spine_oversubscription must be at least 1 (1 = non-blocking)");
  if (f.nvlink_domain < f.gpus_per_node && f.nvlink_domain != 1)
    throw InputError(r.Where("nvlink_domain") + ": [" + r.name() + "] nvlink_domain (" +
                     std::to_string(f.nvlink_domain) + ") is smaller than gpus_per_node (" +
                     std::to_string(f.gpus_per_node) + ")");
  if (f.pcie_gpus_per_switch > 0 && (f.pcie_host_bytes_per_s <= 0 || f.pcie_host_ring_bytes_per_s <= 0))
    throw InputError(r.Where("pcie_gpus_per_switch") + ": [" + r.name() +
                     "] pcie_gpus_per_switch needs pcie_host_gb_per_s and pcie_host_ring_gb_per_s");
  if (f.nvlink_latency_s == 0) f.nvlink_latency_s = 5e-6;
  if (f.net_latency_s == 0) f.net_latency_s = 10e-6;
}

void ApplyFabric(const TableReader& r, Fabric& f) {
  ApplyNodeSize(r, f);
  ApplyScaleUpLink(r, f);
  r.Count("nvlink_domain", f.nvlink_domain);
  r.Num("nvlink_gb_per_s", 1e9, f.nvlink_bytes_per_s, true);
  r.Num("nvlink_latency_us", 1e-6, f.nvlink_latency_s, false);
  r.Num("call_latency_us", 1e-6, f.call_latency_s, false);
  r.Count("nics_per_node", f.nics_per_node);
  double net_per_gpu = 0;
  r.Num("net_gb_per_s", 1e9, net_per_gpu, true);
  r.Num("nic_gb_per_s", 1e9, f.nic_bytes_per_s, true);
  r.Num("net_latency_us", 1e-6, f.net_latency_s, false);
  r.Count("nodes_per_leaf", f.nodes_per_leaf, 0);
  r.Num("spine_oversubscription", 1.0, f.spine_oversubscription, true);
  r.Count("pcie_gpus_per_switch", f.pcie_gpus_per_switch, 0);
  r.Num("pcie_host_gb_per_s", 1e9, f.pcie_host_bytes_per_s, true);
  r.Num("pcie_host_ring_gb_per_s", 1e9, f.pcie_host_ring_bytes_per_s, true);
  r.Num("pcie_host_all_to_all_gb_per_s", 1e9, f.pcie_host_all_to_all_bytes_per_s, true);
  r.Num("host_link_gb_per_s", 1e9, f.host_link_bytes_per_s, true);
  if (f.nics_per_node == 0) f.nics_per_node = f.gpus_per_node;  // rail-optimised: one NIC per GPU
  // net_gb_per_s is the scale-out bandwidth per GPU: spread it over the node's NICs.
  if (net_per_gpu > 0) f.nic_bytes_per_s = net_per_gpu * f.gpus_per_node / f.nics_per_node;
  CheckFabric(r, f);
}

void CheckKnown(const toml::table& t, const std::string& where, const std::string& name, bool chip) {
  for (const auto& [k, v] : t) {
    const std::string key(k.str());
    if (!IsIn(key, kFabricFields) && !(chip && IsIn(key, kChipFields)) && !(!chip && (key == "description")))
      throw InputError(At(where, v) + ": [" + name + "] unknown field '" + key + "'");
  }
}

void RequireFields(const toml::table& t, const std::string& where, const std::string& name, const char* what,
                   std::initializer_list<const char*> fields) {
  for (const char* req : fields)
    if (!t.contains(req))
      throw InputError(At(where, t) + ": [" + name + "] new " + what + " is missing required field '" + req + "'");
}

void ApplyGpuTable(const toml::table& t, const std::string& where, const std::string& name, GpuSpec& g, Fabric& f,
                   bool is_new) {
  CheckKnown(t, where, name, true);
  if (is_new)
    RequireFields(t, where, name, "GPU",
                  {"generation", "bf16_dense_tflops", "hbm_gb", "hbm_tb_per_s", "gpus_per_node", "nvlink_domain",
                   "nvlink_gb_per_s", "net_gb_per_s"});
  const TableReader r(t, where, name);
  r.Str("description", g.description);
  r.Str("generation", g.generation);
  r.Str("source", g.source);
  r.Str("note", g.note);
  r.StrList("aliases", g.aliases);
  r.Num("bf16_dense_tflops", 1e12, g.bf16_flops, true);
  r.Num("fp16_dense_tflops", 1e12, g.fp16_flops, false);
  r.Num("fp8_dense_tflops", 1e12, g.fp8_flops, false);
  r.Num("fp4_dense_tflops", 1e12, g.fp4_flops, false);
  r.Num("fp32_tflops", 1e12, g.fp32_flops, false);
  r.Num("hbm_gb", 1e9, g.hbm_bytes, true);
  r.Num("hbm_tb_per_s", 1e12, g.hbm_bytes_per_s, true);
  r.Num("tdp_w", 1.0, g.tdp_w, false);
  r.Count("sm_count", g.sm_count);
  r.Count("sfu_exp_per_clk_per_sm", g.sfu_exp_per_clk_per_sm);
  if (g.generation != "ampere" && g.generation != "hopper" && g.generation != "blackwell")
    throw InputError(r.Where("generation") + ": [" + name +
                     "] field 'generation' must be ampere, hopper or "
                     "blackwell, got '" +
                     g.generation + "'");
  if (g.sm_count == 0) g.sm_count = SmCountFor(g.generation);
  f.description = g.description;
  ApplyFabric(r, f);
}

void ApplyCalibration(const toml::table& t, const std::string& where, const std::string& gen, Calibration& c) {
  for (const auto& [k, v] : t) {
    const std::string key(k.str());
    const CalibrationField* f = std::find_if(std::begin(kCalibrationFields), std::end(kCalibrationFields),
                                             [&](const CalibrationField& x) { return key == x.key; });
    if (f == std::end(kCalibrationFields)) {
      if (key == "note" || key == "source") continue;
      throw InputError(At(where, v) + ": [calibration." + gen + "] unknown field '" + key + "'");
    }
    const double x = Number(v, where, "calibration." + gen, key, true);
    if (x > 1.0)
      throw InputError(At(where, v) + ": [calibration." + gen + "] field '" + key +
                       "' is a fraction of peak and must be at most 1");
    c.*f->value = x;
  }
}

// [calibration.GEN] tables, into the per-generation calibrations.
void MergeCalibrations(const toml::table& doc, const std::string& where, std::map<std::string, Calibration>& out) {
  const toml::node* cal = doc.get("calibration");
  if (!cal) return;
  const toml::table* ct = cal->as_table();
  if (!ct) throw InputError(At(where, *cal) + ": 'calibration' must be a table");
  for (const auto& [gen, v] : *ct) {
    const toml::table* gt = v.as_table();
    if (!gt) throw InputError(At(where, v) + ": [calibration." + std::string(gen.str()) + "] must be a table");
    ApplyCalibration(*gt, where, std::string(gen.str()), out[std::string(gen.str())]);
  }
}

// [fabric.NAME] tables: a new fabric needs its sizes and bandwidths, a known one is overridden.
void MergeFabrics(const toml::table& doc, const std::string& where, std::map<std::string, Fabric>& fabrics) {
  const toml::node* fab = doc.get("fabric");
  if (!fab) return;
  const toml::table* ft = fab->as_table();
  if (!ft) throw InputError(At(where, *fab) + ": 'fabric' must be a table of [fabric.NAME] tables");
  for (const auto& [k, v] : *ft) {
    const std::string name(k.str());
    const toml::table* t = v.as_table();
    if (!t) throw InputError(At(where, v) + ": [fabric." + name + "] must be a table");
    const std::string key = AsciiUpper(name);
    const bool is_new = !fabrics.contains(key);
    Fabric f = is_new ? Fabric{} : fabrics[key];
    if (is_new) f.name = name;
    CheckKnown(*t, where, "fabric." + name, false);
    if (is_new) {
      RequireFields(*t, where, "fabric." + name, "fabric", {"gpus_per_node", "nvlink_domain", "nvlink_gb_per_s"});
      if (!t->contains("net_gb_per_s") && !t->contains("nic_gb_per_s"))
        throw InputError(At(where, *t) + ": [fabric." + name +
                         "] new fabric needs net_gb_per_s (per GPU) or nic_gb_per_s");
    }
    TableReader r(*t, where, "fabric." + name);
    r.Str("description", f.description);
    ApplyFabric(r, f);
    fabrics[key] = f;
  }
}

// Aliases: other names of a GPU (as datasets and papers write them). An alias must not be a
// GPU's name or another GPU's alias, so that every name finds one chip.
std::map<std::string, std::string> AliasesOf(const std::map<std::string, GpuSpec>& gpus, const std::string& where) {
  std::map<std::string, std::string> aliases;
  for (const auto& [k, g] : gpus)
    for (const std::string& a : g.aliases) {
      const std::string key_a = AsciiUpper(a);
      if (gpus.contains(key_a) && key_a != k)
        throw InputError(where + ": [" + g.name + "] alias '" + a + "' is the name of GPU '" + gpus.at(key_a).name +
                         "'");
      auto [it, fresh] = aliases.emplace(key_a, k);
      if (!fresh && it->second != k)
        throw InputError(where + ": [" + g.name + "] alias '" + a + "' is also an alias of '" +
                         gpus.at(it->second).name + "'");
    }
  return aliases;
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
  MergeCalibrations(doc, where, calibrations_);
  MergeFabrics(doc, where, fabrics_);
  for (const auto& [k, v] : doc) {
    const std::string name(k.str());
    if (name == "calibration" || name == "fabric") continue;
    const toml::table* t = v.as_table();
    if (!t) throw InputError(At(where, v) + ": top-level key '" + name + "' must be a [table] describing a GPU");
    const std::string key = AsciiUpper(name);
    auto it = gpus_.find(key);
    const bool is_new = it == gpus_.end();
    GpuSpec g = is_new ? GpuSpec{} : it->second;
    Fabric f = is_new ? Fabric{} : fabrics_[key];
    if (is_new) g.name = f.name = name;
    ApplyGpuTable(*t, where, name, g, f, is_new);
    gpus_[key] = g;
    fabrics_[key] = f;
  }
  for (auto& [k, g] : gpus_) {
    auto c = calibrations_.find(g.generation);
    g.calibration = c != calibrations_.end() ? c->second : Calibration{};
  }
  aliases_ = AliasesOf(gpus_, where);
}

namespace {

// The entry of `m` named `name` (case-insensitive); otherwise InputError listing the names.
template <class T>
const T& FindNamed(const std::map<std::string, T>& m, const std::string& name, const char* what) {
  auto it = m.find(AsciiUpper(name));
  if (it != m.end()) return it->second;
  std::string list;
  for (const auto& [k, v] : m) list += (list.empty() ? "" : ", ") + v.name;
  throw InputError(std::string("unknown ") + what + " '" + name + "'; known: " + list);
}

}  // namespace

const GpuSpec& HardwareCatalog::Find(const std::string& name) const {
  if (auto a = aliases_.find(AsciiUpper(name)); a != aliases_.end()) return gpus_.at(a->second);
  return FindNamed(gpus_, name, "GPU");
}

const Fabric& HardwareCatalog::FindFabric(const std::string& name) const { return FindNamed(fabrics_, name, "fabric"); }

ClusterSpec HardwareCatalog::Cluster(const std::string& gpu, int gpus, const std::string& fabric) const {
  const GpuSpec& g = Find(gpu);
  return ClusterSpec{g, FindFabric(fabric.empty() ? g.name : fabric), gpus};
}

std::vector<const GpuSpec*> HardwareCatalog::All() const {
  std::vector<const GpuSpec*> out;
  for (const auto& [k, g] : gpus_) out.push_back(&g);
  return out;
}

std::vector<const Fabric*> HardwareCatalog::Fabrics() const {
  std::vector<const Fabric*> out;
  for (const auto& [k, f] : fabrics_) out.push_back(&f);
  return out;
}

}  // namespace paratune
