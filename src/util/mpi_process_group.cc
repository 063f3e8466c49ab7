// The MPI ProcessGroup (util/process_group.h), compiled with MPI where CMake finds it
// (PARATUNE_HAVE_MPI, in the generated paratune_mpi.h); without it a launched group is an error. MPI is initialised
// when the group is made and finalised when it is destroyed, once per process (MPI-4.0 section 11.2).
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "util/error.h"
#include "util/process_group.h"

#include "paratune_mpi.h"
#if PARATUNE_HAVE_MPI
#include <mpi.h>
#endif

namespace paratune {
namespace {

// The task count a launcher put in the environment, or 1.
long LaunchedSize() {
  for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_STEP_NUM_TASKS"}) {
    const char* v = std::getenv(var);
    if (v == nullptr || *v == '\0') continue;
    char* end = nullptr;
    const long n = std::strtol(v, &end, 10);
    if (*end == '\0' && n > 1) return n;
  }
  return 1;
}

#if PARATUNE_HAVE_MPI
class MpiProcessGroup : public ProcessGroup {
 public:
  MpiProcessGroup() {
    int provided = 0;
    // Only the main thread calls MPI; the reading threads never do.
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &index_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
  }
  ~MpiProcessGroup() override { MPI_Finalize(); }
  int Index() const override { return index_; }
  int Size() const override { return size_; }

  std::vector<std::string> AllGather(std::string_view mine) override {
    const int64_t n = static_cast<int64_t>(mine.size());
    std::vector<int64_t> sizes(static_cast<size_t>(size_));
    MPI_Allgather(&n, 1, MPI_INT64_T, sizes.data(), 1, MPI_INT64_T, MPI_COMM_WORLD);
    std::vector<int> counts(sizes.size()), displs(sizes.size());
    int64_t total = 0;
    for (size_t i = 0; i < sizes.size(); ++i) {
      if (total + sizes[i] > INT_MAX)  // every process sees the same sizes and stops alike
        throw InputError("the processes' summaries exceed the 2 GiB one MPI exchange carries; use fewer ranks per job");
      counts[i] = static_cast<int>(sizes[i]);
      displs[i] = static_cast<int>(total);
      total += sizes[i];
    }
    std::string all(static_cast<size_t>(total), '\0');
    MPI_Allgatherv(mine.data(), static_cast<int>(n), MPI_BYTE, all.data(), counts.data(), displs.data(), MPI_BYTE,
                   MPI_COMM_WORLD);
    std::vector<std::string> out;
    for (size_t i = 0; i < sizes.size(); ++i) out.push_back(all.substr(static_cast<size_t>(displs[i]), counts[i]));
    return out;
  }

 private:
  int index_ = 0, size_ = 1;
};
#endif

}  // namespace

bool BuiltWithMpi() {
#if PARATUNE_HAVE_MPI
  return true;
#else
  return false;
#endif
}

std::unique_ptr<ProcessGroup> LaunchedProcessGroup() {
  const long n = LaunchedSize();
  if (n <= 1) return nullptr;
#if PARATUNE_HAVE_MPI
  return std::make_unique<MpiProcessGroup>();
#else
  throw InputError("started as one of " + std::to_string(n) +
                   " processes (mpirun or srun), but this paratune was built without MPI: install "
                   "libopenmpi-dev and rebuild, or run it as one process");
#endif
}

}  // namespace paratune
