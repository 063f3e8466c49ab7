// TopologyReader of `nvidia-smi topo -m` (NVIDIA System Management Interface, "topo" subcommand). The
// tool prints a tab-separated matrix whose header names the devices (GPU0.., NIC0.., or the NIC
// names on older drivers) and then the affinity columns "CPU Affinity", "NUMA Affinity" and, on
// newer drivers, "GPU NUMA ID"; the header has no row label, so it has one field fewer than a
// GPU row. NIC rows carry no affinity values. The terminal header may be wrapped in ANSI
// underline codes (ESC[4m ... ESC[0m), which are dropped. After the matrix come the "Legend:"
// block (X, SYS, NODE, PHB, PXB, PIX, NV#; SOC on old drivers) and the "NIC Legend:" block
// ("NIC0: mlx5_0"). Space-separated copies (pasted from a terminal) read the same: the
// multi-word affinity names are joined back, and every value is one word.
#include "trace/topology_matrix.h"

#include <algorithm>
#include <cctype>

#include "util/error.h"
#include "util/file.h"
#include "util/text.h"

namespace paratune {
namespace {

// The line without ANSI CSI sequences (ESC '[' parameters final-byte) and without '\r'.
std::string StripAnsiCopy(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\x1b' && i + 1 < s.size() && s[i + 1] == '[') {
      size_t j = i + 2;
      while (j < s.size() && !(s[j] >= 0x40 && s[j] <= 0x7e)) ++j;
      i = j;
      continue;
    }
    if (s[i] != '\r') out += s[i];
  }
  return out;
}

std::vector<std::string> MatrixTokens(std::string_view line) {
  std::vector<std::string> t;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    size_t j = i;
    while (j < line.size() && line[j] != ' ' && line[j] != '\t') ++j;
    if (j > i) t.emplace_back(line.substr(i, j - i));
    i = j;
  }
  return t;
}

