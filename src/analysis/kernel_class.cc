#include "analysis/kernel_class.h"

#include <initializer_list>
#include <string>

#include "util/text.h"

namespace paratune {
namespace {

// Python's '.' does not match '\n', so every ".*" in HTA's patterns stops at the first newline;
// "^" (no re.MULTILINE) is the start of the string.
std::string_view FirstLine(std::string_view s) {
  const size_t nl = s.find('\n');
  return nl == std::string_view::npos ? s : s.substr(0, nl);
}

bool Contains(std::string_view s, std::string_view needle) { return s.find(needle) != std::string_view::npos; }

bool StartsWithAny(std::string_view s, std::initializer_list<std::string_view> prefixes) {
  for (std::string_view p : prefixes)
    if (s.starts_with(p)) return true;
  return false;
}

bool ContainsAny(std::string_view s, std::initializer_list<std::string_view> needles) {
  for (std::string_view n : needles)
    if (Contains(s, n)) return true;
  return false;
}

// `needle` occurs somewhere not followed by `unless` ("conv" but not "convert").
bool ContainsUnlessFollowedBy(std::string_view s, std::string_view needle, std::string_view unless) {
  for (size_t pos = s.find(needle); pos != std::string_view::npos; pos = s.find(needle, pos + 1))
    if (!s.substr(pos + needle.size()).starts_with(unless)) return true;
  return false;
}

// CommunicateKernelGroupingPattern: (^nccl.*)|(^hip)|(^hccl)|(.*ncclKernel.*)
// (HolisticTraceAnalysis hta/common/types.py).
bool HtaIsCommunication(std::string_view name) {
  return StartsWithAny(name, {"nccl", "hip", "hccl"}) || Contains(FirstLine(name), "ncclKernel");
}

// MemoryKernelGroupingPattern: (^(hip)?Memcpy)|(^(hip)?Memset)|(^dma) (hta/common/types.py).
bool HtaIsMemory(std::string_view name) {
  return StartsWithAny(name, {"Memcpy", "hipMemcpy", "Memset", "hipMemset", "dma"});
}

// ComputeKernelGroupingPattern (inverse_match=True) in hta/common/types.py:
// (^nccl)|(.*Memcpy)|(.*Memset)|(.*dma)|(^.*Sync)|(^Stream Wait Event)|(cuda.*LaunchKernel)|
// (^runFunction)|(^hip)|(^job_exe)|(^packet)|(^pe_exe)|(^cpum_exe_subgraph)|(^hccl)|
// (^collective_subgraph_execution). re.match anchors every alternative at position 0.
bool HtaIsComputation(std::string_view name) {
  const std::string_view line = FirstLine(name);
  if (StartsWithAny(name, {"nccl", "Stream Wait Event", "runFunction", "hip", "job_exe", "packet", "pe_exe",
                           "cpum_exe_subgraph", "hccl", "collective_subgraph_execution"}))
    return false;
  if (ContainsAny(line, {"Memcpy", "Memset", "dma", "Sync"})) return false;
  if (line.starts_with("cuda") && Contains(line.substr(4), "LaunchKernel")) return false;
  return true;
}

// The collective a PyTorch "Collective name" (already lower-cased, underscores removed, "nccl"
// dropped) names; `known` false when it is none of them. Names from
// torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp (the seq/record_param_comms names).
Collective KindFromArgName(std::string_view n, bool* known) {
  *known = true;
  if (n.starts_with("allreduce")) return Collective::kAllReduce;
  if (n.starts_with("allgather")) return Collective::kAllGather;
  if (n.starts_with("reducescatter")) return Collective::kReduceScatter;
  if (n.starts_with("alltoall")) return Collective::kAllToAll;
  if (n.starts_with("broadcast")) return Collective::kBroadcast;
  if (n.starts_with("reduce")) return Collective::kReduce;
  if (n.starts_with("send") || n.starts_with("recv")) return Collective::kSendRecv;
  if (n == "barrier") return Collective::kAllReduce;  // ProcessGroupNCCL::barrier all-reduces one element
  if (n.starts_with("gather") || n.starts_with("scatter")) return Collective::kOther;
  *known = false;
  return Collective::kOther;
}

// The <Coll> token at the start of `rest` (NCCL src/device/generate.py names kernels
// ncclDevKernel_<Coll>_...; older NCCL src/collectives/device/*.cu ncclKernel_<Coll>_... and
// nccl<Coll>RingLLKernel_...).
// A collective named by a piece of a kernel's name.
struct NamedCollective {
  std::string_view part;
  Collective kind;
};

bool KindFromKernelToken(std::string_view rest, Collective* kind) {
  static constexpr NamedCollective kTokens[] = {
      {"AllReduce", Collective::kAllReduce},
      {"AllGather", Collective::kAllGather},
      {"ReduceScatter", Collective::kReduceScatter},
      {"AllToAll", Collective::kAllToAll},
      {"Broadcast", Collective::kBroadcast},
      {"Reduce", Collective::kReduce},
      {"SendRecv", Collective::kSendRecv},
      {"Send", Collective::kSendRecv},
      {"Recv", Collective::kSendRecv},
      {"Generic", Collective::kOther},
  };
  for (const auto& t : kTokens) {
    if (rest.starts_with(t.part)) {
      *kind = t.kind;
      return true;
    }
  }
  return false;
}

// CustomCollectiveOf on the kernel's own name, lowercased: THE list of kernel_class.h, first match
// wins.
bool CustomCollectiveOfOwnName(std::string_view own, Collective* kind) {
  static constexpr NamedCollective kKernels[] = {
      {"one_shot_all_reduce", Collective::kAllReduce},
      {"two_shot_all_reduce", Collective::kAllReduce},
      {"multimem_all_reduce", Collective::kAllReduce},
      {"multimem_one_shot", Collective::kAllReduce},
      {"multimem_all_gather", Collective::kAllGather},
      {"cross_device_reduce", Collective::kAllReduce},
      {"userbuffers", Collective::kOther},
      {"deep_ep::", Collective::kAllToAll},
  };
  for (const auto& k : kKernels)
    if (own.find(k.part) != std::string_view::npos) {
      *kind = k.kind;
      return true;
    }
  return false;
}

}  // namespace

HtaKernelType HtaKernelTypeOf(std::string_view name) {
  // get_kernel_type in HolisticTraceAnalysis hta/utils/utils.py: communication, memory,
  // computation, other, first match wins.
  if (HtaIsCommunication(name)) return HtaKernelType::kCommunication;
  if (HtaIsMemory(name)) return HtaKernelType::kMemory;
  if (HtaIsComputation(name)) return HtaKernelType::kComputation;
  return HtaKernelType::kOther;
}

static KernelCategory CategoryOfText(const std::string& lowered);

KernelCategory KernelCategoryOf(std::string_view name, EventKind kind) {
  switch (kind) {
    case EventKind::kMemcpy:
      return KernelCategory::kMemcpy;
    case EventKind::kMemset:
      return KernelCategory::kMemset;
    case EventKind::kCudaSync:
      return KernelCategory::kSync;
    default:
      break;
  }
  if (StartsWithAny(name, {"Memcpy", "hipMemcpy", "dma"})) return KernelCategory::kMemcpy;
  if (StartsWithAny(name, {"Memset", "hipMemset"})) return KernelCategory::kMemset;
  switch (HtaKernelTypeOf(name)) {
    case HtaKernelType::kCommunication:
      return KernelCategory::kCommunication;
    case HtaKernelType::kOther:
      return KernelCategory::kSync;
    default:
      break;
  }
  // Classify by the kernel's own name: its template arguments and parameters name libraries
  // (fbgemm_gpu::, cutlass:: accessors) that say nothing about what the kernel does. Only when the
  // own name says nothing is the full name (minus "fbgemm") consulted. A collective kernel outside
  // NCCL is communication (HTA's "nccl" names returned above).
  std::string own_name = AsciiLower(ShortKernelName(name));
  if (Collective custom; CustomCollectiveOfOwnName(own_name, &custom)) return KernelCategory::kCommunication;
  for (size_t at; (at = own_name.find("fbgemm")) != std::string::npos;) own_name.replace(at, 6, "fb_____");
  const KernelCategory own = CategoryOfText(own_name);
  if (own != KernelCategory::kOther) return own;
  std::string full = AsciiLower(name);
  for (size_t at; (at = full.find("fbgemm")) != std::string::npos;) full.replace(at, 6, "fb_____");
  return CategoryOfText(full);
}

std::string ShortKernelName(std::string_view name) {
  if (name.find('<') == std::string_view::npos && name.rfind("void ", 0) != 0) return std::string(name);
  std::string s(name);
  if (s.rfind("void ", 0) == 0) s.erase(0, 5);
  for (size_t at; (at = s.find("(anonymous namespace)::")) != std::string::npos;) s.erase(at, 23);
  std::string out;
  int depth = 0;
  for (char c : s) {
    if (c == '<') {
      ++depth;
      continue;
    }
    if (c == '>') {
      if (depth > 0) --depth;
      continue;
    }
    if (depth > 0) continue;
    if (c == '(') break;
    out += c;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  if (out.empty()) return std::string(name);
  // Generic wrappers (cutlass::Kernel<Operator>, cutlass::device_kernel<...>) are named by their
  // first template argument.
  const size_t lt = s.find('<');
  if (lt != std::string::npos &&
      (out.size() >= 6 &&
       (out.compare(out.size() - 6, 6, "Kernel") == 0 || out.compare(out.size() - 6, 6, "kernel") == 0) &&
       out.find("::") != std::string::npos && out.find("cutlass") != std::string::npos)) {
    size_t end = lt + 1;
    int d = 0;
    while (end < s.size() && !(d == 0 && (s[end] == ',' || s[end] == '>'))) {
      if (s[end] == '<') ++d;
      if (s[end] == '>') --d;
      ++end;
    }
    out += "<" + s.substr(lt + 1, std::min<size_t>(end - lt - 1, 80)) + ">";
  }
  return out;
}

static KernelCategory CategoryOfText(const std::string& l) {
  if (ContainsAny(l, {"flash", "fmha", "attention", "attn", "sdpa", "cudnn_sdp", "efficient_attention"}))
    return KernelCategory::kAttention;
  const bool reduction = ContainsAny(l, {"reduce_kernel", "layer_norm", "layernorm", "rms_norm", "rmsnorm", "softmax",
                                         "batch_norm", "bn_fw", "bn_bw", "triton_red", "triton_per"}) ||
                         ContainsUnlessFollowedBy(l, "norm", "al_");
  if (ContainsAny(l, {"gemm",       "gemv",          "cutlass", "cublas", "sm80_xmma", "sm90_xmma", "xmma_gemm",
                      "ampere_",    "volta_",        "turing_", "hopper", "nvjet",     "matmul",    "_mma",
                      "s884",       "s1688",         "h884",    "h1688",  "sgemm",     "hgemm",     "bgemm",
                      "triton_tem", "implicit_gemm", "wgrad",   "dgrad"}) ||
      ContainsUnlessFollowedBy(l, "conv", "ert") || (!reduction && Contains(l, "cudnn::")))
    return KernelCategory::kGemm;
  if (ContainsAny(l, {"multi_tensor_apply", "adam", "fused_adam", "optimizer"})) return KernelCategory::kOptimizer;
  if (reduction) return KernelCategory::kReduction;
  if (ContainsAny(l, {"elementwise", "vectorized", "unrolled", "triton_poi", "fill", "copy_kernel", "cat", "index",
                      "gather", "scatter"}))
    return KernelCategory::kElementwise;
  return KernelCategory::kOther;
}

Collective CollectiveKindOf(std::string_view kernel_name, const CollectiveArgs* args) {
  if (args != nullptr && !args->collective.empty()) {
    std::string n;
    for (char c : AsciiLower(args->collective))
      if (c != '_' && c != ' ') n.push_back(c);
    std::string_view v = n;
    if (v.starts_with("nccl")) v.remove_prefix(4);
    bool known = false;
    const Collective k = KindFromArgName(v, &known);
    if (known) return k;
  }
  Collective k = Collective::kOther;
  for (std::string_view marker : {"ncclDevKernel_", "ncclSymkDevKernel_", "ncclSymDevKernel_", "ncclKernel_", "nccl"}) {
    const size_t pos = kernel_name.find(marker);
    if (pos != std::string_view::npos && KindFromKernelToken(kernel_name.substr(pos + marker.size()), &k)) return k;
  }
  if (CustomCollectiveOf(kernel_name, &k)) return k;
  return Collective::kOther;
}

bool CustomCollectiveOf(std::string_view kernel_name, Collective* kind) {
  return !kernel_name.starts_with("nccl") && CustomCollectiveOfOwnName(AsciiLower(ShortKernelName(kernel_name)), kind);
}

bool IsCommunicationKernel(std::string_view name) {
  Collective kind;
  return HtaKernelTypeOf(name) == HtaKernelType::kCommunication || CustomCollectiveOf(name, &kind);
}

}  // namespace paratune
