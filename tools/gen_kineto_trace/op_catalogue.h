// The op catalogue: CPU op templates and GPU kernel specs of the modelled Llama-like layer, as
// data (names, shapes, launch dimensions and durations); the JSON text of each that never
// changes is built once, so writing an event copies a few strings and formats a few integers.
#pragma once

#include "common.h"

namespace gen_trace {
// ---------------------------------------------------------------------------------------------
// Static tables: CPU op templates and GPU kernel specs. Their JSON text that never changes is
// built once, so writing an event copies a few strings and formats a few integers.

enum class Cat : uint8_t { kCpuOp, kUserAnnotation, kPython };

struct OpT {
  Cat cat;
  std::string name;
  std::string dims;    // ", \"Input Dims\": ..., \"Input type\": ..." or extra args; may be empty
  std::string prefix;  // "  {\"ph\": \"X\", \"cat\": ..., \"name\": ..., \"pid\": P, \"tid\": "
};

struct KSpec {
  std::string name;
  int64_t dur_ns;      // typical duration
  std::string prefix;  // "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": ..., \"pid\": 0, \"tid\": S, \"ts\": "
  std::string tail;    // ", \"registers per thread\": ... \"est. achieved occupancy %\": N"
  int stream;
};

enum Op : uint16_t {
  kOpProfilerStep,
  kOpDataLoader,
  kOpTo,
  kOpToCopy,
  kOpCopy,
  kOpForward,
  kOpBackward,
  kOpFsdpPreFwd,
  kOpFsdpPreBwd,
  kOpFsdpPostBwd,
  kOpCommAg,
  kOpCommRs,
  kOpCommAr,
  kOpNcclAg,
  kOpNcclRs,
  kOpNcclAr,
  kOpEmbedding,
  kOpIndexSelect,
  kOpLayerNorm,
  kOpNativeLayerNorm,
  kOpLinearQkv,
  kOpLinearO,
  kOpLinearW13,
  kOpLinearW2,
  kOpLinearHead,
  kOpT,
  kOpTranspose,
  kOpAsStrided,
  kOpMatmul,
  kOpView,
  kOpMmQkv,
  kOpMmO,
  kOpMmW13,
  kOpMmW2,
  kOpMmHead,
  kOpMulRope,
  kOpAddRope,
  kOpCat,
  kOpSdpa,
  kOpSdpaFlash,
  kOpFlashFwd,
  kOpEmpty,
  kOpAdd,
  kOpSilu,
  kOpMul,
  kOpCrossEntropy,
  kOpLogSoftmax,
  kOpLogSoftmaxImpl,
  kOpNllLoss,
  kOpNllLossFwd,
  kOpOnesLike,
  kOpEvalMm,
  kOpMmBwd,
  kOpEvalMul,
  kOpMulBwd,
  kOpEvalSilu,
  kOpSiluBwd,
  kOpSiluBackward,
  kOpEvalLn,
  kOpLnBwd,
  kOpNativeLnBwd,
  kOpEvalAdd,
  kOpAddBwd,
  kOpEvalSdpa,
  kOpSdpaBwd,
  kOpSdpaFlashBwd,
  kOpFlashBwd,
  kOpZeros,
  kOpZero,
  kOpEvalNll,
  kOpNllBwd,
  kOpNllBwdImpl,
  kOpEvalLogSoftmax,
  kOpLogSoftmaxBwd,
  kOpLogSoftmaxBwdImpl,
  kOpEvalEmbedding,
  kOpEmbeddingBwd,
  kOpEmbeddingDenseBwd,
  kOpEvalAccGrad,
  kOpAccGrad,
  kOpClipGradNorm,
  kOpForeachNorm,
  kOpStack,
  kOpVectorNorm,
  kOpClamp,
  kOpForeachMul,
  kOpOptStep,
  kOpFusedAdamw,
  kOpZeroGrad,
  kOpItem,
  kOpLocalScalarDense,
  kOpPyTrainStep,
  kOpPyCallImpl,
  kOpPyBlock0,  // + one per layer
};

enum Kern : uint16_t {
  kKIndexSelect,
  kKLayerNorm,
  kKGemmQkv,
  kKGemmO,
  kKGemmW13,
  kKGemmW2,
  kKGemmHead,
  kKRopeMul,
  kKRopeAdd,
  kKCat,
  kKFlashFwd,
  kKAdd,
  kKSilu,
  kKMul,
  kKSoftmaxFwd,
  kKNllFwd,
  kKFill,
  kKGemmHeadDgrad,
  kKGemmHeadWgrad,
  kKGemmQkvDgrad,
  kKGemmQkvWgrad,
  kKGemmODgrad,
  kKGemmOWgrad,
  kKGemmW13Dgrad,
  kKGemmW13Wgrad,
  kKGemmW2Dgrad,
  kKGemmW2Wgrad,
  kKSiluBwd,
  kKLnBwdInput,
  kKLnBwdGamma,
  kKFlashBwdDotDoO,
  kKFlashBwdDqDkDv,
  kKFlashBwdConvertDq,
  kKNllBwd,
  kKSoftmaxBwd,
  kKEmbeddingBwd,
  kKLpNorm,
  kKLpNormCleanup,
  kKReduceNorm,
  kKClamp,
  kKForeachMul,
  kKFusedAdamw,
  kKNcclAllGather,
  kKNcclReduceScatter,
  kKNcclAllReduce,
  kNumKern
};

// Typical sizes (elements) of the collectives: one layer's parameters (all-gather output,
// reduce-scatter input) and the gradient norm.
constexpr int64_t kLayerParams = 4096LL * 6144 + 4096LL * 4096 + 3 * 4096LL * 14336 + 2 * 4096;

inline std::string Esc(std::string_view s) {  // JSON string body
  std::string o;
  for (char c : s) {
    if (c == '"' || c == '\\') {
      o += '\\';
      o += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      o += fmt::format("\\u{:04x}", static_cast<unsigned>(static_cast<unsigned char>(c)));
    } else {
      o += c;
    }
  }
  return o;
}

struct Tables {
  std::vector<OpT> ops;
  std::vector<KSpec> kern;

