#include "core/analysis/run_summary.h"

#include <algorithm>

#include "core/analysis/comparison.h"

namespace cs::core {

int recompileCount(const Run& run) {
    return static_cast<int>(std::count_if(run.recompiles.begin(), run.recompiles.end(),
                                          [](const Recompile& rc) { return !rc.limitHit; }));
}

int measuredRecompileCount(const Run& run) {
    return static_cast<int>(
        std::count_if(run.recompiles.begin(), run.recompiles.end(),
                      [](const Recompile& rc) { return rc.phase == "measure" && !rc.limitHit; }));
}

RunSummary summarizeRun(const Run& run) {
    RunSummary s;
    s.latency = computeStats(run.measuredLatencies());
    int64_t warmup = 0;
    for (const auto& it : run.iterations) {
        if (!it.warmup)
            continue;
        if (s.warmupCalls == 0)
            s.firstCallNs = it.latencyNs;
        ++s.warmupCalls;
        warmup += it.latencyNs;
    }
    if (s.warmupCalls > 0)
        s.warmupNs = warmup;
    if (run.firstCallNs >= 0)
        s.firstCallNs = run.firstCallNs;
    s.graphs = static_cast<int>(run.graphs.size());
    s.breaks = static_cast<int>(run.graphBreaks.size());
    s.recompiles = recompileCount(run);
    // The same peak the comparison shows (device reserved, device, else host RSS).
    if (auto peak = peakMemory(run, &s.peakKind))
        s.peakBytes = *peak;
    return s;
}

} // namespace cs::core
