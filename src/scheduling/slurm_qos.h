// SlurmQos: a QOS of the cluster's Slurm accounting database as PreemptType=preempt/qos uses it
// (sacctmgr(1), "QOS" specifications; https://slurm.schedmd.com/preempt.html): which QOS its
// jobs may preempt, how its own jobs are preempted, and after how long. Read from what an admin
// gets with `sacctmgr -P show qos format=Name,Preempt,PreemptMode,PreemptExemptTime`
// (docs/cluster-traces.md, "Slurm").
#pragma once

#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace paratune {

enum class SlurmPreemptMode;

struct SlurmQos {
  std::string name;                  // lower case: Slurm's QOS names are not case-sensitive
  std::vector<std::string> preempt;  // the QOS its jobs may preempt (lower case)
  // PreemptMode of its jobs when preempted; nullopt: "cluster", the slurm.conf's PreemptMode.
  std::optional<SlurmPreemptMode> mode;
  // PreemptExemptTime of its jobs; NaN where the table gives none (the slurm.conf's applies).
  double exempt_time_s = NAN;
};

// The QOS table: `sacctmgr -P` output with a header naming Name and Preempt (PreemptMode and
// PreemptExemptTime optional; other columns ignored). Throws InputError naming `where`, the line
// and the field for a table without those columns, a QOS named twice, a PreemptMode the replay
// does not follow (suspend, gang) and a time Slurm would not read.
std::vector<SlurmQos> ParseSlurmQos(std::string_view text, const std::string& where);
std::vector<SlurmQos> ReadSlurmQos(const std::string& path);

}  // namespace paratune
