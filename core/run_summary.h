// The few numbers per run that tables, the HTML report and the report diff
// put side by side: latency statistics, warmup cost, counts, peak memory.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "session.h"
#include "stats.h"

namespace cs::core {

struct RunSummary {
    std::optional<LatencyStats> latency; // measured (steady-state) calls
    int warmupCalls = 0;
    int64_t warmupNs = -1;    // total time of the warmup calls, the compiling one included
    int64_t firstCallNs = -1; // the first call (where torch compiles)
    int graphs = 0;
    int breaks = 0;
    int recompiles = 0;
    int64_t peakBytes = -1; // highest memory sample (device if measured, else host RSS)
    std::string peakKind;   // "device" or "host_rss"
};

RunSummary summarizeRun(const Run& run);

// The run to compare others against: the first eager run that finished with measurements.
int baselineRunIndex(const Report& report);

} // namespace cs::core
