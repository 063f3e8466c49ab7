// The step model: one training step's CPU events, runtime calls, GPU activities and annotations
// (forward, backward, FSDP all-gather / reduce-scatter overlap, optimizer, stragglers and
// data-loader stalls), produced from the op catalogue and the step's seed.
#pragma once

#include "common.h"
#include "op_catalogue.h"
#include "rng.h"

namespace gen_trace {
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
  kLaunchKernel,
  kLaunchKernelExC,
  kMemcpyAsync,
  kMemsetAsync,
  kEventRecord,
  kStreamWaitEvent,
  kEventSynchronize,
  kStreamSynchronize
};
struct RtInfo {
  const char* name;
  int cbid;
};
constexpr RtInfo kRt[] = {{"cudaLaunchKernel", 211},     {"cudaLaunchKernelExC", 430},  {"cudaMemcpyAsync", 41},
                          {"cudaMemsetAsync", 51},       {"cudaEventRecord", 135},      {"cudaStreamWaitEvent", 147},
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
  int64_t ag0_extra_ = 0;    // the first all-gather of the step waits for a straggler
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
  // An allocation or free; a free that would take the allocator below 1 GiB is left out (the
  // random walk of allocations and frees would otherwise drift below zero over a long trace, a
  // total no allocator reports).
  void Memory(int th, int64_t bytes) {
    if (allocated_ + bytes < (1LL << 30)) return;
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
    GpuEv& g = Runtime(th, kind == GpuKind::kMemset ? Rt::kMemsetAsync : Rt::kMemcpyAsync, rng_.Range(4000, 14000));
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

}  // namespace gen_trace
