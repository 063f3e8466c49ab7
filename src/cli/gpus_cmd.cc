// `paratune gpus`: the hardware catalog (built-in, plus --hardware FILE.toml).
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "hardware/hardware_catalog.h"
#include "util/file.h"

namespace paratune::cli {

Command AddGpusCommand(CLI::App& root) {
  auto* cmd = root.add_subcommand("gpus", "list the GPU hardware catalog");
  struct Flags {
    bool json = false;
    std::string hardware;
  };
  auto f = std::make_shared<Flags>();
  cmd->add_flag("--json", f->json, "print JSON (schema paratune.gpus/1)");
  cmd->add_option("--hardware", f->hardware, "TOML file adding or overriding GPU entries");
  return {cmd, [f] {
            HardwareCatalog hw = HardwareCatalog::BuiltIn();
            if (!f->hardware.empty()) hw.Merge(ReadFile(f->hardware), f->hardware);
            nlohmann::json out = {{"schema", "paratune.gpus/1"}, {"gpus", nlohmann::json::array()}};
            if (!f->json)
              fmt::print("{:<10} {:>9} {:>9} {:>9} {:>8} {:>8} {:>5} {:>6} {:>9} {:>8}\n", "gpu", "bf16 TF",
                         "fp8 TF", "fp4 TF", "HBM GB", "HBM TB/s", "node", "NVL", "NVL GB/s", "net GB/s");
            for (const GpuSpec* g : hw.All()) {
              if (f->json) {
                out["gpus"].push_back({{"name", g->name},
                                       {"description", g->description},
                                       {"generation", g->generation},
                                       {"bf16_flops", g->bf16_flops},
                                       {"fp8_flops", g->fp8_flops},
                                       {"fp4_flops", g->fp4_flops},
                                       {"fp32_flops", g->fp32_flops},
                                       {"hbm_bytes", g->hbm_bytes},
                                       {"hbm_bytes_per_s", g->hbm_bytes_per_s},
                                       {"gpus_per_node", g->gpus_per_node},
                                       {"nvlink_domain", g->nvlink_domain},
                                       {"nvlink_bytes_per_s", g->nvlink_bytes_per_s},
                                       {"nvlink_latency_s", g->nvlink_latency_s},
                                       {"net_bytes_per_s", g->net_bytes_per_s},
                                       {"net_latency_s", g->net_latency_s},
                                       {"sm_count", g->sm_count},
                                       {"source", g->source}});
              } else {
                auto tf = [](double x) { return x > 0 ? fmt::format("{:.0f}", x / 1e12) : std::string("-"); };
                fmt::print("{:<10} {:>9} {:>9} {:>9} {:>8.1f} {:>8.2f} {:>5} {:>6} {:>9.0f} {:>8.0f}\n", g->name,
                           tf(g->bf16_flops), tf(g->fp8_flops), tf(g->fp4_flops), g->hbm_bytes / 1e9,
                           g->hbm_bytes_per_s / 1e12, g->gpus_per_node, g->nvlink_domain,
                           g->nvlink_bytes_per_s / 1e9, g->net_bytes_per_s / 1e9);
              }
            }
            if (f->json) fmt::print("{}\n", out.dump(2));
            else fmt::print("TF = dense TFLOP/s; bandwidths per GPU per direction; sources: docs/hardware.md\n");
            return 0;
          }};
}

}  // namespace paratune::cli
