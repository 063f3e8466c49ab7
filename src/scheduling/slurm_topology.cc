// Slurm's topology.conf and hostlist expressions. The format, from topology.conf(5)
// (https://slurm.schedmd.com/topology.conf.html): "Parameter names are case insensitive"; text
// after "#" is a comment to the end of the line; each line of topology/tree is
// `SwitchName=NAME [Switches=LIST] [Nodes=LIST] [LinkSpeed=N]`, "defining a switch name and its
// children, either node names or switch names", with "Slurm's hostlist expression parser" for
// the lists ("Nodes=tux[0-3,12,18-20]", "Switches=s[0-2,4-8,12]"); each line of topology/block
// is `BlockName=NAME Nodes=LIST`, with one `BlockSizes=LIST` line of block sizes.
#include "scheduling/slurm_topology.h"

#include <algorithm>
#include <map>
#include <optional>
#include <unordered_map>
#include <utility>

#include <fmt/format.h>

#include "scheduling/topology.h"
#include "util/error.h"
#include "util/text.h"

namespace paratune {
// Named namespaces around the helpers: the unity build compiles this file with its neighbours.
namespace hostlist {
namespace {

constexpr size_t kMaxNameLength = 256;

// ---- Hostlists ------------------------------------------------------------------------------

// One range of a bracket group, lo to hi inclusive, printed zero-padded to `width` digits.
struct Range {
  int64_t lo = 0, hi = 0;
  int width = 0;
};

// One comma-separated item of a hostlist: text[0] group[0] text[1] ... group[n-1] text[n].
struct Pattern {
  std::vector<std::string> text{std::string()};
  std::vector<std::vector<Range>> groups;
};

[[noreturn]] void BadHostlist(std::string_view expr, const std::string& what) {
  throw InputError(fmt::format("hostlist {}: {}", Quote(expr), what));
}

int64_t ParseBound(std::string_view bound, std::string_view expr) {
  int64_t v = 0;
  const bool digits =
      !bound.empty() && std::all_of(bound.begin(), bound.end(), [](char c) { return c >= '0' && c <= '9'; });
  const NumberParse parse = digits ? ParseInteger(bound, &v) : NumberParse::kNotANumber;
  if (parse == NumberParse::kOutOfRange) BadHostlist(expr, fmt::format("{} is out of range", Quote(bound)));
  if (parse != NumberParse::kOk)
    BadHostlist(expr, fmt::format("{} is not a number (a bracket holds ranges such as [1-4,7])", Quote(bound)));
  return v;
}

// "1-4,07" inside a bracket.
std::vector<Range> ParseRanges(std::string_view inside, std::string_view expr) {
  std::vector<Range> out;
  if (inside.empty()) BadHostlist(expr, "empty brackets");
  for (size_t start = 0; start <= inside.size();) {
    size_t comma = inside.find(',', start);
    if (comma == std::string_view::npos) comma = inside.size();
    const std::string_view part = inside.substr(start, comma - start);
    const size_t dash = part.find('-');
    const std::string_view lo = part.substr(0, dash);
    Range r{ParseBound(lo, expr), 0, static_cast<int>(std::min<size_t>(lo.size(), kMaxNameLength))};
    r.hi = dash == std::string_view::npos ? r.lo : ParseBound(part.substr(dash + 1), expr);
    if (r.hi < r.lo) BadHostlist(expr, fmt::format("range {} is reversed", Quote(part)));
    out.push_back(r);
    start = comma + 1;
  }
  return out;
}

Pattern ParsePattern(std::string_view item, std::string_view expr) {
  if (item.empty()) BadHostlist(expr, "an empty name");
  Pattern p;
  for (size_t i = 0; i < item.size();) {
    if (item[i] == ']') BadHostlist(expr, "']' without '['");
    if (item[i] != '[') {
      p.text.back() += item[i++];
      continue;
    }
    const size_t close = item.find_first_of("[]", i + 1);
    if (close == std::string_view::npos || item[close] == '[') BadHostlist(expr, "unterminated '['");
    p.groups.push_back(ParseRanges(item.substr(i + 1, close - i - 1), expr));
    p.text.emplace_back();
    i = close + 1;
  }
  return p;
}

// The comma-separated items of a hostlist: commas inside brackets belong to the bracket.
std::vector<Pattern> ParseHostlist(std::string_view expr) {
  std::vector<Pattern> out;
  size_t start = 0;
  int depth = 0;
  for (size_t i = 0; i <= expr.size(); ++i) {
    const char c = i < expr.size() ? expr[i] : ',';
    if (c == '[') ++depth;
    if (c == ']') depth = std::max(0, depth - 1);
    if (c != ',' || (depth > 0 && i < expr.size())) continue;
    out.push_back(ParsePattern(expr.substr(start, i - start), expr));
    start = i + 1;
  }
  return out;
}

// a * b and a + b, saturating at kHostlistSizeCap (both at most the cap: no overflow).
int64_t CappedProduct(int64_t a, int64_t b) { return b != 0 && a > kHostlistSizeCap / b ? kHostlistSizeCap : a * b; }
int64_t CappedSum(int64_t a, int64_t b) { return std::min(kHostlistSizeCap, a + b); }

int64_t PatternSize(const Pattern& p) {
  int64_t size = 1;
  for (const auto& group : p.groups) {
    int64_t n = 0;
    for (const Range& r : group) n = CappedSum(n, std::min(kHostlistSizeCap - 1, r.hi - r.lo) + 1);
    size = CappedProduct(size, n);
  }
  return size;
}

int64_t SizeOf(const std::vector<Pattern>& patterns) {
  int64_t size = 0;
  for (const Pattern& p : patterns) size = CappedSum(size, PatternSize(p));
  return size;
}

void Expand(const Pattern& p, std::string_view expr, std::vector<std::string>& out) {
  std::vector<std::string> names{p.text[0]};
  for (size_t g = 0; g < p.groups.size(); ++g) {
    std::vector<std::string> next;
    for (const std::string& prefix : names)
      for (const Range& r : p.groups[g])
        for (int64_t v = r.lo; v <= r.hi; ++v) {
          next.push_back(prefix + fmt::format("{:0{}}", v, r.width) + p.text[g + 1]);
          if (next.back().size() > kMaxNameLength)
            BadHostlist(expr, fmt::format("a name is longer than {} characters", kMaxNameLength));
        }
    names = std::move(next);
  }
  for (auto& n : names) out.push_back(std::move(n));
}

}  // namespace
}  // namespace hostlist

int64_t HostlistSize(std::string_view expr) { return hostlist::SizeOf(hostlist::ParseHostlist(expr)); }

std::vector<std::string> ExpandHostlist(std::string_view expr, int64_t limit) {
  const std::vector<hostlist::Pattern> patterns = hostlist::ParseHostlist(expr);
  const int64_t size = hostlist::SizeOf(patterns);
  if (size > limit) hostlist::BadHostlist(expr, fmt::format("names more than {} hosts", limit));
  std::vector<std::string> out;
  out.reserve(static_cast<size_t>(size));
  for (const hostlist::Pattern& p : patterns) hostlist::Expand(p, expr, out);
  return out;
}

namespace topology_conf {
namespace {

// ---- topology.conf ---------------------------------------------------------------------------

struct Field {
  std::string key;
  std::string_view value;
};

// The KEY=VALUE fields of a line without its comment.
std::vector<Field> Fields(std::string_view text, const std::string& at) {
  std::vector<Field> out;
  while (!(text = TrimBlanks(text)).empty()) {
    const size_t end = std::min(text.find_first_of(" \t"), text.size());
    const std::string_view token = text.substr(0, end);
    const size_t eq = token.find('=');
    if (eq == 0 || eq == std::string_view::npos || eq + 1 == token.size())
      throw InputError(fmt::format("{}: expected KEY=VALUE, got {}", at, Quote(token)));
    out.push_back({std::string(token.substr(0, eq)), token.substr(eq + 1)});
    text.remove_prefix(end);
  }
  return out;
}

// The line's fields by their canonical key (one of `known`, any case); an unknown or repeated
// key is an error naming the known ones.
std::map<std::string, std::string_view> Keyed(const std::vector<Field>& fields, const std::vector<std::string>& known,
                                              const std::string& at) {
  std::map<std::string, std::string_view> out;
  for (const Field& f : fields) {
    const auto k =
        std::find_if(known.begin(), known.end(), [&](const std::string& n) { return EqualsAsciiNoCase(n, f.key); });
    if (k == known.end()) {
      std::string list;
      for (const auto& n : known) list += (list.empty() ? "" : ", ") + n;
      throw InputError(fmt::format("{}: unknown key {} (known here: {})", at, Quote(f.key), list));
    }
    if (!out.emplace(*k, f.value).second) throw InputError(fmt::format("{}: key {} is given twice", at, Quote(*k)));
  }
  return out;
}

struct Switch {
  std::string name;
  int line = 0;
  std::vector<std::string> children;  // Switches=, expanded
};

class Reader {
 public:
  explicit Reader(const std::string& where) : where_(where) {}

