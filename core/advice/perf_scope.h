// Which runs the performance rules judge: compiled with Inductor (the backend
// meant to be faster; aot_eager and eager are for debugging) and finished.
#pragma once

#include "core/report/session.h"

namespace cs::core::advice {

inline bool judgedForSpeed(const Run& run) {
    return run.setting.mode != "eager" && run.setting.backend == "inductor" &&
           run.status == RunStatus::Ok;
}

inline bool onCuda(const Run& run) {
    return run.probe.device.rfind("cuda", 0) == 0;
}

inline bool usesCudaGraphs(const std::string& mode) {
    return mode == "reduce-overhead" || mode == "max-autotune";
}

} // namespace cs::core::advice