bool NumberedName(std::string_view s, std::string_view prefix) {
  if (s.size() <= prefix.size() || s.substr(0, prefix.size()) != prefix) return false;
  return std::all_of(s.begin() + prefix.size(), s.end(),
                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

enum class Affinity { kCpu, kNuma, kGpuNumaId };
struct AffinityName {
  const char* words[3];
  int count;
  Affinity kind;
};
constexpr AffinityName kAffinityNames[] = {
    {{"CPU", "Affinity", nullptr}, 2, Affinity::kCpu},
    {{"NUMA", "Affinity", nullptr}, 2, Affinity::kNuma},
    {{"GPU", "NUMA", "ID"}, 3, Affinity::kGpuNumaId},
};

struct KindText {
  const char* text;
  TopoLinkKind kind;
};
constexpr KindText kKinds[] = {{"X", TopoLinkKind::kSelf},  {"PIX", TopoLinkKind::kPix},   {"PXB", TopoLinkKind::kPxb},
                               {"PHB", TopoLinkKind::kPhb}, {"NODE", TopoLinkKind::kNode}, {"SYS", TopoLinkKind::kSys},
                               {"SOC", TopoLinkKind::kSoc}};

class TopologyReader {
 public:
  TopologyReader(std::string_view text, const std::string& where) : text_(text), where_(where) { m_.path = where; }

  TopologyMatrix Read() {
    bool any = false;
    for (char c : text_)
      if (!std::isspace(static_cast<unsigned char>(c))) any = true;
    if (!any) throw InputError(where_ + ": empty file (expected `nvidia-smi topo -m` output)");
    size_t pos = 0;
    int n = 0;
    while (pos < text_.size()) {
      size_t end = text_.find('\n', pos);
      if (end == std::string_view::npos) end = text_.size();
      ++n;
      Line(StripAnsiCopy(text_.substr(pos, end - pos)), n);
      pos = end + 1;
    }
    Finish();
    return std::move(m_);
  }

 private:
  [[noreturn]] void Fail(int line, const std::string& what) const {
    throw InputError(where_ + ":" + std::to_string(line) + ": " + what);
  }

  void Line(const std::string& line, int n) {
    auto tok = MatrixTokens(line);
    if (tok.empty()) {
      if (state_ == State::kRows) state_ = State::kAfter;
      return;
    }
    if (tok[0] == "Legend:") {
      state_ = State::kAfter;
      return;
    }
    if (tok[0] == "NIC" && tok.size() >= 2 && tok[1] == "Legend:") {
      state_ = State::kNicLegend;
      return;
    }
    if (state_ == State::kNicLegend) return NicLegend(tok, n);
    if (IsHeader(tok)) return Header(tok, n);
    if (state_ == State::kRows) return Row(tok, n);
    // Anything else (a `$ nvidia-smi topo -m` line, the legend's "X = Self" lines) is not data.
  }

  bool IsHeader(const std::vector<std::string>& tok) const {
    if (tok[0] != "GPU0" || tok.size() < 2) return false;
    // A GPU0 row has a value (X, NV#, PIX, ...) second; the header a device or affinity name
    // ("GPU1", "NIC0", "mlx5_0", "CPU").
    if (tok[1] == "X" || Kind(tok[1]).kind != TopoLinkKind::kUnknown) return false;
    return std::all_of(tok[1].begin(), tok[1].end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
    });
  }

  void Header(const std::vector<std::string>& tok, int n) {
    if (m_.header_line)
      Fail(n, "a second topology matrix (the first header is at line " + std::to_string(m_.header_line) + ")");
    m_.header_line = n;
    for (size_t i = 0; i < tok.size();) {
      bool matched = false;
      for (const auto& a : kAffinityNames) {
        bool all = i + a.count <= tok.size();
        for (int k = 0; all && k < a.count; ++k) all = tok[i + k] == a.words[k];
        if (!all) continue;
        affinity_.push_back(a.kind);
        i += a.count;
        matched = true;
        break;
      }
      if (matched) continue;
      if (!affinity_.empty()) Fail(n, "header: device column " + Quote(tok[i]) + " after the affinity columns");
      const bool gpu = NumberedName(tok[i], "GPU");
      if (gpu && static_cast<int>(m_.devices.size()) != m_.gpu_count)
        Fail(n, "header: GPU column " + Quote(tok[i]) + " after a NIC column");
      if (std::find(m_.devices.begin(), m_.devices.end(), tok[i]) != m_.devices.end())
        Fail(n, "header: column " + Quote(tok[i]) + " appears twice");
      if (gpu) ++m_.gpu_count;
      m_.devices.push_back(tok[i]);
      ++i;
    }
    if (m_.gpu_count == 0) Fail(n, "header names no GPU column");
    if (m_.devices.size() > 4096) Fail(n, "header: more than 4096 devices");
    const size_t d = m_.devices.size();
    m_.links.assign(d, std::vector<TopoLink>(d));
    m_.row_lines.assign(d, 0);
    m_.cpu_affinity.assign(m_.gpu_count, "");
    m_.numa_affinity.assign(m_.gpu_count, "");
    m_.gpu_numa_id.assign(m_.gpu_count, "");
    state_ = State::kRows;
  }

  struct Parsed {
    TopoLinkKind kind = TopoLinkKind::kUnknown;
    int nvlinks = 0;
  };
  static Parsed Kind(std::string_view s) {
    for (const auto& k : kKinds)
      if (s == k.text) return {k.kind, 0};
    if (s.size() > 2 && s.substr(0, 2) == "NV") {
      int64_t v = 0;
      if (std::isdigit(static_cast<unsigned char>(s[2])) && ParseInteger(s.substr(2), &v) == NumberParse::kOk &&
          v >= 1 && v <= 1000)
        return {TopoLinkKind::kNvlink, static_cast<int>(v)};
    }
    return {};
  }

  void Row(const std::vector<std::string>& tok, int n) {
    const auto it = std::find(m_.devices.begin(), m_.devices.end(), tok[0]);
    if (it == m_.devices.end())
      Fail(n, "row " + Quote(tok[0]) + " names no column of the header at line " + std::to_string(m_.header_line));
    const size_t i = static_cast<size_t>(it - m_.devices.begin());
    if (m_.row_lines[i])
      Fail(n, "row " + tok[0] + " appears twice (first at line " + std::to_string(m_.row_lines[i]) + ")");
    const size_t d = m_.devices.size();
    const bool gpu = static_cast<int>(i) < m_.gpu_count;
    const size_t most = 1 + d + (gpu ? affinity_.size() : 0);
    if (tok.size() < 1 + d)
      Fail(n, "row " + tok[0] + " has " + std::to_string(tok.size() - 1) + " values, the header has " +
                  std::to_string(d) + " device columns");
    if (tok.size() > most)
      Fail(n, "row " + tok[0] + " has " + std::to_string(tok.size() - 1) + " fields, the header at line " +
                  std::to_string(m_.header_line) + " has " + std::to_string(most - 1));
    m_.row_lines[i] = n;
    for (size_t j = 0; j < d; ++j) {
      const Parsed p = Kind(tok[1 + j]);
      if (p.kind == TopoLinkKind::kUnknown)
        Fail(n, "row " + tok[0] + ", column " + m_.devices[j] + ": " + Quote(tok[1 + j]) +
                    " is not a link (expected X, NV#, PIX, PXB, PHB, NODE, SYS or SOC)");
      if ((p.kind == TopoLinkKind::kSelf) != (i == j))
        Fail(n, "row " + tok[0] + ", column " + m_.devices[j] + ": " +
                    (i == j ? "expected X on the diagonal" : "X off the diagonal"));
      m_.links[i][j] = {p.kind, p.nvlinks};
    }
    if (gpu)
      for (size_t k = 0; k + 1 + d < tok.size(); ++k) {
        const std::string& v = tok[1 + d + k];
        switch (affinity_[k]) {
          case Affinity::kCpu:
            m_.cpu_affinity[i] = v;
            break;
          case Affinity::kNuma:
            m_.numa_affinity[i] = v;
            break;
          case Affinity::kGpuNumaId:
            m_.gpu_numa_id[i] = v;
            break;
        }
      }
  }

  void NicLegend(const std::vector<std::string>& tok, int n) {
    // "NIC0: mlx5_0"
    if (tok.size() != 2 || tok[0].size() < 5 || tok[0].back() != ':' ||
        !NumberedName(std::string_view(tok[0]).substr(0, tok[0].size() - 1), "NIC"))
      Fail(n, "NIC Legend: expected 'NICn: NAME', got " + Quote(tok[0]));
    int64_t k = -1;  // NumberedName checked the digits; too many of them are out of range
    ParseInteger(std::string_view(tok[0]).substr(3, tok[0].size() - 4), &k);
    if (k < 0 || k >= 4096) Fail(n, "NIC Legend: NIC number " + Quote(tok[0]) + " is out of range");
    if (static_cast<size_t>(k) >= nic_names_.size()) nic_names_.resize(k + 1);
    nic_names_[k] = tok[1];
  }

  void Finish() {
    if (!m_.header_line)
      throw InputError(where_ +
                       ": no `nvidia-smi topo -m` matrix (expected a header line 'GPU0  GPU1 ...  CPU Affinity ...')");
    for (size_t i = 0; i < m_.devices.size(); ++i)
      if (!m_.row_lines[i])
        throw InputError(where_ + ":" + std::to_string(m_.header_line) + ": column " + m_.devices[i] +
                         " has no row (truncated matrix?)");
    // A link is one link seen from both ends: the matrix is symmetric (issue 32: an asymmetric
    // one was read, and a rule saw whichever half it looked at).
    for (size_t i = 0; i < m_.devices.size(); ++i)
      for (size_t j = i + 1; j < m_.devices.size(); ++j) {
        const TopoLink& a = m_.links[i][j];
        const TopoLink& b = m_.links[j][i];
        if (a.kind != b.kind || a.nvlinks != b.nvlinks)
          throw InputError(where_ + ":" + std::to_string(m_.row_lines[i]) + ": " + m_.devices[i] + " to " +
                           m_.devices[j] + " is " + TopoLinkText(a) + " but " + m_.devices[j] + " to " + m_.devices[i] +
                           " (line " + std::to_string(m_.row_lines[j]) + ") is " + TopoLinkText(b) +
                           ": the matrix is not symmetric");
      }
    const size_t nics = m_.devices.size() - m_.gpu_count;
    if (!nic_names_.empty()) {
      m_.nic_names.assign(nics, "");
      for (size_t k = 0; k < nics && k < nic_names_.size(); ++k) m_.nic_names[k] = nic_names_[k];
    }
  }

  enum class State { kBefore, kRows, kAfter, kNicLegend };
  std::string_view text_;
  const std::string& where_;
  TopologyMatrix m_;
  std::vector<Affinity> affinity_;
  std::vector<std::string> nic_names_;
  State state_ = State::kBefore;
};

}  // namespace

