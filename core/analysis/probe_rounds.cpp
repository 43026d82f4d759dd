#include "core/analysis/probe_rounds.h"

#include <algorithm>
#include <cstdio>

#include "core/analysis/units.h"

namespace cs::core {

namespace {

std::optional<double> medianOf(std::vector<int64_t> calls, int dropped) {
    if (dropped > 0 && static_cast<size_t>(dropped) < calls.size())
        calls.erase(calls.begin(), calls.begin() + dropped);
    const auto stats = computeStats(calls);
    return stats ? std::optional(stats->median) : std::nullopt;
}

std::optional<double> medianInRound(const std::vector<ProbeMedian>& medians, int round) {
    for (const auto& m : medians) {
        if (m.round == round)
            return m.medianNs;
    }
    return std::nullopt;
}

} // namespace

std::vector<ProbeMedian> probeMedians(const Run& run) {
    std::vector<ProbeMedian> medians;
    if (const auto stats = computeStats(run.measuredLatencies()))
        medians.push_back({0, stats->median});
    for (const auto& repeat : run.repeats) {
        if (repeat.status != RunStatus::Ok)
            continue;
        if (const auto median = medianOf(repeat.latencyNs, run.droppedUnsettled))
            medians.push_back({repeat.round, *median});
    }
    return medians;
}

std::optional<double> probeSpread(const Run& run) {
    const auto medians = probeMedians(run);
    if (medians.size() < 2)
        return std::nullopt;
    const auto [low, high] = std::minmax_element(
        medians.begin(), medians.end(),
        [](const ProbeMedian& a, const ProbeMedian& b) { return a.medianNs < b.medianNs; });
    return low->medianNs > 0 ? std::optional(high->medianNs / low->medianNs) : std::nullopt;
}

std::string probeSpreadText(const Run& run) {
    const auto medians = probeMedians(run);
    const auto spread = probeSpread(run);
    if (!spread)
        return {};
    double low = medians.front().medianNs, high = low;
    for (const auto& m : medians) {
        low = std::min(low, m.medianNs);
        high = std::max(high, m.medianNs);
    }
    char ratio[32];
    std::snprintf(ratio, sizeof ratio, "%.2f×", *spread);
    return std::to_string(medians.size()) + " probes, medians " + formatDuration(low) + " to " +
           formatDuration(high) + " (" + ratio + ")";
}

Speedup acrossRounds(const Run& baseline, const Run& setting, Speedup first) {
    const auto base = probeMedians(baseline);
    const auto mine = probeMedians(setting);
    std::vector<double> ratios;
    for (const auto& m : mine) {
        const auto b = medianInRound(base, m.round);
        if (b && m.medianNs > 0)
            ratios.push_back(*b / m.medianNs);
    }
    if (ratios.size() < 2)
        return first;
    const auto [low, high] = std::minmax_element(ratios.begin(), ratios.end());
    first.rounds = static_cast<int>(ratios.size());
    first.roundsLow = *low;
    first.roundsHigh = *high;
    first.low = std::min(first.low, *low);
    first.high = std::max(first.high, *high);
    const bool faster = first.value > 1;
    first.significant = first.significant && (faster ? *low > 1 : *high < 1);
    return first;
}

std::optional<Speedup> significantSpeedup(const Run& baseline, const Run& setting,
                                          const LatencyStats& baselineStats,
                                          const LatencyStats& settingStats) {
    auto speedup = computeSpeedup(baselineStats, settingStats);
    if (speedup)
        speedup = acrossRounds(baseline, setting, *speedup);
    if (!speedup || !speedup->significant)
        return std::nullopt;
    return speedup;
}

} // namespace cs::core
