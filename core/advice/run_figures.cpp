#include "advice/run_figures.h"

#include <algorithm>

namespace cs::core::advice {

namespace {

// Interim until core/comparison.h is in main: warmup cost is what the warmup
// calls took beyond the steady-state median.
std::optional<double> extraWarmup(const Run& run, const LatencyStats& stats) {
    double extra = 0;
    for (const auto& it : run.iterations) {
        if (it.warmup)
            extra += std::max(0.0, static_cast<double>(it.latencyNs) - stats.median);
    }
    return extra;
}

std::optional<int64_t> peakOf(const Run& run, std::string& kind) {
    std::optional<int64_t> reserved;
    for (const auto& s : run.memoryStats)
        reserved = std::max(reserved.value_or(s.peakReserved), s.peakReserved);
    if (reserved && *reserved > 0) {
        kind = "device reserved";
        return reserved;
    }
    for (const char* k : {"device", "host_rss"}) {
        const auto* series = run.memorySeries(k);
        if (!series)
            continue;
        std::optional<int64_t> peak;
        for (const auto& [t, bytes] : series->samples)
            peak = std::max(peak.value_or(bytes), bytes);
        if (peak) {
            kind = std::string(k) == "device" ? "device" : "host RSS";
            return peak;
        }
    }
    return std::nullopt;
}

} // namespace

const RunFigures* AdviceInput::row(int run) const {
    for (const auto& r : rows) {
        if (r.run == run)
            return &r;
    }
    return nullptr;
}

const Run* AdviceInput::baselineRun() const {
    if (baseline < 0 || baseline >= static_cast<int>(report.runs.size()))
        return nullptr;
    return &report.runs[static_cast<size_t>(baseline)];
}

AdviceInput makeAdviceInput(const Report& report, const AdviceOptions& options) {
    AdviceInput input{report, options, -1, {}};
    for (size_t i = 0; i < report.runs.size(); ++i) {
        const Run& run = report.runs[i];
        RunFigures row;
        row.run = static_cast<int>(i);
        row.stats = computeStats(run.measuredLatencies());
        if (row.stats)
            row.warmupNs = extraWarmup(run, *row.stats);
        row.peakMemoryBytes = peakOf(run, row.memoryKind);
        if (input.baseline < 0 && run.setting.mode == "eager" && run.status == RunStatus::Ok &&
            row.stats)
            input.baseline = row.run;
        input.rows.push_back(std::move(row));
    }
    if (input.baseline >= 0) {
        auto& base = input.rows[static_cast<size_t>(input.baseline)];
        base.isBaseline = true;
        for (auto& row : input.rows) {
            if (row.isBaseline || !row.stats)
                continue;
            row.speedup = computeSpeedup(*base.stats, *row.stats);
            const double saved = base.stats->median - row.stats->median;
            row.saves = saved > 0;
            if (row.warmupNs && base.warmupNs)
                row.breakEven = breakEvenIterations(*row.warmupNs - *base.warmupNs, saved);
        }
    }
    return input;
}

} // namespace cs::core::advice
