// The few numbers per run that tables, the HTML report and the report diff
// put side by side: latency statistics, warmup cost, counts, peak memory.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/analysis/stats.h"
#include "core/report/session.h"

namespace cs::core {

struct RunSummary {
    std::optional<LatencyStats> latency; // measured (steady-state) calls
    int warmupCalls = 0;
    int64_t warmupNs = -1;    // total time of the warmup calls, the compiling one included
    int64_t firstCallNs = -1; // the first call (where torch compiles)
    int graphs = 0;
    int breaks = 0;
    int recompiles = 0;     // recompileCount()
    int64_t peakBytes = -1; // core::peakMemory(): device reserved, device, else host RSS
    std::string peakKind;   // "device reserved", "device" or "host RSS"; empty when none
};

RunSummary summarizeRun(const Run& run);
// Times torch compiled a function again; a recompile-limit hit is a refusal,
// not one of them (7 recompiles fill a cache of 8, then the 8th is refused).
int recompileCount(const Run& run);
// Those of them among the measured calls (the probe's "measure" phase).
int measuredRecompileCount(const Run& run);

} // namespace cs::core
