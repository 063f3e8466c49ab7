// Policy: a scheduling policy of the cluster replay, behind one interface. After each instant's
// events the replay calls Schedule, and the policy starts, preempts or migrates jobs through the
// Scheduler. One file per policy; policies.cc is the one list of them.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "scheduling/replay.h"

namespace paratune {

class Policy {
 public:
  virtual ~Policy() = default;
  // Whether the pending queue puts production jobs before experimental ones.
  virtual bool by_class() const { return false; }
  virtual void Schedule(Scheduler& s) = 0;
};

struct PolicyInfo {
  const char* name;
  const char* description;
  std::unique_ptr<Policy> (*make)();
};

// Every policy, in the order `--policy` lists them.
const std::vector<PolicyInfo>& Policies();
// Throws InputError for an unknown name, listing the known ones.
const PolicyInfo& FindPolicy(const std::string& name);

// The factories (one per policy file).
std::unique_ptr<Policy> MakeFifoPolicy();
std::unique_ptr<Policy> MakeTopoPolicy();
std::unique_ptr<Policy> MakeTopoPreemptPolicy();
std::unique_ptr<Policy> MakeDefragPolicy();
std::unique_ptr<Policy> MakeSlurmPolicy();
std::unique_ptr<Policy> MakeKueuePolicy();

}  // namespace paratune
