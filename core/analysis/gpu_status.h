// Why a run's GPU panels are empty, in plain words, so no chart is ever blank.
#pragma once

#include <string>

#include "core/report/session.h"

namespace cs::core {

inline constexpr const char* kNoCudaMessage = "no CUDA device: GPU memory and kernels unavailable";

enum class GpuData { Memory, Kernels };

// True when the probe said it ran on a CUDA device.
bool ranOnCuda(const Run& run);
// Empty when the run has that GPU data; otherwise why not, using the probe's
// own CUPTI message where it sent one.
std::string gpuDataMissingReason(const Run& run, GpuData what);
// What would fill the panel (one sentence), for the reason above.
std::string gpuDataHint(const Run& run);

} // namespace cs::core
