#include "python/keywords.h"

#include <fmt/format.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace paratune::python {
namespace {

namespace py = pybind11;

template <typename T>
T As(py::handle v, const std::string& name);

std::string TypeName(py::handle v) { return py::str(py::type::handle_of(v).attr("__name__")); }

[[noreturn]] void WrongType(py::handle v, const std::string& name, const char* wanted) {
  throw py::type_error(fmt::format("{}: expected {}, got {}", name, wanted, TypeName(v)));
}

template <>
bool As<bool>(py::handle v, const std::string& name) {
  if (!py::isinstance<py::bool_>(v)) WrongType(v, name, "bool");
  return v.cast<bool>();
}

// An integer, not a bool (bool is a subclass of int in Python).
int64_t AsInteger(py::handle v, const std::string& name) {
  if (!py::isinstance<py::int_>(v) || py::isinstance<py::bool_>(v)) WrongType(v, name, "int");
  try {
    return v.cast<int64_t>();
  } catch (const py::cast_error&) {
    throw py::type_error(fmt::format("{}: {} does not fit a 64-bit integer", name, std::string(py::repr(v))));
  }
}

template <>
int64_t As<int64_t>(py::handle v, const std::string& name) {
  return AsInteger(v, name);
}

template <>
long long As<long long>(py::handle v, const std::string& name) {
  return AsInteger(v, name);
}

template <>
int As<int>(py::handle v, const std::string& name) {
  const int64_t x = AsInteger(v, name);
  if (x < INT32_MIN || x > INT32_MAX)
    throw py::type_error(fmt::format("{}: {} does not fit a 32-bit integer", name, x));
  return static_cast<int>(x);
}

template <>
double As<double>(py::handle v, const std::string& name) {
  if (py::isinstance<py::bool_>(v) || !(py::isinstance<py::float_>(v) || py::isinstance<py::int_>(v)))
    WrongType(v, name, "float");
  return v.cast<double>();
}

// A str, or a path (os.PathLike) for the keywords that name files.
template <>
std::string As<std::string>(py::handle v, const std::string& name) {
  if (py::isinstance<py::str>(v)) return v.cast<std::string>();
  if (py::hasattr(v, "__fspath__")) return py::module_::import("os").attr("fspath")(v).cast<std::string>();
  WrongType(v, name, "str");
}

// A number as text for the library's parser (the CLI's flag text): a str, an int, or a float
// (its repr, which reads back as the same double).
std::string AsNumberText(py::handle v, const std::string& name) {
  if (py::isinstance<py::str>(v)) return v.cast<std::string>();
  if (py::isinstance<py::bool_>(v) || !(py::isinstance<py::int_>(v) || py::isinstance<py::float_>(v)))
    WrongType(v, name, "a number or str");
  return py::repr(v).cast<std::string>();
}

template <>
std::vector<int> As<std::vector<int>>(py::handle v, const std::string& name) {
  if (!py::isinstance<py::sequence>(v) || py::isinstance<py::str>(v)) WrongType(v, name, "a list of int");
  std::vector<int> out;
  for (py::handle x : v) out.push_back(As<int>(x, name));
  return out;
}

// A list of str (or paths), or one str or path (a list of one).
template <>
std::vector<std::string> As<std::vector<std::string>>(py::handle v, const std::string& name) {
  if (py::isinstance<py::str>(v) || py::hasattr(v, "__fspath__")) return {As<std::string>(v, name)};
  if (!py::isinstance<py::sequence>(v)) WrongType(v, name, "a str or a list of str");
  std::vector<std::string> out;
  for (py::handle x : v) out.push_back(As<std::string>(x, name));
  return out;
}

using Setter = std::function<void(Keywords&, py::handle, const std::string&)>;

template <typename T>
Setter Into(T ScenarioRequest::*m) {
  return [m](Keywords& k, py::handle v, const std::string& n) { k.scenario.*m = As<T>(v, n); };
}
template <typename T>
Setter IntoLayout(T Layout::*m) {
  return [m](Keywords& k, py::handle v, const std::string& n) { k.scenario.layout.*m = As<T>(v, n); };
}
template <typename T>
Setter IntoDims(T InlineDims::*m) {
  return [m](Keywords& k, py::handle v, const std::string& n) { k.scenario.dims.*m = As<T>(v, n); };
}
template <typename T>
Setter IntoSearch(T PlanSearch::*m) {
  return [m](Keywords& k, py::handle v, const std::string& n) { k.search.*m = As<T>(v, n); };
}
template <typename T>
Setter IntoTraces(T AnalyzeRequest::*m) {
  return [m](Keywords& k, py::handle v, const std::string& n) { k.analyze.*m = As<T>(v, n); };
}
// A diff selection ("1009:1010", or one number for both sides): a str or an int.
Setter IntoDiffSpec(std::optional<std::string> AnalyzeRequest::*m) {
  return [m](Keywords& k, py::handle v, const std::string& n) { k.analyze.*m = AsNumberText(v, n); };
}
// The critical path's annotation ("" for the whole trace) and its instances ("1-2", or one int).
Setter IntoCriticalPath() {
  return [](Keywords& k, py::handle v, const std::string& n) { k.analyze.critical_path = As<std::string>(v, n); };
}
Setter IntoCriticalPathInstances() {
  return
      [](Keywords& k, py::handle v, const std::string& n) { k.analyze.critical_path_instances = AsNumberText(v, n); };
}
Setter IntoRank() {
  return [](Keywords& k, py::handle v, const std::string& n) { k.analyze.rank = As<int>(v, n); };
}
// --grad-reduce-in-bf16 is the CLI's negation of Layout::grad_reduce_in_fp32.
Setter IntoGradReduceInBf16() {
  return
      [](Keywords& k, py::handle v, const std::string& n) { k.scenario.layout.grad_reduce_in_fp32 = !As<bool>(v, n); };
}
Setter IntoMegatron() {
  return [](Keywords& k, py::handle v, const std::string& n) { k.from_megatron = As<std::string>(v, n); };
}
Setter IntoIgnoreUnknown() {
  return [](Keywords& k, py::handle v, const std::string& n) { k.ignore_unknown = As<bool>(v, n); };
}
template <typename T>
Setter IntoCluster(T ClusterRequest::*m) {
  return [m](Keywords& k, py::handle v, const std::string& n) { k.cluster.*m = As<T>(v, n); };
}
template <typename T>
Setter IntoReplay(T ReplayOptions::*m) {
  return [m](Keywords& k, py::handle v, const std::string& n) { k.cluster.options.*m = As<T>(v, n); };
}
Setter IntoClusterNodes() {
  return [](Keywords& k, py::handle v, const std::string& n) { k.cluster.nodes = As<int>(v, n); };
}
Setter IntoTimeline() {
  return [](Keywords& k, py::handle v, const std::string& n) { k.simulate.timeline = As<bool>(v, n); };
}
Setter IntoTrace() {
  return [](Keywords& k, py::handle v, const std::string& n) { k.trace = As<std::string>(v, n); };
}
Setter IntoText(std::optional<std::string> Keywords::*m) {
  return [m](Keywords& k, py::handle v, const std::string& n) { k.*m = AsNumberText(v, n); };
}

struct Keyword {
  const char* name;  // the CLI flag is "--" and this with '-' for '_'
  Setter set;
  Takes group = kScenario;  // a function that takes this group accepts it
};

// The keywords of paratune.cluster.replay() (ClusterRequest and its ReplayOptions).
std::vector<Keyword> ClusterKeywords() {
  return {
      {"job_history", IntoCluster(&ClusterRequest::trace), kCluster},
      {"format", IntoCluster(&ClusterRequest::format), kCluster},
      {"nodes", IntoClusterNodes(), kCluster},
      {"gpu", IntoCluster(&ClusterRequest::gpu), kCluster},
      {"topology", IntoCluster(&ClusterRequest::cluster_file), kCluster},
      {"policy", IntoCluster(&ClusterRequest::policies), kCluster},
      {"model", IntoCluster(&ClusterRequest::model), kCluster},
      {"production_vc", IntoCluster(&ClusterRequest::production_vcs), kCluster},
      {"slurm_conf", IntoCluster(&ClusterRequest::slurm_conf), kCluster},
      {"slurm_what_if", IntoCluster(&ClusterRequest::slurm_what_ifs), kCluster},
      {"slurm_qos", IntoCluster(&ClusterRequest::slurm_qos), kCluster},
      {"kueue_config", IntoCluster(&ClusterRequest::kueue_config), kCluster},
      {"checkpoint_interval", IntoCluster(&ClusterRequest::checkpoint_interval_s), kCluster},
      {"restart_overhead", IntoCluster(&ClusterRequest::restart_overhead_s), kCluster},
      {"locality", IntoCluster(&ClusterRequest::locality), kCluster},
      {"min_run", IntoReplay(&ReplayOptions::min_run_s), kCluster},
      {"locality_wait", IntoReplay(&ReplayOptions::locality_wait_s), kCluster},
      {"backfill_depth", IntoReplay(&ReplayOptions::backfill_depth), kCluster},
      {"series_interval", IntoReplay(&ReplayOptions::series_interval_s), kCluster},
  };
}

// The model, the cluster and the layout of a scenario (ScenarioRequest).
std::vector<Keyword> ScenarioKeywords() {
  return {
      {"model", Into(&ScenarioRequest::model)},
      {"model_config", Into(&ScenarioRequest::model_config)},
      {"layers", IntoDims(&InlineDims::layers)},
      {"hidden", IntoDims(&InlineDims::hidden)},
      {"ffn", IntoDims(&InlineDims::ffn)},
      {"heads", IntoDims(&InlineDims::heads)},
      {"kv_heads", IntoDims(&InlineDims::kv_heads)},
      {"vocab", IntoDims(&InlineDims::vocab)},
      {"experts", IntoDims(&InlineDims::experts)},
      {"topk", IntoDims(&InlineDims::topk)},
      {"plain_mlp", Into(&ScenarioRequest::plain_mlp)},
      {"gpu", Into(&ScenarioRequest::gpu)},
      {"hardware", Into(&ScenarioRequest::hardware_file)},
      {"fabric", Into(&ScenarioRequest::fabric)},
      {"nodes", Into(&ScenarioRequest::nodes)},
      {"gpus", Into(&ScenarioRequest::gpus)},
      {"seq", Into(&ScenarioRequest::seq)},
      {"global_batch", Into(&ScenarioRequest::global_batch)},
      {"precision", Into(&ScenarioRequest::precision)},
      {"tp", IntoLayout(&Layout::tp)},
      {"pp", IntoLayout(&Layout::pp)},
      {"vp", IntoLayout(&Layout::vp)},
      {"pp_layout", IntoLayout(&Layout::pp_layout)},
      {"cp", IntoLayout(&Layout::cp)},
      {"ep", IntoLayout(&Layout::ep)},
      {"etp", IntoLayout(&Layout::etp)},
      {"sp", IntoLayout(&Layout::sp)},
      {"zero", IntoLayout(&Layout::zero)},
      {"mbs", IntoLayout(&Layout::mbs)},
  };
}

// A scenario's recomputation, schedule, overlaps and software-stack features.
std::vector<Keyword> FeatureKeywords() {
  return {
      {"recompute", Into(&ScenarioRequest::recompute)},
      {"recompute_modules", Into(&ScenarioRequest::recompute_modules)},
      {"schedule", Into(&ScenarioRequest::schedule)},
      {"overlap_grad_reduce", IntoLayout(&Layout::overlap_grad_reduce)},
      {"overlap_param_gather", IntoLayout(&Layout::overlap_param_gather)},
      {"overlap_tp_comm", IntoLayout(&Layout::overlap_tp_comm)},
      {"overlap_pp_comm", IntoLayout(&Layout::overlap_pp_comm)},
      {"overlap_ep_comm", IntoLayout(&Layout::overlap_ep_comm)},
      {"expert_imbalance", IntoLayout(&Layout::expert_imbalance)},
      {"offload_layers", IntoLayout(&Layout::offload_layers)},
      {"flash_attention", IntoLayout(&Layout::flash_attention)},
      {"fp8_attention", IntoLayout(&Layout::fp8_attention)},
      {"fp8_activation_cache", IntoLayout(&Layout::fp8_activation_cache)},
      {"cached_wgrad_placeholders", IntoLayout(&Layout::cached_wgrad_placeholders)},
      {"grad_reduce_in_bf16", IntoGradReduceInBf16()},
      {"attention_kernel", Into(&ScenarioRequest::attention_kernel)},
      {"optimizer_states", Into(&ScenarioRequest::optimizer_states)},
      {"cp_comm", Into(&ScenarioRequest::cp_comm)},
      {"stack", Into(&ScenarioRequest::stack)},
      {"kernels", Into(&ScenarioRequest::kernels)},
      {"cuda_graphs", Into(&ScenarioRequest::cuda_graphs)},
      {"moe_dispatcher", Into(&ScenarioRequest::moe_dispatcher)},
      {"grouped_gemm", Into(&ScenarioRequest::grouped_gemm)},
      {"fused_permute", Into(&ScenarioRequest::fused_permute)},
      {"fused_router", Into(&ScenarioRequest::fused_router)},
      {"fused_grouped_mlp", Into(&ScenarioRequest::fused_grouped_mlp)},
      {"fused_cross_entropy", IntoLayout(&Layout::fused_cross_entropy)},
      {"zero3_per_tensor", IntoLayout(&Layout::zero3_per_tensor)},
      {"fp32_shards", IntoLayout(&Layout::fp32_shards)},
      {"allow_cross_domain_tp", Into(&ScenarioRequest::allow_cross_domain_tp)},
  };
}

// What plan, analyze and simulate take besides the scenario: costs, the search, the traces.
std::vector<Keyword> RunKeywords() {
  return {
      {"train_tokens", IntoText(&Keywords::train_tokens), kBudget},
      {"gpu_hour_price", IntoText(&Keywords::gpu_hour_price), kBudget},
      {"from_megatron", IntoMegatron(), kMegatron},
      {"ignore_unknown", IntoIgnoreUnknown(), kMegatron},
      {"max_tp", IntoSearch(&PlanSearch::max_tp), kSearch},
      {"max_pp", IntoSearch(&PlanSearch::max_pp), kSearch},
      {"max_vp", IntoSearch(&PlanSearch::max_vp), kSearch},
      {"max_cp", IntoSearch(&PlanSearch::max_cp), kSearch},
      {"max_ep", IntoSearch(&PlanSearch::max_ep), kSearch},
      {"max_mbs", IntoSearch(&PlanSearch::max_mbs), kSearch},
      {"top", IntoSearch(&PlanSearch::top), kSearch},
      {"objective", IntoSearch(&PlanSearch::objective), kSearch},
      {"headroom", IntoSearch(&PlanSearch::headroom), kSearch},
      {"sweep", IntoSearch(&PlanSearch::sweep), kSearch},
      {"rank", IntoRank(), kTraces},
      {"exact_ns", IntoTraces(&AnalyzeRequest::exact_ns), kTraces},
      {"include_last_step", IntoTraces(&AnalyzeRequest::include_last_step), kTraces},
      {"allow_partial", IntoTraces(&AnalyzeRequest::allow_partial), kReading},
      {"top", IntoTraces(&AnalyzeRequest::top), kTraces},
      {"threads", IntoTraces(&AnalyzeRequest::threads), kReading},
      {"trace_out", IntoTrace(), kTraces},
      {"diff_against", IntoTraces(&AnalyzeRequest::diff_against), kTraces},
      {"diff_steps", IntoDiffSpec(&AnalyzeRequest::diff_steps), kTraces},
      {"diff_ranks", IntoDiffSpec(&AnalyzeRequest::diff_ranks), kTraces},
      {"diff_device", IntoTraces(&AnalyzeRequest::diff_device), kTraces},
      {"diff_short_names", IntoTraces(&AnalyzeRequest::diff_short_names), kTraces},
      {"kernel_sequences", IntoTraces(&AnalyzeRequest::kernel_sequences), kTraces},
      {"min_sequence_length", IntoTraces(&AnalyzeRequest::min_sequence_length), kTraces},
      {"critical_path", IntoCriticalPath(), kTraces},
      {"critical_path_instances", IntoCriticalPathInstances(), kTraces},
      {"data_load_events", IntoTraces(&AnalyzeRequest::data_load_events), kTraces},
      {"timeline", IntoTimeline(), kSimulate},
      {"trace_out", IntoTrace(), kSimulate},
  };
}

const std::vector<Keyword>& KeywordTable() {
  static const std::vector<Keyword> k = [] {
    std::vector<Keyword> all;
    for (auto part : {ScenarioKeywords, FeatureKeywords, RunKeywords, ClusterKeywords})
      for (Keyword& c : part()) all.push_back(std::move(c));
    return all;
  }();
  return k;
}

}  // namespace

std::string FlagOf(const std::string& keyword) {
  std::string flag = "--" + keyword;
  for (char& c : flag)
    if (c == '_') c = '-';
  return flag;
}

Keywords ReadKeywords(const py::dict& kwargs, const char* function, unsigned takes) {
  Keywords out;
  for (auto [key, value] : kwargs) {
    const std::string name = py::str(key);
    const Keyword* k = nullptr;
    for (const Keyword& candidate : KeywordTable())
      if (name == candidate.name && (candidate.group & takes)) k = &candidate;
    if (!k) throw py::type_error(fmt::format("{}() got an unexpected keyword argument '{}'", function, name));
    if (value.is_none()) continue;
    k->set(out, value, name);
    out.scenario.given.insert(FlagOf(name));
  }
  return out;
}

std::vector<std::string> KeywordNames(unsigned takes) {
  std::vector<std::string> names;
  for (const Keyword& k : KeywordTable())
    if (k.group & takes) names.push_back(k.name);
  return names;
}

}  // namespace paratune::python
