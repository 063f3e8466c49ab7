#include <nlohmann/json.hpp>

#include "hardware/hardware_json.h"

namespace paratune {

nlohmann::json FabricJson(const Fabric& f) {
  return {{"name", f.name},
          {"gpus_per_node", f.gpus_per_node},
          {"scale_up_link", LinkClassName(f.scale_up)},
          {"nvlink_domain", f.nvlink_domain},
          {"nvlink_bytes_per_s", f.nvlink_bytes_per_s},
          {"nvlink_latency_s", f.nvlink_latency_s},
          {"call_latency_s", f.call_latency_s},
          {"nics_per_node", f.nics_per_node},
          {"nic_bytes_per_s", f.nic_bytes_per_s},
          {"net_bytes_per_s", f.net_bytes_per_s()},
          {"net_latency_s", f.net_latency_s},
          {"nodes_per_leaf", f.nodes_per_leaf},
          {"spine_oversubscription", f.spine_oversubscription},
          {"pcie_gpus_per_switch", f.pcie_gpus_per_switch},
          {"pcie_host_bytes_per_s", f.pcie_host_bytes_per_s},
          {"pcie_host_ring_bytes_per_s", f.pcie_host_ring_bytes_per_s},
          {"pcie_host_all_to_all_bytes_per_s", f.pcie_host_all_to_all_bytes_per_s},
          {"host_link_bytes_per_s", f.host_link_bytes_per_s}};
}

nlohmann::json GpusJson(const HardwareCatalog& hw) {
  nlohmann::json gpus = nlohmann::json::array();
  for (const GpuSpec* g : hw.All()) {
    nlohmann::json j = {{"name", g->name},
                        {"description", g->description},
                        {"generation", g->generation},
                        {"bf16_flops", g->bf16_flops},
                        {"fp16_flops", g->fp16_flops},
                        {"fp8_flops", g->fp8_flops},
                        {"fp4_flops", g->fp4_flops},
                        {"fp32_flops", g->fp32_flops},
                        {"hbm_bytes", g->hbm_bytes},
                        {"hbm_bytes_per_s", g->hbm_bytes_per_s},
                        {"sm_count", g->sm_count},
                        {"tdp_w", g->tdp_w},
                        {"source", g->source},
                        {"aliases", g->aliases}};
    // The reference system's fabric, flat beside the chip (as before the split).
    const nlohmann::json fabric = FabricJson(hw.FindFabric(g->name));
    for (const auto& [k, v] : fabric.items())
      if (k != "name") j[k] = v;
    gpus.push_back(std::move(j));
  }
  nlohmann::json fabrics = nlohmann::json::array();
  for (const Fabric* f : hw.Fabrics()) fabrics.push_back(FabricJson(*f));
  return {{"schema", kGpusSchema}, {"gpus", std::move(gpus)}, {"fabrics", std::move(fabrics)}};
}

}  // namespace paratune
