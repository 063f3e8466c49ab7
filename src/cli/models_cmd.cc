// `paratune models`: the built-in model catalog with parameter counts.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "model/catalog.h"

namespace paratune::cli {

Command AddModelsCommand(CLI::App& root) {
  auto* cmd = root.add_subcommand("models", "list the built-in model catalog");
  auto json = std::make_shared<bool>(false);
  cmd->add_flag("--json", *json, "print JSON (schema paratune.models/1)");
  return {cmd, [json] {
            nlohmann::json out = {{"schema", "paratune.models/1"}, {"models", nlohmann::json::array()}};
            if (!*json)
              fmt::print("{:<18} {:<22} {:>6} {:>7} {:>9} {:>10} {:>10}\n", "id", "architecture",
                         "layers", "hidden", "experts", "total", "active");
            for (const std::string& id : CatalogModelIds()) {
              const ModelSpec m = LoadModel(id);
              const ParamCounts c = CountParams(m);
              const double total = static_cast<double>(c.total()), active = static_cast<double>(c.active(m));
              if (*json) {
                out["models"].push_back({{"id", id},
                                         {"architecture", m.architecture},
                                         {"layers", m.layers},
                                         {"hidden", m.hidden},
                                         {"heads", m.heads},
                                         {"kv_heads", m.kv_heads},
                                         {"vocab", m.vocab},
                                         {"experts", m.experts},
                                         {"topk", m.topk},
                                         {"total_params", c.total()},
                                         {"active_params", c.active(m)},
                                         {"embedding_params", c.embedding}});
              } else {
                fmt::print("{:<18} {:<22} {:>6} {:>7} {:>9} {:>9.2f}B {:>9.2f}B\n", id, m.architecture,
                           m.layers, m.hidden, m.is_moe() ? fmt::format("{}/{}", m.topk, m.experts) : "-",
                           total / 1e9, active / 1e9);
              }
            }
            if (*json) fmt::print("{}\n", out.dump(2));
            return 0;
          }};
}

}  // namespace paratune::cli
