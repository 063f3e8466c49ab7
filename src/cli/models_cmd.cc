// `paratune models`: the built-in model catalog with parameter counts.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "model/catalog.h"
#include "model/catalog_json.h"
#include "util/json_document.h"

namespace paratune::cli {

Command AddModelsCommand(CLI::App& root) {
  auto* cmd = root.add_subcommand("models", "list the built-in model catalog");
  auto json = std::make_shared<bool>(false);
  cmd->add_flag("--json", *json, "print JSON (schema paratune.models/1)");
  return {cmd, [json] {
            if (*json) {
              fmt::print("{}\n", DocumentText(CatalogJson()));
              return 0;
            }
            fmt::print("{:<18} {:<22} {:>6} {:>7} {:>9} {:>10} {:>10}\n", "id", "architecture", "layers", "hidden",
                       "experts", "total", "active");
            for (const std::string& id : CatalogModelIds()) {
              const ModelSpec m = LoadModel(id);
              const ParamCounts c = CountParams(m);
              fmt::print("{:<18} {:<22} {:>6} {:>7} {:>9} {:>9.2f}B {:>9.2f}B\n", id, m.architecture, m.layers,
                         m.hidden, m.is_moe() ? fmt::format("{}/{}", m.topk, m.experts) : "-",
                         static_cast<double>(c.total()) / 1e9, static_cast<double>(c.active(m)) / 1e9);
            }
            return 0;
          }};
}

}  // namespace paratune::cli
