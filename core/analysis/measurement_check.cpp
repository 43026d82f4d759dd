#include "core/analysis/measurement_check.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/analysis/comparison.h"
#include "core/analysis/stats.h"
#include "core/analysis/units.h"

namespace cs::core {

bool Crosscheck::disagrees() const {
    return judgeable() && std::fabs(difference()) > kCrosscheckTolerance;
}

std::string crosscheckVerdict(const Crosscheck& check) {
    if (!check.judgeable())
        return "too few blocks to judge (measure for longer: --iters)";
    return check.disagrees() ? "they disagree: the measurement was disturbed" : "they agree";
}

std::optional<Crosscheck> crosscheck(const Run& run) {
    const auto estimate = run.blockEstimateNs();
    const auto stats = computeStats(run.measuredLatencies());
    if (!estimate || *estimate <= 0 || !stats)
        return std::nullopt;
    return Crosscheck{stats->median, *estimate, run.crosscheckBlockCalls,
                      static_cast<int>(run.crosscheckBlockMeansNs.size())};
}

std::string crosscheckText(const Crosscheck& check) {
    char diff[32];
    std::snprintf(diff, sizeof diff, "%+.1f%%", 100 * check.difference());
    return std::to_string(check.blocks) + (check.blocks == 1 ? " block" : " blocks") + " of " +
           std::to_string(check.blockCalls) + (check.blockCalls == 1 ? " call: " : " calls: ") +
           formatDuration(check.blockEstimateNs) + " per call, per-call median " +
           formatDuration(check.perCallMedianNs) + " (" + diff + ")";
}

std::optional<UnsettledCalls> unsettledCalls(const Run& run) {
    // A sweep changes the input between calls: a slow call is a new shape, not warmup.
    if (run.setting.sweep)
        return std::nullopt;
    std::vector<int64_t> measured;
    for (const auto& it : run.iterations) {
        if (!it.warmup)
            measured.push_back(it.latencyNs);
    }
    // With a handful of calls the band itself is a guess.
    if (measured.size() < kMinCallsForUnsettled)
        return std::nullopt;
    const auto band = steadyBand(measured);
    if (!band)
        return std::nullopt;
    UnsettledCalls u;
    u.highNs = band->high;
    u.medianNs = band->median;
    for (auto ns : measured) {
        if (static_cast<double>(ns) <= band->high)
            break;
        ++u.calls;
        u.worstNs = std::max(u.worstNs, ns);
    }
    // All of them above the band cannot happen (the median is in it); one
    // call just above it is noise, far above it is warmup.
    const bool one = u.calls == 1 && static_cast<double>(u.worstNs) > 2 * band->median;
    if (u.calls >= 2 || one)
        return u;
    return std::nullopt;
}

int setDropUnsettled(Report& report, bool drop) {
    int total = 0;
    for (auto& run : report.runs) {
        const auto unsettled = drop ? unsettledCalls(run) : std::nullopt;
        run.droppedUnsettled = unsettled ? unsettled->calls : 0;
        total += run.droppedUnsettled;
    }
    return total;
}

} // namespace cs::core
