// ProcessGroup: the processes one command runs in, when a launcher (`mpirun`, `srun`) started
// several (docs/analysis.md, "Across processes"). The library exchanges what it must through it
// and stays unaware of MPI; the command that starts the group decides which process prints.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace paratune {

class ProcessGroup {
 public:
  virtual ~ProcessGroup() = default;
  virtual int Index() const = 0;  // this process, 0 to Size() - 1 (MPI's rank in the world)
  virtual int Size() const = 0;
  // Every process gives its bytes and gets every process's, in process order. Collective: each
  // process calls it the same number of times, in the same order. Throws InputError, on every
  // process alike, when the bytes exceed what one exchange carries (2 GiB in all).
  virtual std::vector<std::string> AllGather(std::string_view mine) = 0;
};

// The processes a launcher started this one among (OpenMPI's OMPI_COMM_WORLD_SIZE, PMI's
// PMI_SIZE or Slurm's SLURM_STEP_NUM_TASKS above 1), joined through MPI; nullptr when this
// process runs alone. Throws InputError when a launcher started several but this build has no
// MPI (each process would do the whole job).
std::unique_ptr<ProcessGroup> LaunchedProcessGroup();

// Whether this build can join a launcher's processes (CMake found MPI).
bool BuiltWithMpi();

}  // namespace paratune
