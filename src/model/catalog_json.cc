#include <nlohmann/json.hpp>

#include "model/catalog_json.h"

#include "model/catalog.h"

namespace paratune {

nlohmann::json CatalogJson() {
  nlohmann::json models = nlohmann::json::array();
  for (const std::string& id : CatalogModelIds()) {
    const ModelSpec m = LoadModel(id);
    const ParamCounts c = CountParams(m);
    models.push_back({{"id", id},
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
  }
  return {{"schema", kModelsSchema}, {"models", std::move(models)}};
}

}  // namespace paratune
