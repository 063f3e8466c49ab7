// The Kubernetes extended resources counted as GPUs: NVIDIA's and AMD's device plugins
// (nvidia.com/gpu, amd.com/gpu). One list for the pod and Workload reader (kubernetes_jobs.cc)
// and the Kueue quota reader (kueue_config.cc).
#pragma once

#include <string_view>

namespace paratune {

inline constexpr std::string_view kGpuResources[] = {"nvidia.com/gpu", "amd.com/gpu"};

}  // namespace paratune
