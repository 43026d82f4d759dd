#include "core/report/comparison_json.h"

#include <cmath>

namespace cs::core {

using nlohmann::json;

namespace {

template <typename T> json orNull(const std::optional<T>& value) {
    return value ? json(*value) : json(nullptr);
}

// Durations are integer ns in the file (report format version 2).
int64_t ns(double value) {
    return static_cast<int64_t>(std::llround(value));
}

json nsOrNull(const std::optional<double>& value) {
    return value ? json(ns(*value)) : json(nullptr);
}

const char* columnName(CompareColumn column) {
    switch (column) {
    case CompareColumn::Graphs:
        return "graphs";
    case CompareColumn::Breaks:
        return "breaks";
    case CompareColumn::Recompiles:
        return "recompiles";
    case CompareColumn::Warmup:
        return "warmup";
    case CompareColumn::Median:
        return "median";
    case CompareColumn::P99:
        return "p99";
    case CompareColumn::Speedup:
        return "speedup";
    case CompareColumn::BreakEven:
        return "break_even";
    case CompareColumn::Memory:
        return "peak_memory";
    case CompareColumn::Sweep:
        return "sweep";
    }
    return "unknown";
}

} // namespace

json warmupToJson(const WarmupAnalysis& w) {
    json band = nullptr;
    if (w.band) {
        band = {{"median_ns", ns(w.band->median)},
                {"mad_ns", ns(w.band->mad)},
                {"half_width_ns", ns(w.band->halfWidth)},
                {"low_ns", ns(w.band->low)},
                {"high_ns", ns(w.band->high)}};
    }
    json curve = json::array();
    for (const auto& c : w.curve) {
        curve.push_back({{"index", c.index},
                         {"latency_ns", c.latencyNs},
                         {"wall_ns", c.wallNs},
                         {"warmup", c.warmup},
                         {"in_band", c.inBand},
                         {"recompiled", c.recompiled}});
    }
    json phases = json::array();
    for (const auto& p : w.phases)
        phases.push_back({{"name", p.name}, {"ns", ns(p.seconds * 1e9)}});
    json later = json::array();
    for (const auto& p : w.laterPhases)
        later.push_back({{"name", p.name}, {"ns", ns(p.seconds * 1e9)}});
    return {{"steady_band", band},
            {"steady_from_call", orNull(w.steadyFrom)},
            {"recompiled_after_steady", w.recompiledAfterSteady},
            {"warmup_wall_ns", w.warmupWallNs},
            {"extra_ns", nsOrNull(w.extraNs)},
            {"first_call_ns", w.firstCallNs},
            {"phases", phases},
            {"phases_source", w.phasesSource},
            {"later_warmup_phases", later},
            {"first_calls", curve}};
}

json comparisonToJson(const Comparison& c) {
    json rows = json::array();
    for (const auto& r : c.rows) {
        json speedup = nullptr;
        if (r.speedup) {
            speedup = {{"value", r.speedup->value},
                       {"ci95", {r.speedup->low, r.speedup->high}},
                       {"significant", r.speedup->significant}};
            if (r.speedup->rounds > 1) {
                speedup["rounds"] = r.speedup->rounds;
                speedup["rounds_range"] = {r.speedup->roundsLow, r.speedup->roundsHigh};
            }
        }
        json best = json::array();
        for (size_t i = 0; i < kCompareColumnCount; ++i) {
            if (r.best[i])
                best.push_back(columnName(static_cast<CompareColumn>(i)));
        }
        // "never" in words where a number would mislead; null where it does not apply.
        json breakEven = nullptr;
        if (r.breakEven)
            breakEven = *r.breakEven;
        else if (r.speedup && !r.saves)
            breakEven = "never";
        rows.push_back(
            {{"run", r.run},
             {"label", r.label},
             {"status", toString(r.status)},
             {"baseline", r.isBaseline},
             {"graphs", r.graphs},
             {"breaks", r.breaks},
             {"recompiles", r.recompiles},
             {"warmup_wall_ns", orNull(r.warmupWallNs)},
             {"warmup_extra_ns", nsOrNull(r.warmupNs)},
             {"sweep_wall_ns", orNull(r.sweepWallNs)},
             {"sweep_recompiles", r.sweepRecompiles},
             {"median_ns", r.stats ? json(ns(r.stats->median)) : json(nullptr)},
             {"p99_ns", r.stats ? json(ns(r.stats->p99)) : json(nullptr)},
             {"speedup", speedup},
             {"saves", r.saves},
             {"break_even_iterations", breakEven},
             {"peak_memory_bytes", orNull(r.peakMemoryBytes)},
             {"memory_kind", r.memoryKind},
             {"outputs", r.outputs.empty() ? json(nullptr) : json(r.outputs)},
             {"outputs_differ", r.outputsDiffer},
             {"error", r.error ? json{{"kind", r.error->kind}, {"message", r.error->message}}
                               : json(nullptr)},
             {"notes", r.notes},
             {"best", best}});
    }
    return {{"baseline_run", c.baseline >= 0 ? json(c.baseline) : json(nullptr)},
            {"definition", "docs/measuring.md"},
            {"rows", rows}};
}

} // namespace cs::core
