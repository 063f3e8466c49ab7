// libFuzzer target: the `nvidia-smi topo -m` reader must throw InputError or succeed on any
// bytes; a parsed matrix is square, with X exactly on its diagonal and a row for every device.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "trace/topology_matrix.h"
#include "util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace paratune;
  TopologyMatrix m;
  try {
    m = ParseTopologyMatrix(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.txt");
  } catch (const InputError&) {
    return 0;
  }
  const size_t d = m.devices.size();
  if (m.gpu_count < 1 || static_cast<size_t>(m.gpu_count) > d || m.links.size() != d || m.row_lines.size() != d)
    std::abort();
  if (m.cpu_affinity.size() != static_cast<size_t>(m.gpu_count) ||
      m.numa_affinity.size() != static_cast<size_t>(m.gpu_count))
    std::abort();
  if (!m.nic_names.empty() && m.nic_names.size() != d - m.gpu_count) std::abort();
  for (size_t i = 0; i < d; ++i) {
    if (m.links[i].size() != d || m.row_lines[i] <= m.header_line) std::abort();
    for (size_t j = 0; j < d; ++j) {
      const TopoLink& l = m.links[i][j];
      if ((l.kind == TopoLinkKind::kSelf) != (i == j) || l.kind == TopoLinkKind::kUnknown) std::abort();
      if ((l.kind == TopoLinkKind::kNvlink) != (l.nvlinks > 0)) std::abort();
      if (TopoLinkDistance(l.kind) < 0) std::abort();
    }
  }
  return 0;
}
