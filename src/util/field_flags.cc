#include "util/field_flags.h"

#include <string_view>
#include <utility>

namespace paratune {
namespace {

constexpr std::pair<std::string_view, std::string_view> kFieldFlags[] = {
    {"tp", "--tp"},
    {"pp", "--pp"},
    {"vp", "--vp"},
    {"cp", "--cp"},
    {"ep", "--ep"},
    {"etp", "--etp"},
    {"zero", "--zero"},
    {"mbs", "--mbs"},
    {"recompute", "--recompute"},
    {"schedule", "--schedule"},
    {"pp_layout", "--pp-layout"},
    {"expert_imbalance", "--expert-imbalance"},
    {"offload_layers", "--offload-layers"},
    {"cp_comm", "--cp-comm"},
    {"optimizer_states", "--optimizer-states"},
    {"fp32_shards", "--fp32-shards"},
    {"seq", "--seq"},
    {"global_batch", "--global-batch"},
    {"precision", "--precision"},
    {"gpus", "--gpus/--nodes"},
    {"allow_cross_domain_tp", "--allow-cross-domain-tp"},
    {"headroom", "--headroom"},
    {"top", "--top"},
    {"max_tp", "--max-tp"},
    {"max_pp", "--max-pp"},
    {"max_vp", "--max-vp"},
    {"max_cp", "--max-cp"},
    {"max_ep", "--max-ep"},
    {"max_mbs", "--max-mbs"},
    {"rounds", "--rounds"},
    {"model", "--model"},
    {"layers", "--layers"},
    {"hidden", "--hidden"},
    {"ffn", "--ffn"},
    {"heads", "--heads"},
    {"kv_heads", "--kv-heads"},
    {"vocab", "--vocab"},
    {"experts", "--experts"},
    {"topk", "--topk"},
    {"gpu", "--gpu"},
    {"fabric", "--fabric"},
    {"train_tokens", "--train-tokens"},
    {"gpu_hour_price", "--gpu-hour-price"},
};

}  // namespace

std::string WithFlagNames(const std::string& m) {
  std::string out;
  out.reserve(m.size());
  for (size_t i = 0; i < m.size(); ++i) {
    const size_t close = m[i] == '`' ? m.find('`', i + 1) : std::string::npos;
    if (close == std::string::npos) {
      out += m[i];
      continue;
    }
    const std::string_view field(m.data() + i + 1, close - i - 1);
    std::string_view shown = field;
    for (const auto& [f, flag] : kFieldFlags)
      if (f == field) shown = flag;
    out += shown;
    i = close;
  }
  return out;
}

std::string OneLine(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\n')
      out += "\\n";
    else if (c == '\r')
      out += "\\r";
    else
      out += c;
  }
  return out;
}

std::string InputErrorText(const std::string& what) { return OneLine(WithFlagNames(what)); }

}  // namespace paratune
