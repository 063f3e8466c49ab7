#include "trace/topology_matrix.h"

#include <gtest/gtest.h>

#include "util/test_util.h"

namespace paratune {
namespace {

// The real layout: tab-separated, the header underlined with ANSI codes, one field fewer than a
// GPU row, NIC columns and rows, three affinity columns (the last, "GPU NUMA ID", starts with
// "GPU"), the legend and the NIC legend. Four GPUs and two NICs of a made-up node.
const char* kReal =
    "\x1b[4m\tGPU0\tGPU1\tGPU2\tGPU3\tNIC0\tNIC1\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\x1b[0m\n"
    "GPU0\t X \tNV18\tNV18\tNV18\tPIX\tSYS\t0-47,96-143\t0\t\tN/A\n"
    "GPU1\tNV18\t X \tNV18\tNV18\tPXB\tSYS\t0-47,96-143\t0\t\tN/A\n"
    "GPU2\tNV18\tNV18\t X \tNV18\tSYS\tPIX\t48-95,144-191\t1\t\tN/A\n"
    "GPU3\tNV18\tNV18\tNV18\t X \tSYS\tNODE\t48-95,144-191\t1\t\tN/A\n"
    "NIC0\tPIX\tPXB\tSYS\tSYS\t X \tSYS\n"
    "NIC1\tSYS\tSYS\tPIX\tNODE\tSYS\t X \n"
    "\n"
    "Legend:\n"
    "\n"
    "  X    = Self\n"
    "  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)\n"
    "  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host Bridges within a NUMA node\n"
    "  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)\n"
    "  PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe Host Bridge)\n"
    "  PIX  = Connection traversing at most a single PCIe bridge\n"
    "  NV#  = Connection traversing a bonded set of # NVLinks\n"
    "\n"
    "NIC Legend:\n"
    "\n"
    "  NIC0: mlx5_0\n"
    "  NIC1: mlx5_1\n";

TEST(TopologyMatrix, ReadsTheRealTabSeparatedLayout) {
  ASSERT_TRUE(LooksLikeTopologyMatrix(kReal));
  const TopologyMatrix m = ParseTopologyMatrix(kReal, "topo.txt");
  EXPECT_EQ(m.gpu_count, 4);
  ASSERT_EQ(m.devices, (std::vector<std::string>{"GPU0", "GPU1", "GPU2", "GPU3", "NIC0", "NIC1"}));
  EXPECT_EQ(m.header_line, 1);
  EXPECT_EQ(m.row_lines, (std::vector<int>{2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(m.links[0][0].kind, TopoLinkKind::kSelf);
  EXPECT_EQ(m.links[0][3].kind, TopoLinkKind::kNvlink);
  EXPECT_EQ(m.links[0][3].nvlinks, 18);
  EXPECT_EQ(m.links[1][4].kind, TopoLinkKind::kPxb);
  EXPECT_EQ(m.links[3][5].kind, TopoLinkKind::kNode);
  EXPECT_EQ(m.links[5][2].kind, TopoLinkKind::kPix);
  EXPECT_EQ(m.cpu_affinity, (std::vector<std::string>{"0-47,96-143", "0-47,96-143", "48-95,144-191", "48-95,144-191"}));
  EXPECT_EQ(m.numa_affinity, (std::vector<std::string>{"0", "0", "1", "1"}));
  EXPECT_EQ(m.gpu_numa_id, (std::vector<std::string>{"N/A", "N/A", "N/A", "N/A"}));
  EXPECT_EQ(m.nic_names, (std::vector<std::string>{"mlx5_0", "mlx5_1"}));
  EXPECT_EQ(TopoLinkText(m.links[2][0]), "NV18");
  EXPECT_EQ(TopoLinkText(m.links[2][4]), "SYS");
  EXPECT_LT(TopoLinkDistance(TopoLinkKind::kPxb), TopoLinkDistance(TopoLinkKind::kPhb));
  EXPECT_EQ(TopoLinkDistance(TopoLinkKind::kSoc), TopoLinkDistance(TopoLinkKind::kSys));
}

TEST(TopologyMatrix, OlderDriversNameNicColumnsAndPrintSoc) {
  const std::string text =
      "\tGPU0\tGPU1\tmlx5_0\tCPU Affinity\n"
      "GPU0\t X \tPHB\tSOC\t0-11\n"
      "GPU1\tPHB\t X \tSOC\t0-11\n"
      "mlx5_0\tSOC\tSOC\t X \n";
  const TopologyMatrix m = ParseTopologyMatrix(text, "old.txt");
  EXPECT_EQ(m.gpu_count, 2);
  EXPECT_EQ(m.devices[2], "mlx5_0");
  EXPECT_EQ(m.links[0][2].kind, TopoLinkKind::kSoc);
  EXPECT_EQ(m.links[0][1].kind, TopoLinkKind::kPhb);
  EXPECT_TRUE(m.nic_names.empty());
  EXPECT_TRUE(m.numa_affinity[0].empty());
}

void ExpectFullNvlink(const TopologyMatrix& m, int links) {
  ASSERT_EQ(m.gpu_count, 8);
  EXPECT_EQ(m.devices.size(), 8u);
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j) {
      if (i == j) {
        EXPECT_EQ(m.links[i][j].kind, TopoLinkKind::kSelf);
        continue;
      }
      EXPECT_EQ(m.links[i][j].kind, TopoLinkKind::kNvlink) << i << "," << j;
      EXPECT_EQ(m.links[i][j].nvlinks, links) << i << "," << j;
    }
  EXPECT_EQ(m.numa_affinity, (std::vector<std::string>{"0", "0", "0", "0", "1", "1", "1", "1"}));
}

TEST(TopologyMatrix, SharedA100MatrixIsFullNv12) {
  PARATUNE_SHARED_OR_SKIP(path, "traces/nvidia_smi_topo/topo_8xA100_NV12_ml-engineering.txt");
  const TopologyMatrix m = ReadTopologyMatrix(path);
  ExpectFullNvlink(m, 12);
  EXPECT_EQ(m.header_line, 2);  // after the `$ nvidia-smi topo -m` line
  EXPECT_EQ(m.cpu_affinity[0], "0-23");
  EXPECT_EQ(m.cpu_affinity[7], "24-47");
}

TEST(TopologyMatrix, SharedH100MatrixIsFullNv18) {
  PARATUNE_SHARED_OR_SKIP(path, "traces/nvidia_smi_topo/topo_8xH100_NV18_ml-engineering.txt");
  const TopologyMatrix m = ReadTopologyMatrix(path);
  ExpectFullNvlink(m, 18);
  EXPECT_EQ(m.cpu_affinity[4], "52-103");
}

TEST(TopologyMatrix, BrokenInputIsOneLineNamingFileLineAndField) {
  const std::string head = "\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\n";
  const std::string r0 = "GPU0\t X \tNV4\t0-7\t0\n";
  const std::string r1 = "GPU1\tNV4\t X \t0-7\t0\n";
  EXPECT_NO_THROW(ParseTopologyMatrix(head + r0 + r1, "ok.txt"));
  EXPECT_CONTAINS(InputErrorOf([] { ParseTopologyMatrix(" \n\n", "e.txt"); }), "e.txt: empty file");
  EXPECT_CONTAINS(InputErrorOf([] { ParseTopologyMatrix("GPU 0: NVIDIA H100\n", "x.txt"); }),
                  "x.txt: no `nvidia-smi topo -m` matrix");
  // Truncated: a short row, a missing row.
  EXPECT_CONTAINS(InputErrorOf([&] { ParseTopologyMatrix(head + r0 + "GPU1\tNV4\n", "t.txt"); }),
                  "t.txt:3: row GPU1 has 1 values, the header has 2 device columns");
  EXPECT_CONTAINS(InputErrorOf([&] { ParseTopologyMatrix(head + r0, "m.txt"); }), "m.txt:1: column GPU1 has no row");
  // Wrong values.
  EXPECT_CONTAINS(InputErrorOf([&] { ParseTopologyMatrix(head + r0 + "GPU1\tNVx\t X \t0-7\t0\n", "v.txt"); }),
                  "v.txt:3: row GPU1, column GPU0: 'NVx' is not a link");
  EXPECT_CONTAINS(InputErrorOf([&] { ParseTopologyMatrix(head + r0 + "GPU1\tNV99999999999\t X \t0-7\t0\n", "o.txt"); }),
                  "o.txt:3: row GPU1, column GPU0: 'NV99999999999' is not a link");
  EXPECT_CONTAINS(InputErrorOf([&] { ParseTopologyMatrix(head + r0 + "GPU1\tNV4\tPIX\t0-7\t0\n", "d.txt"); }),
                  "d.txt:3: row GPU1, column GPU1: expected X on the diagonal");
  EXPECT_CONTAINS(InputErrorOf([&] { ParseTopologyMatrix(head + r0 + "GPU1\tNV4\t X \t0-7\t0\textra\n", "l.txt"); }),
                  "l.txt:3: row GPU1 has 5 fields, the header at line 1 has 4");
  EXPECT_CONTAINS(InputErrorOf([&] { ParseTopologyMatrix(head + r0 + "GPU9\tNV4\t X \t0-7\t0\n", "u.txt"); }),
                  "u.txt:3: row 'GPU9' names no column");
  // Asymmetric (issue 32: read, and each rule saw one half).
  EXPECT_EQ(InputErrorOf([&] { ParseTopologyMatrix(head + r0 + "GPU1\tSYS\t X \t0-7\t0\n", "s.txt"); }),
            "s.txt:2: GPU0 to GPU1 is NV4 but GPU1 to GPU0 (line 3) is SYS: the matrix is not symmetric");
  // Wrong header.
  EXPECT_CONTAINS(InputErrorOf([&] { ParseTopologyMatrix("\tGPU0\tGPU0\n" + r0, "h.txt"); }),
                  "h.txt:1: header: column 'GPU0' appears twice");
  EXPECT_CONTAINS(InputErrorOf([&] { ParseTopologyMatrix("\tGPU0\tCPU Affinity\tGPU1\n", "a.txt"); }),
                  "a.txt:1: header: device column 'GPU1' after the affinity columns");
  EXPECT_CONTAINS(InputErrorOf([&] { ParseTopologyMatrix(head + r0 + r1 + "\n" + head + r0 + r1, "2.txt"); }),
                  "2.txt:5: a second topology matrix");
  EXPECT_CONTAINS(InputErrorOf([&] { ParseTopologyMatrix(head + r0 + r1 + "NIC Legend:\n  NIC0 mlx5_0\n", "n.txt"); }),
                  "n.txt:5: NIC Legend: expected 'NICn: NAME'");
  // A NIC number beyond 64 bits was read as NIC0 (std::from_chars left 0); it is out of range.
  EXPECT_CONTAINS(InputErrorOf([&] {
                    ParseTopologyMatrix(head + r0 + r1 + "NIC Legend:\n  NIC99999999999999999999: mlx5_0\n", "o.txt");
                  }),
                  "o.txt:5: NIC Legend: NIC number 'NIC99999999999999999999:' is out of range");
  // Binary garbage.
  std::string garbage = head + "GPU0\t\x01\xfe\x00\x7f\n" + r1;
  garbage[head.size() + 7] = '\0';
  const std::string msg = InputErrorOf([&] { ParseTopologyMatrix(garbage, "bin.txt"); });
  EXPECT_CONTAINS(msg, "bin.txt:2: row GPU0");
  for (char c : msg) EXPECT_TRUE(c >= 0x20 && c < 0x7f) << "unprintable byte in the message";
}

}  // namespace
}  // namespace paratune
