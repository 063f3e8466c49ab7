// The cluster descriptions of `paratune cluster`: flags (`--nodes N --gpu NAME`), a cluster TOML
// file with one [[nodes]] table per node type, and the Alibaba GPU cluster trace v2023 node list
// (openb_node_list_gpu_node.csv), and Slurm's topology.conf (slurm_topology.h) on nodes of --gpu.
// docs/cluster-speed.md describes the file and the mapping, docs/cluster.md the topology.conf.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <toml++/toml.h>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "scheduling/slurm_topology.h"
#include "scheduling/topology.h"
#include "util/csv.h"
#include "util/error.h"
#include "util/text.h"

namespace paratune {

namespace {

// The shape a node type is read with, before it goes into the type's fabric (Reshape).
struct NodeShape {
  int gpus_per_node = 0;
  int nodes_per_domain = 1;
  int nodes_per_leaf = 0;
  double spine_oversubscription = 1;
};

// A fabric's shape: its NVLink domain in nodes is the domain over its own node size (1 on HGX and
// PCIe servers, 72 / 4 = 18 trays on GB200/GB300 NVL72), at least 1.
NodeShape ShapeOf(const Fabric& f) {
  const int per_domain =
      f.gpus_per_node <= 0 || f.nvlink_domain <= f.gpus_per_node ? 1 : f.nvlink_domain / f.gpus_per_node;
  return {f.gpus_per_node, per_domain, f.nodes_per_leaf, f.spine_oversubscription};
}

// The type's fabric with the shape written into it: gpus_per_node, NVLink domain (gpus_per_node x
// nodes_per_domain), nodes_per_leaf and spine_oversubscription; a priced type's also keeps the
// same scale-out bandwidth per GPU (one NIC per GPU), so that the speed model prices the cluster
// the file describes.
void Reshape(NodeType& type, const NodeShape& shape) {
  Fabric& f = type.fabric;
  if (type.priced) {
    // Per-GPU scale-out bandwidth is a property of the GPU's NIC (one per GPU on rail-optimised
    // nodes), not of how many GPUs a node holds: keep it when the node size changes.
    const double per_gpu_net = f.gpus_per_node > 0 && f.nics_per_node > 0 ? f.net_bytes_per_s() : f.nic_bytes_per_s;
    f.nics_per_node = shape.gpus_per_node;
    f.nic_bytes_per_s = per_gpu_net;
  }
  // A fabric without a scale-up domain wider than one GPU (nvlink_domain 1 on a multi-GPU
  // node) keeps it; otherwise the domain is the shape's nodes_per_domain nodes.
  if (f.nvlink_domain < f.gpus_per_node && shape.nodes_per_domain == 1)
    f.nvlink_domain = std::min(f.nvlink_domain, shape.gpus_per_node);
  else
    f.nvlink_domain = shape.gpus_per_node * shape.nodes_per_domain;
  f.gpus_per_node = shape.gpus_per_node;
  f.nodes_per_leaf = shape.nodes_per_leaf;
  f.spine_oversubscription = shape.spine_oversubscription;
}

// A node type on the GPU's reference fabric (or `fabric`), not yet reshaped: its fabric is the
// catalog's.
NodeType PricedType(const HardwareCatalog& catalog, const GpuSpec& gpu, const std::string& written_gpu,
                    const std::string& fabric) {
  NodeType t;
  t.gpu = written_gpu;
  t.priced = true;
  t.gpu_spec = gpu;
  t.fabric = catalog.FindFabric(fabric.empty() ? gpu.name : fabric);
  return t;
}

// The catalog's chip of that name, or nullptr when the catalog has none.
const GpuSpec* FindGpu(const HardwareCatalog& catalog, const std::string& name) {
  try {
    return &catalog.Find(name);
  } catch (const InputError&) {
    return nullptr;
  }
}

// ---- Cluster TOML ----------------------------------------------------------------------------

// The fields of a [[nodes]] table: the one list that the unknown-field check and the docs follow.
constexpr const char* kNodeFields[] = {
    "name", "count", "gpu", "gpus_per_node", "nodes_per_domain", "nodes_per_leaf", "spine_oversubscription", "fabric"};

std::string LineOf(const std::string& where, const toml::node& n) {
  return where + ":" + std::to_string(n.source().begin.line);
}

class NodesTable {
 public:
  NodesTable(const toml::table& t, const std::string& where, int index) : t_(t), where_(where), index_(index) {}

