#include "run_summary.h"

#include <algorithm>

namespace cs::core {

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
    s.recompiles = static_cast<int>(run.recompiles.size());
    // Device memory is what a GPU user runs out of; host RSS is the CPU stand-in.
    for (const char* kind : {"device", "host_rss"}) {
        const MemorySeries* series = run.memorySeries(kind);
        if (!series || series->samples.empty())
            continue;
        for (const auto& [t, bytes] : series->samples)
            s.peakBytes = std::max(s.peakBytes, bytes);
        for (const auto& [phase, bytes] : series->phasePeaks)
            s.peakBytes = std::max(s.peakBytes, bytes);
        s.peakKind = kind;
        break;
    }
    return s;
}

int baselineRunIndex(const Report& report) {
    for (size_t i = 0; i < report.runs.size(); ++i) {
        const Run& run = report.runs[i];
        if (run.setting.mode == "eager" && !run.measuredLatencies().empty())
            return static_cast<int>(i);
    }
    return -1;
}

} // namespace cs::core
