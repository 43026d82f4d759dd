// Rule 5: memory cost. A setting whose peak memory exceeds eager's by more
// than the set fraction; the cause named where the phases show it: the
// CUDA-graph pool held in steady state, autotune buffers or the compiler
// itself at compile time.
#include <algorithm>
#include <cmath>
#include <map>

#include "core/advice/advice_rules.h"
#include "core/advice/advice_text.h"
#include "core/advice/perf_scope.h"
#include "core/analysis/units.h"

namespace cs::core::advice {

namespace {

using PhasePeaks = std::map<std::string, int64_t>;

// Peak of a series inside each phase span, counting what was held as it began.
PhasePeaks peaksFromSamples(const Run& run, const MemorySeries& series) {
    PhasePeaks peaks;
    for (const auto& span : run.phases) {
        if (span.beginNs < 0)
            continue;
        const int64_t end = span.endNs >= 0 ? span.endNs : run.lastEventNs;
        std::optional<int64_t> held, best;
        for (const auto& [t, bytes] : series.samples) {
            if (t <= span.beginNs)
                held = bytes;
            else if (t <= end)
                best = std::max(best.value_or(bytes), bytes);
        }
        if (held)
            best = std::max(best.value_or(*held), *held);
        if (best)
            peaks[span.name] = std::max(peaks[span.name], *best);
    }
    return peaks;
}

// Per-phase peaks of the same counter compareRuns' peak came from.
PhasePeaks phasePeaks(const Run& run, const std::string& kind) {
    PhasePeaks peaks;
    if (kind == "device reserved") {
        for (const auto& s : run.memoryStats) {
            if (s.edge == "end")
                peaks[s.phase] = std::max(peaks[s.phase], s.peakReserved);
        }
        return peaks;
    }
    const auto* series = run.memorySeries(kind == "device" ? "device" : "host_rss");
    if (!series)
        return peaks;
    return series->phasePeaks.empty() ? peaksFromSamples(run, *series) : series->phasePeaks;
}

std::optional<int64_t> get(const PhasePeaks& peaks, const char* phase) {
    auto it = peaks.find(phase);
    return it == peaks.end() ? std::nullopt : std::optional<int64_t>(it->second);
}

std::string percentMore(double bytes, double base) {
    return std::to_string(std::lround(100 * (bytes - base) / base)) + "%";
}

} // namespace

void memoryRule(const AdviceInput& input, std::vector<Finding>& out) {
    const Run* eager = input.baselineRun();
    const ComparisonRow* base = eager ? input.baselineRow() : nullptr;
    if (!eager || !base || !base->peakMemoryBytes || *base->peakMemoryBytes <= 0)
        return;
    const double fraction = input.options.memoryFraction;
    const double eagerPeak = static_cast<double>(*base->peakMemoryBytes);
    const PhasePeaks eagerPhases = phasePeaks(*eager, base->memoryKind);
    for (const auto& row : input.comparison.rows) {
        const Run& run = input.report.runs[static_cast<size_t>(row.run)];
        if (row.isBaseline || !judgedForSpeed(run) || !row.peakMemoryBytes ||
            row.memoryKind != base->memoryKind)
            continue;
        const double peak = static_cast<double>(*row.peakMemoryBytes);
        if (peak <= eagerPeak * (1 + fraction))
            continue;
        const std::string label = run.setting.label();
        const std::string& kind = row.memoryKind;
        const PhasePeaks phases = phasePeaks(run, kind);
        const auto steady = get(phases, "measure");
        const auto eagerSteady = get(eagerPhases, "measure");
        const auto compile = get(phases, "compile");
        const bool steadyCost = steady && eagerSteady && *steady > *eagerSteady * (1 + fraction);
        const bool compilePeak = compile && (!steady || *compile > *steady * (1 + fraction));

        Finding f;
        f.rule = "memory.cost";
        f.tab = EvidenceTab::Memory;
        f.run = row.run;
        f.setting = label;
        f.evidence.push_back(label + " peaks at " + formatBytes(peak) + " " + kind + ", " +
                             percentMore(peak, eagerPeak) + " above eager's " +
                             formatBytes(eagerPeak) + " (Memory tab)");
        const bool cuda = onCuda(run);
        if (steadyCost) {
            f.severity = Severity::Warning;
            f.evidence.push_back("in steady state (measure phase) it holds " +
                                 formatBytes(static_cast<double>(*steady)) + " vs eager's " +
                                 formatBytes(static_cast<double>(*eagerSteady)));
            if (cuda && usesCudaGraphs(run.setting.mode)) {
                f.title = label + " holds " + percentMore(peak, eagerPeak) +
                          " more memory than eager: the CUDA-graph pool";
                f.evidence.push_back(
                    "mode " + run.setting.mode +
                    " records CUDA graphs, whose private memory pool stays reserved "
                    "for as long as the process runs");
                f.remedy = "Where memory is tight use max-autotune-no-cudagraphs or default (no "
                           "CUDA-graph pool); with CUDA graphs, fewer distinct input shapes mean "
                           "fewer recorded graphs and pools.";
                f.confidence = 0.8;
            } else {
                f.title = label + " holds " + percentMore(peak, eagerPeak) +
                          " more memory than eager in steady state";
                f.remedy = "Where memory is the limit, eager needs " +
                           formatBytes(peak - eagerPeak) + " less at its peak.";
                f.confidence = 0.6;
            }
        } else if (compilePeak) {
            f.severity = Severity::Info;
            f.evidence.push_back(
                "the peak is in the compile phase (" + formatBytes(static_cast<double>(*compile)) +
                ")" +
                (steady ? "; steady state holds " + formatBytes(static_cast<double>(*steady))
                        : ""));
            const bool autotune = run.setting.mode == "max-autotune" ||
                                  run.setting.mode == "max-autotune-no-cudagraphs";
            if (cuda && autotune) {
                f.title = label + " needs " + percentMore(peak, eagerPeak) +
                          " more memory than eager while autotuning";
                f.evidence.push_back("max-autotune benchmarks candidate kernels during compile, "
                                     "each with its own buffers");
                f.remedy = "The autotune buffers are freed after compile; if the device is near "
                           "full then, compile before allocating other large buffers, or use mode "
                           "default, which does not autotune.";
            } else {
                f.title = label + " needs " + percentMore(peak, eagerPeak) +
                          " more memory than eager while compiling";
                f.remedy = "This peak is freed after compile; it matters only if the " +
                           std::string(cuda ? "device" : "machine") +
                           " is near full when the first call compiles: compile before allocating "
                           "other large buffers.";
            }
            f.confidence = 0.75;
        } else {
            // The phases do not show a cause: state the cost, claim nothing more.
            f.severity = Severity::Info;
            f.title = label + " peaks " + percentMore(peak, eagerPeak) + " above eager's memory";
            f.remedy = "Where memory is the limit, eager needs " + formatBytes(peak - eagerPeak) +
                       " less at its peak.";
            f.confidence = 0.5;
        }
        out.push_back(std::move(f));
    }
}

} // namespace cs::core::advice
