// Fault cases of the network area (tools/gen_faults/cases.h): nccl-tests logs for
// network_bottleneck and `nvidia-smi topo -m` matrices for topology_missing_nvlink, each in the
// tools' real formats (nccl-tests src/common.cu and src/util.cu; nvidia-smi topo -m with its
// tab-separated header, NIC columns and legends), with a clean control for each.
#include <cmath>
#include <fmt/format.h>

#include "cases.h"

namespace paratune::faults {
namespace {

// The three layouts nccl-tests has printed: before 2.13 ("#   Rank  0 Pid ...", an "error"
// column, all_reduce without root), 2.13-2.18 (Group, root, #wrong) and 2.19 (version and
// program lines, bus id as 0000:18:00).
enum class NcclLayout { kPre213, k218, k219 };

struct NcclLog {
  NcclLayout layout = NcclLayout::k218;
  int nodes = 1, per_node = 8;
  std::string device = "NVIDIA H100 80GB HBM3";
  double peak_busbw_gbs = 360;  // reached at the largest sizes
  double latency_us = 25;       // per call, the small-message floor
  uint64_t seed = 1;
  // Out-of-place results nccl-tests found wrong (its #wrong column) from this size on; 0: none.
  double wrong_from_bytes = 0;
  int wrong_elements = 0;
};

// nccl-tests' time column before 2.19 (src/common.cu): %7.0f above 10 ms, %7.1f above 100 us,
// else %7.2f (2.19's getFloatStr gives the same strings for these magnitudes).
std::string TimeStr(double us) {
  if (us > 10000.0) return fmt::format("{:7.0f}", us);
  if (us > 100.0) return fmt::format("{:7.1f}", us);
  return fmt::format("{:7.2f}", us);
}

std::string AllReducePerf(const NcclLog& c) {
  Rng rng(c.seed);
  const int n = c.nodes * c.per_node;
  const bool old = c.layout == NcclLayout::kPre213;
  std::string s;
  if (c.layout == NcclLayout::k219)
    s += "# nccl-tests version 2.19.6 nccl-headers=22807 nccl-library=22807\n# Collective test starting: "
         "all_reduce_perf\n";
  s += fmt::format(
      "# nThread 1 nGpus {} minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20 {}validation: 1 "
      "{}\n",
      c.nodes > 1 ? 1 : c.per_node, old ? "" : "agg iters: 1 ",
      old                            ? ""
      : c.layout == NcclLayout::k219 ? "graph: 0 unalign: 0"
                                     : "graph: 0");
  s += "#\n# Using devices\n";
  for (int r = 0; r < n; ++r) {
    const int dev = r % c.per_node, bus = 0x18 + 0x11 * dev;
    const std::string host = fmt::format("gpu-node-{:02d}", r / c.per_node + 1);
    const int pid = c.nodes > 1 ? 40100 + r : 40100;
    if (old)
      s += fmt::format("#   Rank {:2d} Pid {:6d} on {:>10} device {:2d} [0x{:02x}] {}\n", r, pid, host, dev, bus & 0xff,
                       c.device);
    else if (c.layout == NcclLayout::k218)
      s += fmt::format("#  Rank {:2d} Group {:2d} Pid {:6d} on {:>10} device {:2d} [0x{:02x}] {}\n", r, 0, pid, host,
                       dev, bus & 0xff, c.device);
    else
      s += fmt::format("#  Rank {:2d} Group {:2d} Pid {:6d} on {:>10} device {:2d} [{:04x}:{:02x}:{:02x}] {}\n", r, 0,
                       pid, host, dev, 0, bus & 0xff, 0, c.device);
  }
  s += "NCCL version 2.18.5+cuda12.2\n#\n";
  if (old) {
    s +=
        fmt::format("# {:>10}  {:>12}  {:>6}  {:>6}            out-of-place                       in-place          \n",
                    "", "", "", "");
    s += fmt::format("# {:>10}  {:>12}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>5}  {:>7}  {:>6}  {:>6}  {:>5}\n", "size",
                     "count", "type", "redop", "time", "algbw", "busbw", "error", "time", "algbw", "busbw", "error");
    s += fmt::format("# {:>10}  {:>12}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>5}  {:>7}  {:>6}  {:>6}  {:>5}\n", "(B)",
                     "(elements)", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "");
  } else {
    s += fmt::format(
        "# {:>10}  {:>12}  {:>8}  {:>6}  {:>6}           out-of-place                       in-place          \n", "",
        "", "", "", "");
    s += fmt::format("# {:>10}  {:>12}  {:>8}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6}\n",
                     "size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time", "algbw",
                     "busbw", "#wrong");
    s += fmt::format("# {:>10}  {:>12}  {:>8}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6}\n",
                     "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "");
  }
  // t = latency + S x 2(n-1)/n / busbw_peak (nccl-tests doc/PERFORMANCE.md), +-1% noise per row.
  const double factor = 2.0 * (n - 1) / n;
  double sum_busbw = 0;
  int rows = 0;
  for (int k = 3; k <= 33; ++k) {
    const double bytes = std::ldexp(1.0, k);
    std::string row =
        old ? fmt::format("{:12.0f}  {:12.0f}  {:>6}  {:>6}", bytes, bytes / 4, "float", "sum")
            : fmt::format("{:12.0f}  {:12.0f}  {:>8}  {:>6}  {:>6}", bytes, bytes / 4, "float", "sum", -1);
    for (int half = 0; half < 2; ++half) {
      const double us = (c.latency_us + bytes * factor / (c.peak_busbw_gbs * 1e9) * 1e6) * (1 + 0.01 * rng.Normal());
      const double alg = bytes / (us * 1e-6) / 1e9, bus = alg * factor;
      if (half == 0) sum_busbw += bus, ++rows;
      const int wrong = half == 0 && c.wrong_from_bytes > 0 && bytes >= c.wrong_from_bytes ? c.wrong_elements : 0;
      row += fmt::format("  {}  {:6.2f}  {:6.2f}  {}", TimeStr(us), alg, bus,
                         old ? std::string("0e+00") : fmt::format("{:6}", wrong));
    }
    s += row + "\n";
  }
  s += fmt::format("# Out of bounds values : 0 OK\n# Avg bus bandwidth    : {:g} \n#\n", sum_busbw / rows);
  if (c.layout == NcclLayout::k219) s += "# Collective test concluded: all_reduce_perf\n";
  s += "\n";
  return s;
}

// `nvidia-smi topo -m` of an HGX H100 node: 8 GPUs, one ConnectX-7 per GPU behind its PCIe
// switch (NIC i next to GPU i) plus two storage NICs, two sockets of 4 GPUs. `gpu_link(i, j)`
// gives a GPU-GPU cell.
template <class F>
std::string TopoMatrix(F gpu_link) {
  const int g = 8, nics = 10, d = g + nics;
  auto name = [&](int i) { return i < g ? fmt::format("GPU{}", i) : fmt::format("NIC{}", i - g); };
  // NIC k < 8 sits with GPU k; the storage NICs 8 and 9 hang off socket 0 and 1.
  auto socket = [&](int i) { return i < g ? i / 4 : (i - g < 8 ? (i - g) / 4 : i - g - 8); };
  auto cell = [&](int i, int j) -> std::string {
    if (i == j) return " X ";
    if (i < g && j < g) return gpu_link(std::min(i, j), std::max(i, j));
    if (i >= g && j >= g) return socket(i) == socket(j) ? "NODE" : "SYS";
    const int gpu = i < g ? i : j, nic = (i < g ? j : i) - g;
    if (nic == gpu) return "PIX";
    return socket(gpu) == socket(nic + g) ? "NODE" : "SYS";
  };
  std::string s = "\x1b[4m";
  for (int j = 0; j < d; ++j) s += "\t" + name(j);
  s += "\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\x1b[0m\n";
  for (int i = 0; i < d; ++i) {
    s += name(i);
    for (int j = 0; j < d; ++j) s += "\t" + cell(i, j);
    if (i < g) s += i < 4 ? "\t0-55,112-167\t0\t\tN/A" : "\t56-111,168-223\t1\t\tN/A";
    s += "\n";
  }
  s += "\nLegend:\n\n"
       "  X    = Self\n"
       "  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)\n"
       "  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host Bridges within a NUMA node\n"
       "  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)\n"
       "  PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe Host Bridge)\n"
       "  PIX  = Connection traversing at most a single PCIe bridge\n"
       "  NV#  = Connection traversing a bonded set of # NVLinks\n\n"
       "NIC Legend:\n\n";
  for (int k = 0; k < nics; ++k) s += fmt::format("  NIC{}: mlx5_{}\n", k, k);
  s += "\n";
  return s;
}

}  // namespace

void AddNetworkCases(CaseWriter& w) {
  // 8 x H100 in one node at half the bandwidth NCCL reaches there (185 of ~370 GB/s busbw).
  {
    NcclLog c;
    c.peak_busbw_gbs = 185;
    c.seed = 11;
    auto& k = w.Add("network_bottleneck_half_busbw_8xh100", "network_bottleneck", true);
    w.Write(k, "all_reduce_perf.log", AllReducePerf(c));
  }
  // The same node healthy (360 GB/s), in the 2.19 layout.
  {
    NcclLog c;
    c.layout = NcclLayout::k219;
    c.peak_busbw_gbs = 360;
    c.seed = 12;
    auto& k = w.Add("nccl_tests_clean", "network_bottleneck", false);
    w.Write(k, "all_reduce_perf.log", AllReducePerf(c));
  }
  // 2 nodes x 8 H100 at a quarter of the 8 x 400 Gb/s NIC rate (100 of 400 GB/s), in the pre-2.13
  // layout (no root column, "error").
  {
    NcclLog c;
    c.layout = NcclLayout::kPre213;
    c.nodes = 2;
    c.peak_busbw_gbs = 100;
    c.latency_us = 40;
    c.seed = 13;
    auto& k = w.Add("network_bottleneck_2node_quarter_nic", "network_bottleneck", true);
    w.Write(k, "all_reduce_perf.log", AllReducePerf(c));
  }
  // A healthy-looking node whose all-reduce returns wrong data from 128 MiB on (a failing GPU or
  // link: nccl-tests' check counts 17 wrong elements per size), and the same node correct.
  {
    NcclLog c;
    c.peak_busbw_gbs = 360;
    c.seed = 14;
    c.wrong_from_bytes = std::ldexp(1.0, 27);
    c.wrong_elements = 17;
    auto& k = w.Add("collective_wrong_results_128mib", "collective_wrong_results", true);
    w.Write(k, "all_reduce_perf.log", AllReducePerf(c));
  }
  {
    NcclLog c;
    c.peak_busbw_gbs = 360;
    c.seed = 15;
    auto& k = w.Add("nccl_tests_checked_clean", "collective_wrong_results", false);
    w.Write(k, "all_reduce_perf.log", AllReducePerf(c));
  }
  // HGX H100 with GPU2-GPU5 across the socket (SYS) instead of NV18.
  {
    auto& k = w.Add("topology_missing_nvlink_sys_pair", "topology_missing_nvlink", true);
    w.Write(k, "topo.txt",
            TopoMatrix([](int i, int j) { return i == 2 && j == 5 ? std::string("SYS") : std::string("NV18"); }));
    k.expect.gpu_pairs = {{2, 5}};
  }
  // GPU 6 with one NVLink down: NV17 to each peer.
  {
    auto& k = w.Add("topology_missing_nvlink_fewer_links", "topology_missing_nvlink", true);
    w.Write(k, "topo.txt",
            TopoMatrix([](int i, int j) { return i == 6 || j == 6 ? std::string("NV17") : std::string("NV18"); }));
    k.expect.gpus = {6};
  }
  {
    auto& k = w.Add("topology_clean", "topology_missing_nvlink", false);
    w.Write(k, "topo.txt", TopoMatrix([](int, int) { return std::string("NV18"); }));
  }
}

}  // namespace paratune::faults
