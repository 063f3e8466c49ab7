// Kernel classification from a GPU event's name: HTA's coarse kernel type (used for exposed
// communication and for choosing compute intervals), a finer category for paratune's kernel
// breakdown, and the collective a communication kernel performs.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "trace/trace_event.h"
#include "util/collective.h"
#include "util/enum_names.h"

namespace paratune {

// Holistic Trace Analysis's kernel type, reproduced exactly: get_kernel_type in
// github.com/facebookresearch/HolisticTraceAnalysis hta/utils/utils.py with the patterns of
// hta/common/types.py (CommunicateKernelGroupingPattern, MemoryKernelGroupingPattern,
// ComputeKernelGroupingPattern). Python re.match semantics: anchored at the start, case-sensitive,
// '.' stops at a newline; the first rule that matches wins:
//  1. COMMUNICATION: starts with "nccl", "hip" or "hccl", or contains "ncclKernel"
//     ("ncclDevKernel_AllGather_RING_LL(...)", "void foo<ncclKernel>", and also "hipMemcpy...").
//  2. MEMORY: starts with "Memcpy", "hipMemcpy", "Memset", "hipMemset" or "dma".
//  3. COMPUTATION unless the name starts with "nccl", "hip", "hccl", "Stream Wait Event",
//     "runFunction", "job_exe", "packet", "pe_exe", "cpum_exe_subgraph",
//     "collective_subgraph_execution", or contains "Memcpy", "Memset", "dma" or "Sync", or starts
//     with "cuda" and contains "LaunchKernel" after it.
//  4. OTHER ("Stream Sync", "Event Sync", "Stream Wait Event", "cudaLaunchKernel").
enum class HtaKernelType : uint8_t { kComputation, kCommunication, kMemory, kOther };

HtaKernelType HtaKernelTypeOf(std::string_view name);
inline constexpr EnumNames<HtaKernelType, 4> kHtaKernelTypeNames{{{{HtaKernelType::kComputation, "COMPUTATION"},
                                                                   {HtaKernelType::kCommunication, "COMMUNICATION"},
                                                                   {HtaKernelType::kMemory, "MEMORY"},
                                                                   {HtaKernelType::kOther, "OTHER"}}},
                                                                 4};
inline const char* HtaKernelTypeName(HtaKernelType type) { return kHtaKernelTypeNames.Name(type); }

// What a GPU event does, for the kernel breakdown. The first rule that applies wins:
//  1. memcpy / memset / sync by EventKind (kMemcpy, kMemset, kCudaSync): the category the
//     profiler recorded beats any name.
//  2. memcpy / memset by HTA's MEMORY prefixes ("Memcpy HtoD (Pageable -> Device)", "Memset
//     (Device)", "hipMemcpy...", "dma..." counts as memcpy). Checked before communication so that
//     HTA's "^hip" communication rule does not swallow "hipMemcpy".
//  3. communication: HTA COMMUNICATION ("ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)").
//     And the collective kernels outside NCCL (CustomCollectiveOf: "void (anonymous
//     namespace)::two_shot_all_reduce_kernel<...>", "void vllm::cross_device_reduce_1stage<...>").
//  4. sync: HTA OTHER ("Stream Sync", "Event Sync", "Stream Wait Event").
// The rest go by case-insensitive substrings:
//  5. attention: "flash", "fmha", "attention", "attn", "sdpa", "cudnn_sdp", "efficient_attention"
//     ("flash_fwd_kernel<...>", "fmha_cutlassF_f16_aligned_64x64_rf_sm80").
//  6. gemm: "gemm", "gemv", "cutlass", "cublas", "sm80_xmma", "sm90_xmma", "xmma_gemm", "ampere_",
//     "volta_", "turing_", "hopper", "nvjet", "matmul", "_mma", "s884", "s1688", "h884", "h1688",
//     "sgemm", "hgemm", "bgemm", "triton_tem" (Inductor's mm templates), and convolutions, which are
//     tensor-core GEMMs too: "implicit_gemm", "conv" (not "convert", as in Inductor's
//     "convert_element_type"), "wgrad", "dgrad", and "cudnn::" when no reduction substring
//     matches ("cudnn::bn_fw_tr_1C11_kernel_NCHW" is a batch norm)
//     ("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64", "nvjet_tst_192x192_64x3_2x1_v_bz_TNN").
//  7. optimizer: "multi_tensor_apply", "adam", "fused_adam", "optimizer".
//  8. reduction (norms, softmax, reductions): "reduce_kernel", "layer_norm", "layernorm",
//     "rms_norm", "rmsnorm", "softmax", "batch_norm", "bn_fw", "bn_bw", "norm", "triton_red",
//     "triton_per" (Inductor reductions) ("cunn_SoftMaxForward<...>", "vectorized_layer_norm_kernel").
//  9. elementwise: "elementwise", "vectorized", "unrolled", "triton_poi", "fill", "copy_kernel",
//     "cat", "index", "gather", "scatter" ("triton_poi_fused_add_0", "CatArrayBatchedCopy<...>").
// 10. other.
enum class KernelCategory : uint8_t {
  kGemm,
  kAttention,
  kCommunication,
  kMemcpy,
  kMemset,
  kElementwise,
  kReduction,  // norms, softmax, reductions
  kOptimizer,
  kSync,
  kOther,
};

KernelCategory KernelCategoryOf(std::string_view name, EventKind kind);
// "gemm", "attention", "communication", "memcpy", "memset", "elementwise", "reduction",
// "optimizer", "sync", "other"
inline constexpr EnumNames<KernelCategory, 10> kKernelCategoryNames{{{{KernelCategory::kGemm, "gemm"},
                                                                      {KernelCategory::kAttention, "attention"},
                                                                      {KernelCategory::kCommunication, "communication"},
                                                                      {KernelCategory::kMemcpy, "memcpy"},
                                                                      {KernelCategory::kMemset, "memset"},
                                                                      {KernelCategory::kElementwise, "elementwise"},
                                                                      {KernelCategory::kReduction, "reduction"},
                                                                      {KernelCategory::kOptimizer, "optimizer"},
                                                                      {KernelCategory::kSync, "sync"},
                                                                      {KernelCategory::kOther, "other"}}},
                                                                    10};
inline const char* KernelCategoryName(KernelCategory category) { return kKernelCategoryNames.Name(category); }

// From args->collective when it is non-empty and known (PyTorch's names, case-insensitive,
// underscores ignored: "allreduce", "all_reduce", "allreduce_coalesced", "allgather",
// "_allgather_base", "all_gather_into_tensor", "reduce_scatter", "_reduce_scatter_base",
// "reduce_scatter_tensor", "all_to_all", "alltoall", "all_to_allv", "alltoall_base",
// "broadcast", "_broadcast_oop", "reduce", "_reduce_oop", "send", "recv", "barrier" (an all-reduce
// of one element), "gather" and "scatter" (kOther); an "nccl" prefix as in "ncclAllReduce" is
// dropped). Otherwise from the kernel name: NCCL < 2.19 "ncclKernel_<Coll>_<Algo>_<Proto>_...",
// NCCL >= 2.19 "ncclDevKernel_<Coll>_..." and "ncclDevKernel_Generic" (kOther), NCCL's symmetric
// kernels "ncclSymkDevKernel_<Coll>_..." (2.28; "ncclSymDevKernel_" in 2.27), NCCL < 2.8
// "nccl<Coll>RingLLKernel_sum_f32", with Coll one of AllReduce, AllGather, ReduceScatter,
// Broadcast, Reduce, SendRecv, AllToAll (RCCL), Generic; else a collective kernel outside NCCL
// (CustomCollectiveOf). So a SendRecv kernel whose args say all_to_all is kAllToAll. `args` may
// be null.
Collective CollectiveKindOf(std::string_view kernel_name, const CollectiveArgs* args);

// Collective kernels outside NCCL, which HTA's patterns do not count as communication (its
// users ask for them: HTA issues #208 and #290, TraceLens #306), by a substring of the kernel's own
// name (ShortKernelName, lowercased), each with its source:
//  - PyTorch symmetric memory (torch/csrc/distributed/c10d/symm_mem/CUDASymmetricMemoryOps.cu):
//    "one_shot_all_reduce", "two_shot_all_reduce", "multimem_all_reduce", "multimem_one_shot"
//    (all-reduce), "multimem_all_gather" (all-gather);
//  - vLLM's custom all-reduce (csrc/custom_all_reduce.cuh): "cross_device_reduce" (all-reduce);
//  - Transformer Engine's userbuffers (transformer_engine/common/comm_gemm_overlap/userbuffers/
//    userbuffers.cu): "userbuffers" (other: one kernel family serves all-gather and reduce-scatter);
//  - DeepEP (csrc/kernels/intranode.cu, internode.cu, internode_ll.cu): "deep_ep::" (all-to-all:
//    dispatch, combine and their notify kernels).
// NCCL's own kernels, symmetric ones ("ncclSymkDevKernel_AllReduce_...", NCCL 2.28) included,
// start with "nccl" and are HTA's. Returns the collective, or false for any other kernel.
bool CustomCollectiveOf(std::string_view kernel_name, Collective* kind);
// Whether a kernel moves data between GPUs: HTA's COMMUNICATION or a collective kernel outside
// NCCL (paratune's collectives, stragglers and kernel categories; HTA's own figures keep HTA's
// type).
bool IsCommunicationKernel(std::string_view name);

// A kernel's own name for tables and classification: the return type, template arguments,
// "(anonymous namespace)" and the parameter list dropped
// ("void at::native::(anonymous namespace)::foo<float, 4>(int, ...)" -> "at::native::foo").
// Names without templates or "void " (e.g. "Memcpy HtoD (Pageable -> Device)") are unchanged.
std::string ShortKernelName(std::string_view name);

}  // namespace paratune
