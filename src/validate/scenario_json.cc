#include "validate/scenario_json.h"

#include <climits>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <vector>

#include <fmt/format.h>

#include "util/error.h"
#include "util/json_fields.h"
#include "util/json_parse.h"
#include "util/text.h"

namespace paratune {
namespace {

using nlohmann::json;

// The fields of each struct, in declaration order: the one list both directions walk. `v` is a
// Writer or a Reader (below); an enum comes with its EnumNames table, a nested struct through
// v.Nested. Left out on purpose: GpuSpec's source, note and aliases (catalog provenance, read by
// no estimate). scenario_json_test.cc checks that a round trip reproduces every estimate and
// every ModelSpec member (its defaulted operator==).
template <class R, class V>
void RopeFields(R& r, V& v) {
  v("kind", r.kind, kRopeScalingNames);
  v("factor", r.factor);
  v("original_max_positions", r.original_max_positions);
  v("low_freq_factor", r.low_freq_factor);
  v("high_freq_factor", r.high_freq_factor);
  v("beta_fast", r.beta_fast);
  v("beta_slow", r.beta_slow);
  v("mscale", r.mscale);
  v("mscale_all_dim", r.mscale_all_dim);
  v("attention_factor", r.attention_factor);
}

template <class M, class V>
void ModelFields(M& m, V& v) {
  v("name", m.name);
  v("architecture", m.architecture);
  v("layers", m.layers);
  v("hidden", m.hidden);
  v("heads", m.heads);
  v("kv_heads", m.kv_heads);
  v("head_dim", m.head_dim);
  v("vocab", m.vocab);
  v("ffn_hidden", m.ffn_hidden);
  v("mlp", m.mlp, kMlpKindNames);
  v("norm", m.norm, kNormKindNames);
  v("attention", m.attention, kAttentionKindNames);
  v("tied_embeddings", m.tied_embeddings);
  v("qkv_bias", m.qkv_bias);
  v("linear_bias", m.linear_bias);
  v("o_bias", m.o_bias);
  v("qk_norm", m.qk_norm);
  v("attention_sinks", m.attention_sinks);
  v("router_bias", m.router_bias);
  v("dropout", m.dropout);
  v("learned_positions", m.learned_positions);
  v("positions", m.positions, kPositionKindNames);
  v("max_position_embeddings", m.max_position_embeddings);
  v("rope_theta", m.rope_theta);
  v("rotary_percent", m.rotary_percent);
  v.Nested("rope_scaling", [&](auto& w) { RopeFields(m.rope_scaling, w); });
  v("q_lora_rank", m.q_lora_rank);
  v("kv_lora_rank", m.kv_lora_rank);
  v("qk_nope_head_dim", m.qk_nope_head_dim);
  v("qk_rope_head_dim", m.qk_rope_head_dim);
  v("v_head_dim", m.v_head_dim);
  v("experts", m.experts);
  v("topk", m.topk);
  v("moe_ffn_hidden", m.moe_ffn_hidden);
  v("shared_experts", m.shared_experts);
  v("shared_ffn_hidden", m.shared_ffn_hidden);
  v("shared_expert_gate", m.shared_expert_gate);
  v("first_dense_layers", m.first_dense_layers);
  v("moe_layer_freq", m.moe_layer_freq);
  v("mtp_layers", m.mtp_layers);
  v("routing_groups", m.routing_groups);
  v("routing_group_topk", m.routing_group_topk);
  v("router_sigmoid", m.router_sigmoid);
  v("router_expert_bias", m.router_expert_bias);
  v("router_topk_scaling", m.router_topk_scaling);
  v("sliding_window", m.sliding_window);
  v("sliding_window_layers", m.sliding_window_layers);
}

template <class C, class V>
void CalibrationFields(C& c, V& v) {
  for (const CalibrationField& f : kCalibrationFields) v(f.key, c.*f.value);  // data/calibration.toml's keys
}

template <class G, class V>
void GpuFields(G& g, V& v) {
  v("name", g.name);
  v("description", g.description);
  v("generation", g.generation);
  v("bf16_flops", g.bf16_flops);
  v("fp16_flops", g.fp16_flops);
  v("fp8_flops", g.fp8_flops);
  v("fp4_flops", g.fp4_flops);
  v("fp32_flops", g.fp32_flops);
  v("hbm_bytes", g.hbm_bytes);
  v("hbm_bytes_per_s", g.hbm_bytes_per_s);
  v("sm_count", g.sm_count);
  v("tdp_w", g.tdp_w);
  v.Nested("calibration", [&](auto& w) { CalibrationFields(g.calibration, w); });
}

template <class F, class V>
void FabricFields(F& f, V& v) {
  v("name", f.name);
  v("description", f.description);
  v("gpus_per_node", f.gpus_per_node);
  v("scale_up", f.scale_up, kLinkClassNames);
  v("nvlink_domain", f.nvlink_domain);
  v("nvlink_bytes_per_s", f.nvlink_bytes_per_s);
  v("nvlink_latency_s", f.nvlink_latency_s);
  v("call_latency_s", f.call_latency_s);
  v("nics_per_node", f.nics_per_node);
  v("nic_bytes_per_s", f.nic_bytes_per_s);
  v("net_latency_s", f.net_latency_s);
  v("nodes_per_leaf", f.nodes_per_leaf);
  v("spine_oversubscription", f.spine_oversubscription);
  v("pcie_gpus_per_switch", f.pcie_gpus_per_switch);
  v("pcie_host_bytes_per_s", f.pcie_host_bytes_per_s);
  v("pcie_host_ring_bytes_per_s", f.pcie_host_ring_bytes_per_s);
  v("pcie_host_all_to_all_bytes_per_s", f.pcie_host_all_to_all_bytes_per_s);
  v("host_link_bytes_per_s", f.host_link_bytes_per_s);
}

template <class C, class V>
void ClusterFields(C& c, V& v) {
  v("gpus", c.gpus);
  v.Nested("gpu", [&](auto& w) { GpuFields(c.gpu, w); });
  v.Nested("fabric", [&](auto& w) { FabricFields(c.fabric, w); });
}

template <class T, class V>
void TrainingFields(T& t, V& v) {
  v("seq", t.seq);
  v("global_batch", t.global_batch);
  v("precision", t.precision, kPrecisionNames);
}

// The fields themselves, not LayoutToJson's derived values (expert_tp(), sequence_parallel(),
// the resolved schedule), so that the layout comes back member for member.
template <class L, class V>
void LayoutFields(L& l, V& v) {
  v("tp", l.tp);
  v("pp", l.pp);
  v("vp", l.vp);
  v("cp", l.cp);
  v("ep", l.ep);
  v("etp", l.etp);
  v("dp", l.dp);
  v("sp", l.sp);
  v("zero", l.zero);
  v("recompute", l.recompute, kRecomputeNames);
  v("recompute_modules", l.recompute_modules);  // bits of RecomputeModuleBit (kRecomputeModuleNames order)
  v("fp8_activation_cache", l.fp8_activation_cache);
  v("fp8_attention", l.fp8_attention);
  v("mbs", l.mbs);
  v("overlap_grad_reduce", l.overlap_grad_reduce);
  v("overlap_param_gather", l.overlap_param_gather);
  v("grad_reduce_in_fp32", l.grad_reduce_in_fp32);
  v("overlap_tp_comm", l.overlap_tp_comm);
  v("overlap_pp_comm", l.overlap_pp_comm);
  v("overlap_ep_comm", l.overlap_ep_comm);
  v("expert_imbalance", l.expert_imbalance);
  v("flash_attention", l.flash_attention);
  v("attention_kernel", l.attention_kernel, kAttentionKernelNames);
  v("cp_comm", l.cp_comm, kCpCommNames);
  v("fused_cross_entropy", l.fused_cross_entropy);
  v("cached_wgrad_placeholders", l.cached_wgrad_placeholders);
  v("zero3_per_tensor", l.zero3_per_tensor);
  v("fp32_shards", l.fp32_shards);
  v("optimizer_states", l.optimizer_states, kOptimizerStatesNames);
  v("offload_layers", l.offload_layers);
  v("pp_layout", l.pp_layout);
  v("schedule", l.schedule, kScheduleNames);
  v.Nested("stack", [&](auto& w) { StackFields(l.stack, w); });
}

template <class S, class V>
void ScenarioFields(S& s, V& v) {
  v.Nested("model", [&](auto& w) { ModelFields(s.model, w); });
  v.Nested("cluster", [&](auto& w) { ClusterFields(s.cluster, w); });
  v.Nested("training", [&](auto& w) { TrainingFields(s.training, w); });
  v.Nested("layout", [&](auto& w) { LayoutFields(s.layout, w); });
}

class Writer {
 public:
  explicit Writer(json& j) : j_(j) {}
  template <class T>
  void operator()(const char* key, const T& x) {
    j_[key] = x;
  }
  template <class E, size_t N>
  void operator()(const char* key, const E& e, const EnumNames<E, N>& names) {
    j_[key] = names.Name(e);
  }
  template <class E, size_t N>
  void operator()(const char* key, const std::optional<E>& e, const EnumNames<E, N>& names) {
    j_[key] = e ? json(names.Name(*e)) : json(nullptr);
  }
  template <class F>
  void Nested(const char* key, F&& f) {
    Writer w(j_[key] = json::object());
    f(w);
  }

