// Checks on the measurement itself (docs/measuring.md): the per-call median
// against the block-timing cross-check, and measured calls that were still
// warming up. The Latency tab, the HTML report, the CLI and the advice rules
// all read these.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "core/report/session.h"

namespace cs::core {

// Per-call median and block estimate may differ by this fraction before the
// measurement counts as disturbed.
inline constexpr double kCrosscheckTolerance = 0.05;
// The median of fewer blocks is one number's noise: no verdict below this.
inline constexpr int kMinCrosscheckBlocks = 3;

struct Crosscheck {
    double perCallMedianNs = 0;
    double blockEstimateNs = 0;
    int blockCalls = 0;
    int blocks = 0;
    // perCallMedianNs / blockEstimateNs - 1: + when single calls timed slower than blocks.
    double difference() const { return perCallMedianNs / blockEstimateNs - 1; }
    bool judgeable() const { return blocks >= kMinCrosscheckBlocks; }
    // Judgeable, and apart by more than kCrosscheckTolerance.
    bool disagrees() const;
};

// nullopt when the run has no cross-check or no measured calls.
std::optional<Crosscheck> crosscheck(const Run& run);
// "blocks of 50 calls: 212 µs per call, per-call median 215 µs (+1.4%)"
std::string crosscheckText(const Crosscheck& check);
// "they agree", "they disagree: the measurement was disturbed", or, for
// fewer than kMinCrosscheckBlocks blocks, "too few blocks to judge".
std::string crosscheckVerdict(const Crosscheck& check);

struct UnsettledCalls {
    int calls = 0;       // leading measured calls above the steady-state band
    double highNs = 0;   // the band's top
    double medianNs = 0; // the band's median
    int64_t worstNs = 0; // the slowest of them
};

inline constexpr size_t kMinCallsForUnsettled = 10;

// The first measured calls above the steady-state band (core/analysis/comparison.h),
// over all measured calls whether or not the run drops them. nullopt when
// they settle at once, or when one call only sits just above the band (noise),
// for a sweep (the shape changes between calls) and for fewer than
// kMinCallsForUnsettled measured calls.
std::optional<UnsettledCalls> unsettledCalls(const Run& run);

// Drops (or, with drop false, restores) every run's unsettled calls from its
// statistics (Run::droppedUnsettled). Returns how many calls are dropped in all.
int setDropUnsettled(Report& report, bool drop);

} // namespace cs::core
