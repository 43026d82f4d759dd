// Which runs the performance rules judge: compiled with Inductor (the backend
// meant to be faster; aot_eager and eager are for debugging) and finished;
// and whether a run's profiled window can be compared with another's.
#pragma once

#include <string>

#include "core/advice/advice_input.h"
#include "core/analysis/kernel_cost.h"
#include "core/analysis/units.h"
#include "core/report/session.h"

namespace cs::core::advice {

inline bool judgedForSpeed(const Run& run) {
    return run.setting.mode != "eager" && run.setting.backend == "inductor" &&
           run.status == RunStatus::Ok;
}

inline bool onCuda(const Run& run) {
    return run.probe.device.rfind("cuda", 0) == 0;
}

// Inductor's freezing for inference, as a setting turns it on (:env=...).
inline constexpr const char* kFreezing = "TORCHINDUCTOR_FREEZING";

inline bool frozen(const Setting& setting) {
    const auto it = setting.environment.find(kFreezing);
    return it != setting.environment.end() && it->second == "1";
}

// The same setting with TORCHINDUCTOR_FREEZING=1, measured in this report;
// null where none finished with a speedup.
inline const ComparisonRow* frozenTwin(const AdviceInput& input, const Run& run) {
    Setting wanted = run.setting;
    wanted.environment[kFreezing] = "1";
    for (const auto& row : input.comparison.rows) {
        const Run& other = input.report.runs[static_cast<size_t>(row.run)];
        if (other.status == RunStatus::Ok && row.stats && row.speedup && other.setting == wanted)
            return &row;
    }
    return nullptr;
}

inline bool usesCudaGraphs(const std::string& mode) {
    return mode == "reduce-overhead" || mode == "max-autotune";
}

// A compiled setting's profiled window whose ops took more than this many
// times its timed median per call ran slower than the measured calls did: a
// disturbed window, from which no comparison with eager's is drawn. Over 30
// quiet runs of Hugging Face, timm and torchvision models on the 2-core VM,
// compiled windows took 0.8-1.35x the median; t5 (2 layers) while the CPU
// built C++ took 12.6x, and layer 0's wi was told as 2.5x slower compiled.
inline constexpr double kWindowInflation = 1.5;

inline bool disturbedWindow(const CostBreakdown& cost, double medianNs) {
    return cost.profiled && medianNs > 0 && cost.opsNsPerCall > kWindowInflation * medianNs;
}

// "…: slower than the measured calls (…), so `unread` is not read from it".
inline std::string disturbedWindowText(const std::string& label, const CostBreakdown& cost,
                                       double medianNs, const std::string& unread) {
    return label + "'s profiled window (the calls after the measured ones) took " +
           formatDuration(cost.opsNsPerCall) + " per call in its ops against a median of " +
           formatDuration(medianNs) +
           ": slower than the measured calls (a busier machine, or the window's own profiler and "
           "line tracer, which slow Python run inside a graph, as a custom op's), so " +
           unread + " is not read from it";
}

} // namespace cs::core::advice