 private:
  json& j_;
};

// A value for an error message: its JSON text as util/text.h shows it (dump() is one line).
std::string ShownValue(const json& v) { return Shown(v.dump()); }

// Reads a struct's fields from one object of the document, on the one field reader
// (util/json_fields.h: the file, the path of each field and the message form); every member
// is optional (it keeps its default), and one no field takes is an error.
class Reader {
 public:
  explicit Reader(const JsonView& v) : v_(v) {
    if (!v_.node().is_object())
      v_.root().Fail(v_.prefix(), fmt::format("must be an object, got {}", ShownValue(v_.node())));
  }

  void operator()(const char* key, std::string& x) {
    if (const json* v = Get(key)) {
      if (!v->is_string()) Fail(key, *v, "must be a string");
      x = v->get<std::string>();
    }
  }
  void operator()(const char* key, bool& x) {
    if (const json* v = Get(key)) {
      if (!v->is_boolean()) Fail(key, *v, "must be true or false");
      x = v->get<bool>();
    }
  }
  void operator()(const char* key, double& x) {
    if (const json* v = Get(key)) {
      if (!v->is_number() || v->get<double>() < 0) Fail(key, *v, "must be a non-negative number");
      x = v->get<double>();
    }
  }
  void operator()(const char* key, int64_t& x) {
    if (const json* v = Get(key)) x = Integer(key, *v, INT64_MAX);
  }
  void operator()(const char* key, int& x) {
    if (const json* v = Get(key)) x = static_cast<int>(Integer(key, *v, INT_MAX));
  }
  void operator()(const char* key, uint8_t& x) {
    if (const json* v = Get(key)) x = static_cast<uint8_t>(Integer(key, *v, 127));
  }
  void operator()(const char* key, std::vector<int>& x) {
    if (const json* v = Get(key)) {
      if (!v->is_array()) Fail(key, *v, "must be an array of non-negative integers");
      x.clear();
      for (const json& e : *v) x.push_back(static_cast<int>(Integer(key, e, INT_MAX)));
    }
  }
  template <class E, size_t N>
  void operator()(const char* key, E& e, const EnumNames<E, N>& names) {
    if (const json* v = Get(key)) e = Enum(key, *v, names);
  }
  template <class E, size_t N>
  void operator()(const char* key, std::optional<E>& e, const EnumNames<E, N>& names) {
    if (const json* v = Get(key)) {
      if (v->is_null())
        e.reset();
      else
        e = Enum(key, *v, names);
    }
  }
  template <class F>
  void Nested(const char* key, F&& f) {
    if (Get(key)) {
      Reader r(v_.Child(key));
      f(r);
      r.Finish();
    }
  }

