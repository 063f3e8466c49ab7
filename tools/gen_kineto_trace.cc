// paratune_gen_trace: writes large, realistic PyTorch-profiler (Kineto) Chrome-trace JSON files
// for the speed and memory benchmarks of the trace analyzer.
//
//   paratune_gen_trace --out FILE [--bytes N] [--rank R] [--world W] [--steps S] [--seed X] [--gzip]
//
// The trace is one rank of an FSDP-style training run of a 16-layer Llama-like transformer
// (hidden 4096, sequence 4096, bf16) on an H100: every step has a data-loader op, a forward on
// the main thread, a backward on the autograd thread, gradient-norm clipping with a small
// all-reduce, a fused AdamW step and a `loss.item()` sync. Parameters are all-gathered before
// each layer (prefetched one layer ahead) and gradients reduce-scattered after each layer's
// backward on NCCL stream 20, so communication overlaps compute on stream 7 only partially
// (the first all-gather of a step and the last reduce-scatter are exposed at 8 ranks; beyond 8
// ranks collectives run at network speed and most of them are exposed). Kernels run back to
// back with gaps of a few µs, one in ~300 runs slow, and in one step in ten one rank's data
// loader stalls for 3-25 ms while the other ranks wait in the step's first all-gather.
//
// Layout, after Kineto's libkineto/src/output_json.cpp and real traces (HTA test data):
//   {"schemaVersion", "deviceProperties" (one H100), "distributedInfo", "traceEvents": [
//     CPU events of the main thread for all steps (ProfilerStep#N, cpu_op, user_annotation,
//       python_function, [memory] instants, fwdbwd flow starts), in time order,
//     the same for the autograd thread (backward),
//     GPU activities in launch order, each followed by its ac2g flow end, its cuda_runtime
//       call and the ac2g flow start (kernel, gpu_memcpy, gpu_memset; runtime-only calls such
//       as cudaEventRecord or cudaStreamSynchronize stand alone),
//     gpu_user_annotation ranges, process/thread metadata ("M"), the "PyTorch Profiler (0)"
//       Trace span, its process_sort_index and the "Iteration Start" / "Record Window End"
//       instants, as Kineto ends the array
//   ], "traceName", "displayTimeUnit": "ms", "baseTimeNanoseconds"}
// Times are µs with 3 decimals relative to baseTimeNanoseconds, which comes last, as recent
// Kineto writes it. Unlike Kineto, which spreads an event over several lines, every event is
// on one line. The output depends only on the flags. Files of the ranks of one job (same seed
// and --world) line up: same steps, kernels and collectives, collectives ending together;
// ranks differ in pids, straggler roles and a little noise on the GPU and runtime durations.
//
// Memory stays constant: only one step's events are held at a time. The file is written in
// four passes over the steps (main thread, autograd thread, GPU, GPU annotations); each pass
// regenerates the steps from the seed. Output goes through an 8 MB buffer (zlib level 1 with
// --gzip). --bytes sets the target uncompressed size: the step count is chosen so the file
// stays just under it (--steps overrides it).

#include <fmt/compile.h>
#include <fmt/format.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace {

using Buf = fmt::memory_buffer;

constexpr int64_t kBaseTimeNs = 1700000000000000000;  // baseTimeNanoseconds
constexpr int64_t kTraceStartNs = 5000000000;          // profiler start, relative to the base
constexpr int kNumSms = 132;                           // H100 SXM
constexpr int kLayers = 16;
constexpr int kFirstStep = 10;                         // ProfilerStep# of the first step
constexpr int kComputeStream = 7;
constexpr int kNcclStream = 20;
constexpr int kMain = 0;      // thread index: main thread (tid == pid)
constexpr int kAutograd = 1;  // thread index: autograd engine thread

[[noreturn]] void Fail(const std::string& msg) {
  std::fprintf(stderr, "paratune_gen_trace: %s\n", msg.c_str());
  std::exit(2);
}

// ---------------------------------------------------------------------------------------------
// Random numbers: splitmix64, seeded per step so each step is independent of the ones before.

uint64_t Mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

struct Rng {
  uint64_t s = 0;
  void Seed(uint64_t a, uint64_t b, uint64_t c) { s = Mix(Mix(Mix(a) ^ b) ^ c); }
  uint64_t Next() { return Mix(s += 0x9e3779b97f4a7c15ULL); }
  int64_t Range(int64_t lo, int64_t hi) {  // [lo, hi]
    return lo + static_cast<int64_t>(Next() % static_cast<uint64_t>(hi - lo + 1));
  }
  double Unit() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }
  bool Chance(double p) { return Unit() < p; }
};

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
  kOpProfilerStep, kOpDataLoader, kOpTo, kOpToCopy, kOpCopy, kOpForward, kOpBackward,
  kOpFsdpPreFwd, kOpFsdpPreBwd, kOpFsdpPostBwd, kOpCommAg, kOpCommRs, kOpCommAr, kOpNcclAg,
  kOpNcclRs, kOpNcclAr, kOpEmbedding, kOpIndexSelect, kOpLayerNorm, kOpNativeLayerNorm,
  kOpLinearQkv, kOpLinearO, kOpLinearW13, kOpLinearW2, kOpLinearHead, kOpT, kOpTranspose,
  kOpAsStrided, kOpMatmul, kOpView, kOpMmQkv, kOpMmO, kOpMmW13, kOpMmW2, kOpMmHead, kOpMulRope,
  kOpAddRope, kOpCat, kOpSdpa, kOpSdpaFlash, kOpFlashFwd, kOpEmpty, kOpAdd, kOpSilu, kOpMul,
  kOpCrossEntropy, kOpLogSoftmax, kOpLogSoftmaxImpl, kOpNllLoss, kOpNllLossFwd, kOpOnesLike,
  kOpEvalMm, kOpMmBwd, kOpEvalMul, kOpMulBwd, kOpEvalSilu, kOpSiluBwd, kOpSiluBackward,
  kOpEvalLn, kOpLnBwd, kOpNativeLnBwd, kOpEvalAdd, kOpAddBwd, kOpEvalSdpa, kOpSdpaBwd,
  kOpSdpaFlashBwd, kOpFlashBwd, kOpZeros, kOpZero, kOpEvalNll, kOpNllBwd, kOpNllBwdImpl,
  kOpEvalLogSoftmax, kOpLogSoftmaxBwd, kOpLogSoftmaxBwdImpl, kOpEvalEmbedding, kOpEmbeddingBwd,
  kOpEmbeddingDenseBwd, kOpEvalAccGrad, kOpAccGrad, kOpClipGradNorm, kOpForeachNorm, kOpStack,
  kOpVectorNorm, kOpClamp, kOpForeachMul, kOpOptStep, kOpFusedAdamw, kOpZeroGrad, kOpItem,
  kOpLocalScalarDense, kOpPyTrainStep, kOpPyCallImpl, kOpPyBlock0,  // + one per layer
};

enum Kern : uint16_t {
  kKIndexSelect, kKLayerNorm, kKGemmQkv, kKGemmO, kKGemmW13, kKGemmW2, kKGemmHead, kKRopeMul,
  kKRopeAdd, kKCat, kKFlashFwd, kKAdd, kKSilu, kKMul, kKSoftmaxFwd, kKNllFwd, kKFill,
  kKGemmHeadDgrad, kKGemmHeadWgrad, kKGemmQkvDgrad, kKGemmQkvWgrad, kKGemmODgrad, kKGemmOWgrad,
  kKGemmW13Dgrad, kKGemmW13Wgrad, kKGemmW2Dgrad, kKGemmW2Wgrad, kKSiluBwd, kKLnBwdInput,
  kKLnBwdGamma, kKFlashBwdDotDoO, kKFlashBwdDqDkDv, kKFlashBwdConvertDq, kKNllBwd,
  kKSoftmaxBwd, kKEmbeddingBwd, kKLpNorm, kKLpNormCleanup, kKReduceNorm, kKClamp, kKForeachMul,
  kKFusedAdamw, kKNcclAllGather, kKNcclReduceScatter, kKNcclAllReduce, kNumKern
};

