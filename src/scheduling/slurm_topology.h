// Slurm's topology.conf: the network description that the topology/tree and topology/block
// plugins read (topology.conf(5), https://slurm.schedmd.com/topology.conf.html), and the Slurm
// hostlist expressions it names nodes and switches with ("gpu[001-016,020]", "s[0-2]"). The file
// is read here into its leaf switches or blocks with their nodes' host names; cluster_file.cc
// maps them onto a ClusterTopology (docs/cluster.md).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace paratune {

// One leaf switch (topology/tree: a SwitchName= line with Nodes=) or one block (topology/block:
// a BlockName= line), with its nodes' host names in the order the line lists them.
struct SlurmNodeGroup {
  std::string name;
  int line = 0;
  std::vector<std::string> nodes;
};

struct SlurmTopology {
  bool block = false;                  // topology/block (BlockName= lines); false: topology/tree
  std::vector<SlurmNodeGroup> groups;  // tree: the leaf switches; block: the blocks; in file order
  int upper_switches = 0;              // tree: the switches above the leaves (SwitchName= with Switches=)
  std::vector<int64_t> block_sizes;    // block: BlockSizes= as written (empty when not given)
};

// Whether `text` is a topology.conf: its first line that is not blank or a comment starts with
// SwitchName=, BlockName= or BlockSizes= (the key in any case).
bool IsSlurmTopology(std::string_view text);

// Reads a topology.conf of either plugin. Every node is under one leaf switch or in one block;
// every switch lists nodes or switches (not both), every listed switch is defined, and no switch
// is below itself; at most kMaxClusterNodes nodes. Throws InputError "WHERE:LINE: what is wrong".
SlurmTopology ReadSlurmTopology(std::string_view text, const std::string& where);

// How many names a hostlist expression stands for ("n[1-4],m[01-02]" is 6; "r[1-2]-n[1-3]" is
// 6), without expanding it: at most kHostlistSizeCap (a larger count reads as the cap). Throws
// InputError for a malformed expression: an unterminated '[', a reversed range, a bound that is
// not a decimal integer or beyond int64.
int64_t HostlistSize(std::string_view expr);
inline constexpr int64_t kHostlistSizeCap = int64_t{1} << 40;

// The names of a hostlist expression in Slurm's order: comma-separated items, each with its
// bracket groups expanded left to right (the first group varying slowest), a range zero-padded to
// the width of its lower bound as written ("gpu[001-003]": gpu001 gpu002 gpu003). Throws
// InputError as HostlistSize does, or when it stands for more than `limit` names (before
// expanding anything).
std::vector<std::string> ExpandHostlist(std::string_view expr, int64_t limit);

}  // namespace paratune
