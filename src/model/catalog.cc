#include "model/catalog.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "model/hf_config.h"
#include "util/embedded_data.h"
#include "util/error.h"
#include "util/file.h"
#include "util/text.h"

namespace paratune {
namespace {

constexpr std::string_view kPrefix = "models/";
constexpr std::string_view kSuffix = ".json";

}  // namespace

std::vector<std::string> CatalogModelIds() {
  std::vector<std::string> ids;
  for (const EmbeddedFile& f : EmbeddedFiles()) {
    if (f.path.starts_with(kPrefix) && f.path.ends_with(kSuffix) &&
        f.path.find('/', kPrefix.size()) == std::string_view::npos)
      ids.emplace_back(f.path.substr(kPrefix.size(), f.path.size() - kPrefix.size() - kSuffix.size()));
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

ModelSpec LoadModel(const std::string& name_or_path) {
  if (name_or_path.empty()) throw InputError("`model`: empty model name (a catalog id or a config.json path)");
  std::error_code ec;
  // A path that exists, even as a broken link or a link loop (its reader says which).
  const bool is_path = std::filesystem::exists(std::filesystem::symlink_status(name_or_path, ec)) ||
                       name_or_path.find('/') != std::string::npos || name_or_path.ends_with(".json");
  if (is_path) {
    const std::string text = ReadFile(name_or_path);
    std::string stem = std::filesystem::path(name_or_path).stem().string();
    if (stem == "config") stem = std::filesystem::path(name_or_path).parent_path().filename().string();
    return ParseHfConfig(text, name_or_path, stem.empty() ? name_or_path : stem);
  }
  const std::string id = AsciiLower(name_or_path);
  if (auto text = FindEmbeddedFile(std::string(kPrefix) + id + std::string(kSuffix)))
    return ParseHfConfig(*text, "data/models/" + id + ".json", id);
  std::string list;
  for (const auto& s : CatalogModelIds()) list += (list.empty() ? "" : ", ") + s;
  throw InputError("`model`: unknown model '" + name_or_path +
                   "' (not a file and not in the catalog); catalog: " + list);
}

// Repository ids as data/models/SOURCES.md gives them (its "config source" column).
const std::vector<HfRepository>& HfRepositories() {
  static const std::vector<HfRepository> kRepos = {
      {"meta-llama/Llama-3.1-8B", "llama-3.1-8b"},
      {"meta-llama/Llama-3.1-70B", "llama-3.1-70b"},
      {"meta-llama/Llama-3.1-405B", "llama-3.1-405b"},
      {"meta-llama/Llama-2-7b-hf", "llama-2-7b"},
      {"meta-llama/Llama-2-13b-hf", "llama-2-13b"},
      {"meta-llama/Llama-2-70b-hf", "llama-2-70b"},
      {"meta-llama/Meta-Llama-3-8B", "llama-3-8b"},
      {"meta-llama/Meta-Llama-3-70B", "llama-3-70b"},
      {"meta-llama/Llama-4-Scout-17B-16E", "llama-4-scout"},
      {"meta-llama/Llama-4-Maverick-17B-128E", "llama-4-maverick"},
      {"mistralai/Mistral-7B-v0.1", "mistral-7b"},
      {"mistralai/Mixtral-8x7B-v0.1", "mixtral-8x7b"},
      {"mistralai/Mixtral-8x22B-v0.1", "mixtral-8x22b"},
      {"deepseek-ai/DeepSeek-V2", "deepseek-v2"},
      {"deepseek-ai/DeepSeek-V3", "deepseek-v3"},
      {"openai/gpt-oss-20b", "gpt-oss-20b"},
      {"openai/gpt-oss-120b", "gpt-oss-120b"},
      {"Qwen/Qwen2.5-7B", "qwen2.5-7b"},
      {"Qwen/Qwen2.5-72B", "qwen2.5-72b"},
      {"Qwen/Qwen3-8B", "qwen3-8b"},
      {"Qwen/Qwen3-32B", "qwen3-32b"},
      {"Qwen/Qwen2-57B-A14B", "qwen2-57b-a14b"},
      {"Qwen/Qwen3-30B-A3B", "qwen3-30b-a3b"},
      {"Qwen/Qwen3-235B-A22B", "qwen3-235b-a22b"},
      {"nvidia/Nemotron-4-340B-Base", "nemotron-4-340b"},
      {"EleutherAI/gpt-neox-20b", "gpt-neox-20b"},
      {"mosaicml/mpt-7b", "mpt-7b"},
      {"mosaicml/mpt-30b", "mpt-30b"},
      {"xai-org/grok-1", "grok-1"},
      {"hpcai-tech/grok-1", "grok-1"},  // the transformers port of xai-org/grok-1's JAX checkpoint
      {"moonshotai/Kimi-K2-Base", "kimi-k2"},
      {"moonshotai/Kimi-K2-Instruct", "kimi-k2"},
      {"internlm/internlm-7b", "internlm-7b"},
  };
  return kRepos;
}

std::string CatalogIdForHfRepository(const std::string& repo) {
  const std::string key = AsciiLower(repo);
  for (const HfRepository& r : HfRepositories())
    if (AsciiLower(r.repo) == key) return r.id;
  return "";
}

ModelSpec ModelFromDims(const InlineDims& d) {
  // 0 means "not given" (kv_heads: as many as heads); a negative count is a mistake, never a default.
  for (auto [field, v] : {std::pair{"kv_heads", d.kv_heads}, {"experts", d.experts}, {"topk", d.topk}})
    if (v < 0) throw InputError("`" + std::string(field) + "` must be positive, got " + std::to_string(v));
  if (d.topk > 0 && d.experts == 0)
    throw InputError("`topk` (" + std::to_string(d.topk) + ") needs `experts`: a dense model routes no tokens");
  ModelSpec m;
  m.name = "inline";
  m.architecture = "LlamaForCausalLM";
  m.layers = d.layers;
  m.hidden = d.hidden;
  m.heads = d.heads;
  m.kv_heads = d.kv_heads > 0 ? d.kv_heads : d.heads;
  m.head_dim = d.heads > 0 ? d.hidden / d.heads : 0;
  m.vocab = d.vocab;
  m.mlp = d.gated_mlp ? MlpKind::kGated : MlpKind::kPlain;
  // Rotary with ModelSpec's default base (10000, transformers' and Megatron-LM's default);
  // the context length is not given inline: max_position_embeddings stays 0 (unknown).
  m.positions = PositionKind::kRotary;
  if (d.experts > 0) {
    m.experts = d.experts;
    m.topk = d.topk;
    m.moe_ffn_hidden = d.ffn;
  } else {
    m.ffn_hidden = d.ffn;
  }
  if (d.heads > 0 && d.hidden % d.heads != 0)
    throw InputError("`hidden` (" + std::to_string(d.hidden) + ") is not divisible by `heads` (" +
                     std::to_string(d.heads) + ")");
  if (d.experts > 0 && d.topk <= 0) throw InputError("`topk` must be positive when `experts` is given");
  ValidateModel(m, "inline model (`layers`, `hidden`, `ffn`, `heads`, `vocab`)");
  return m;
}

}  // namespace paratune