  // After the fields: a member no field took is an error (a misspelt name would be lost).
  void Finish() const {
    for (const auto& [k, v] : v_.node().items())
      if (!seen_.contains(k)) throw InputError(fmt::format("{}: unknown field '{}'", v_.root().file(), v_.PathOf(k)));
  }

  const json* Get(const std::string& key) {
    seen_.insert(key);
    auto it = v_.node().find(key);
    return it == v_.node().end() ? nullptr : &*it;
  }

 private:
  [[noreturn]] void Fail(const std::string& key, const json& v, const std::string& what) const {
    v_.Fail(key, fmt::format("{}, got {}", what, ShownValue(v)));
  }

  int64_t Integer(const std::string& key, const json& v, int64_t max) const {
    const std::string what = fmt::format("must be an integer from 0 to {}", max);
    if (v.is_number_unsigned()) {
      if (v.get<uint64_t>() > static_cast<uint64_t>(max)) Fail(key, v, what);
      return static_cast<int64_t>(v.get<uint64_t>());
    }
    if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() > max) Fail(key, v, what);
    return v.get<int64_t>();
  }

  template <class E, size_t N>
  E Enum(const std::string& key, const json& v, const EnumNames<E, N>& names) const {
    if (!v.is_string()) Fail(key, v, "must be one of " + names.List());
    return names.Parse(v.get<std::string>(), fmt::format("{}: field '{}'", v_.root().file(), v_.PathOf(key)), "name");
  }