  void AddOp(Op id, Cat cat, std::string name, std::string dims = {}) {
    if (ops.size() <= id) ops.resize(id + 1);
    ops[id] = OpT{cat, std::move(name), std::move(dims), {}};
  }

  // grid/block dims; regs, smem, occupancy as CUPTI reports them; duration in µs.
  void AddK(Kern id, std::string name, std::array<int, 3> grid, std::array<int, 3> block, int regs, int smem, int occ,
            double dur_us, int stream = kComputeStream) {
    if (kern.size() <= id) kern.resize(id + 1);
    const double blocks = double(grid[0]) * grid[1] * grid[2];
    const int warps = (block[0] * block[1] * block[2] + 31) / 32;
    const double bpsm = blocks / kNumSms;
    std::string tail = fmt::format(
        ", \"registers per thread\": {}, \"shared memory\": {}, \"blocks per SM\": {:.6f}, "
        "\"warps per SM\": {:.6f}, \"grid\": [{}, {}, {}], \"block\": [{}, {}, {}], "
        "\"est. achieved occupancy %\": {}",
        regs, smem, bpsm, bpsm * warps, grid[0], grid[1], grid[2], block[0], block[1], block[2], occ);
    std::string prefix = fmt::format(
        "  {{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"{}\", \"pid\": 0, \"tid\": {}, \"ts\": ", Esc(name),
        stream);
    kern[id] = KSpec{std::move(name), static_cast<int64_t>(dur_us * 1000), std::move(prefix), std::move(tail), stream};
  }

