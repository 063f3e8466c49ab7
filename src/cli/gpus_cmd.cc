// `paratune gpus`: the hardware catalog (built-in, plus --hardware FILE.toml).
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "hardware/hardware_catalog.h"
#include "hardware/hardware_json.h"
#include "util/file.h"
#include "util/json_document.h"

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
            if (f->json) {
              fmt::print("{}\n", DocumentText(GpusJson(hw)));
              return 0;
            }
            fmt::print("{:<15} {:>9} {:>9} {:>9} {:>8} {:>8} {:>5} {:>6} {:>6} {:>9} {:>8}\n", "gpu", "bf16 TF",
                       "fp8 TF", "fp4 TF", "HBM GB", "HBM TB/s", "node", "link", "domain", "link GB/s", "net GB/s");
            for (const GpuSpec* g : hw.All()) {
              const Fabric& fab = hw.FindFabric(g->name);
              auto tf = [](double x) { return x > 0 ? fmt::format("{:.0f}", x / 1e12) : std::string("-"); };
              fmt::print("{:<15} {:>9} {:>9} {:>9} {:>8.1f} {:>8.2f} {:>5} {:>6} {:>6} {:>9.0f} {:>8.0f}\n", g->name,
                         tf(g->bf16_flops), tf(g->fp8_flops), tf(g->fp4_flops), g->hbm_bytes / 1e9,
                         g->hbm_bytes_per_s / 1e12, fab.gpus_per_node, LinkClassName(fab.scale_up), fab.nvlink_domain,
                         fab.nvlink_bytes_per_s / 1e9, fab.net_bytes_per_s() / 1e9);
            }
            fmt::print(
                "TF = dense TFLOP/s; GB = 1e9 bytes; bandwidths per GPU per direction; node and domain: GPUs per "
                "node and per scale-up domain (its link: NVLink or PCIe) of the GPU's reference system; "
                "sources: docs/hardware.md\n");
            return 0;
          }};
}

}  // namespace paratune::cli