  std::string Where(const char* key) const { return LineOf(where_, t_.contains(key) ? *t_.get(key) : t_); }
  std::string Name() const { return fmt::format("[[nodes]] #{}", index_ + 1); }
  bool Has(const char* key) const { return t_.contains(key); }

  std::optional<std::string> Str(const char* key) const {
    const toml::node* n = t_.get(key);
    if (!n) return std::nullopt;
    auto v = n->value<std::string>();
    if (!v || v->empty() || v->size() > 200)
      throw InputError(fmt::format("{}: {} field '{}' must be a non-empty string (at most 200 characters)", Where(key),
                                   Name(), key));
    return v;
  }
  // Integers only: toml++'s value<int64_t>() would also convert a float, with undefined behaviour
  // beyond int64's range (hardware_catalog.cc, found by hardware_toml_fuzz).
  std::optional<int> Int(const char* key, int64_t min, int64_t max) const {
    const toml::node* n = t_.get(key);
    if (!n) return std::nullopt;
    const auto v = n->is_integer() ? n->value<int64_t>() : std::nullopt;
    if (!v || *v < min || *v > max)
      throw InputError(
          fmt::format("{}: {} field '{}' must be an integer from {} to {}", Where(key), Name(), key, min, max));
    return static_cast<int>(*v);
  }
  std::optional<double> Num(const char* key, double min, double max) const {
    const toml::node* n = t_.get(key);
    if (!n) return std::nullopt;
    const auto v = n->is_number() ? n->value<double>() : std::nullopt;
    if (!v || !std::isfinite(*v) || *v < min || *v > max)
      throw InputError(
          fmt::format("{}: {} field '{}' must be a number from {:g} to {:g}", Where(key), Name(), key, min, max));
    return v;
  }

