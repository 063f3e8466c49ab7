#include "analysis/kernel_class.h"

#include <gtest/gtest.h>

#include <string>

namespace paratune {
namespace {

struct HtaCase {
  const char* name;
  HtaKernelType type;
};

// Every alternative of HTA's three patterns (hta/common/types.py), with names from real traces
// where there are some.
TEST(KernelClass, HtaKernelTypeEveryAlternative) {
  const HtaCase cases[] = {
      // COMMUNICATION: (^nccl.*)|(^hip)|(^hccl)|(.*ncclKernel.*)
      {"ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)", HtaKernelType::kCommunication},
      {"ncclDevKernel_AllGather_RING_LL(ncclDevComm*, unsigned long, ncclWork*)", HtaKernelType::kCommunication},
      {"void foo<ncclKernel>", HtaKernelType::kCommunication},
      {"void ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclWorkElem)", HtaKernelType::kCommunication},
      {"hipMemcpyWithStream", HtaKernelType::kCommunication},  // "^hip" comes before the memory rule
      {"hcclAllReduce", HtaKernelType::kCommunication},
      // MEMORY: (^(hip)?Memcpy)|(^(hip)?Memset)|(^dma)
      {"Memcpy HtoD (Pageable -> Device)", HtaKernelType::kMemory},
      {"Memcpy DtoD (Device -> Device)", HtaKernelType::kMemory},
      {"Memset (Device)", HtaKernelType::kMemory},
      {"dma_transfer", HtaKernelType::kMemory},
      // OTHER: not communication or memory, and one of the compute pattern's exclusions.
      {"Stream Sync", HtaKernelType::kOther},
      {"Context Sync", HtaKernelType::kOther},
      {"Event Sync", HtaKernelType::kOther},
      {"Stream Wait Event", HtaKernelType::kOther},
      {"cudaLaunchKernel", HtaKernelType::kOther},
      {"cudaLaunchKernelExC_v11060", HtaKernelType::kOther},
      {"cudaMemcpyAsync", HtaKernelType::kOther},          // (.*Memcpy)
      {"cudaMemsetAsync", HtaKernelType::kOther},          // (.*Memset)
      {"void my_dma_copy_kernel", HtaKernelType::kOther},  // (.*dma)
      {"cudaDeviceSynchronize", HtaKernelType::kOther},    // (^.*Sync)
      {"runFunction", HtaKernelType::kOther},
      {"job_exe_0", HtaKernelType::kOther},
      {"packet_12", HtaKernelType::kOther},
      {"pe_exe_3", HtaKernelType::kOther},
      {"cpum_exe_subgraph_1", HtaKernelType::kOther},
      {"collective_subgraph_execution", HtaKernelType::kOther},
      // COMPUTATION: everything else.
      {"void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
       "at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)",
       HtaKernelType::kComputation},
      {"triton_poi_fused_add_0", HtaKernelType::kComputation},
      {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64_warpgroupsize2x1x1_execute_segment_k_off_"
       "kernel__5x_cublas",
       HtaKernelType::kComputation},
      {"cudaGraphLaunch", HtaKernelType::kComputation},      // "cuda" but no "LaunchKernel"
      {"xcudaLaunchKernel", HtaKernelType::kComputation},    // (cuda.*LaunchKernel) is anchored at 0
      {"NCCL_AllReduce", HtaKernelType::kComputation},       // case-sensitive
      {"myStream Wait Event", HtaKernelType::kComputation},  // (^Stream Wait Event) only at the start
      {"foo\nncclKernel", HtaKernelType::kComputation},      // '.' stops at a newline
      {"foo\nSync", HtaKernelType::kComputation},
      {"", HtaKernelType::kComputation},
  };
  for (const HtaCase& c : cases) EXPECT_EQ(HtaKernelTypeOf(c.name), c.type) << c.name;
}

TEST(KernelClass, HtaKernelTypeNames) {
  EXPECT_STREQ(HtaKernelTypeName(HtaKernelType::kComputation), "COMPUTATION");
  EXPECT_STREQ(HtaKernelTypeName(HtaKernelType::kCommunication), "COMMUNICATION");
  EXPECT_STREQ(HtaKernelTypeName(HtaKernelType::kMemory), "MEMORY");
  EXPECT_STREQ(HtaKernelTypeName(HtaKernelType::kOther), "OTHER");
}

struct CategoryCase {
  const char* name;
  EventKind kind;
  KernelCategory category;
};

TEST(KernelClass, CategoriesOfRealKernelNames) {
  const CategoryCase cases[] = {
      {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64_warpgroupsize2x1x1_execute_segment_k_off_"
       "kernel__5x_cublas",
       EventKind::kKernel, KernelCategory::kGemm},
      {"nvjet_tst_192x192_64x3_2x1_v_bz_coopA_TNN", EventKind::kKernel, KernelCategory::kGemm},
      {"ampere_bf16_s16816gemm_bf16_128x64_ldg8_f2f_stages_64x4_tn", EventKind::kKernel, KernelCategory::kGemm},
      {"void cutlass::Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_16x16_128x2_tn_align8>"
       "(cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_16x16_128x2_tn_align8::Params)",
       EventKind::kKernel, KernelCategory::kGemm},
      {"void gemv2T_kernel_val<int, int, float, float, float, float, 128, 16, 4, 4, false, false, "
       "cublasGemvParamsEx<int, cublasGemvTensorStridedBatched<float const>, "
       "cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float>, float> >"
       "(cublasGemvParamsEx<int, cublasGemvTensorStridedBatched<float const>, "
       "cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float>, float>, float, float)",
       EventKind::kKernel, KernelCategory::kGemm},
      {"sm80_xmma_fprop_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nchw_tilesize128x128x16_stage4_"
       "warpsize2x2x1_g1_tensor16x8x8_execute_kernel__5x_cudnn",
       EventKind::kKernel, KernelCategory::kGemm},
      {"void cudnn::winograd_nonfused::winogradForwardData4x4<float, float>(cudnn::winograd_nonfused::"
       "WinogradDataParams<float, float>)",
       EventKind::kKernel, KernelCategory::kGemm},
      {"void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 512, true, 1>(cudnnTensorStruct, float const*, "
       "cudnnTensorStruct, float*, float const*, float const*, float, float, float*, float*, float*, float*, "
       "float, float)",
       EventKind::kKernel, KernelCategory::kReduction},
      {"void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, "
       "cutlass::bfloat16_t, Flash_kernel_traits<128, 128, 64, 4, cutlass::bfloat16_t> >, false, true, false, "
       "false, true, true, false, false>(pytorch_flash::Flash_fwd_params)",
       EventKind::kKernel, KernelCategory::kAttention},
      {"fmha_cutlassF_f16_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel<cutlass::half_t, "
       "cutlass::arch::Sm80, true, 64, 64, 64, true, true>::Params)",
       EventKind::kKernel, KernelCategory::kAttention},
      {"cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_3_64x64x128_4x1x1_kernel0_0",
       EventKind::kKernel, KernelCategory::kAttention},
      {"void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::"
       "TensorListMetadata<4>, at::native::(anonymous namespace)::FusedAdamMathFunctor<float, 4, "
       "(at::native::ADAM_MODE)1, false>, double*, double, double, double, double, double, bool, float*, float*>"
       "(at::native::(anonymous namespace)::TensorListMetadata<4>, ...)",
       EventKind::kKernel, KernelCategory::kOptimizer},
      {"void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, float>(int, float, "
       "c10::BFloat16 const*, c10::BFloat16 const*, c10::BFloat16 const*, float*, float*, c10::BFloat16*)",
       EventKind::kKernel, KernelCategory::kReduction},
      {"void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, "
       "at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(float*, float const*, int)",
       EventKind::kKernel, KernelCategory::kReduction},
      {"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, float, float, "
       "float>, unsigned int, float, 4> >(at::native::ReduceOp<float, at::native::MeanOps<float, float, float, "
       "float>, unsigned int, float, 4>)",
       EventKind::kKernel, KernelCategory::kReduction},
      {"triton_red_fused__to_copy_add_mean_mul_pow_rsqrt_0", EventKind::kKernel, KernelCategory::kReduction},
      {"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>, "
       "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, at::detail::Array<char*, 3>)",
       EventKind::kKernel, KernelCategory::kElementwise},
      {"triton_poi_fused_add_0", EventKind::kKernel, KernelCategory::kElementwise},
      // "conv" inside "convert" is not a convolution.
      {"triton_poi_fused__to_copy_convert_element_type_0", EventKind::kKernel, KernelCategory::kElementwise},
      {"void at::native::(anonymous namespace)::CatArrayBatchedCopy<at::native::(anonymous namespace)::"
       "OpaqueType<2u>, unsigned int, 2, 128, 1>(at::native::(anonymous namespace)::OpaqueType<2u>*, "
       "at::native::(anonymous namespace)::CatArrInputTensorMetadata<at::native::(anonymous namespace)::"
       "OpaqueType<2u>, unsigned int, 128, 1>, at::native::(anonymous namespace)::TensorSizeStride<unsigned int, "
       "4u>, int, unsigned int)",
       EventKind::kKernel, KernelCategory::kElementwise},
      // "normal_" (random numbers) is not a norm.
      {"void at::native::(anonymous namespace)::distribution_elementwise_grid_stride_kernel<float, 4, "
       "at::native::templates::cuda::normal_and_transform<float, float, at::CUDAGeneratorImpl*>>(long, "
       "at::PhiloxCudaState)",
       EventKind::kKernel, KernelCategory::kElementwise},
      {"ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevComm*, unsigned long, ncclWork*)", EventKind::kKernel,
       KernelCategory::kCommunication},
      {"Memcpy DtoD (Device -> Device)", EventKind::kMemcpy, KernelCategory::kMemcpy},
      {"Memcpy HtoD (Pageable -> Device)", EventKind::kKernel, KernelCategory::kMemcpy},  // by HTA's prefix
      {"hipMemcpyWithStream", EventKind::kKernel, KernelCategory::kMemcpy},  // not HTA's "^hip" communication
      {"Memset (Device)", EventKind::kMemset, KernelCategory::kMemset},
      {"Memset (Device)", EventKind::kKernel, KernelCategory::kMemset},
      {"Stream Sync", EventKind::kCudaSync, KernelCategory::kSync},
      {"Event Sync", EventKind::kKernel, KernelCategory::kSync},  // HTA OTHER
      {"Stream Wait Event", EventKind::kKernel, KernelCategory::kSync},
      {"ncclDevKernel_Generic", EventKind::kMemcpy, KernelCategory::kMemcpy},  // the kind beats the name
      {"void rotary_embedding_kernel<float>(float*, float const*, int)", EventKind::kKernel, KernelCategory::kOther},
  };
  for (const CategoryCase& c : cases)
    EXPECT_STREQ(KernelCategoryName(KernelCategoryOf(c.name, c.kind)), KernelCategoryName(c.category)) << c.name;
}

TEST(KernelClass, CategoryNames) {
  const std::pair<KernelCategory, const char*> names[] = {
      {KernelCategory::kGemm, "gemm"},
      {KernelCategory::kAttention, "attention"},
      {KernelCategory::kCommunication, "communication"},
      {KernelCategory::kMemcpy, "memcpy"},
      {KernelCategory::kMemset, "memset"},
      {KernelCategory::kElementwise, "elementwise"},
      {KernelCategory::kReduction, "reduction"},
      {KernelCategory::kOptimizer, "optimizer"},
      {KernelCategory::kSync, "sync"},
      {KernelCategory::kOther, "other"},
  };
  for (const auto& [c, n] : names) EXPECT_STREQ(KernelCategoryName(c), n);
}

TEST(KernelClass, CollectiveKindFromKernelName) {
  const std::pair<const char*, Collective> cases[] = {
      {"ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)", Collective::kAllReduce},
      {"void ncclKernel_AllGather_RING_LL_Sum_int8_t(ncclWorkElem)", Collective::kAllGather},
      {"ncclKernel_ReduceScatter_RING_SIMPLE_Sum_bf16(ncclWorkElem)", Collective::kReduceScatter},
      {"ncclKernel_Broadcast_RING_LL_Sum_int8_t(ncclWorkElem)", Collective::kBroadcast},
      {"ncclKernel_Reduce_RING_LL_Sum_float(ncclWorkElem)", Collective::kReduce},
      {"ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclWorkElem)", Collective::kSendRecv},
      {"ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)", Collective::kAllReduce},
      {"ncclDevKernel_AllGather_RING_LL(ncclDevComm*, unsigned long, ncclWork*)", Collective::kAllGather},
      {"ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
       Collective::kReduceScatter},
      {"ncclDevKernel_SendRecv(ncclDevComm*, unsigned long, ncclWork*)", Collective::kSendRecv},
      {"ncclDevKernel_Generic(ncclDevComm*, unsigned long, ncclWork*)", Collective::kOther},
      {"ncclDevKernel_Generic_4(ncclDevComm*, unsigned long, ncclWork*)", Collective::kOther},
      {"ncclAllReduceRingLLKernel_sum_f32(CollectiveArgs)", Collective::kAllReduce},
      {"ncclKernel_AllToAllPivot_RING_SIMPLE_Sum_int8_t(ncclWorkElem)", Collective::kAllToAll},  // RCCL
      {"void foo<ncclKernel>", Collective::kOther},
      {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n", Collective::kOther},
      // NCCL's symmetric kernels (src/device/symmetric/generate.py: 2.28 ncclSymkDevKernel_, 2.27
      // ncclSymDevKernel_).
      {"ncclSymkDevKernel_AllReduce_AGxLL_R_sum_bf16(ncclSymkDevWorkArgs4K)", Collective::kAllReduce},
      {"ncclSymkDevKernel_ReduceScatter_LDMC_sum_bf16(ncclSymkDevWorkArgs4K)", Collective::kReduceScatter},
      {"ncclSymDevKernel_AllGather_LLMC(ncclSymDevArgs)", Collective::kAllGather},
      // Collective kernels outside NCCL (CustomCollectiveOf).
      {"void c10d::symmetric_memory::(anonymous namespace)::two_shot_all_reduce_kernel<c10::BFloat16, 16, 8>"
       "(c10::BFloat16**, unsigned long, c10::BFloat16*, unsigned long, unsigned long, unsigned int**, "
       "unsigned long, unsigned long)",
       Collective::kAllReduce},
      {"void (anonymous namespace)::one_shot_all_reduce_kernel<float, 16, 8>(float**, unsigned long)",
       Collective::kAllReduce},
      {"void c10d::symmetric_memory::multimem_all_gather_kernel<16>(char*, char*, unsigned long)",
       Collective::kAllGather},
      {"void vllm::cross_device_reduce_1stage<__nv_bfloat16, 8>(vllm::RankData*, vllm::RankSignals, "
       "vllm::Signal*, __nv_bfloat16*, int, int)",
       Collective::kAllReduce},
      {"void deep_ep::intranode::dispatch<8, 768, 8192>(int4*, float*, int*, long*)", Collective::kAllToAll},
      {"void deep_ep::internode_ll::combine<false>(void*, void*, int*)", Collective::kAllToAll},
      {"userbuffers_fp16_sum_inplace_gpu_rr_rs<8>(int, int, int, int, int, void**, int, unsigned long)",
       Collective::kOther},
      // Names that only mention a collective are not one.
      {"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::func_wrapper_t<"
       "float, at::native::sum_functor<float, float, float>::operator()>, unsigned int, float, 4> >"
       "(at::native::ReduceOp<float>)",
       Collective::kOther},
  };
  for (const auto& [name, kind] : cases) {
    EXPECT_STREQ(CollectiveName(CollectiveKindOf(name, nullptr)), CollectiveName(kind)) << name;
    const CollectiveArgs no_name;  // args without a collective name: the kernel name decides
    EXPECT_EQ(CollectiveKindOf(name, &no_name), kind) << name;
  }
}

TEST(KernelClass, CollectiveKindFromArgsBeatsKernelName) {
  const char* generic = "ncclDevKernel_Generic(ncclDevComm*, unsigned long, ncclWork*)";
  const char* sendrecv = "ncclDevKernel_SendRecv(ncclDevComm*, unsigned long, ncclWork*)";
  const std::pair<const char*, Collective> cases[] = {
      {"allreduce", Collective::kAllReduce},
      {"all_reduce", Collective::kAllReduce},
      {"allreduce_coalesced", Collective::kAllReduce},
      {"barrier", Collective::kAllReduce},
      {"allgather", Collective::kAllGather},
      {"_allgather_base", Collective::kAllGather},
      {"all_gather_into_tensor", Collective::kAllGather},
      {"allgather_into_tensor_coalesced", Collective::kAllGather},
      {"reduce_scatter", Collective::kReduceScatter},
      {"_reduce_scatter_base", Collective::kReduceScatter},
      {"reduce_scatter_tensor", Collective::kReduceScatter},
      {"all_to_all", Collective::kAllToAll},
      {"alltoall", Collective::kAllToAll},
      {"all_to_allv", Collective::kAllToAll},
      {"alltoall_base", Collective::kAllToAll},
      {"broadcast", Collective::kBroadcast},
      {"_broadcast_oop", Collective::kBroadcast},
      {"reduce", Collective::kReduce},
      {"_reduce_oop", Collective::kReduce},
      {"send", Collective::kSendRecv},
      {"recv", Collective::kSendRecv},
      {"gather", Collective::kOther},
      {"scatter", Collective::kOther},
      {"ncclAllReduce", Collective::kAllReduce},
      {"AllGather", Collective::kAllGather},
  };
  for (const auto& [coll, kind] : cases) {
    CollectiveArgs a;
    a.collective = coll;
    EXPECT_EQ(CollectiveKindOf(generic, &a), kind) << coll;
  }
  // A SendRecv kernel PyTorch launched for all_to_all is an all-to-all.
  CollectiveArgs a2a;
  a2a.collective = "all_to_all";
  EXPECT_EQ(CollectiveKindOf(sendrecv, &a2a), Collective::kAllToAll);
  // An unknown collective name falls back to the kernel name.
  CollectiveArgs unknown;
  unknown.collective = "coalesced";
  EXPECT_EQ(CollectiveKindOf(sendrecv, &unknown), Collective::kSendRecv);
  EXPECT_EQ(CollectiveKindOf(generic, &unknown), Collective::kOther);
}

TEST(KernelClass, CollectiveKindNames) {
  EXPECT_STREQ(CollectiveName(Collective::kAllReduce), "all_reduce");
  EXPECT_STREQ(CollectiveName(Collective::kAllGather), "all_gather");
  EXPECT_STREQ(CollectiveName(Collective::kReduceScatter), "reduce_scatter");
  EXPECT_STREQ(CollectiveName(Collective::kAllToAll), "all_to_all");
  EXPECT_STREQ(CollectiveName(Collective::kBroadcast), "broadcast");
  EXPECT_STREQ(CollectiveName(Collective::kReduce), "reduce");
  EXPECT_STREQ(CollectiveName(Collective::kSendRecv), "send_recv");
  EXPECT_STREQ(CollectiveName(Collective::kOther), "other");
}

// Collective kernels outside NCCL are communication in paratune's categories while HTA's type,
// reproduced exactly, stays COMPUTATION (HTA's figures do not change).
TEST(KernelClass, CollectiveKernelsOutsideNcclAreCommunication) {
  const char* names[] = {
      "void c10d::symmetric_memory::(anonymous namespace)::two_shot_all_reduce_kernel<c10::BFloat16, 16, 8>"
      "(c10::BFloat16**, unsigned long)",
      "void c10d::symmetric_memory::multimem_all_reduce_kernel<c10::BFloat16, 16, 8>(c10::BFloat16*)",
      "void vllm::cross_device_reduce_2stage<float, 8>(vllm::RankData*, vllm::RankSignals)",
      "userbuffers_fp16_sum_inplace_gpu_rr_ag<8>(int, int, int)",
      "void deep_ep::intranode::notify_dispatch<8>(int const*, int*, int)",
  };
  for (const char* name : names) {
    EXPECT_EQ(KernelCategoryOf(name, EventKind::kKernel), KernelCategory::kCommunication) << name;
    EXPECT_EQ(HtaKernelTypeOf(name), HtaKernelType::kComputation) << name;
    EXPECT_TRUE(IsCommunicationKernel(name)) << name;
  }
  EXPECT_TRUE(IsCommunicationKernel("ncclSymkDevKernel_AllGather_LL(ncclSymkDevWorkArgs4K)"));
  EXPECT_FALSE(IsCommunicationKernel("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n"));
  EXPECT_FALSE(IsCommunicationKernel("void at::native::reduce_kernel<512, 1>(at::native::ReduceOp<float>)"));
  Collective kind = Collective::kBroadcast;
  EXPECT_FALSE(CustomCollectiveOf("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*)", &kind));
  EXPECT_EQ(kind, Collective::kBroadcast);  // untouched
}

}  // namespace
}  // namespace paratune
