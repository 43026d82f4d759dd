#include "core/analysis/measurement_check.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/analysis/comparison.h"
#include "core/analysis/function_name.h"
#include "core/analysis/stats.h"
#include "core/analysis/units.h"

namespace cs::core {

bool Crosscheck::apart() const {
    return std::fabs(difference()) > kCrosscheckTolerance;
}

bool Crosscheck::tailExplains() const {
    // A tail raises the means above the median, never below; one that lifts
    // them by more than kSettledSpread is no steady time with a tail.
    return groupCalls > 1 && perCallGroupNs > perCallMedianNs &&
           perCallGroupNs <= perCallMedianNs * (1 + kSettledSpread) &&
           blockEstimateNs > perCallMedianNs &&
           blockEstimateNs <= perCallGroupNs * (1 + kCrosscheckTolerance);
}

bool Crosscheck::driftExplains() const {
    if (trendZ > kFallingTrendZ || firstQuarterNs <= 0 ||
        lastQuarterNs >= firstQuarterNs * (1 - kCrosscheckTolerance))
        return false;
    // The blocks, later, may have fallen on as far again as the calls did.
    const double fall = 1 - lastQuarterNs / firstQuarterNs;
    return blockEstimateNs < perCallMedianNs &&
           blockEstimateNs <= lastQuarterNs * (1 + kCrosscheckTolerance) &&
           blockEstimateNs >= lastQuarterNs * (1 - fall - kCrosscheckTolerance);
}

bool Crosscheck::apartByDrift() const {
    return judgeable() && apart() && !withinNoise() && !tailExplains() && driftExplains();
}

bool Crosscheck::disagrees() const {
    return judgeable() && apart() && !withinNoise() && !tailExplains() && !driftExplains();
}

std::string crosscheckVerdict(const Crosscheck& check) {
    if (check.recompiled)
        return "not comparable: torch recompiled while they were timed (the blocks may run "
               "other code)";
    if (!check.judgeable())
        return "too few blocks to judge (measure for longer: --iters)";
    if (check.apart() && check.withinNoise())
        return "apart, but within the per-call median's 95% interval: too few or too spread-out "
               "calls to tell (measure for longer: --iters)";
    if (check.apart() && check.tailExplains()) {
        return "they agree as means: the measured calls averaged over runs of " +
               std::to_string(check.groupCalls) + " took " + formatDuration(check.perCallGroupNs) +
               " (" + formatSignedPercent(check.perCallGroupNs / check.blockEstimateNs - 1) +
               "); a block averages in the calls' slow tail, which the median leaves out";
    }
    if (check.apartByDrift())
        return "apart, as the measured calls kept getting faster: their first quarter took " +
               formatDuration(check.firstQuarterNs) + " (median), their last " +
               formatDuration(check.lastQuarterNs) +
               ", and the blocks ran after them; the median holds the slower start (warm up "
               "longer: --warmup)";
    return check.disagrees() ? "they disagree: the measurement was disturbed" : "they agree";
}

namespace {

// The median of the means of runs of `size` consecutive calls (the last,
// shorter run left out).
double medianOfRunMeans(const std::vector<int64_t>& calls, size_t size) {
    std::vector<double> means;
    for (size_t first = 0; first + size <= calls.size(); first += size) {
        double sum = 0;
        for (size_t i = first; i < first + size; ++i)
            sum += static_cast<double>(calls[i]);
        means.push_back(sum / static_cast<double>(size));
    }
    return medianValue(std::move(means));
}

} // namespace

std::optional<Crosscheck> crosscheck(const Run& run) {
    const auto estimate = run.blockEstimateNs();
    const std::vector<int64_t> calls = run.measuredLatencies();
    const auto stats = computeStats(calls);
    if (!estimate || *estimate <= 0 || !stats)
        return std::nullopt;
    // The blocks' recompiles come in the crosscheck phase; an older probe
    // reported them with the profiled window that followed.
    const bool recompiled =
        std::any_of(run.recompiles.begin(), run.recompiles.end(), [](const Recompile& rc) {
            return rc.phase == "measure" || rc.phase == "crosscheck" || rc.phase == "profile";
        });
    const size_t group =
        std::clamp<size_t>(static_cast<size_t>(std::max(1, run.crosscheckBlockCalls)), 1,
                           std::max<size_t>(1, calls.size() / kMinCrosscheckBlocks));
    Crosscheck check{stats->median,
                     *estimate,
                     run.crosscheckBlockCalls,
                     static_cast<int>(run.crosscheckBlockMeansNs.size()),
                     recompiled,
                     stats->medianCiLow,
                     stats->medianCiHigh,
                     medianOfRunMeans(calls, group),
                     static_cast<int>(group)};
    if (calls.size() >= kMinCallsForTrend) {
        const size_t quarter = calls.size() / 4;
        const auto medianOf = [&](size_t first) {
            return medianValue(
                std::vector<double>(calls.begin() + static_cast<long>(first),
                                    calls.begin() + static_cast<long>(first + quarter)));
        };
        check.trendZ = mannKendallZ(calls);
        check.firstQuarterNs = medianOf(0);
        check.lastQuarterNs = medianOf(calls.size() - quarter);
    }
    return check;
}

std::string crosscheckText(const Crosscheck& check) {
    return std::to_string(check.blocks) + (check.blocks == 1 ? " block" : " blocks") + " of " +
           std::to_string(check.blockCalls) + (check.blockCalls == 1 ? " call: " : " calls: ") +
           formatDuration(check.blockEstimateNs) + " per call, per-call median " +
           formatDuration(check.perCallMedianNs) + " (" + formatSignedPercent(check.difference()) +
           ")";
}

bool MachineLoad::contended() const {
    if (!judgeable())
        return false;
    const double probeWants = std::max(static_cast<double>(probeThreads), probeCpus);
    return stealShare >= kStealShare ||
           (otherCpus >= kMinOtherCpus && probeWants + otherCpus > static_cast<double>(cpus));
}

std::optional<MachineLoad> machineLoad(const Run& run, const Environment& where) {
    const MachineCpu& m = run.measureMachineCpu;
    if (!m.present())
        return std::nullopt;
    MachineLoad load;
    load.cpus = m.cpus;
    load.probeThreads = std::max(0, run.probe.threads);
    load.wallNs = static_cast<double>(m.wallNs);
    // The app measured its own CPU over the same phase; on another machine it
    // took nothing from these CPUs.
    const double appNs = where.target.empty() && run.appCpuMeasureNs > 0
                             ? static_cast<double>(run.appCpuMeasureNs)
                             : 0.0;
    const double others = static_cast<double>(m.busyNs) - static_cast<double>(m.probeCpuNs) - appNs;
    load.probeCpus = static_cast<double>(m.probeCpuNs) / load.wallNs;
    load.childCpus = static_cast<double>(m.childrenCpuNs) / load.wallNs;
    load.otherCpus = std::max(0.0, others) / load.wallNs;
    load.stealShare = static_cast<double>(m.stealNs) / (load.wallNs * m.cpus);
    return load;
}

std::string machineLoadText(const MachineLoad& load) {
    char text[200];
    std::snprintf(text, sizeof text,
                  "other processes kept %.2f of the probe's %d CPU%s busy (the probe %.2f",
                  load.otherCpus, load.cpus, load.cpus == 1 ? "" : "s", load.probeCpus);
    std::string out = text;
    if (load.childCpus >= kMinChildCpus) {
        std::snprintf(text, sizeof text, ", %.2f of it in its child processes", load.childCpus);
        out += text;
    }
    if (load.probeThreads > 0)
        out += ", " + std::to_string(load.probeThreads) +
               (load.probeThreads == 1 ? " thread" : " threads");
    std::snprintf(text, sizeof text, "); steal %.1f%%", 100 * load.stealShare);
    out += text;
    return out;
}

std::string machineLoadShortText(const MachineLoad& load) {
    char text[120];
    std::snprintf(text, sizeof text, "others kept %.2f of its %d CPU%s busy", load.otherCpus,
                  load.cpus, load.cpus == 1 ? "" : "s");
    std::string out = text;
    if (load.stealShare >= 0.005) {
        std::snprintf(text, sizeof text, ", steal %.1f%%", 100 * load.stealShare);
        out += text;
    }
    return out;
}

std::string machineLoadVerdict(const MachineLoad& load) {
    if (!load.judgeable())
        return "too short to judge (a measure phase under 0.5 s; the kernel counts CPU time in "
               "ticks)";
    return load.contended() ? "the probe shared its CPUs: the median is high" : "quiet enough";
}

std::optional<UnsettledCalls> unsettledCalls(const Run& run) {
    // The input sweep's calls come after these and are no iterations: every
    // measured call had the same inputs.
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
    if (u.calls < 2 && !one)
        return std::nullopt;
    // The probe's last warmup calls run as the measured ones do (no capture
    // hooks); when the last was already near the steady median, the model had
    // settled, and the slow first measured calls are the probe's step from
    // one phase to the next (its reads and writes slow the next few calls),
    // which more warmup would not change. Compiles among them are said all the same.
    const Iteration* lastWarmup = nullptr;
    for (const auto& it : run.iterations) {
        if (!it.warmup)
            break;
        lastWarmup = &it;
    }
    const bool settledInWarmup =
        lastWarmup && !lastWarmup->firstCall &&
        static_cast<double>(lastWarmup->latencyNs) <= kSettledWarmupFactor * band->median &&
        static_cast<double>(u.worstNs) - band->median <= static_cast<double>(kPhaseStepNs);
    if (settledInWarmup && !unsettledByRecompiles(run, u))
        return std::nullopt;
    return u;
}

MeasureRecompiles measureRecompiles(const Run& run) {
    MeasureRecompiles m;
    for (const auto& rc : run.recompiles) {
        if (rc.phase != "measure" || rc.limitHit)
            continue;
        ++m.count;
        const std::string name = functionName(rc.function);
        if (!name.empty() &&
            std::find(m.functions.begin(), m.functions.end(), name) == m.functions.end())
            m.functions.push_back(name);
    }
    return m;
}

std::vector<RecompiledCall> recompiledMeasuredCalls(const Run& run) {
    std::vector<RecompiledCall> out;
    if (run.recompiles.empty())
        return out;
    int measured = 0;
    for (const auto& it : run.iterations) {
        if (it.warmup)
            continue;
        ++measured;
        for (size_t r = 0; r < run.recompiles.size(); ++r) {
            const auto& rc = run.recompiles[r];
            if (rc.callIndex == it.index && !rc.limitHit)
                out.push_back({measured, it.latencyNs, r});
        }
    }
    return out;
}

const Recompile* recompileInCall(const Run& run, int callIndex) {
    for (const auto& rc : run.recompiles) {
        if (rc.callIndex == callIndex && !rc.limitHit)
            return &rc;
    }
    return nullptr;
}

bool unsettledByRecompiles(const Run& run, const UnsettledCalls& unsettled) {
    if (measureRecompiles(run).count == 0)
        return false;
    const auto located = recompiledMeasuredCalls(run);
    return located.empty() || located.front().measuredCall <= unsettled.calls;
}

std::string recompileWhenText(const Run& run, const Recompile& recompile) {
    if (recompile.callIndex < 0) {
        if (recompile.phase == "profile")
            return "the profiled window";
        if (recompile.phase == "crosscheck")
            return "the cross-check's blocks";
        return recompile.phase;
    }
    int measured = 0;
    for (const auto& it : run.iterations) {
        measured += it.warmup ? 0 : 1;
        if (it.index != recompile.callIndex)
            continue;
        if (!it.warmup)
            return "measured call " + std::to_string(measured);
        return it.index == 0 ? "the first call"
                             : "call " + std::to_string(it.index + 1) + " (warmup)";
    }
    // A sweep's calls are not iterations: their own numbers.
    return "call " + std::to_string(recompile.callIndex + 1) +
           (recompile.phase.empty() ? "" : " (" + recompile.phase + ")");
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

std::optional<double> hostDriftWithin(const Run& run) {
    if (!run.hostReference.present())
        return std::nullopt;
    return static_cast<double>(run.hostReference.afterNs) /
           static_cast<double>(run.hostReference.beforeNs);
}

std::optional<double> hostSpeedRatio(const Run& a, const Run& b) {
    if (!a.hostReference.present() || !b.hostReference.present())
        return std::nullopt;
    return b.hostReference.meanNs() / a.hostReference.meanNs();
}

bool hostDrifted(double ratio) {
    return ratio > 1 + kHostDriftTolerance || ratio < 1 / (1 + kHostDriftTolerance);
}

std::string hostRatioText(double ratio) {
    char text[32];
    if (ratio >= 1)
        std::snprintf(text, sizeof text, "%.2f× slower", ratio);
    else
        std::snprintf(text, sizeof text, "%.2f× faster", 1 / ratio);
    return text;
}

std::string hostReferenceSpanText(const Run& run) {
    return formatDuration(static_cast<double>(run.hostReference.beforeNs)) +
           " before the warmup and " +
           formatDuration(static_cast<double>(run.hostReference.afterNs)) +
           " after the measured calls";
}

std::string hostReferenceText(const Run& run) {
    const auto drift = hostDriftWithin(run);
    if (!drift)
        return {};
    return hostReferenceSpanText(run) + ": " +
           (hostDrifted(*drift) ? "the machine changed speed" : "steady");
}

} // namespace cs::core