 private:
  const toml::table& t_;
  const std::string& where_;
  int index_;
};

NodeType ReadNodesTable(const HardwareCatalog& catalog, const toml::table& t, const std::string& where, int index) {
  const NodesTable r(t, where, index);
  for (const auto& [k, v] : t) {
    const std::string key(k.str());
    if (std::none_of(std::begin(kNodeFields), std::end(kNodeFields), [&](const char* f) { return key == f; }))
      throw InputError(
          fmt::format("{}: {} unknown field '{}' (known: name, count, gpu, gpus_per_node, "
                      "nodes_per_domain, nodes_per_leaf, spine_oversubscription, fabric)",
                      LineOf(where, v), r.Name(), key.substr(0, 60)));
  }
  for (const char* req : {"count", "gpu"})
    if (!r.Has(req))
      throw InputError(fmt::format("{}: {} is missing required field '{}'", r.Where(req), r.Name(), req));
  const std::string gpu = *r.Str("gpu");
  const std::optional<std::string> fabric = r.Str("fabric");
  NodeType ty;
  NodeShape shape;
  const GpuSpec* spec = FindGpu(catalog, gpu);
  if (spec) {
    try {
      ty = PricedType(catalog, *spec, gpu, fabric.value_or(""));
    } catch (const InputError& e) {
      throw InputError(fmt::format("{}: {} field 'fabric': {}", r.Where("fabric"), r.Name(), e.what()));
    }
    shape = ShapeOf(ty.fabric);
  } else {
    ty.gpu = gpu;
    if (fabric) {
      // A GPU the catalog cannot price still takes its sizes from a named fabric.
      try {
        shape = ShapeOf(catalog.FindFabric(*fabric));
      } catch (const InputError& e) {
        throw InputError(fmt::format("{}: {} field 'fabric': {}", r.Where("fabric"), r.Name(), e.what()));
      }
    } else if (!r.Has("gpus_per_node")) {
      throw InputError(
          fmt::format("{}: {} GPU '{}' is not in the hardware catalog, so field 'gpus_per_node' is required",
                      r.Where("gpu"), r.Name(), gpu.substr(0, 60)));
    }
  }
  ty.name = r.Str("name").value_or(gpu);
  ty.count = *r.Int("count", 1, kMaxClusterNodes);
  if (auto v = r.Int("gpus_per_node", 1, kMaxGpusPerNode)) shape.gpus_per_node = *v;
  if (auto v = r.Int("nodes_per_domain", 1, kMaxClusterNodes)) shape.nodes_per_domain = *v;
  if (auto v = r.Int("nodes_per_leaf", 0, kMaxClusterNodes)) shape.nodes_per_leaf = *v;
  if (auto v = r.Num("spine_oversubscription", 1, 1e6)) shape.spine_oversubscription = *v;
  if (int64_t{shape.gpus_per_node} * shape.nodes_per_domain > (int64_t{1} << 30))
    throw InputError(fmt::format("{}: {} an NVLink domain of {} nodes of {} GPUs is more than 2^30 GPUs",
                                 r.Where("nodes_per_domain"), r.Name(), shape.nodes_per_domain, shape.gpus_per_node));
  Reshape(ty, shape);
  return ty;
}

ClusterTopology ReadClusterToml(const HardwareCatalog& catalog, std::string_view text, const std::string& where) {
  toml::table doc;
  try {
    doc = toml::parse(text, where);
  } catch (const toml::parse_error& e) {
    throw InputError(fmt::format("{}:{}: invalid TOML: {}", where, e.source().begin.line, e.description()));
  }
  for (const auto& [k, v] : doc)
    if (k.str() != "nodes")
      throw InputError(fmt::format("{}: unknown top-level key '{}' (a cluster file has [[nodes]] tables only)",
                                   LineOf(where, v), std::string(k.str()).substr(0, 60)));
  const toml::node* nodes = doc.get("nodes");
  if (!nodes) throw InputError(where + ": no [[nodes]] table (one per node type)");
  const toml::array* list = nodes->as_array();
  if (!list || list->empty())
    throw InputError(LineOf(where, *nodes) + ": 'nodes' must be [[nodes]] tables, one per node type");
  std::vector<NodeType> types;
  std::map<std::string, int> lines_by_name;
  for (const toml::node& n : *list) {
    const toml::table* t = n.as_table();
    if (!t) throw InputError(LineOf(where, n) + ": 'nodes' must be [[nodes]] tables, one per node type");
    NodeType ty = ReadNodesTable(catalog, *t, where, static_cast<int>(types.size()));
    const int line = static_cast<int>(t->source().begin.line);
    auto [it, fresh] = lines_by_name.emplace(ty.name, line);
    if (!fresh)
      throw InputError(fmt::format("{}:{}: [[nodes]] #{} field 'name': node type '{}' is already defined at line {}",
                                   where, line, types.size() + 1, ty.name, it->second));
    types.push_back(std::move(ty));
  }
  try {
    return BuildTopology(std::move(types));
  } catch (const InputError& e) {
    throw InputError(where + ": " + e.what());
  }
}

// ---- Alibaba v2023 node list -----------------------------------------------------------------

constexpr const char* kAlibabaNodeColumns[] = {"sn", "cpu_milli", "memory_mib", "gpu", "model"};

// The node list's GPU model names that are not catalog names, with the catalog name each stands
// for. Explicit, never guessed: a model not listed is looked up as written (T4, P100, A10), and
// G2/G3 are anonymised generations that no catalog entry names. M16/M32 are the 16 GB and 32 GB
// V100 parts; paratune's built-in catalog has no V100, so these price only when a --hardware
// file defines V100-16GB or V100-32GB.
struct ModelAlias {
  const char* trace;
  const char* catalog;
};
constexpr ModelAlias kAlibabaModelAliases[] = {{"V100M16", "V100-16GB"}, {"V100M32", "V100-32GB"}};

std::string CatalogNameOfAlibabaModel(const std::string& model) {
  for (const ModelAlias& a : kAlibabaModelAliases)
    if (model == a.trace) return a.catalog;
  return model;
}

std::string_view FirstLine(std::string_view text) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  const size_t eol = text.find('\n');
  std::string_view line = text.substr(0, eol);
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.remove_suffix(1);
  return line;
}

bool IsAlibabaNodeList(std::string_view text) {
  std::string header;
  for (const char* c : kAlibabaNodeColumns) header += (header.empty() ? "" : ",") + std::string(c);
  return FirstLine(text) == header;
}

std::optional<int64_t> ParseInt(const std::string& s) {
  if (s.empty() || s.size() > 18) return std::nullopt;
  int64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v;
}

ClusterTopology ReadAlibabaNodeList(const HardwareCatalog& catalog, std::string_view text, const std::string& where) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  const std::vector<CsvRow> rows = ParseCsv(text, where);
  constexpr int kGpu = 3, kModel = 4;
  std::vector<NodeType> types;
  std::map<std::pair<std::string, int>, int> type_of;  // (model, gpus) -> index into types
  for (size_t i = 1; i < rows.size(); ++i) {
    const CsvRow& row = rows[i];
    const std::optional<int64_t> gpus = ParseInt(row.fields[kGpu]);
    if (!gpus || *gpus > kMaxGpusPerNode)
      throw InputError(fmt::format("{}:{}: field 'gpu' must be an integer from 0 to {}, got {}", where, row.line,
                                   kMaxGpusPerNode, Quote(row.fields[kGpu])));
    if (*gpus == 0) continue;  // a CPU-only node holds no GPU job
    const std::string& model = row.fields[kModel];
    if (model.empty() || model.size() > 200)
      throw InputError(fmt::format("{}:{}: field 'model' must name the node's GPU", where, row.line));
    const int g = static_cast<int>(*gpus);
    auto [it, fresh] = type_of.emplace(std::pair{model, g}, static_cast<int>(types.size()));
    if (fresh) {
      const GpuSpec* spec = FindGpu(catalog, CatalogNameOfAlibabaModel(model));
      NodeType t = spec ? PricedType(catalog, *spec, model, "") : NodeType{};
      t.name = fmt::format("{}x{}", model, g);
      t.gpu = model;
      // The trace says nothing of the network: every node is a server of its own NVLink domain
      // (at most the node), all under one non-blocking network.
      Reshape(t,
              NodeShape{.gpus_per_node = g, .nodes_per_domain = 1, .nodes_per_leaf = 0, .spine_oversubscription = 1});
      types.push_back(std::move(t));
    }
    NodeType& t = types[it->second];
    if (t.count >= kMaxClusterNodes)
      throw InputError(fmt::format("{}:{}: more than {} nodes", where, row.line, kMaxClusterNodes));
    ++t.count;
  }
  if (types.empty()) throw InputError(where + ": the node list has no node with a GPU");
  try {
    return BuildTopology(std::move(types));
  } catch (const InputError& e) {
    throw InputError(where + ": " + e.what());
  }
}

