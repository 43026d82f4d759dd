// Memory over a run's own clock: peaks per phase, torch's counters placed at
// their phase edges, and the origin every timeline chart and trace measures from.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/report/session.h"

namespace cs::core {

// The earliest time the run knows of (first event, sample or phase), or -1.
int64_t runOriginNs(const Run& run);
// The latest, for phases the probe never ended (it died inside them), or -1.
int64_t runEndNs(const Run& run);

// The most held inside each phase, counting what was held as it began. The
// probe's own phase_peaks win where it sent them (CUPTI's device series);
// otherwise they are worked out from the samples (host RSS).
std::map<std::string, int64_t> phasePeaks(const MemorySeries& series, const Run& run);

// One torch.cuda.memory_stats() reading at a phase edge, with the edge's time.
struct MemoryStatsPoint {
    int64_t tNs = -1;
    MemoryStats stats;
};
// Readings whose phase edge the run knows, in time order (the k-th reading of
// a phase's begin belongs to the k-th span of that phase).
std::vector<MemoryStatsPoint> memoryStatsTimeline(const Run& run);

// Phases in the order they are shown: load, compile, warmup, measure, sweep,
// then any others in the order the runs met them.
std::vector<std::string> phaseOrder(const Report& report);

} // namespace cs::core