bool LooksLikeTopologyMatrix(std::string_view head) {
  if (head.find("GPU0") == std::string_view::npos) return false;
  return head.find("CPU Affinity") != std::string_view::npos || head.find("Legend:") != std::string_view::npos ||
         head.find("= Self") != std::string_view::npos;
}

TopologyMatrix ParseTopologyMatrix(std::string_view text, const std::string& where) {
  return TopologyReader(text, where).Read();
}

TopologyMatrix ReadTopologyMatrix(const std::string& path) {
  return ParseTopologyMatrix(ReadMaybeGzipFile(path, size_t{16} << 20), path);
}

const char* TopoLinkKindName(TopoLinkKind k) {
  switch (k) {
    case TopoLinkKind::kSelf:
      return "X";
    case TopoLinkKind::kNvlink:
      return "NV";
    case TopoLinkKind::kPix:
      return "PIX";
    case TopoLinkKind::kPxb:
      return "PXB";
    case TopoLinkKind::kPhb:
      return "PHB";
    case TopoLinkKind::kNode:
      return "NODE";
    case TopoLinkKind::kSys:
      return "SYS";
    case TopoLinkKind::kSoc:
      return "SOC";
    case TopoLinkKind::kUnknown:
      return "?";
  }
  return "?";
}

std::string TopoLinkText(const TopoLink& l) {
  if (l.kind == TopoLinkKind::kNvlink) return "NV" + std::to_string(l.nvlinks);
  return TopoLinkKindName(l.kind);
}

int TopoLinkDistance(TopoLinkKind k) {
  switch (k) {
    case TopoLinkKind::kSelf:
      return 0;
    case TopoLinkKind::kNvlink:
      return 1;
    case TopoLinkKind::kPix:
      return 2;
    case TopoLinkKind::kPxb:
      return 3;
    case TopoLinkKind::kPhb:
      return 4;
    case TopoLinkKind::kNode:
      return 5;
    case TopoLinkKind::kSys:
    case TopoLinkKind::kSoc:
      return 6;
    case TopoLinkKind::kUnknown:
      return 7;
  }
  return 7;
}

}  // namespace paratune