// ---- Slurm topology.conf -----------------------------------------------------------------------

// Blocks under leaves as the fabric's numbering puts domains under them: consecutive blocks fill a
// leaf of nodes_per_leaf nodes, a block larger than that has a leaf of its own, and
// nodes_per_leaf 0 is one leaf over all of them (Slurm's block plugin places blocks on one fabric).
std::vector<int> BlocksUnderLeaves(const std::vector<int>& block_nodes, int nodes_per_leaf) {
  if (nodes_per_leaf == 0) return {static_cast<int>(block_nodes.size())};
  std::vector<int> leaf_blocks;
  int in_leaf = 0;
  for (int n : block_nodes) {
    if (leaf_blocks.empty() || in_leaf + n > nodes_per_leaf) leaf_blocks.push_back(0), in_leaf = 0;
    ++leaf_blocks.back();
    in_leaf += n;
  }
  return leaf_blocks;
}

// A topology.conf on nodes of `gpu`'s reference system: topology/tree's leaf switches are the
// leaves, each node its own NVLink domain (the file names none); topology/block's blocks are the
// NVLink domains (an NVL72 rack is a block of 18 trays), under leaves as BlocksUnderLeaves puts
// them. The leaves and domains keep their uneven sizes (NodeType::domain_nodes, leaf_domains).
ClusterTopology ReadSlurmTopologyFile(const HardwareCatalog& catalog, std::string_view text, const std::string& where,
                                      const std::string& gpu) {
  const SlurmTopology conf = ReadSlurmTopology(text, where);
  if (gpu.empty())
    throw InputError(where +
                     ": a Slurm topology.conf names no GPU: give the nodes' GPU with --gpu NAME "
                     "(`paratune gpus` lists them)");
  const GpuSpec& spec = catalog.Find(gpu);  // InputError listing the known GPUs
  NodeType t = PricedType(catalog, spec, spec.name, "");
  NodeShape shape = ShapeOf(t.fabric);
  std::vector<std::string> names;
  std::vector<int> group_nodes;
  for (const SlurmNodeGroup& g : conf.groups) {
    names.insert(names.end(), g.nodes.begin(), g.nodes.end());
    group_nodes.push_back(static_cast<int>(g.nodes.size()));
  }
  if (conf.block) {
    t.domain_nodes = group_nodes;
    t.leaf_domains = BlocksUnderLeaves(group_nodes, shape.nodes_per_leaf);
    shape.nodes_per_domain = *std::max_element(group_nodes.begin(), group_nodes.end());
  } else {
    t.domain_nodes.assign(names.size(), 1);
    t.leaf_domains = group_nodes;
    shape.nodes_per_domain = 1;
  }
  // The fabric's leaf size is the largest leaf's (0: one leaf), what "fits under one leaf" asks.
  int largest_leaf = 0;
  for (size_t leaf = 0, d = 0; leaf < t.leaf_domains.size(); ++leaf) {
    int nodes = 0;
    for (int k = 0; k < t.leaf_domains[leaf]; ++k) nodes += t.domain_nodes[d++];
    largest_leaf = std::max(largest_leaf, nodes);
  }
  shape.nodes_per_leaf = t.leaf_domains.size() == 1 ? 0 : largest_leaf;
  Reshape(t, shape);
  t.name = spec.name;
  t.count = static_cast<int>(names.size());
  ClusterTopology topology;
  try {
    topology = BuildTopology({std::move(t)});
  } catch (const InputError& e) {
    throw InputError(where + ": " + e.what());
  }
  topology.node_names = std::move(names);
  return topology;
}

}  // namespace

ClusterTopology TopologyFromFlags(const HardwareCatalog& catalog, const std::string& gpu, int nodes) {
  if (nodes <= 0 || nodes > kMaxClusterNodes)
    throw InputError(fmt::format("--nodes must be from 1 to {}, got {}", kMaxClusterNodes, nodes));
  const GpuSpec& spec = catalog.Find(gpu);  // InputError listing the known GPUs
  NodeType t = PricedType(catalog, spec, spec.name, "");
  Reshape(t, ShapeOf(t.fabric));
  t.name = spec.name;
  t.count = nodes;
  return BuildTopology({std::move(t)});
}

ClusterTopology ReadClusterFile(const HardwareCatalog& catalog, std::string_view text, const std::string& where,
                                const std::string& gpu) {
  if (IsAlibabaNodeList(text)) return ReadAlibabaNodeList(catalog, text, where);
  if (IsSlurmTopology(text)) return ReadSlurmTopologyFile(catalog, text, where, gpu);
  return ReadClusterToml(catalog, text, where);
}

}  // namespace paratune