  JsonView v_;
  std::set<std::string, std::less<>> seen_;
};

}  // namespace

json ScenarioToJson(const Scenario& s) {
  json j = {{"schema", kScenarioSchema}};
  Writer w(j);
  ScenarioFields(s, w);
  return j;
}

Scenario ScenarioFromJson(const json& j, const std::string& where) {
  const JsonFields f(j, where);
  Reader r(JsonView(f, j, ""));
  const json* schema = r.Get("schema");
  if (!schema || *schema != kScenarioSchema)
    f.Fail("schema", fmt::format("must be \"{}\", got {}", kScenarioSchema,
                                 schema ? ShownValue(*schema) : std::string("nothing")));
  Scenario s;
  ScenarioFields(s, r);
  r.Finish();
  ValidateModel(s.model, where + ": model");
  // The cost model divides by these.
  const std::pair<const char*, int64_t> positive[] = {{"cluster.gpus", s.cluster.gpus},
                                                      {"cluster.fabric.gpus_per_node", s.cluster.fabric.gpus_per_node},
                                                      {"cluster.fabric.nvlink_domain", s.cluster.fabric.nvlink_domain},
                                                      {"training.seq", s.training.seq},
                                                      {"training.global_batch", s.training.global_batch}};
  for (const auto& [field, v] : positive)
    if (v <= 0) f.Fail(field, fmt::format("must be positive, got {}", v));
  return s;
}

Scenario ScenarioFromJsonText(std::string_view text, const std::string& where) {
  json j;
  try {
    j = ParseJson(text, where);  // nesting bounded, duplicate keys refused
  } catch (const json::parse_error& e) {
    throw InputError(fmt::format("{}: not valid JSON at byte {}", where, e.byte));
  } catch (const json::out_of_range& e) {  // a number beyond double, e.g. 1e400 (no position given)
    const std::string what = e.what();
    throw InputError(fmt::format("{}: not valid JSON: {}", where, what.substr(what.find(']') + 2)));
  }
  return ScenarioFromJson(j, where);
}

}  // namespace paratune