  void Build(int pid, int world) {
    const std::string bf = "\"c10::BFloat16\"";
    auto dims = [](std::string d, std::string t) {
      return fmt::format(", \"Input Dims\": {}, \"Input type\": {}", d, t);
    };
    const std::string x = "[1, 4096, 4096]";
    const std::string x2 = dims("[" + x + ", " + x + "]", "[" + bf + ", " + bf + "]");
    AddOp(kOpProfilerStep, Cat::kUserAnnotation, "ProfilerStep#");  // + step number
    AddOp(kOpDataLoader, Cat::kUserAnnotation, "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__");
    AddOp(kOpTo, Cat::kCpuOp, "aten::to",
          dims("[[1, 4096], [], [], [], [], []]",
               "[\"long int\", \"Scalar\", \"Scalar\", \"\", \"Scalar\", \"Scalar\"]"));
    AddOp(kOpToCopy, Cat::kCpuOp, "aten::_to_copy",
          dims("[[1, 4096], [], [], [], [], [], []]",
               "[\"long int\", \"Scalar\", \"\", \"Scalar\", \"\", \"Scalar\", \"\"]"));
    AddOp(kOpCopy, Cat::kCpuOp, "aten::copy_",
          dims("[[1, 4096], [1, 4096], []]", "[\"long int\", \"long int\", \"Scalar\"]"));
    AddOp(kOpForward, Cat::kUserAnnotation, "## forward ##");
    AddOp(kOpBackward, Cat::kUserAnnotation, "## backward ##");
    AddOp(kOpFsdpPreFwd, Cat::kUserAnnotation, "FullyShardedDataParallel._pre_forward");
    AddOp(kOpFsdpPreBwd, Cat::kUserAnnotation, "FullyShardedDataParallel._pre_backward_hook");
    AddOp(kOpFsdpPostBwd, Cat::kUserAnnotation, "FullyShardedDataParallel._post_backward_hook");
    std::string ranks = "[";  // PyTorch lists at most 30 ranks, then "..."
    for (int r = 0; r < std::min(world, 30); ++r) ranks += fmt::format("{}{}", r ? ", " : "", r);
    ranks += world > 30 ? ", ...]" : "]";
    const int64_t shard = (kLayerParams + world - 1) / world;
    auto comm = [&](const char* coll, int64_t in, int64_t out) {
      return fmt::format(
          ", \"Collective name\": \"{}\", \"In msg nelems\": {}, \"Out msg nelems\": {}, "
          "\"Group size\": {}, \"dtype\": \"BFloat16\", \"In split size\": \"[]\", "
          "\"Out split size\": \"[]\", \"Global rank start\": 0, \"Global rank stride\": 1, "
          "\"Process Group Name\": \"0\", \"Process Group Description\": \"default_pg\", "
          "\"Process Group Ranks\": \"{}\"",
          coll, in, out, world, ranks);
    };
    AddOp(kOpCommAg, Cat::kCpuOp, "record_param_comms", comm("_allgather_base", shard, shard * world));
    AddOp(kOpCommRs, Cat::kCpuOp, "record_param_comms", comm("_reduce_scatter_base", shard * world, shard));
    AddOp(kOpCommAr, Cat::kCpuOp, "record_param_comms", comm("allreduce", 1, 1));
    AddOp(kOpNcclAg, Cat::kUserAnnotation, "nccl:_all_gather_base");
    AddOp(kOpNcclRs, Cat::kUserAnnotation, "nccl:_reduce_scatter_base");
    AddOp(kOpNcclAr, Cat::kUserAnnotation, "nccl:all_reduce");
    AddOp(kOpEmbedding, Cat::kCpuOp, "aten::embedding",
          dims("[[128256, 4096], [1, 4096], [], [], []]",
               "[" + bf + ", \"long int\", \"Scalar\", \"Scalar\", \"Scalar\"]"));
    AddOp(kOpIndexSelect, Cat::kCpuOp, "aten::index_select",
          dims("[[128256, 4096], [], [4096]]", "[" + bf + ", \"Scalar\", \"long int\"]"));
    AddOp(kOpLayerNorm, Cat::kCpuOp, "aten::layer_norm",
          dims("[" + x + ", [], [4096], [], [], []]",
               "[" + bf + ", \"ScalarList\", " + bf + ", \"\", \"Scalar\", \"Scalar\"]"));
    AddOp(kOpNativeLayerNorm, Cat::kCpuOp, "aten::native_layer_norm",
          dims("[" + x + ", [], [4096], [], []]", "[" + bf + ", \"ScalarList\", " + bf + ", \"\", \"Scalar\"]"));
    auto lin = [&](int out) {
      return dims(fmt::format("[{}, [{}, 4096], []]", x, out), "[" + bf + ", " + bf + ", \"\"]");
    };
    AddOp(kOpLinearQkv, Cat::kCpuOp, "aten::linear", lin(6144));
    AddOp(kOpLinearO, Cat::kCpuOp, "aten::linear", lin(4096));
    AddOp(kOpLinearW13, Cat::kCpuOp, "aten::linear", lin(14336));
    AddOp(kOpLinearW2, Cat::kCpuOp, "aten::linear",
          dims("[[1, 4096, 14336], [4096, 14336], []]", "[" + bf + ", " + bf + ", \"\"]"));
    AddOp(kOpLinearHead, Cat::kCpuOp, "aten::linear", lin(128256));
    AddOp(kOpT, Cat::kCpuOp, "aten::t", dims("[[6144, 4096]]", "[" + bf + "]"));
    AddOp(kOpTranspose, Cat::kCpuOp, "aten::transpose",
          dims("[[6144, 4096], [], []]", "[" + bf + ", \"Scalar\", \"Scalar\"]"));
    AddOp(kOpAsStrided, Cat::kCpuOp, "aten::as_strided",
          dims("[[6144, 4096], [], [], []]", "[" + bf + ", \"\", \"\", \"\"]"));
    AddOp(kOpMatmul, Cat::kCpuOp, "aten::matmul", dims("[" + x + ", [4096, 6144]]", "[" + bf + ", " + bf + "]"));
    AddOp(kOpView, Cat::kCpuOp, "aten::view", dims("[" + x + ", []]", "[" + bf + ", \"\"]"));
    auto mm = [&](const char* a, const char* b) {
      return dims(fmt::format("[[{}], [{}]]", a, b), "[" + bf + ", " + bf + "]");
    };
    AddOp(kOpMmQkv, Cat::kCpuOp, "aten::mm", mm("4096, 4096", "4096, 6144"));
    AddOp(kOpMmO, Cat::kCpuOp, "aten::mm", mm("4096, 4096", "4096, 4096"));
    AddOp(kOpMmW13, Cat::kCpuOp, "aten::mm", mm("4096, 4096", "4096, 14336"));
    AddOp(kOpMmW2, Cat::kCpuOp, "aten::mm", mm("4096, 14336", "14336, 4096"));
    AddOp(kOpMmHead, Cat::kCpuOp, "aten::mm", mm("4096, 4096", "4096, 128256"));
    const std::string q = "[1, 32, 4096, 128]";
    AddOp(kOpMulRope, Cat::kCpuOp, "aten::mul", dims("[" + q + ", [1, 1, 4096, 128]]", "[" + bf + ", " + bf + "]"));
    AddOp(kOpAddRope, Cat::kCpuOp, "aten::add",
          dims("[" + q + ", " + q + ", []]", "[" + bf + ", " + bf + ", \"Scalar\"]"));
    AddOp(kOpCat, Cat::kCpuOp, "aten::cat",
          dims("[[[1, 32, 4096, 64], [1, 32, 4096, 64]], []]", "[\"TensorList\", \"Scalar\"]"));
    AddOp(kOpSdpa, Cat::kCpuOp, "aten::scaled_dot_product_attention",
          dims("[" + q + ", [1, 8, 4096, 128], [1, 8, 4096, 128], [], [], [], [], []]",
               "[" + bf + ", " + bf + ", " + bf + ", \"\", \"Scalar\", \"Scalar\", \"\", \"Scalar\"]"));
    AddOp(kOpSdpaFlash, Cat::kCpuOp, "aten::_scaled_dot_product_flash_attention",
          dims("[" + q + ", " + q + ", " + q + ", [], [], [], []]",
               "[" + bf + ", " + bf + ", " + bf + ", \"Scalar\", \"Scalar\", \"Scalar\", \"\"]"));
    AddOp(kOpFlashFwd, Cat::kCpuOp, "aten::_flash_attention_forward",
          dims("[[1, 4096, 32, 128], [1, 4096, 32, 128], [1, 4096, 32, 128], [], [], [], [], [], "
               "[], [], [], []]",
               "[" + bf + ", " + bf + ", " + bf +
                   ", \"\", \"\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", "
                   "\"\", \"\"]"));
    AddOp(kOpEmpty, Cat::kCpuOp, "aten::empty",
          dims("[[], [], [], [], [], []]", "[\"\", \"Scalar\", \"\", \"Device\", \"Scalar\", \"\"]"));
    AddOp(kOpAdd, Cat::kCpuOp, "aten::add", dims("[" + x + ", " + x + ", []]", "[" + bf + ", " + bf + ", \"Scalar\"]"));
    AddOp(kOpSilu, Cat::kCpuOp, "aten::silu", dims("[[1, 4096, 14336]]", "[" + bf + "]"));
    AddOp(kOpMul, Cat::kCpuOp, "aten::mul", dims("[[1, 4096, 14336], [1, 4096, 14336]]", "[" + bf + ", " + bf + "]"));
    AddOp(kOpCrossEntropy, Cat::kCpuOp, "aten::cross_entropy_loss",
          dims("[[4096, 128256], [4096], [], [], [], []]",
               "[\"float\", \"long int\", \"\", \"Scalar\", \"Scalar\", \"Scalar\"]"));
    AddOp(kOpLogSoftmax, Cat::kCpuOp, "aten::log_softmax",
          dims("[[4096, 128256], [], []]", "[\"float\", \"Scalar\", \"\"]"));
    AddOp(kOpLogSoftmaxImpl, Cat::kCpuOp, "aten::_log_softmax",
          dims("[[4096, 128256], [], []]", "[\"float\", \"Scalar\", \"Scalar\"]"));
    AddOp(kOpNllLoss, Cat::kCpuOp, "aten::nll_loss_nd",
          dims("[[4096, 128256], [4096], [], [], []]", "[\"float\", \"long int\", \"\", \"Scalar\", \"Scalar\"]"));
    AddOp(kOpNllLossFwd, Cat::kCpuOp, "aten::nll_loss_forward",
          dims("[[4096, 128256], [4096], [], [], []]", "[\"float\", \"long int\", \"\", \"Scalar\", \"Scalar\"]"));
    AddOp(kOpOnesLike, Cat::kCpuOp, "aten::ones_like",
          dims("[[], [], [], [], [], []]", "[\"float\", \"\", \"\", \"\", \"\", \"Scalar\"]"));
    AddOp(kOpEvalMm, Cat::kCpuOp, "autograd::engine::evaluate_function: MmBackward0");
    AddOp(kOpMmBwd, Cat::kCpuOp, "MmBackward0", dims("[[4096, 4096]]", "[" + bf + "]"));
    AddOp(kOpEvalMul, Cat::kCpuOp, "autograd::engine::evaluate_function: MulBackward0");
    AddOp(kOpMulBwd, Cat::kCpuOp, "MulBackward0", dims("[[1, 4096, 14336]]", "[" + bf + "]"));
    AddOp(kOpEvalSilu, Cat::kCpuOp, "autograd::engine::evaluate_function: SiluBackward0");
    AddOp(kOpSiluBwd, Cat::kCpuOp, "SiluBackward0", dims("[[1, 4096, 14336]]", "[" + bf + "]"));
    AddOp(kOpSiluBackward, Cat::kCpuOp, "aten::silu_backward",
          dims("[[1, 4096, 14336], [1, 4096, 14336]]", "[" + bf + ", " + bf + "]"));
    AddOp(kOpEvalLn, Cat::kCpuOp, "autograd::engine::evaluate_function: NativeLayerNormBackward0");
    AddOp(kOpLnBwd, Cat::kCpuOp, "NativeLayerNormBackward0", dims("[" + x + "]", "[" + bf + "]"));
    AddOp(kOpNativeLnBwd, Cat::kCpuOp, "aten::native_layer_norm_backward",
          dims("[" + x + ", " + x + ", [], [1, 4096, 1], [1, 4096, 1], [4096], [], []]",
               "[" + bf + ", " + bf + ", \"ScalarList\", \"float\", \"float\", " + bf + ", \"\", \"ScalarList\"]"));
    AddOp(kOpEvalAdd, Cat::kCpuOp, "autograd::engine::evaluate_function: AddBackward0");
    AddOp(kOpAddBwd, Cat::kCpuOp, "AddBackward0", dims("[" + x + "]", "[" + bf + "]"));
    AddOp(kOpEvalSdpa, Cat::kCpuOp, "autograd::engine::evaluate_function: ScaledDotProductFlashAttentionBackward0");
    AddOp(kOpSdpaBwd, Cat::kCpuOp, "ScaledDotProductFlashAttentionBackward0", dims("[" + q + "]", "[" + bf + "]"));
    AddOp(kOpSdpaFlashBwd, Cat::kCpuOp, "aten::_scaled_dot_product_flash_attention_backward",
          dims("[" + q + ", " + q + ", " + q + ", " + q + ", " + q + ", [1, 32, 4096], [], [], [], [], [], [], [], []]",
               "[" + bf + ", " + bf + ", " + bf + ", " + bf + ", " + bf +
                   ", \"float\", \"\", \"\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", \"\", \"\"]"));
    AddOp(kOpFlashBwd, Cat::kCpuOp, "aten::_flash_attention_backward",
          dims("[[1, 4096, 32, 128], [1, 4096, 32, 128], [1, 4096, 32, 128], [1, 4096, 32, 128], "
               "[1, 4096, 32, 128], [1, 32, 4096], [], [], [], [], [], [], [], [], [], []]",
               "[" + bf + ", " + bf + ", " + bf + ", " + bf + ", " + bf +
                   ", \"float\", \"\", \"\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", "
                   "\"\", \"\", \"\", \"\"]"));
    AddOp(kOpZeros, Cat::kCpuOp, "aten::zeros",
          dims("[[], [], [], [], []]", "[\"\", \"Scalar\", \"\", \"Device\", \"Scalar\"]"));
    AddOp(kOpZero, Cat::kCpuOp, "aten::zero_", dims("[[1, 4096, 32, 128]]", "[\"float\"]"));
    AddOp(kOpEvalNll, Cat::kCpuOp, "autograd::engine::evaluate_function: NllLossBackward0");
    AddOp(kOpNllBwd, Cat::kCpuOp, "NllLossBackward0", dims("[[]]", "[\"float\"]"));
    AddOp(kOpNllBwdImpl, Cat::kCpuOp, "aten::nll_loss_backward",
          dims("[[], [4096, 128256], [4096], [], [], [], []]",
               "[\"float\", \"float\", \"long int\", \"\", \"Scalar\", \"Scalar\", \"float\"]"));
    AddOp(kOpEvalLogSoftmax, Cat::kCpuOp, "autograd::engine::evaluate_function: LogSoftmaxBackward0");
    AddOp(kOpLogSoftmaxBwd, Cat::kCpuOp, "LogSoftmaxBackward0", dims("[[4096, 128256]]", "[\"float\"]"));
    AddOp(kOpLogSoftmaxBwdImpl, Cat::kCpuOp, "aten::_log_softmax_backward_data",
          dims("[[4096, 128256], [4096, 128256], [], []]", "[\"float\", \"float\", \"Scalar\", \"Scalar\"]"));
    AddOp(kOpEvalEmbedding, Cat::kCpuOp, "autograd::engine::evaluate_function: EmbeddingBackward0");
    AddOp(kOpEmbeddingBwd, Cat::kCpuOp, "EmbeddingBackward0", dims("[" + x + "]", "[" + bf + "]"));
    AddOp(kOpEmbeddingDenseBwd, Cat::kCpuOp, "aten::embedding_dense_backward",
          dims("[" + x + ", [1, 4096], [], [], []]", "[" + bf + ", \"long int\", \"Scalar\", \"Scalar\", \"Scalar\"]"));
    AddOp(kOpEvalAccGrad, Cat::kCpuOp, "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad");
    AddOp(kOpAccGrad, Cat::kCpuOp, "torch::autograd::AccumulateGrad");
    AddOp(kOpClipGradNorm, Cat::kUserAnnotation, "clip_grad_norm_");
    AddOp(kOpForeachNorm, Cat::kCpuOp, "aten::_foreach_norm", dims("[[], []]", "[\"TensorList\", \"Scalar\"]"));
    AddOp(kOpStack, Cat::kCpuOp, "aten::stack", dims("[[], []]", "[\"TensorList\", \"Scalar\"]"));
    AddOp(kOpVectorNorm, Cat::kCpuOp, "aten::linalg_vector_norm",
          dims("[[147], [], [], [], []]", "[\"float\", \"Scalar\", \"\", \"Scalar\", \"\"]"));
    AddOp(kOpClamp, Cat::kCpuOp, "aten::clamp", dims("[[], [], []]", "[\"float\", \"\", \"Scalar\"]"));
    AddOp(kOpForeachMul, Cat::kCpuOp, "aten::_foreach_mul_", dims("[[], []]", "[\"TensorList\", \"float\"]"));
    AddOp(kOpOptStep, Cat::kUserAnnotation, "Optimizer.step#AdamW.step");
    AddOp(kOpFusedAdamw, Cat::kCpuOp, "aten::_fused_adamw_",
          dims("[[], [], [], [], [], [], [], [], [], [], [], [], [], []]",
               "[\"TensorList\", \"TensorList\", \"TensorList\", \"TensorList\", \"TensorList\", "
               "\"TensorList\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", \"Scalar\", "
               "\"Scalar\", \"Scalar\", \"\"]"));
    AddOp(kOpZeroGrad, Cat::kUserAnnotation, "Optimizer.zero_grad#AdamW.zero_grad");
    AddOp(kOpItem, Cat::kCpuOp, "aten::item", dims("[[]]", "[\"float\"]"));
    AddOp(kOpLocalScalarDense, Cat::kCpuOp, "aten::_local_scalar_dense", dims("[[]]", "[\"float\"]"));
    AddOp(kOpPyTrainStep, Cat::kPython, "train.py(214): train_step");
    AddOp(kOpPyCallImpl, Cat::kPython, "torch/nn/modules/module.py(1747): _call_impl");
    for (int l = 0; l < kLayers; ++l)
      AddOp(static_cast<Op>(kOpPyBlock0 + l), Cat::kPython, fmt::format("nn.Module: TransformerBlock_{}", l));

    static constexpr const char* kCatName[] = {"cpu_op", "user_annotation", "python_function"};
    for (OpT& o : ops)
      o.prefix = fmt::format("  {{\"ph\": \"X\", \"cat\": \"{}\", \"name\": \"{}\", \"pid\": {}, \"tid\": ",
                             kCatName[static_cast<int>(o.cat)], Esc(o.name), pid);

    // ---- kernels (names as PyTorch 2.5 / cuBLAS 12 / NCCL 2.21 on H100 report them)
    const std::string gemm_tn =
        "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64_warpgroupsize2x1x1_execute_"
        "segment_k_off_kernel__5x_cublas";
    const std::string gemm_nn =
        "sm90_xmma_gemm_bf16bf16_bf16f32_f32_nn_n_tilesize128x256x64_warpgroupsize2x1x1_execute_"
        "segment_k_off_kernel__5x_cublas";
    const std::string gemm_nt =
        "sm90_xmma_gemm_bf16bf16_bf16f32_f32_nt_n_tilesize128x128x64_warpgroupsize1x1x1_execute_"
        "segment_k_off_kernel__5x_cublas";
    auto cutlass = [](int tm, int tn, const char* major_a, const char* major_b) {
      const std::string smem_layout =
          "cute::ComposedLayout<cute::Swizzle<3, 4, 3>, cute::smem_ptr_flag_bits<16>, "
          "cute::Layout<cute::tuple<cute::C<8>, cute::C<64> >, cute::tuple<cute::C<64>, cute::C<1> > > >";
      const std::string gemm = fmt::format(
          "cutlass::gemm::kernel::GemmUniversal<cute::tuple<int, int, int, int>, "
          "cutlass::gemm::collective::CollectiveMma<cutlass::gemm::MainloopSm90TmaGmmaWarpSpecializedCooperative<"
          "4, cute::tuple<cute::C<2>, cute::C<1>, cute::C<1> >, "
          "cutlass::gemm::KernelTmaWarpSpecializedCooperative>, cute::tuple<cute::C<{0}>, cute::C<{1}>, "
          "cute::C<64> >, cutlass::bfloat16_t, cute::tuple<long, cute::C<1>, long>, cutlass::bfloat16_t, "
          "cute::tuple<long, cute::C<1>, long>, cute::TiledMMA<cute::MMA_Atom<"
          "cute::SM90_64x{1}x16_F32BF16BF16_SS<(cute::GMMA::Major){2}, (cute::GMMA::Major){3}, "
          "(cute::GMMA::ScaleIn)1, (cute::GMMA::ScaleIn)1> >, cute::Layout<cute::tuple<cute::C<2>, "
          "cute::C<1>, cute::C<1> >, cute::tuple<cute::C<1>, cute::C<0>, cute::C<0> > >, "
          "cute::tuple<cute::Underscore, cute::Underscore, cute::Underscore> >, cute::SM90_TMA_LOAD, {4}, "
          "void, cute::identity, cute::SM90_TMA_LOAD_MULTICAST, {4}, void, cute::identity>, "
          "cutlass::epilogue::collective::DefaultEpilogue<cutlass::gemm::TagToStrideC<"
          "cutlass::layout::RowMajor>::type, cutlass::gemm::TagToStrideC<cutlass::layout::RowMajor>::type, "
          "cutlass::epilogue::thread::LinearCombination<cutlass::bfloat16_t, 1, float, float, "
          "(cutlass::epilogue::thread::ScaleType::Kind)0, (cutlass::FloatRoundStyle)2, "
          "cutlass::bfloat16_t>, cutlass::gemm::EpilogueDefault>, void, void>",
          tm, tn, major_a, major_b, smem_layout);
      return fmt::format("void cutlass::device_kernel<{0}>({0}::Params)", gemm);
    };
    AddK(kKIndexSelect,
         "void at::native::(anonymous namespace)::indexSelectLargeIndex<c10::BFloat16, long, unsigned int, "
         "2, 2, -2, true>(at::cuda::detail::TensorInfo<c10::BFloat16, unsigned int>, "
         "at::cuda::detail::TensorInfo<c10::BFloat16 const, unsigned int>, "
         "at::cuda::detail::TensorInfo<long const, unsigned int>, int, int, unsigned int, unsigned int, long)",
         {1056, 1, 1}, {128, 1, 1}, 30, 0, 100, 38);
    AddK(kKLayerNorm,
         "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, float>(int, "
         "float, c10::BFloat16 const*, c10::BFloat16 const*, c10::BFloat16 const*, float*, float*, "
         "c10::BFloat16*)",
         {4096, 1, 1}, {32, 4, 1}, 40, 0, 100, 31);
    AddK(kKGemmQkv, gemm_tn, {2, 66, 1}, {384, 1, 1}, 168, 213248, 19, 318);
    AddK(kKGemmO, cutlass(256, 128, "0", "1"), {132, 1, 1}, {384, 1, 1}, 168, 197632, 19, 212);
    AddK(kKGemmW13, gemm_tn, {2, 66, 1}, {384, 1, 1}, 168, 213248, 19, 742);
    AddK(kKGemmW2, gemm_tn, {2, 66, 1}, {384, 1, 1}, 168, 213248, 19, 745);
    AddK(kKGemmHead, gemm_tn, {2, 66, 1}, {384, 1, 1}, 168, 213248, 19, 6610);
    AddK(kKRopeMul,
         "void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl_nocast<"
         "at::native::BinaryFunctor<c10::BFloat16, c10::BFloat16, c10::BFloat16, "
         "at::native::binary_internal::MulFunctor<float> > >(at::TensorIteratorBase&, "
         "at::native::BinaryFunctor<c10::BFloat16, c10::BFloat16, c10::BFloat16, "
         "at::native::binary_internal::MulFunctor<float> > const&)::{lambda(int)#1}>(int, "
         "at::native::gpu_kernel_impl_nocast<at::native::BinaryFunctor<c10::BFloat16, c10::BFloat16, "
         "c10::BFloat16, at::native::binary_internal::MulFunctor<float> > >(at::TensorIteratorBase&, "
         "at::native::BinaryFunctor<c10::BFloat16, c10::BFloat16, c10::BFloat16, "
         "at::native::binary_internal::MulFunctor<float> > const&)::{lambda(int)#1})",
         {32768, 1, 1}, {128, 1, 1}, 26, 0, 100, 24);
    AddK(kKRopeAdd,
         "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>, "
         "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, "
         "at::detail::Array<char*, 3>)",
         {16384, 1, 1}, {128, 1, 1}, 24, 0, 100, 19);
    AddK(kKCat,
         "void at::native::(anonymous namespace)::CatArrayBatchedCopy_aligned16_contig<"
         "at::native::(anonymous namespace)::OpaqueType<2u>, unsigned int, 4, 128, 1>("
         "at::native::(anonymous namespace)::OpaqueType<2u>*, at::native::(anonymous "
         "namespace)::CatArrInputTensorMetadata<at::native::(anonymous namespace)::OpaqueType<2u>, unsigned "
         "int, 128, 1>, at::native::(anonymous namespace)::TensorSizeStride<unsigned int, 4u>, int, unsigned int)",
         {1056, 2, 1}, {512, 1, 1}, 32, 0, 100, 21);
    AddK(kKFlashFwd,
         "void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<128, 128, 64, 4, false, "
         "false, cutlass::bfloat16_t, pytorch_flash::Flash_kernel_traits<128, 128, 64, 4, cutlass::bfloat16_t> "
         ">, false, true, false, false, true, true, false, false>(pytorch_flash::Flash_fwd_params)",
         {32, 1, 32}, {128, 1, 1}, 255, 49152, 6, 305);
    AddK(kKAdd,
         "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>, "
         "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, "
         "at::detail::Array<char*, 3>)",
         {32768, 1, 1}, {128, 1, 1}, 24, 0, 100, 41);
    AddK(kKSilu,
         "void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous "
         "namespace)::silu_kernel(at::TensorIteratorBase&)::{lambda()#1}::operator()() "
         "const::{lambda()#4}::operator()() const::{lambda(c10::BFloat16)#1}, at::detail::Array<char*, 2> "
         ">(int, at::native::(anonymous namespace)::silu_kernel(at::TensorIteratorBase&)::{lambda()#1}::"
         "operator()() const::{lambda()#4}::operator()() const::{lambda(c10::BFloat16)#1}, "
         "at::detail::Array<char*, 2>)",
         {114688, 1, 1}, {128, 1, 1}, 28, 0, 100, 92);
    AddK(kKMul,
         "void at::native::vectorized_elementwise_kernel<4, at::native::BinaryFunctor<c10::BFloat16, "
         "c10::BFloat16, c10::BFloat16, at::native::binary_internal::MulFunctor<float> >, "
         "at::detail::Array<char*, 3> >(int, at::native::BinaryFunctor<c10::BFloat16, c10::BFloat16, "
         "c10::BFloat16, at::native::binary_internal::MulFunctor<float> >, at::detail::Array<char*, 3>)",
         {114688, 1, 1}, {128, 1, 1}, 26, 0, 100, 138);
    AddK(kKSoftmaxFwd,
         "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, "
         "at::native::(anonymous namespace)::LogSoftMaxForwardEpilogue>(float*, float const*, int)",
         {4096, 1, 1}, {1024, 1, 1}, 38, 0, 94, 412);
    AddK(kKNllFwd,
         "void at::native::(anonymous namespace)::nll_loss_forward_reduce_cuda_kernel_2d<float, float, "
         "long>(float*, float*, float const*, long const*, float const*, bool, long, long, long, long)",
         {1, 1, 1}, {32, 1, 1}, 28, 0, 2, 17);
    AddK(kKFill,
         "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
         "at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)",
         {1, 1, 1}, {128, 1, 1}, 16, 0, 0, 2);
    AddK(kKGemmHeadDgrad, gemm_nn, {2, 66, 1}, {384, 1, 1}, 168, 213248, 19, 6680);
    AddK(kKGemmHeadWgrad, gemm_nt, {4, 33, 1}, {256, 1, 1}, 154, 180224, 13, 6720);
    AddK(kKGemmQkvDgrad, gemm_nn, {2, 66, 1}, {384, 1, 1}, 168, 213248, 19, 322);
    AddK(kKGemmQkvWgrad, gemm_nt, {4, 33, 1}, {256, 1, 1}, 154, 180224, 13, 331);
    AddK(kKGemmODgrad, cutlass(256, 128, "1", "1"), {132, 1, 1}, {384, 1, 1}, 168, 197632, 19, 215);
    AddK(kKGemmOWgrad, cutlass(128, 128, "0", "0"), {132, 1, 1}, {384, 1, 1}, 168, 164864, 19, 221);
    AddK(kKGemmW13Dgrad, gemm_nn, {2, 66, 1}, {384, 1, 1}, 168, 213248, 19, 751);
    AddK(kKGemmW13Wgrad, gemm_nt, {4, 33, 1}, {256, 1, 1}, 154, 180224, 13, 768);
    AddK(kKGemmW2Dgrad, gemm_nn, {2, 66, 1}, {384, 1, 1}, 168, 213248, 19, 749);
    AddK(kKGemmW2Wgrad, gemm_nt, {4, 33, 1}, {256, 1, 1}, 154, 180224, 13, 772);
    AddK(kKSiluBwd,
         "void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous "
         "namespace)::silu_backward_kernel(at::TensorIteratorBase&)::{lambda()#1}::operator()() "
         "const::{lambda()#4}::operator()() const::{lambda(c10::BFloat16, c10::BFloat16)#1}, "
         "at::detail::Array<char*, 3> >(int, at::native::(anonymous "
         "namespace)::silu_backward_kernel(at::TensorIteratorBase&)::{lambda()#1}::operator()() "
         "const::{lambda()#4}::operator()() const::{lambda(c10::BFloat16, c10::BFloat16)#1}, "
         "at::detail::Array<char*, 3>)",
         {114688, 1, 1}, {128, 1, 1}, 30, 0, 100, 141);
    AddK(kKLnBwdInput,
         "void at::native::(anonymous namespace)::layer_norm_grad_input_kernel_vectorized<c10::BFloat16, "
         "float>(c10::BFloat16 const*, c10::BFloat16 const*, float const*, float const*, c10::BFloat16 "
         "const*, c10::BFloat16*, int)",
         {4096, 1, 1}, {128, 1, 1}, 40, 64, 100, 52);
    AddK(kKLnBwdGamma,
         "void at::native::(anonymous namespace)::GammaBetaBackwardCUDAKernel_32x32<c10::BFloat16, float>(long, "
         "long, c10::BFloat16 const*, c10::BFloat16 const*, float const*, float const*, c10::BFloat16*, "
         "c10::BFloat16*)",
         {128, 1, 1}, {32, 32, 1}, 54, 8448, 48, 47);
    const std::string bwd_traits =
        "pytorch_flash::Flash_bwd_kernel_traits<128, 64, 128, 8, 2, 4, 2, false, false, cutlass::bfloat16_t, "
        "pytorch_flash::Flash_kernel_traits<128, 64, 128, 8, cutlass::bfloat16_t> >";
    AddK(kKFlashBwdDotDoO,
         "void pytorch_flash::flash_bwd_dot_do_o_kernel<true, " + bwd_traits + " >(pytorch_flash::Flash_bwd_params)",
         {64, 1, 32}, {256, 1, 1}, 40, 0, 100, 26);
    AddK(kKFlashBwdDqDkDv,
         "void pytorch_flash::flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<" + bwd_traits +
             ", true, false, false, false, false, true, false>(pytorch_flash::Flash_bwd_params)",
         {32, 1, 32}, {256, 1, 1}, 255, 114688, 12, 762);
    AddK(kKFlashBwdConvertDq,
         "void pytorch_flash::flash_bwd_convert_dq_kernel<" + bwd_traits + " >(pytorch_flash::Flash_bwd_params, int)",
         {64, 1, 32}, {256, 1, 1}, 48, 32768, 50, 33);
    AddK(kKNllBwd,
         "void at::native::(anonymous namespace)::nll_loss_backward_reduce_cuda_kernel_2d<float, "
         "long>(float*, float const*, long const*, float const*, float const*, bool, int, int, long, long)",
         {1, 1, 1}, {1024, 1, 1}, 24, 0, 50, 9);
    AddK(kKSoftmaxBwd,
         "void at::native::(anonymous namespace)::cunn_SoftMaxBackward<4, float, float, float, "
         "at::native::(anonymous namespace)::LogSoftMaxBackwardEpilogue>(float*, float const*, float "
         "const*, long)",
         {4096, 1, 1}, {1024, 1, 1}, 40, 0, 94, 598);
    AddK(kKEmbeddingBwd,
         "void at::native::(anonymous namespace)::embedding_backward_feature_kernel<c10::BFloat16, float, "
         "long>(long const*, c10::BFloat16 const*, c10::BFloat16*, int, long, int, int)",
         {128, 1, 1}, {32, 32, 1}, 56, 12288, 48, 96);
    AddK(kKLpNorm,
         "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous "
         "namespace)::TensorListMetadata<1>, at::native::(anonymous namespace)::LpNormFunctor<float, "
         "(at::native::(anonymous namespace)::NormType)1, float, float>, float*, int>(at::native::(anonymous "
         "namespace)::TensorListMetadata<1>, at::native::(anonymous namespace)::LpNormFunctor<float, "
         "(at::native::(anonymous namespace)::NormType)1, float, float>, float*, int)",
         {320, 1, 1}, {512, 1, 1}, 32, 2048, 77, 181);
    AddK(kKLpNormCleanup,
         "void at::native::(anonymous namespace)::lpnorm_cleanup<float, (at::native::(anonymous "
         "namespace)::NormType)1, float, float>(float const*, at::native::(anonymous "
         "namespace)::TensorListAddresses, int)",
         {147, 1, 1}, {512, 1, 1}, 24, 2048, 48, 4);
    AddK(kKReduceNorm,
         "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::NormTwoOps<float, "
         "float, float>, unsigned int, float, 4> >(at::native::ReduceOp<float, at::native::NormTwoOps<float, "
         "float, float>, unsigned int, float, 4>)",
         {1, 1, 1}, {32, 16, 1}, 32, 16, 25, 4);
    AddK(kKClamp,
         "void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous "
         "namespace)::launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, "
         "at::native::detail::ClampLimits)::{lambda()#1}::operator()() const::{lambda()#7}::operator()() "
         "const::{lambda(float)#1}, at::detail::Array<char*, 2> >(int, at::native::(anonymous "
         "namespace)::launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, "
         "at::native::detail::ClampLimits)::{lambda()#1}::operator()() const::{lambda()#7}::operator()() "
         "const::{lambda(float)#1}, at::detail::Array<char*, 2>)",
         {1, 1, 1}, {128, 1, 1}, 18, 0, 0, 2);
    AddK(kKForeachMul,
         "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous "
         "namespace)::TensorListMetadata<1>, at::native::(anonymous "
         "namespace)::BinaryOpScalarTensorFunctor<float, 1, 1, 0>, std::multiplies<float>, float const*>("
         "at::native::(anonymous namespace)::TensorListMetadata<1>, at::native::(anonymous "
         "namespace)::BinaryOpScalarTensorFunctor<float, 1, 1, 0>, std::multiplies<float>, float const*)",
         {320, 1, 1}, {512, 1, 1}, 30, 0, 80, 212);
    AddK(kKFusedAdamw,
         "void at::native::(anonymous namespace)::multi_tensor_apply_for_fused_optimizer<4, "
         "at::native::(anonymous namespace)::FusedAdamMathFunctor<float, 4, (at::native::ADAM_MODE)1, "
         "false>, double*, double, double, double, double, double, bool, float const*, float const*>("
         "at::native::(anonymous namespace)::FusedOptimizerTensorListMetadata<4>, at::native::(anonymous "
         "namespace)::FusedAdamMathFunctor<float, 4, (at::native::ADAM_MODE)1, false>, double*, double, "
         "double, double, double, double, bool, float const*, float const*)",
         {320, 1, 1}, {512, 1, 1}, 64, 0, 62, 906);
    // NCCL: ring all-gather / reduce-scatter of one layer's parameters; inside a node (<= 8 ranks)
    // over NVLink, beyond it at network speed.
    const double bus_gbs = world <= 8 ? 360.0 : 45.0;
    const double layer_bytes = 2.0 * kLayerParams;
    const double coll_us = world > 1 ? layer_bytes * (world - 1) / world / (bus_gbs * 1e3) : 20.0;
    AddK(kKNcclAllGather, "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)", {24, 1, 1}, {544, 1, 1},
         96, 87568, 0, coll_us + 15, kNcclStream);
    AddK(kKNcclReduceScatter, "ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
         {24, 1, 1}, {544, 1, 1}, 96, 87568, 0, coll_us * 1.08 + 15, kNcclStream);
    AddK(kKNcclAllReduce, "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", {1, 1, 1},
         {544, 1, 1}, 96, 87568, 0, world <= 8 ? 18 : 42, kNcclStream);
    // NCCL kernels carry the collective's record_param_comms args, less the rank start/stride.
    for (auto [k, op] : {std::pair{kKNcclAllGather, kOpCommAg}, std::pair{kKNcclReduceScatter, kOpCommRs},
                         std::pair{kKNcclAllReduce, kOpCommAr}}) {
      const std::string& d = ops[op].dims;
      const size_t cut = d.find(", \"Global rank start\"");
      const size_t resume = d.find(", \"Process Group Name\"");
      kern[k].tail += d.substr(0, cut) + d.substr(resume);
    }
  }
};

}  // namespace gen_trace
