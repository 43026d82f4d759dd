// A setting measured by more than one probe process (--repeat): the medians
// of its probes, and a speedup judged over every round rather than one pair
// of processes (docs/measuring.md "Repeated probes").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/analysis/stats.h"
#include "core/report/session.h"

namespace cs::core {

struct ProbeMedian {
    int round = 0; // 0: the run itself, then each repeat that measured
    double medianNs = 0;
};

// Every probe of the run that measured calls, in round order. A repeat leaves
// out the same unsettled calls as the run (Run::droppedUnsettled).
std::vector<ProbeMedian> probeMedians(const Run& run);

// The slowest probe's median over the fastest's; nullopt with fewer than two.
std::optional<double> probeSpread(const Run& run);
// Spreads up to this are the noise of one process; beyond, a note says so.
inline constexpr double kNotableProbeSpread = 1.10;
// "3 probes, medians 613 µs to 1.78 ms (2.90×)"; empty with fewer than two.
std::string probeSpreadText(const Run& run);

// `first`, the speedup of the two runs' own probes, judged over every round
// both measured: the ratio of their medians in each round widens the interval,
// and it stays significant only when every round falls on the same side of 1.
// Unchanged when neither has repeats.
Speedup acrossRounds(const Run& baseline, const Run& setting, Speedup first);

// The speedup of `setting` over `baseline` from their measured calls' stats,
// judged over every round; nullopt unless significant.
std::optional<Speedup> significantSpeedup(const Run& baseline, const Run& setting,
                                          const LatencyStats& baselineStats,
                                          const LatencyStats& settingStats);

} // namespace cs::core