  void Line(std::string_view raw, int line);
  SlurmTopology Finish();

 private:
  std::string At(int line) const { return fmt::format("{}:{}", where_, line); }
  void Plugin(bool block, int line);
  void SwitchLine(const std::vector<Field>& fields, int line);
  void BlockLine(const std::vector<Field>& fields, int line);
  void SizesLine(const std::vector<Field>& fields, int line);
  void AddGroup(const std::string& kind, std::string name, int line, std::string_view nodes);
  void CheckSwitches() const;

  const std::string& where_;
  std::optional<bool> block_;
  SlurmTopology out_;
  std::vector<Switch> switches_;
  std::unordered_map<std::string, int> switch_of_name_, group_of_node_, block_of_name_;
  int64_t nodes_ = 0, switch_refs_ = 0;
};

void Reader::Line(std::string_view raw, int line) {
  const std::string_view text = TrimBlanks(raw.substr(0, raw.find('#')));
  if (text.empty()) return;
  const std::vector<Field> fields = Fields(text, At(line));
  const std::string& first = fields[0].key;
  if (EqualsAsciiNoCase(first, "SwitchName")) return SwitchLine(fields, line);
  if (EqualsAsciiNoCase(first, "BlockName")) return BlockLine(fields, line);
  if (EqualsAsciiNoCase(first, "BlockSizes")) return SizesLine(fields, line);
  throw InputError(
      fmt::format("{}: unknown key {} (a topology.conf line starts with SwitchName=, BlockName= or "
                  "BlockSizes=)",
                  At(line), Quote(first)));
}

// One file describes one plugin's network: switches (topology/tree) or blocks (topology/block).
void Reader::Plugin(bool block, int line) {
  if (block_ && *block_ != block)
    throw InputError(
        fmt::format("{}: {} line in a file of {}: a topology.conf here describes switches "
                    "(topology/tree) or blocks (topology/block), not both",
                    At(line), block ? "a block" : "a switch", *block_ ? "blocks" : "switches"));
  block_ = block;
}

void Reader::SwitchLine(const std::vector<Field>& fields, int line) {
  Plugin(false, line);
  const auto f = Keyed(fields, {"SwitchName", "Switches", "Nodes", "LinkSpeed"}, At(line));
  const std::string name(f.at("SwitchName"));
  const std::string at = fmt::format("{}: switch {}", At(line), Quote(name));
  if (auto [it, fresh] = switch_of_name_.emplace(name, static_cast<int>(switches_.size())); !fresh)
    throw InputError(fmt::format("{} is already defined at line {}", at, switches_[it->second].line));
  // LinkSpeed: "The units used are arbitrary and this information is currently not used"
  // (topology.conf(5)); read as a number, not used here either.
  if (f.contains("LinkSpeed")) {
    int64_t speed = 0;
    if (ParseInteger(f.at("LinkSpeed"), &speed) != NumberParse::kOk || speed < 0)
      throw InputError(
          fmt::format("{}: LinkSpeed must be a non-negative integer, got {}", at, Quote(f.at("LinkSpeed"))));
  }
  const bool nodes = f.contains("Nodes"), children = f.contains("Switches");
  if (!nodes && !children)
    throw InputError(fmt::format("{} has neither Nodes= nor Switches= (a switch lists its children)", at));
  if (nodes && children)
    throw InputError(fmt::format("{} has both Nodes= and Switches= (its children are either nodes or switches)", at));
  switches_.push_back({name, line, {}});
  if (nodes) return AddGroup("switch", name, line, f.at("Nodes"));
  ++out_.upper_switches;
  try {
    switches_.back().children = ExpandHostlist(f.at("Switches"), kMaxClusterNodes - switch_refs_);
  } catch (const InputError& e) {
    throw InputError(fmt::format("{} Switches=: {}", at, e.what()));
  }
  switch_refs_ += static_cast<int64_t>(switches_.back().children.size());
}

void Reader::BlockLine(const std::vector<Field>& fields, int line) {
  Plugin(true, line);
  const auto f = Keyed(fields, {"BlockName", "Nodes"}, At(line));
  const std::string name(f.at("BlockName"));
  const std::string at = fmt::format("{}: block {}", At(line), Quote(name));
  if (auto [it, fresh] = block_of_name_.emplace(name, line); !fresh)
    throw InputError(fmt::format("{} is already defined at line {}", at, it->second));
  if (!f.contains("Nodes")) throw InputError(fmt::format("{} has no Nodes= (a block lists its nodes)", at));
  AddGroup("block", name, line, f.at("Nodes"));
}

// BlockSizes: the planning base block size and the larger sizes a job may be placed on
// (topology.conf(5)); read and kept, not used by the mapping (one block is one NVLink domain).
void Reader::SizesLine(const std::vector<Field>& fields, int line) {
  Plugin(true, line);
  const auto f = Keyed(fields, {"BlockSizes"}, At(line));
  if (!out_.block_sizes.empty()) throw InputError(fmt::format("{}: BlockSizes= is given twice", At(line)));
  const std::string_view list = f.at("BlockSizes");
  for (size_t start = 0; start <= list.size();) {
    const size_t comma = std::min(list.find(',', start), list.size());
    int64_t size = 0;
    if (ParseInteger(list.substr(start, comma - start), &size) != NumberParse::kOk || size < 1 ||
        size > kMaxClusterNodes)
      throw InputError(fmt::format("{}: BlockSizes must be node counts from 1 to {} separated by commas, got {}",
                                   At(line), kMaxClusterNodes, Quote(list)));
    out_.block_sizes.push_back(size);
    start = comma + 1;
  }
}

void Reader::AddGroup(const std::string& kind, std::string name, int line, std::string_view nodes) {
  const std::string at = fmt::format("{}: {} {}", At(line), kind, Quote(name));
  std::vector<std::string> hosts;
  try {
    if (nodes_ + HostlistSize(nodes) > kMaxClusterNodes)
      throw InputError(fmt::format("hostlist {} takes the cluster beyond {} nodes", Quote(nodes), kMaxClusterNodes));
    hosts = ExpandHostlist(nodes, kMaxClusterNodes - nodes_);
  } catch (const InputError& e) {
    throw InputError(fmt::format("{} Nodes=: {}", at, e.what()));
  }
  const int group = static_cast<int>(out_.groups.size());
  for (const std::string& host : hosts)
    if (auto [it, fresh] = group_of_node_.emplace(host, group); !fresh) {
      const bool same = it->second == group;
      throw InputError(fmt::format("{}: node {} is already in {} {} (line {}): a node belongs to one {}", at,
                                   Quote(host), kind, Quote(same ? name : out_.groups[it->second].name),
                                   same ? line : out_.groups[it->second].line, kind));
    }
  nodes_ += static_cast<int64_t>(hosts.size());
  out_.groups.push_back({std::move(name), line, std::move(hosts)});
}

// Every switch a Switches= names is defined, and none is below itself (a walk from each switch
// down its Switches= lists, iterative: a chain of switches is as long as the file allows).
void Reader::CheckSwitches() const {
  for (const Switch& s : switches_)
    for (const std::string& child : s.children)
      if (!switch_of_name_.contains(child))
        throw InputError(fmt::format("{}: switch {} lists switch {}, which no SwitchName= line defines", At(s.line),
                                     Quote(s.name), Quote(child)));
  enum : char { kUnseen, kOnPath, kDone };
  std::vector<char> state(switches_.size(), kUnseen);
  for (size_t root = 0; root < switches_.size(); ++root) {
    if (state[root] != kUnseen) continue;
    std::vector<std::pair<int, size_t>> path{{static_cast<int>(root), 0}};  // (switch, next child)
    state[root] = kOnPath;
    while (!path.empty()) {
      auto& [s, next] = path.back();
      if (next == switches_[s].children.size()) {
        state[s] = kDone;
        path.pop_back();
        continue;
      }
      const int child = switch_of_name_.at(switches_[s].children[next++]);
      if (state[child] == kOnPath)
        throw InputError(
            fmt::format("{}: switch {} lists switch {}, which is above it: the Switches= lists form a cycle",
                        At(switches_[s].line), Quote(switches_[s].name), Quote(switches_[child].name)));
      if (state[child] == kUnseen) state[child] = kOnPath, path.push_back({child, 0});
    }
  }
}

SlurmTopology Reader::Finish() {
  if (!block_) throw InputError(where_ + ": no SwitchName= or BlockName= line (a topology.conf lists the network)");
  out_.block = *block_;
  if (out_.block && out_.groups.empty())
    throw InputError(where_ + ": BlockSizes= but no BlockName= line (a topology.conf of blocks lists them)");
  CheckSwitches();
  return std::move(out_);
}

// The first key of the first line that is not blank or a comment.
std::string_view FirstKey(std::string_view text) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  while (!text.empty()) {
    const size_t eol = std::min(text.find('\n'), text.size());
    const std::string_view line = TrimBlanks(text.substr(0, eol).substr(0, text.substr(0, eol).find('#')));
    if (!line.empty()) return line.substr(0, line.find_first_of("= \t"));
    text.remove_prefix(std::min(eol + 1, text.size()));
  }
  return {};
}

}  // namespace
}  // namespace topology_conf

bool IsSlurmTopology(std::string_view text) {
  const std::string_view key = topology_conf::FirstKey(text);
  return EqualsAsciiNoCase(key, "SwitchName") || EqualsAsciiNoCase(key, "BlockName") ||
         EqualsAsciiNoCase(key, "BlockSizes");
}

SlurmTopology ReadSlurmTopology(std::string_view text, const std::string& where) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  topology_conf::Reader reader(where);
  int line = 0;
  while (!text.empty()) {
    const size_t eol = std::min(text.find('\n'), text.size());
    reader.Line(text.substr(0, eol), ++line);
    text.remove_prefix(std::min(eol + 1, text.size()));
  }
  return reader.Finish();
}

}  // namespace paratune