// Typical sizes (elements) of the collectives: one layer's parameters (all-gather output,
// reduce-scatter input) and the gradient norm.
constexpr int64_t kLayerParams = 4096LL * 6144 + 4096LL * 4096 + 3 * 4096LL * 14336 + 2 * 4096;

std::string Esc(std::string_view s) {  // JSON string body
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
  void AddK(Kern id, std::string name, std::array<int, 3> grid, std::array<int, 3> block, int regs,
            int smem, int occ, double dur_us, int stream = kComputeStream) {
    if (kern.size() <= id) kern.resize(id + 1);
    const double blocks = double(grid[0]) * grid[1] * grid[2];
    const int warps = (block[0] * block[1] * block[2] + 31) / 32;
    const double bpsm = blocks / kNumSms;
    std::string tail = fmt::format(
        ", \"registers per thread\": {}, \"shared memory\": {}, \"blocks per SM\": {:.6f}, "
        "\"warps per SM\": {:.6f}, \"grid\": [{}, {}, {}], \"block\": [{}, {}, {}], "
        "\"est. achieved occupancy %\": {}",
        regs, smem, bpsm, bpsm * warps, grid[0], grid[1], grid[2], block[0], block[1], block[2],
        occ);
    std::string prefix = fmt::format(
        "  {{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"{}\", \"pid\": 0, \"tid\": {}, \"ts\": ",
        Esc(name), stream);
    kern[id] = KSpec{std::move(name), static_cast<int64_t>(dur_us * 1000), std::move(prefix),
                     std::move(tail), stream};
  }

  void Build(int pid, int world) {
    const std::string bf = "\"c10::BFloat16\"";
    auto dims = [](std::string d, std::string t) {
      return fmt::format(", \"Input Dims\": {}, \"Input type\": {}", d, t);
    };
    const std::string x = "[1, 4096, 4096]";
    const std::string x2 = dims("[" + x + ", " + x + "]", "[" + bf + ", " + bf + "]");
    AddOp(kOpProfilerStep, Cat::kUserAnnotation, "ProfilerStep#");  // + step number
    AddOp(kOpDataLoader, Cat::kUserAnnotation,
          "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__");
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
    AddOp(kOpCommRs, Cat::kCpuOp, "record_param_comms",
          comm("_reduce_scatter_base", shard * world, shard));
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
          dims("[" + x + ", [], [4096], [], []]",
               "[" + bf + ", \"ScalarList\", " + bf + ", \"\", \"Scalar\"]"));
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
    AddOp(kOpMulRope, Cat::kCpuOp, "aten::mul",
          dims("[" + q + ", [1, 1, 4096, 128]]", "[" + bf + ", " + bf + "]"));
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
    AddOp(kOpMul, Cat::kCpuOp, "aten::mul",
          dims("[[1, 4096, 14336], [1, 4096, 14336]]", "[" + bf + ", " + bf + "]"));
    AddOp(kOpCrossEntropy, Cat::kCpuOp, "aten::cross_entropy_loss",
          dims("[[4096, 128256], [4096], [], [], [], []]",
               "[\"float\", \"long int\", \"\", \"Scalar\", \"Scalar\", \"Scalar\"]"));
    AddOp(kOpLogSoftmax, Cat::kCpuOp, "aten::log_softmax",
          dims("[[4096, 128256], [], []]", "[\"float\", \"Scalar\", \"\"]"));
    AddOp(kOpLogSoftmaxImpl, Cat::kCpuOp, "aten::_log_softmax",
          dims("[[4096, 128256], [], []]", "[\"float\", \"Scalar\", \"Scalar\"]"));
    AddOp(kOpNllLoss, Cat::kCpuOp, "aten::nll_loss_nd",
          dims("[[4096, 128256], [4096], [], [], []]",
               "[\"float\", \"long int\", \"\", \"Scalar\", \"Scalar\"]"));
    AddOp(kOpNllLossFwd, Cat::kCpuOp, "aten::nll_loss_forward",
          dims("[[4096, 128256], [4096], [], [], []]",
               "[\"float\", \"long int\", \"\", \"Scalar\", \"Scalar\"]"));
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
               "[" + bf + ", " + bf + ", \"ScalarList\", \"float\", \"float\", " + bf +
                   ", \"\", \"ScalarList\"]"));
    AddOp(kOpEvalAdd, Cat::kCpuOp, "autograd::engine::evaluate_function: AddBackward0");
    AddOp(kOpAddBwd, Cat::kCpuOp, "AddBackward0", dims("[" + x + "]", "[" + bf + "]"));
    AddOp(kOpEvalSdpa, Cat::kCpuOp,
          "autograd::engine::evaluate_function: ScaledDotProductFlashAttentionBackward0");
    AddOp(kOpSdpaBwd, Cat::kCpuOp, "ScaledDotProductFlashAttentionBackward0",
          dims("[" + q + "]", "[" + bf + "]"));
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
          dims("[" + x + ", [1, 4096], [], [], []]",
               "[" + bf + ", \"long int\", \"Scalar\", \"Scalar\", \"Scalar\"]"));
    AddOp(kOpEvalAccGrad, Cat::kCpuOp,
          "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad");
    AddOp(kOpAccGrad, Cat::kCpuOp, "torch::autograd::AccumulateGrad");
    AddOp(kOpClipGradNorm, Cat::kUserAnnotation, "clip_grad_norm_");
    AddOp(kOpForeachNorm, Cat::kCpuOp, "aten::_foreach_norm",
          dims("[[], []]", "[\"TensorList\", \"Scalar\"]"));
    AddOp(kOpStack, Cat::kCpuOp, "aten::stack", dims("[[], []]", "[\"TensorList\", \"Scalar\"]"));
    AddOp(kOpVectorNorm, Cat::kCpuOp, "aten::linalg_vector_norm",
          dims("[[147], [], [], [], []]", "[\"float\", \"Scalar\", \"\", \"Scalar\", \"\"]"));
    AddOp(kOpClamp, Cat::kCpuOp, "aten::clamp", dims("[[], [], []]", "[\"float\", \"\", \"Scalar\"]"));
    AddOp(kOpForeachMul, Cat::kCpuOp, "aten::_foreach_mul_",
          dims("[[], []]", "[\"TensorList\", \"float\"]"));
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
         "void pytorch_flash::flash_bwd_dot_do_o_kernel<true, " + bwd_traits +
             " >(pytorch_flash::Flash_bwd_params)",
         {64, 1, 32}, {256, 1, 1}, 40, 0, 100, 26);
    AddK(kKFlashBwdDqDkDv,
         "void pytorch_flash::flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<" + bwd_traits +
             ", true, false, false, false, false, true, false>(pytorch_flash::Flash_bwd_params)",
         {32, 1, 32}, {256, 1, 1}, 255, 114688, 12, 762);
    AddK(kKFlashBwdConvertDq,
         "void pytorch_flash::flash_bwd_convert_dq_kernel<" + bwd_traits +
             " >(pytorch_flash::Flash_bwd_params, int)",
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
    AddK(kKNcclAllGather, "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
         {24, 1, 1}, {544, 1, 1}, 96, 87568, 0, coll_us + 15, kNcclStream);
    AddK(kKNcclReduceScatter,
         "ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", {24, 1, 1},
         {544, 1, 1}, 96, 87568, 0, coll_us * 1.08 + 15, kNcclStream);
    AddK(kKNcclAllReduce, "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
         {1, 1, 1}, {544, 1, 1}, 96, 87568, 0, world <= 8 ? 18 : 42, kNcclStream);
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

// ---------------------------------------------------------------------------------------------
// One step's events, as the model produces them.

enum class CpuKind : uint8_t { kX, kMemory, kFlowS, kFlowF };

struct CpuEv {
  int64_t ts = 0, dur = 0;
  int64_t ext = 0;    // External id (Record function id is derived from it)
  int64_t evidx = 0;  // Ev Idx
  int64_t seq = -1;   // Sequence number of autograd ops, -1: none
  int64_t a = 0;      // ProfilerStep number, Python id, flow id, [memory] bytes
  int64_t b = 0;      // Python parent id, [memory] total allocated
  uint16_t op = 0;
  CpuKind kind = CpuKind::kX;
};

enum class Rt : uint8_t {
  kLaunchKernel, kLaunchKernelExC, kMemcpyAsync, kMemsetAsync, kEventRecord, kStreamWaitEvent,
  kEventSynchronize, kStreamSynchronize
};
struct RtInfo {
  const char* name;
  int cbid;
};
constexpr RtInfo kRt[] = {{"cudaLaunchKernel", 211},  {"cudaLaunchKernelExC", 430},
                          {"cudaMemcpyAsync", 41},    {"cudaMemsetAsync", 51},
                          {"cudaEventRecord", 135},   {"cudaStreamWaitEvent", 147},
                          {"cudaEventSynchronize", 137}, {"cudaStreamSynchronize", 131}};

enum class GpuKind : uint8_t { kKernel, kMemcpyHtoD, kMemcpyDtoD, kMemcpyDtoH, kMemset, kNone };

struct GpuEv {
  int64_t ts = 0, dur = 0;        // GPU activity
  int64_t rt_ts = 0, rt_dur = 0;  // runtime call
  int64_t ext = 0, corr = 0;
  int64_t bytes = 0;
  uint16_t kern = 0;
  GpuKind kind = GpuKind::kNone;
  Rt rt = Rt::kLaunchKernel;
  uint8_t th = kMain;
  uint8_t stream = kComputeStream;
};

struct GpuAnn {
  int64_t ts = 0, dur = 0, ext = 0;
  uint16_t op = 0;
};

struct Config {
  std::string out;
  int64_t bytes = 1000000000;
  int rank = 0;
  int world = 8;
  int64_t steps = -1;
  uint64_t seed = 1;
  bool gzip = false;
};

// The training-step model: advances CPU thread clocks and two stream clocks in ns, recording
// events. Ids and clocks carry over from step to step. Random numbers come from two per-step
// generators: `rng_` (seed and step only) drives the model, so every rank has the same
// timeline and collectives end at the same time on all ranks; `noise_` (also the rank) only
// shortens the durations shown for GPU work and runtime calls and delays the start shown for
// collectives (a rank arriving late), never the clocks. One step in ten has a straggler: one
// rank's data loader stalls, and the first all-gather of the step waits that long on the
// other ranks.
class Model {
 public:
  Model(const Tables& t, const Config& c) : t_(t), c_(c) {
    cur_[kMain] = kTraceStartNs + 350000;  // the first step starts a little after the profiler
    cur_[kAutograd] = cur_[kMain];
    sf_[0] = sf_[1] = kTraceStartNs;
    for (auto& v : cpu) v.reserve(1 << 14);
    gpu.reserve(1 << 13);
  }

  std::vector<CpuEv> cpu[2];
  std::vector<GpuEv> gpu;
  std::vector<GpuAnn> gann;
  int64_t step_no = 0;

  int64_t EndTime() const { return std::max({cur_[kMain], cur_[kAutograd], sf_[0], sf_[1]}); }

  void Step(int64_t s) {
    for (auto& v : cpu) v.clear();
    gpu.clear();
    gann.clear();
    rng_.Seed(c_.seed, 0x5eed, static_cast<uint64_t>(s));
    noise_.Seed(c_.seed, 0x10ca1 + static_cast<uint64_t>(c_.rank), static_cast<uint64_t>(s));
    step_no = kFirstStep + s;

    const int ps = Begin(kMain, kOpProfilerStep);
    cpu[kMain][ps].a = step_no;
    const int py_step = PyBegin(kMain, kOpPyTrainStep);
    // Data loader: usually quick; now and then one rank stalls and the others wait for it.
    const bool straggle = rng_.Chance(0.1);
    const int64_t straggler = rng_.Range(0, c_.world - 1);
    const int64_t stall = rng_.Range(3000000, 25000000);
    const bool me = straggle && straggler == c_.rank;
    ag0_extra_ = straggle && !me ? stall : 0;
    Leaf(kMain, kOpDataLoader, rng_.Range(250000, 1400000) + (me ? stall : 0));
    for (int i = 0; i < 2; ++i) {  // input ids and labels to the GPU
      const int a = Begin(kMain, kOpTo);
      const int b = Begin(kMain, kOpToCopy);
      Leaf(kMain, kOpEmpty, rng_.Range(2000, 5000));
      const int c = Begin(kMain, kOpCopy);
      Copy(kMain, GpuKind::kMemcpyHtoD, 4096 * 8, 9000);
      End(kMain, c);
      End(kMain, b);
      End(kMain, a);
    }
    Forward();
    Backward();
    Optimizer();
    PyEnd(kMain, py_step);
    End(kMain, ps);
  }

 private:
  const Tables& t_;
  const Config& c_;
  Rng rng_, noise_;
  int64_t ag0_extra_ = 0;  // the first all-gather of the step waits for a straggler
  int64_t cur_[2] = {0, 0};  // CPU thread clocks
  int64_t sf_[2] = {0, 0};   // time each stream is free: [0] compute (7), [1] NCCL (20)
  int64_t ext_ = 0, evidx_ = 0, corr_ = 0, seq_ = 0, py_id_ = 0, flow_id_ = 0;
  int64_t allocated_ = 31LL << 30;
  std::vector<int> stack_[2];
  int py_parent_[2] = {0, 0};
  int64_t ag_end_[kLayers] = {};
  int64_t layer_end_[kLayers] = {};
  int64_t fwd_flow_[kLayers][8] = {};
  int64_t fwd_seq_[kLayers][8] = {};

  static int Idx(Kern k) { return static_cast<int>(k); }

  int Begin(int th, uint16_t op) {
    cur_[th] += rng_.Range(300, 1500);
    CpuEv e;
    e.ts = cur_[th];
    e.op = op;
    e.ext = ++ext_;
    e.evidx = evidx_++;
    cpu[th].push_back(e);
    cur_[th] += rng_.Range(200, 900);
    stack_[th].push_back(static_cast<int>(cpu[th].size() - 1));
    return static_cast<int>(cpu[th].size() - 1);
  }
  void End(int th, int i) {
    cur_[th] += rng_.Range(400, 2200);
    cpu[th][i].dur = cur_[th] - cpu[th][i].ts;
    if (!stack_[th].empty()) stack_[th].pop_back();
  }
  void Leaf(int th, uint16_t op, int64_t cost) {
    const int i = Begin(th, op);
    cur_[th] += cost;
    End(th, i);
  }
  int PyBegin(int th, uint16_t op) {
    cur_[th] += rng_.Range(100, 600);
    CpuEv e;
    e.ts = cur_[th];
    e.op = op;
    e.a = ++py_id_;
    e.b = py_parent_[th];
    e.evidx = evidx_++;
    cpu[th].push_back(e);
    py_parent_[th] = static_cast<int>(e.a);
    cur_[th] += rng_.Range(500, 2000);
    return static_cast<int>(cpu[th].size() - 1);
  }
  void PyEnd(int th, int i) {
    cur_[th] += rng_.Range(300, 1200);
    cpu[th][i].dur = cur_[th] - cpu[th][i].ts;
    py_parent_[th] = static_cast<int>(cpu[th][i].b);
  }
  void Flow(int th, CpuKind kind, int64_t id) {
    CpuEv e;
    e.kind = kind;
    e.ts = cpu[th].back().ts;
    e.a = id;
    cpu[th].push_back(e);
  }
  void Memory(int th, int64_t bytes) {
    allocated_ += bytes;
    CpuEv e;
    e.kind = CpuKind::kMemory;
    e.ts = cur_[th];
    e.a = bytes;
    e.b = allocated_;
    cpu[th].push_back(e);
  }
  int64_t Ext(int th) const { return stack_[th].empty() ? 0 : cpu[th][stack_[th].back()].ext; }

  GpuEv& Runtime(int th, Rt rt, int64_t cost) {
    GpuEv g;
    g.rt = rt;
    g.th = static_cast<uint8_t>(th);
    g.ext = Ext(th);
    g.corr = ++corr_;
    g.rt_ts = cur_[th] + rng_.Range(800, 2500);
    cur_[th] = g.rt_ts + cost;
    g.rt_dur = cost - cost * noise_.Range(0, 12) / 100;
    gpu.push_back(g);
    return gpu.back();
  }
  // Puts GPU work of `dur` on stream index `si` launched by the runtime call `g`.
  void Place(GpuEv& g, int si, int64_t dur) {
    const int64_t earliest = g.rt_ts + rng_.Range(2500, 5500);
    const int64_t ready = sf_[si] + rng_.Range(700, 2600);
    g.ts = std::max(earliest, ready);
    g.dur = dur;
    g.stream = static_cast<uint8_t>(si == 0 ? kComputeStream : kNcclStream);
    sf_[si] = g.ts + dur;
    if (si == 0) {
      g.dur -= noise_.Range(0, std::min<int64_t>(dur / 100, 4000));
    } else {
      const int64_t late = std::min<int64_t>(dur / 50, 30000) * noise_.Range(0, 100) / 100;
      g.ts += late;
      g.dur -= late + noise_.Range(0, 3000);  // ranks see the end within a few µs
    }
  }
  int64_t Jitter(int64_t base) {
    double f = 1.0 + (rng_.Unit() - 0.5) * 0.06;
    if (rng_.Chance(0.003)) f *= 1.5 + 1.5 * rng_.Unit();  // a slow kernel now and then
    return std::max<int64_t>(1000, static_cast<int64_t>(static_cast<double>(base) * f));
  }
  void Kernel(int th, Kern k) {
    const int64_t cost = rng_.Chance(0.01) ? rng_.Range(15000, 60000) : rng_.Range(2600, 7000);
    GpuEv& g = Runtime(th, Rt::kLaunchKernel, cost);
    g.kind = GpuKind::kKernel;
    g.kern = k;
    Place(g, 0, Jitter(t_.kern[Idx(k)].dur_ns));
  }
  void Copy(int th, GpuKind kind, int64_t bytes, int64_t dur) {
    GpuEv& g = Runtime(th, kind == GpuKind::kMemset ? Rt::kMemsetAsync : Rt::kMemcpyAsync,
                       rng_.Range(4000, 14000));
    g.kind = kind;
    g.bytes = bytes;
    Place(g, 0, Jitter(dur));
  }
  // Records an event on stream `from` (returns the time it completes) / makes stream `to`
  // wait for such an event.
  int64_t Record(int th, int from) {
    Runtime(th, Rt::kEventRecord, rng_.Range(1200, 3000));
    return sf_[from];
  }
  void WaitFor(int th, int to, int64_t t) {
    Runtime(th, Rt::kStreamWaitEvent, rng_.Range(1000, 2500));
    sf_[to] = std::max(sf_[to], t);
  }
  void StreamWait(int th, int from, int to) { WaitFor(th, to, Record(th, from)); }
  // The CPU blocks until the GPU reaches `t`.
  void Sync(int th, Rt rt, int64_t t) {
    const int64_t start = cur_[th] + rng_.Range(800, 2500);
    Runtime(th, rt, std::max<int64_t>(rng_.Range(1500, 4000), t + rng_.Range(3000, 9000) - start));
  }
  // A collective on the NCCL stream; returns the time its end event completes. All-gathers of
  // parameters do not wait for compute (FSDP's unshard stream), reductions do.
  int64_t Collective(int th, Kern k, uint16_t comm_op, uint16_t nccl_op, int64_t dur) {
    const int a = Begin(th, comm_op);
    const int b = Begin(th, nccl_op);
    if (k != kKNcclAllGather) StreamWait(th, 0, 1);
    GpuEv& g = Runtime(th, Rt::kLaunchKernelExC, rng_.Range(7000, 16000));
    g.kind = GpuKind::kKernel;
    g.kern = k;
    Place(g, 1, dur);
    const int64_t done = Record(th, 1);
    End(th, b);
    End(th, a);
    return done;
  }
  int64_t CollDur(Kern k) {
    const double f = 1.0 + (rng_.Unit() - 0.5) * 0.2 + (rng_.Chance(0.02) ? 1.5 : 0.0);
    return static_cast<int64_t>(static_cast<double>(t_.kern[Idx(k)].dur_ns) * f);
  }
  void AllGather(int th, int layer, int64_t extra = 0) {
    ag_end_[layer] = Collective(th, kKNcclAllGather, kOpCommAg, kOpNcclAg, CollDur(kKNcclAllGather) + extra);
  }
  // aten::linear -> t / matmul -> mm -> GEMM, the forward op as an autograd node (flow start).
  void Linear(int th, uint16_t lin, uint16_t mm, Kern k, int layer, int slot) {
    const int a = Begin(th, lin);
    if (layer >= 0) {
      cpu[th][a].seq = fwd_seq_[layer][slot] = ++seq_;
      Flow(th, CpuKind::kFlowS, fwd_flow_[layer][slot] = ++flow_id_);
    }
    const int tt = Begin(th, kOpT);
    const int tr = Begin(th, kOpTranspose);
    Leaf(th, kOpAsStrided, rng_.Range(1500, 4000));
    End(th, tr);
    End(th, tt);
    const int m = Begin(th, kOpMatmul);
    Leaf(th, kOpView, rng_.Range(1500, 3500));
    const int mmi = Begin(th, mm);
    cur_[th] += rng_.Range(3000, 9000);
    Kernel(th, k);
    End(th, mmi);
    Leaf(th, kOpView, rng_.Range(1500, 3500));
    End(th, m);
    End(th, a);
  }
  void Simple(int th, uint16_t op, Kern k) {
    const int a = Begin(th, op);
    cur_[th] += rng_.Range(3000, 8000);
    Kernel(th, k);
    End(th, a);
  }
  void LayerNorm(int th) {
    const int a = Begin(th, kOpLayerNorm);
    const int b = Begin(th, kOpNativeLayerNorm);
    Leaf(th, kOpEmpty, rng_.Range(1500, 3000));
    cur_[th] += rng_.Range(2000, 6000);
    Kernel(th, kKLayerNorm);
    End(th, b);
    End(th, a);
  }
  int64_t GemmStart() const { return gpu.empty() ? sf_[0] : gpu.back().ts; }

  void Forward() {
    const int fw = Begin(kMain, kOpForward);
    const size_t first_gpu = gpu.size();
    {  // root pre-forward: gather layer 0
      const int a = Begin(kMain, kOpFsdpPreFwd);
      AllGather(kMain, 0, ag0_extra_);
      End(kMain, a);
    }
    {
      const int a = Begin(kMain, kOpEmbedding);
      Leaf(kMain, kOpView, rng_.Range(1500, 3000));
      Simple(kMain, kOpIndexSelect, kKIndexSelect);
      End(kMain, a);
    }
    for (int l = 0; l < kLayers; ++l) {
      const int call = PyBegin(kMain, kOpPyCallImpl);
      const int mod = PyBegin(kMain, static_cast<uint16_t>(kOpPyBlock0 + l));
      {
        const int a = Begin(kMain, kOpFsdpPreFwd);
        WaitFor(kMain, 0, ag_end_[l]);  // compute waits for this layer's parameters
        if (l + 1 < kLayers) {
          // Rate limiter: at most two layers' parameters gathered ahead of compute.
          if (l >= 1) Sync(kMain, Rt::kEventSynchronize, layer_end_[l - 1]);
          AllGather(kMain, l + 1);
        }
        End(kMain, a);
      }
      if (rng_.Chance(0.15)) Memory(kMain, 2 * kLayerParams);
      LayerNorm(kMain);
      Linear(kMain, kOpLinearQkv, kOpMmQkv, kKGemmQkv, l, 0);
      Simple(kMain, kOpMulRope, kKRopeMul);
      Simple(kMain, kOpMulRope, kKRopeMul);
      Simple(kMain, kOpAddRope, kKRopeAdd);
      {
        const int a = Begin(kMain, kOpSdpa);
        const int b = Begin(kMain, kOpSdpaFlash);
        cpu[kMain][b].seq = fwd_seq_[l][1] = ++seq_;
        Flow(kMain, CpuKind::kFlowS, fwd_flow_[l][1] = ++flow_id_);
        const int c = Begin(kMain, kOpFlashFwd);
        Leaf(kMain, kOpEmpty, rng_.Range(1500, 3000));
        Leaf(kMain, kOpEmpty, rng_.Range(1500, 3000));
        cur_[kMain] += rng_.Range(4000, 12000);
        Kernel(kMain, kKFlashFwd);
        End(kMain, c);
        End(kMain, b);
        End(kMain, a);
      }
      Linear(kMain, kOpLinearO, kOpMmO, kKGemmO, l, 2);
      Simple(kMain, kOpAdd, kKAdd);
      LayerNorm(kMain);
      Linear(kMain, kOpLinearW13, kOpMmW13, kKGemmW13, l, 3);
      Linear(kMain, kOpLinearW13, kOpMmW13, kKGemmW13, l, 4);
      Simple(kMain, kOpSilu, kKSilu);
      Simple(kMain, kOpMul, kKMul);
      Linear(kMain, kOpLinearW2, kOpMmW2, kKGemmW2, l, 5);
      Simple(kMain, kOpAdd, kKAdd);
      layer_end_[l] = sf_[0];
      if (rng_.Chance(0.15)) Memory(kMain, -2 * kLayerParams);
      PyEnd(kMain, mod);
      PyEnd(kMain, call);
    }
    LayerNorm(kMain);
    Linear(kMain, kOpLinearHead, kOpMmHead, kKGemmHead, -1, 0);
    {
      const int a = Begin(kMain, kOpCrossEntropy);
      const int b = Begin(kMain, kOpLogSoftmax);
      Simple(kMain, kOpLogSoftmaxImpl, kKSoftmaxFwd);
      End(kMain, b);
      const int c = Begin(kMain, kOpNllLoss);
      Simple(kMain, kOpNllLossFwd, kKNllFwd);
      End(kMain, c);
      End(kMain, a);
    }
    End(kMain, fw);
    AddGpuAnn(kOpForward, cpu[kMain][fw].ext, first_gpu);
  }

  // evaluate_function: X -> X (flow end) -> body
  int NodeBegin(int th, uint16_t eval, uint16_t node, int layer, int slot, int* inner) {
    const int a = Begin(th, eval);
    const int b = Begin(th, node);
    if (layer >= 0) {
      cpu[th][a].seq = cpu[th][b].seq = fwd_seq_[layer][slot];
      Flow(th, CpuKind::kFlowF, fwd_flow_[layer][slot]);
    }
    *inner = b;
    return a;
  }
  void NodeEnd(int th, int a, int b) {
    End(th, b);
    End(th, a);
  }
  void MmBackward(int th, int layer, int slot, uint16_t mm, Kern dgrad, Kern wgrad) {
    int b;
    const int a = NodeBegin(th, kOpEvalMm, kOpMmBwd, layer, slot, &b);
    const int t1 = Begin(th, kOpT);
    Leaf(th, kOpTranspose, rng_.Range(2000, 4000));
    End(th, t1);
    Simple(th, mm, dgrad);
    const int t2 = Begin(th, kOpT);
    Leaf(th, kOpTranspose, rng_.Range(2000, 4000));
    End(th, t2);
    Simple(th, mm, wgrad);
    NodeEnd(th, a, b);
  }
  void LnBackward(int th) {
    int b;
    const int a = NodeBegin(th, kOpEvalLn, kOpLnBwd, -1, 0, &b);
    const int c = Begin(th, kOpNativeLnBwd);
    Leaf(th, kOpEmpty, rng_.Range(1500, 3000));
    Kernel(th, kKLnBwdInput);
    Kernel(th, kKLnBwdGamma);
    End(th, c);
    NodeEnd(th, a, b);
  }
  void AddBackward(int th, bool kernel) {
    int b;
    const int a = NodeBegin(th, kOpEvalAdd, kOpAddBwd, -1, 0, &b);
    if (kernel) Simple(th, kOpAdd, kKAdd);
    NodeEnd(th, a, b);
  }

  void Backward() {
    const int bw = Begin(kMain, kOpBackward);
    const int th = kAutograd;
    cur_[th] = std::max(cur_[th], cur_[kMain]) + rng_.Range(20000, 45000);
    const size_t first_gpu = gpu.size();
    {
      const int a = Begin(th, kOpOnesLike);
      Simple(th, kOpZero, kKFill);
      End(th, a);
    }
    {
      int b;
      const int a = NodeBegin(th, kOpEvalNll, kOpNllBwd, -1, 0, &b);
      const int c = Begin(th, kOpNllBwdImpl);
      Simple(th, kOpZero, kKFill);
      Kernel(th, kKNllBwd);
      End(th, c);
      NodeEnd(th, a, b);
    }
    {
      int b;
      const int a = NodeBegin(th, kOpEvalLogSoftmax, kOpLogSoftmaxBwd, -1, 0, &b);
      Simple(th, kOpLogSoftmaxBwdImpl, kKSoftmaxBwd);
      NodeEnd(th, a, b);
    }
    MmBackward(th, -1, 0, kOpMmHead, kKGemmHeadDgrad, kKGemmHeadWgrad);
    LnBackward(th);
    {  // gather the last layer again (parameters were freed after forward)
      const int a = Begin(th, kOpFsdpPreBwd);
      AllGather(th, kLayers - 1);
      End(th, a);
    }
    for (int l = kLayers - 1; l >= 0; --l) {
      {
        const int a = Begin(th, kOpFsdpPreBwd);
        WaitFor(th, 0, ag_end_[l]);
        if (l > 0) {
          if (l + 2 < kLayers) Sync(th, Rt::kEventSynchronize, layer_end_[l + 2]);
          AllGather(th, l - 1);
        }
        End(th, a);
      }
      AddBackward(th, false);
      MmBackward(th, l, 5, kOpMmW2, kKGemmW2Dgrad, kKGemmW2Wgrad);
      {
        int b;
        const int a = NodeBegin(th, kOpEvalMul, kOpMulBwd, -1, 0, &b);
        Simple(th, kOpMul, kKMul);
        Simple(th, kOpMul, kKMul);
        NodeEnd(th, a, b);
      }
      {
        int b;
        const int a = NodeBegin(th, kOpEvalSilu, kOpSiluBwd, -1, 0, &b);
        Simple(th, kOpSiluBackward, kKSiluBwd);
        NodeEnd(th, a, b);
      }
      MmBackward(th, l, 4, kOpMmW13, kKGemmW13Dgrad, kKGemmW13Wgrad);
      MmBackward(th, l, 3, kOpMmW13, kKGemmW13Dgrad, kKGemmW13Wgrad);
      Simple(th, kOpAdd, kKAdd);
      LnBackward(th);
      AddBackward(th, true);
      MmBackward(th, l, 2, kOpMmO, kKGemmODgrad, kKGemmOWgrad);
      {
        int b;
        const int a = NodeBegin(th, kOpEvalSdpa, kOpSdpaBwd, l, 1, &b);
        const int c = Begin(th, kOpSdpaFlashBwd);
        const int d = Begin(th, kOpFlashBwd);
        Leaf(th, kOpEmpty, rng_.Range(1500, 3000));
        {
          const int z = Begin(th, kOpZeros);
          const int zz = Begin(th, kOpZero);
          Copy(th, GpuKind::kMemset, 4096LL * 32 * 128 * 4, 42000);
          End(th, zz);
          End(th, z);
        }
        Kernel(th, kKFlashBwdDotDoO);
        Kernel(th, kKFlashBwdDqDkDv);
        Kernel(th, kKFlashBwdConvertDq);
        End(th, d);
        End(th, c);
        NodeEnd(th, a, b);
      }
      {
        int b;
        const int a = NodeBegin(th, kOpEvalMul, kOpMulBwd, -1, 0, &b);
        Simple(th, kOpMulRope, kKRopeMul);
        Simple(th, kOpMulRope, kKRopeMul);
        Simple(th, kOpCat, kKCat);
        NodeEnd(th, a, b);
      }
      MmBackward(th, l, 0, kOpMmQkv, kKGemmQkvDgrad, kKGemmQkvWgrad);
      LnBackward(th);
      AddBackward(th, true);
      {
        const int a = Begin(th, kOpEvalAccGrad);
        Leaf(th, kOpAccGrad, rng_.Range(3000, 9000));
        End(th, a);
      }
      {  // flatten the gradients and reduce-scatter them
        const int a = Begin(th, kOpFsdpPostBwd);
        const int c = Begin(th, kOpCopy);
        Copy(th, GpuKind::kMemcpyDtoD, 2 * kLayerParams, 2 * kLayerParams / 2600);
        End(th, c);
        Collective(th, kKNcclReduceScatter, kOpCommRs, kOpNcclRs, CollDur(kKNcclReduceScatter));
        End(th, a);
      }
      layer_end_[l] = sf_[0];
    }
    {
      int b;
      const int a = NodeBegin(th, kOpEvalEmbedding, kOpEmbeddingBwd, -1, 0, &b);
      Simple(th, kOpEmbeddingDenseBwd, kKEmbeddingBwd);
      NodeEnd(th, a, b);
    }
    // The main thread waits in the autograd engine until the CPU side of backward is done.
    cur_[kMain] = std::max(cur_[kMain], cur_[th]) + rng_.Range(5000, 20000);
    End(kMain, bw);
    // the last reduce-scatters must be done before the optimizer reads the gradient shards
    StreamWait(kMain, 1, 0);
    AddGpuAnn(kOpBackward, cpu[kMain][bw].ext, first_gpu);
  }

  void Optimizer() {
    const int th = kMain;
    {
      const int a = Begin(th, kOpClipGradNorm);
      const int b = Begin(th, kOpForeachNorm);
      Kernel(th, kKLpNorm);
      Kernel(th, kKLpNormCleanup);
      End(th, b);
      const int c = Begin(th, kOpStack);
      Kernel(th, kKCat);
      End(th, c);
      Simple(th, kOpVectorNorm, kKReduceNorm);
      WaitFor(th, 0, Collective(th, kKNcclAllReduce, kOpCommAr, kOpNcclAr, CollDur(kKNcclAllReduce)));
      Simple(th, kOpClamp, kKClamp);
      Simple(th, kOpForeachMul, kKForeachMul);
      End(th, a);
    }
    {
      const size_t first_gpu = gpu.size();
      const int a = Begin(th, kOpOptStep);
      const int b = Begin(th, kOpFusedAdamw);
      for (int i = 0; i < 4; ++i) {
        cur_[th] += rng_.Range(20000, 60000);  // building the tensor lists
        Kernel(th, kKFusedAdamw);
      }
      End(th, b);
      End(th, a);
      AddGpuAnn(kOpOptStep, cpu[th][a].ext, first_gpu);
    }
    Leaf(th, kOpZeroGrad, rng_.Range(30000, 90000));
    {  // loss.item()
      const int a = Begin(th, kOpItem);
      const int b = Begin(th, kOpLocalScalarDense);
      Copy(th, GpuKind::kMemcpyDtoH, 4, 1800);
      Sync(th, Rt::kStreamSynchronize, sf_[0]);
      End(th, b);
      End(th, a);
    }
  }

  void AddGpuAnn(uint16_t op, int64_t ext, size_t first) {
    int64_t lo = INT64_MAX, hi = 0;
    for (size_t i = first; i < gpu.size(); ++i) {
      const GpuEv& g = gpu[i];
      if (g.kind == GpuKind::kNone || g.stream != kComputeStream) continue;
      lo = std::min(lo, g.ts);
      hi = std::max(hi, g.ts + g.dur);
    }
    if (hi > lo) gann.push_back(GpuAnn{lo, hi - lo, ext, op});
  }
};

// ---------------------------------------------------------------------------------------------
// Output.

class Sink {
 public:
  Sink() = default;
  Sink(const Sink&) = delete;
  Sink& operator=(const Sink&) = delete;
  ~Sink() { Close(); }

  void Open(const std::string& path, bool gzip) {
    path_ = path;
    if (gzip) {
      gz_ = gzopen(path.c_str(), "wb1");
      if (!gz_) Fail(fmt::format("cannot open {}: {}", path, std::strerror(errno)));
      gzbuffer(gz_, 1 << 20);
    } else {
      f_ = std::fopen(path.c_str(), "wb");
      if (!f_) Fail(fmt::format("cannot open {}: {}", path, std::strerror(errno)));
    }
    buf.reserve(kFlushAt + (1 << 20));
  }
  void MaybeFlush() {
    if (buf.size() >= kFlushAt) Flush();
  }
  void Flush() {
    if (buf.size() == 0) return;
    bool ok = true;
    if (gz_) {
      ok = gzwrite(gz_, buf.data(), static_cast<unsigned>(buf.size())) == static_cast<int>(buf.size());
    } else if (f_) {
      ok = std::fwrite(buf.data(), 1, buf.size(), f_) == buf.size();
    }
    if (!ok) Fail(fmt::format("cannot write {}: {}", path_, std::strerror(errno)));
    written += static_cast<int64_t>(buf.size());
    buf.clear();
  }
  void Close() {
    if (gz_) {
      const int rc = gzclose(gz_);
      gz_ = nullptr;
      if (rc != Z_OK) Fail(fmt::format("cannot write {}", path_));
    }
    if (f_) {
      const int rc = std::fclose(f_);
      f_ = nullptr;
      if (rc != 0) Fail(fmt::format("cannot write {}: {}", path_, std::strerror(errno)));
    }
  }

  Buf buf;
  int64_t written = 0;  // uncompressed bytes flushed

 private:
  static constexpr size_t kFlushAt = 8 << 20;
  std::string path_;
  gzFile gz_ = nullptr;
  std::FILE* f_ = nullptr;
};

struct Writer {
  const Tables& t;
  const Config& c;
  int pid;
  int tids[2];
  int64_t events = 0;

  static void Put(Buf& b, std::string_view s) { b.append(s.data(), s.data() + s.size()); }

  void CpuEvent(Buf& b, int th, const CpuEv& e) {
    ++events;
    auto out = fmt::appender(b);
    switch (e.kind) {
      case CpuKind::kX: {
        const OpT& o = t.ops[e.op];
        if (e.op == kOpProfilerStep) {
          fmt::format_to(out, FMT_COMPILE("  {{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#{}\", \"pid\": {}, \"tid\": "),
                         e.a, pid);
        } else {
          Put(b, o.prefix);
        }
        fmt::format_to(out, FMT_COMPILE("{}, \"ts\": {}.{:03}, \"dur\": {}.{:03}, \"args\": {{"), tids[th],
                       e.ts / 1000, e.ts % 1000, e.dur / 1000, e.dur % 1000);
        if (o.cat == Cat::kPython) {
          fmt::format_to(out, FMT_COMPILE("\"Python parent id\": {}, \"Python id\": {}, "), e.b, e.a);
          if (e.op >= kOpPyBlock0)
            fmt::format_to(out, FMT_COMPILE("\"Python module id\": {}, "), e.op - kOpPyBlock0 + 1);
          fmt::format_to(out, FMT_COMPILE("\"Python thread\": 0, \"Ev Idx\": {}}}}},\n"), e.evidx);
          return;
        }
        fmt::format_to(out, FMT_COMPILE("\"External id\": {}, \"Record function id\": {}, "), e.ext, e.ext);
        if (e.seq >= 0)
          fmt::format_to(out, FMT_COMPILE("\"Sequence number\": {}, \"Fwd thread id\": 1, "), e.seq);
        fmt::format_to(out, FMT_COMPILE("\"Ev Idx\": {}"), e.evidx);
        Put(b, o.dims);
        Put(b, "}},\n");
        return;
      }
      case CpuKind::kMemory:
        fmt::format_to(out,
                       FMT_COMPILE("  {{\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": \"[memory]\", "
                                   "\"pid\": {}, \"tid\": {}, \"ts\": {}.{:03}, \"args\": {{\"Total Reserved\": {}, "
                                   "\"Total Allocated\": {}, \"Bytes\": {}, \"Addr\": {}, \"Device Id\": 0, \"Device Type\": 1}}}},\n"),
                       pid, tids[th], e.ts / 1000, e.ts % 1000, 68719476736LL, e.b, e.a,
                       139800000000000LL + (e.b & 0xffffffffLL) * 512);
        return;
      case CpuKind::kFlowS:
      case CpuKind::kFlowF:
        fmt::format_to(out,
                       FMT_COMPILE("  {{\"ph\": \"{}\", \"id\": {}, \"pid\": {}, \"tid\": {}, \"ts\": {}.{:03}, \"cat\": "
                                   "\"fwdbwd\", \"name\": \"fwdbwd\"{}}},\n"),
                       e.kind == CpuKind::kFlowS ? "s" : "f", e.a, pid, tids[th], e.ts / 1000, e.ts % 1000,
                       e.kind == CpuKind::kFlowF ? ", \"bp\": \"e\"" : "");
        return;
    }
  }

  void GpuEvent(Buf& b, const GpuEv& g) {
    auto out = fmt::appender(b);
    if (g.kind != GpuKind::kNone) {
      events += 4;
      if (g.kind == GpuKind::kKernel) {
        const KSpec& k = t.kern[g.kern];
        Put(b, k.prefix);
        fmt::format_to(out,
                       FMT_COMPILE("{}.{:03}, \"dur\": {}.{:03}, \"args\": {{\"External id\": {}, \"queued\": 0, "
                                   "\"device\": 0, \"context\": 1, \"stream\": {}, \"correlation\": {}"),
                       g.ts / 1000, g.ts % 1000, g.dur / 1000, g.dur % 1000, g.ext, g.stream, g.corr);
        Put(b, k.tail);
        Put(b, "}},\n");
      } else {
        static constexpr const char* kNames[] = {"", "Memcpy HtoD (Pinned -> Device)",
                                                 "Memcpy DtoD (Device -> Device)",
                                                 "Memcpy DtoH (Device -> Pageable)", "Memset (Device)"};
        const bool memset = g.kind == GpuKind::kMemset;
        fmt::format_to(out,
                       FMT_COMPILE("  {{\"ph\": \"X\", \"cat\": \"{}\", \"name\": \"{}\", \"pid\": 0, \"tid\": {}, "
                                   "\"ts\": {}.{:03}, \"dur\": {}.{:03}, \"args\": {{\"External id\": {}, \"device\": 0, "
                                   "\"context\": 1, \"stream\": {}, \"correlation\": {}, \"bytes\": {}, "
                                   "\"memory bandwidth (GB/s)\": {}}}}},\n"),
                       memset ? "gpu_memset" : "gpu_memcpy", kNames[static_cast<int>(g.kind)], g.stream,
                       g.ts / 1000, g.ts % 1000, g.dur / 1000, g.dur % 1000, g.ext, g.stream, g.corr, g.bytes,
                       static_cast<double>(g.bytes) / static_cast<double>(g.dur));
      }
      fmt::format_to(out,
                     FMT_COMPILE("  {{\"ph\": \"f\", \"id\": {}, \"pid\": 0, \"tid\": {}, \"ts\": {}.{:03}, \"cat\": \"ac2g\", "
                                 "\"name\": \"ac2g\", \"bp\": \"e\"}},\n"),
                     g.corr, g.stream, g.ts / 1000, g.ts % 1000);
    } else {
      events += 1;
    }
    const RtInfo& r = kRt[static_cast<int>(g.rt)];
    fmt::format_to(out,
                   FMT_COMPILE("  {{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"{}\", \"pid\": {}, \"tid\": {}, "
                               "\"ts\": {}.{:03}, \"dur\": {}.{:03}, \"args\": {{\"External id\": {}, \"cbid\": {}, "
                               "\"correlation\": {}}}}},\n"),
                   r.name, pid, tids[g.th], g.rt_ts / 1000, g.rt_ts % 1000, g.rt_dur / 1000, g.rt_dur % 1000,
                   g.ext, r.cbid, g.corr);
    if (g.kind != GpuKind::kNone)
      fmt::format_to(out,
                     FMT_COMPILE("  {{\"ph\": \"s\", \"id\": {}, \"pid\": {}, \"tid\": {}, \"ts\": {}.{:03}, \"cat\": "
                                 "\"ac2g\", \"name\": \"ac2g\"}},\n"),
                     g.corr, pid, tids[g.th], g.rt_ts / 1000, g.rt_ts % 1000);
  }

  void GpuAnnEvent(Buf& b, const GpuAnn& a) {
    ++events;
    fmt::format_to(fmt::appender(b),
                   FMT_COMPILE("  {{\"ph\": \"X\", \"cat\": \"gpu_user_annotation\", \"name\": \"{}\", \"pid\": 0, "
                               "\"tid\": {}, \"ts\": {}.{:03}, \"dur\": {}.{:03}, \"args\": {{\"External id\": {}}}}},\n"),
                   t.ops[a.op].name, kComputeStream, a.ts / 1000, a.ts % 1000, a.dur / 1000, a.dur % 1000, a.ext);
  }

  // pass 0: main thread, 1: autograd thread, 2: GPU and runtime, 3: GPU annotations
  void Pass(Buf& b, int pass, const Model& m) {
    if (pass <= 1) {
      for (const CpuEv& e : m.cpu[pass]) CpuEvent(b, pass, e);
    } else if (pass == 2) {
      for (const GpuEv& g : m.gpu) GpuEvent(b, g);
    } else {
      for (const GpuAnn& a : m.gann) GpuAnnEvent(b, a);
    }
  }

  void Header(Buf& b) {
    auto out = fmt::appender(b);
    fmt::format_to(out,
                   "{{\n"
                   "  \"schemaVersion\": 1,\n"
                   "  \"deviceProperties\": [\n"
                   "    {{\n"
                   "      \"id\": 0, \"name\": \"NVIDIA H100 80GB HBM3\", \"totalGlobalMem\": 84929216512,\n"
                   "      \"computeMajor\": 9, \"computeMinor\": 0,\n"
                   "      \"maxThreadsPerBlock\": 1024, \"maxThreadsPerMultiprocessor\": 2048,\n"
                   "      \"regsPerBlock\": 65536, \"warpSize\": 32,\n"
                   "      \"sharedMemPerBlock\": 49152, \"numSms\": {}\n"
                   "    , \"regsPerMultiprocessor\": 65536, \"sharedMemPerBlockOptin\": 232448, "
                   "\"sharedMemPerMultiprocessor\": 233472\n"
                   "    }}\n"
                   "  ],\n"
                   "  \"distributedInfo\": {{\"backend\": \"nccl\", \"rank\": {}, \"world_size\": {}, \"pg_count\": 1, "
                   "\"pg_config\": [{{\"pg_name\": \"0\", \"pg_desc\": \"default_pg\", \"backend_config\": "
                   "\"cuda:nccl\", \"pg_size\": {}, \"ranks\": [",
                   kNumSms, c.rank, c.world, c.world);
    for (int r = 0; r < c.world; ++r) fmt::format_to(out, FMT_COMPILE("{}{}"), r ? ", " : "", r);
    Put(b, "]}], \"nccl_version\": \"2.21.5\"},\n  \"traceEvents\": [\n");
  }

  void Footer(Buf& b, int64_t end_ns) {
    auto out = fmt::appender(b);
    const int64_t t0 = kTraceStartNs;
    auto meta = [&](const char* name, std::string_view pid_s, int64_t tid, const char* key, std::string_view val) {
      ++events;
      fmt::format_to(out,
                     "  {{\"name\": \"{}\", \"ph\": \"M\", \"ts\": {}.{:03}, \"pid\": {}, \"tid\": {}, \"args\": {{\"{}\": {}}}}},\n",
                     name, t0 / 1000, t0 % 1000, pid_s, tid, key, val);
    };
    const std::string p = std::to_string(pid);
    meta("process_name", p, 0, "name", "\"python3\"");
    meta("process_labels", p, 0, "labels", "\"CPU\"");
    meta("process_sort_index", p, 0, "sort_index", p);
    meta("process_name", "0", 0, "name", "\"python3\"");
    meta("process_labels", "0", 0, "labels", "\"GPU 0\"");
    meta("process_sort_index", "0", 0, "sort_index", "16777216");
    for (int s : {kComputeStream, kNcclStream}) {
      meta("thread_name", "0", s, "name", fmt::format("\"stream {} \"", s));
      meta("thread_sort_index", "0", s, "sort_index", std::to_string(s + 0x20000000));
    }
    meta("thread_name", p, tids[kMain], "name", fmt::format("\"thread {} (pt_main_thread)\"", tids[kMain]));
    meta("thread_sort_index", p, tids[kMain], "sort_index", std::to_string(tids[kMain]));
    meta("thread_name", p, tids[kAutograd], "name", fmt::format("\"thread {} (pt_autograd_0)\"", tids[kAutograd]));
    meta("thread_sort_index", p, tids[kAutograd], "sort_index", std::to_string(tids[kAutograd]));
    const int64_t dur = end_ns - t0;
    fmt::format_to(out,
                   "  {{\"ph\": \"X\", \"cat\": \"Trace\", \"ts\": {}.{:03}, \"dur\": {}.{:03}, \"pid\": \"Spans\", "
                   "\"tid\": \"PyTorch Profiler\", \"name\": \"PyTorch Profiler (0)\", \"args\": {{\"Op count\": 0}}}},\n",
                   t0 / 1000, t0 % 1000, dur / 1000, dur % 1000);
    meta("process_sort_index", "\"Spans\"", 0, "sort_index", "536870912");
    fmt::format_to(out,
                   "  {{\"name\": \"Iteration Start: PyTorch Profiler\", \"ph\": \"i\", \"s\": \"g\", \"pid\": \"Traces\", "
                   "\"tid\": \"Trace PyTorch Profiler\", \"ts\": {}.{:03}}},\n",
                   t0 / 1000, t0 % 1000);
    const int64_t wend = end_ns + 1000000;
    fmt::format_to(out,
                   "  {{\"name\": \"Record Window End\", \"ph\": \"i\", \"s\": \"g\", \"pid\": \"\", \"tid\": \"\", "
                   "\"ts\": {}.{:03}}}\n",
                   wend / 1000, wend % 1000);
    events += 3;
    fmt::format_to(out,
                   "  ],\n"
                   "  \"traceName\": \"{}\",\n"
                   "  \"displayTimeUnit\": \"ms\",\n"
                   "  \"baseTimeNanoseconds\": {}\n"
                   "}}\n",
                   Esc(c.out), kBaseTimeNs);
  }
};

// ---------------------------------------------------------------------------------------------
// Flags.

int64_t ParseInt(const std::string& flag, const std::string& v, int64_t lo, int64_t hi) {
  char* end = nullptr;
  errno = 0;
  const long long x = std::strtoll(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0' || errno != 0 || x < lo || x > hi)
    Fail(fmt::format("bad value for {}: '{}' (an integer in [{}, {}])", flag, v, lo, hi));
  return x;
}

int64_t ParseBytes(const std::string& v) {
  char* end = nullptr;
  errno = 0;
  double x = std::strtod(v.c_str(), &end);
  const std::string_view suffix(end);
  double mult = 1;
  if (suffix == "k" || suffix == "K") mult = 1e3;
  else if (suffix == "M" || suffix == "m") mult = 1e6;
  else if (suffix == "G" || suffix == "g") mult = 1e9;
  else if (!suffix.empty()) x = -1;
  x *= mult;
  if (v.empty() || end == v.c_str() || errno != 0 || !(x >= 1) || x > 1e15)
    Fail(fmt::format("bad value for --bytes: '{}' (a size such as 1e9, 500M, 2G)", v));
  return static_cast<int64_t>(x);
}

Config ParseArgs(int argc, char** argv) {
  Config c;
  bool have_out = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    std::string v;
    bool have_v = false;
    if (const size_t eq = a.find('='); a.rfind("--", 0) == 0 && eq != std::string::npos) {
      v = a.substr(eq + 1);
      a = a.substr(0, eq);
      have_v = true;
    }
    auto value = [&]() -> std::string {
      if (have_v) return v;
      if (i + 1 >= argc) Fail(fmt::format("{} needs a value", a));
      return argv[++i];
    };
    if (a == "--out") {
      c.out = value();
      have_out = !c.out.empty();
    } else if (a == "--bytes") {
      c.bytes = ParseBytes(value());
    } else if (a == "--rank") {
      c.rank = static_cast<int>(ParseInt(a, value(), 0, 1 << 20));
    } else if (a == "--world") {
      c.world = static_cast<int>(ParseInt(a, value(), 1, 1 << 20));
    } else if (a == "--steps") {
      c.steps = ParseInt(a, value(), 1, 100000000);
    } else if (a == "--seed") {
      c.seed = static_cast<uint64_t>(ParseInt(a, value(), 0, INT64_MAX));
    } else if (a == "--gzip" && !have_v) {
      c.gzip = true;
    } else if (a == "-h" || a == "--help") {
      std::printf(
          "usage: paratune_gen_trace --out FILE [--bytes N] [--rank R] [--world W] [--steps S] [--seed X] [--gzip]\n"
          "Writes a synthetic PyTorch-profiler (Kineto) trace of one rank of an FSDP training run.\n"
          "  --bytes N   target uncompressed size (default 1e9; suffixes k, M, G)\n"
          "  --rank R    rank (default 0)      --world W  ranks in the job (default 8)\n"
          "  --steps S   profiler steps (default: as many as fit in --bytes)\n"
          "  --seed X    random seed (default 1)  --gzip   write gzip (zlib level 1)\n");
      std::exit(0);
    } else {
      Fail(fmt::format("unknown flag '{}' (see --help)", argv[i]));
    }
  }
  if (!have_out) Fail("--out FILE is required");
  if (c.rank >= c.world) Fail(fmt::format("--rank {} is not below --world {}", c.rank, c.world));
  return c;
}

int PidOf(int rank) { return 2100000 + (rank % 100000) * 17; }

// Steps whose total size stays within the target: step sizes are measured (formatted and
// dropped) on a sample of steps of rank 0, the model itself run for all of them.
int64_t FitSteps(const Config& c) {
  Config c0 = c;
  c0.rank = 0;
  Tables t;
  t.Build(PidOf(0), c.world);
  Writer w{t, c0, PidOf(0), {PidOf(0), PidOf(0) + 73}};
  Buf b;
  w.Header(b);
  w.Footer(b, kTraceStartNs + 100000000000000LL);
  int64_t total = static_cast<int64_t>(b.size());
  Model m(t, c0);
  int64_t step_bytes = 0;
  for (int64_t s = 0;; ++s) {
    m.Step(s);
    if (s % 16 == 0) {
      b.clear();
      for (int p = 0; p < 4; ++p) w.Pass(b, p, m);
      step_bytes = static_cast<int64_t>(b.size());
    }
    if (total + step_bytes > c.bytes) return std::max<int64_t>(1, s);
    total += step_bytes;
  }
}

}  // namespace

int main(int argc, char** argv) {
  const Config c = ParseArgs(argc, argv);
  const auto t0 = std::chrono::steady_clock::now();
  const int64_t steps = c.steps > 0 ? c.steps : FitSteps(c);

  const int pid = PidOf(c.rank);
  Tables t;
  t.Build(pid, c.world);
  Writer w{t, c, pid, {pid, pid + 73}};
  Sink sink;
  sink.Open(c.out, c.gzip);
  w.Header(sink.buf);
  int64_t end_ns = 0;
  for (int pass = 0; pass < 4; ++pass) {
    Model m(t, c);
    for (int64_t s = 0; s < steps; ++s) {
      m.Step(s);
      w.Pass(sink.buf, pass, m);
      sink.MaybeFlush();
    }
    end_ns = m.EndTime();
  }
  w.Footer(sink.buf, end_ns);
  sink.Flush();
  sink.Close();

  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("wrote %s: %lld bytes uncompressed, %lld steps, %lld events, %.2f s (%.0f MB/s)\n", c.out.c_str(),
              static_cast<long long>(sink.written), static_cast<long long>(steps),
              static_cast<long long>(w.events), secs, static_cast<double>(sink.written) / 1e6 / secs);
  return 0;
}
