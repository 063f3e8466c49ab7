#include "layout/stack_catalog.h"

#include <algorithm>

#include "util/error.h"
#include "util/text.h"

namespace paratune {
namespace {

// Megatron-Bridge releases (NeMo containers) and what their performance recipes turn on for MoE
// models, oldest first: scripts/performance/ of NVIDIA-NeMo/Megatron-Bridge at each release
// (docs/stacks.md, "Megatron-Bridge releases"). Dense models run the same fused Transformer
// Engine layers in every release.
struct BridgeRelease {
  const char* release;
  CudaGraphs moe_graphs;           // cuda_graph_impl / cuda_graph_scope of the MoE recipes
  MoeDispatcher nvl72_dispatcher;  // GB200 / GB300 racks
  MoeDispatcher node_dispatcher;   // 8-GPU nodes
  bool fused_permute, fused_router;
};
constexpr BridgeRelease kBridgeReleases[] = {
    {"25.11", CudaGraphs::kNone, MoeDispatcher::kAllToAll, MoeDispatcher::kAllToAll, true, false},
    {"26.02", CudaGraphs::kStatic, MoeDispatcher::kHybridEp, MoeDispatcher::kDeepEp, true, true},
    {"26.04", CudaGraphs::kStatic, MoeDispatcher::kHybridEp, MoeDispatcher::kDeepEp, true, true},
    {"26.06", CudaGraphs::kStatic, MoeDispatcher::kHybridEp, MoeDispatcher::kDeepEp, true, true},
    {"26.08", CudaGraphs::kStatic, MoeDispatcher::kHybridEp, MoeDispatcher::kDeepEp, true, true},
};

// "26.04.01" -> {26, 4, 1}; false when the text is not YY.MM[.PP].
bool ReleaseNumbers(const std::string& r, int out[3]) {
  out[2] = 0;
  int parts = 0;
  for (size_t from = 0; from <= r.size(); ++parts) {
    const size_t dot = std::min(r.find('.', from), r.size());
    const std::string_view digits = std::string_view(r).substr(from, dot - from);
    int64_t v = 0;
    const bool ok = !digits.empty() && digits[0] >= '0' && digits[0] <= '9' &&
                    ParseInteger(digits, &v) == NumberParse::kOk && v <= 9999;
    if (!ok || parts == 3) return false;
    out[parts] = static_cast<int>(v);
    from = dot + 1;
  }
  return parts >= 2 && out[1] >= 1 && out[1] <= 12;
}

// The release entry in force at `release`: the newest entry not after it.
const BridgeRelease& BridgeAt(const std::string& release) {
  if (release.empty()) return kBridgeReleases[std::size(kBridgeReleases) - 1];
  const BridgeRelease* best = &kBridgeReleases[0];
  for (const BridgeRelease& b : kBridgeReleases) {
    if (ReleaseBefore(release, b.release)) break;
    best = &b;
  }
  return *best;
}

}  // namespace

bool ReleaseBefore(const std::string& a, const std::string& b) {
  int x[3] = {0, 0, 0}, y[3] = {0, 0, 0};
  if (!a.empty()) ReleaseNumbers(a, x);
  if (!b.empty()) ReleaseNumbers(b, y);
  return std::lexicographical_compare(x, x + 3, y, y + 3);
}

std::vector<std::string> StackReleases(Framework f) {
  std::vector<std::string> out;
  if (f == Framework::kMegatronBridge)
    for (const BridgeRelease& b : kBridgeReleases) out.push_back(b.release);
  return out;
}

std::string StackNamesList() {
  std::string s = kFrameworkNames.List(", ");
  s += " (aliases:";
  for (size_t i = kFrameworkNames.canonical; i < kFrameworkNames.entries.size(); ++i)
    s += std::string(" ") + kFrameworkNames.entries[i].second;
  return s + ")";
}

StackSpec ParseStack(const std::string& text, const std::string& where) {
  StackSpec s;
  std::string rest = AsciiLower(text);
  const std::string compile_suffix = "+compile";
  if (rest.size() > compile_suffix.size() && rest.ends_with(compile_suffix)) {
    s.compiled = true;
    rest.resize(rest.size() - compile_suffix.size());
  }
  const size_t at = rest.find('@');
  const std::string name = rest.substr(0, at);
  if (at != std::string::npos) s.release = rest.substr(at + 1);
  bool found = false;
  for (const auto& [f, n] : kFrameworkNames.entries)
    if (name == n) s.framework = f, found = true;
  if (!found)
    throw InputError(where + ": unknown stack '" + text + "' (expected " + StackNamesList() + ", optionally @RELEASE)");
  if (at != std::string::npos) {
    const std::vector<std::string> known = StackReleases(s.framework);
    int numbers[3];
    if (known.empty())
      throw InputError(where + ": stack '" + name + "' has no releases paratune tells apart; give it without @" +
                       s.release);
    if (!ReleaseNumbers(s.release, numbers) || numbers[0] < 20 || numbers[0] > 99)
      throw InputError(where + ": release '" + s.release + "' of stack '" + name + "' is not YY.MM or YY.MM.PP");
    if (ReleaseBefore(s.release, known.front()))
      throw InputError(where + ": release " + s.release + " of " + name + " predates the first one described (" +
                       known.front() + ")");
  }
  if (s.compiled && s.framework != Framework::kTorchtitan && s.framework != Framework::kDeepSpeed)
    throw InputError(where + ": '+compile' applies to torchtitan and deepspeed (the other stacks run fused kernels)");
  return s;
}

std::string StackText(const StackSpec& s) {
  std::string t = FrameworkName(s.framework);
  if (!s.release.empty()) t += "@" + s.release;
  if (s.compiled) t += "+compile";
  return t;
}

void ApplyStack(const StackSpec& s, Layout& l, std::vector<std::string>* notes) {
  auto note = [&](const std::string& n) {
    if (notes) notes->push_back(StackText(s) + ": " + n);
  };
  StackFeatures& f = l.stack;
  f = StackFeatures{};
  f.framework = s.framework;
  switch (s.framework) {
    case Framework::kMegatronLm:
      // Megatron-LM's own defaults (megatron/training/arguments.py): no fusion flags set, the
      // alltoall dispatcher, no CUDA graphs, no TP overlap, FP32 gradient reduction.
      f.grouped_gemm = true;
      break;
    case Framework::kMegatronBridge: {
      const BridgeRelease& b = BridgeAt(s.release);
      // GPTConfig cross_entropy_loss_fusion = True (Megatron-Bridge
      // src/megatron/bridge/models/gpt_provider.py, as NeMo 2's).
      l.fused_cross_entropy = true;
      f.cuda_graphs = b.moe_graphs;
      f.moe_dispatcher = b.node_dispatcher;
      f.fused_permute = b.fused_permute;
      f.fused_router = b.fused_router;
      note(std::string("performance recipes of ") + b.release + ": fused cross-entropy, CUDA graphs " +
           kCudaGraphsNames.Name(b.moe_graphs) + ", MoE dispatcher " + kMoeDispatcherNames.Name(b.node_dispatcher) +
           " (" + kMoeDispatcherNames.Name(b.nvl72_dispatcher) + " in NVL72 racks)" +
           (b.fused_permute ? ", fused permutation" : "") + (b.fused_router ? ", fused router" : ""));
      break;
    }
    case Framework::kTorchtitan:
      // torchtitan: model code in plain PyTorch (torchtitan/models/llama3/model.py), per-block
      // torch.compile when asked (--compile), SDPA attention, FSDP2 with FP32 shards, no
      // fused cross-entropy.
      f.kernels = s.compiled ? Kernels::kCompiled : Kernels::kEager;
      l.attention_kernel = AttentionKernel::kSdpa;
      l.fp32_shards = true;
      l.fused_cross_entropy = false;
      note(std::string(s.compiled ? "torch.compile per block" : "eager PyTorch kernels") +
           ", SDPA attention, FSDP2 with FP32 shards");
      break;
    case Framework::kDeepSpeed:
      // DeepSpeed runs the model's own (Hugging Face) modules: eager kernels unless compiled;
      // stage 3 gathers and reduces per parameter tensor.
      f.kernels = s.compiled ? Kernels::kCompiled : Kernels::kEager;
      l.attention_kernel = AttentionKernel::kSdpa;
      l.zero3_per_tensor = true;
      note(std::string(s.compiled ? "torch.compile" : "eager PyTorch kernels") +
           ", SDPA attention, ZeRO-3 per-tensor collectives");
      break;
    case Framework::kLlmFoundry:
      // llm-foundry (MPT): nn.LayerNorm and GELU are one kernel each in eager PyTorch, ALiBi has
      // no rotary pass; attention by the flash-attn 2 package; PyTorch FSDP with FP32 shards.
      l.attention_kernel = AttentionKernel::kFlashAttention2;
      l.fp32_shards = true;
      note("flash-attn 2 attention, FSDP with FP32 shards");
      break;
  }
}

}  // namespace paratune
