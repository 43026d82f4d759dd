// Checks on the measurement itself (docs/measuring.md): the per-call median
// against the block-timing cross-check, and measured calls that were still
// warming up. The Latency tab, the HTML report, the CLI and the advice rules
// all read these.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "core/report/session.h"

namespace cs::core {

// Per-call median and block estimate may differ by this fraction before the
// measurement counts as disturbed.
inline constexpr double kCrosscheckTolerance = 0.05;
// The median of fewer blocks is one number's noise: no verdict below this.
inline constexpr int kMinCrosscheckBlocks = 3;

// Measured calls in time order falling at least this steeply (Mann-Kendall,
// mannKendallZ) were still getting faster: not noise.
inline constexpr double kFallingTrendZ = -3.0;
// Fewer measured calls have no quarters to compare.
inline constexpr size_t kMinCallsForTrend = 20;

struct Crosscheck {
    double perCallMedianNs = 0;
    double blockEstimateNs = 0;
    int blockCalls = 0;
    int blocks = 0;
    // Torch recompiled in the measured calls or right after them (in the
    // blocks): the blocks may run other code (the next compiled variant, or
    // eager past the recompile limit), so the two timings do not compare.
    bool recompiled = false;
    // The per-call median's 95% interval (min and max for under six calls).
    double medianCiLowNs = 0;
    double medianCiHighNs = 0;
    // What a block times, from the calls timed one by one: the median of the
    // means of runs of groupCalls consecutive measured calls (as many as a
    // block, at most a third of them). A block averages in the calls' slow
    // tail, which a median leaves out.
    double perCallGroupNs = 0;
    int groupCalls = 1;
    // The measured calls in time order: their trend (mannKendallZ) and the
    // medians of their first and last quarter; 0 for under kMinCallsForTrend.
    double trendZ = 0;
    double firstQuarterNs = 0;
    double lastQuarterNs = 0;
    // perCallMedianNs / blockEstimateNs - 1: + when single calls timed slower than blocks.
    double difference() const { return perCallMedianNs / blockEstimateNs - 1; }
    bool judgeable() const { return blocks >= kMinCrosscheckBlocks && !recompiled; }
    // Apart by more than kCrosscheckTolerance.
    bool apart() const;
    // The block estimate lies within the per-call median's 95% interval: a few
    // spread-out calls (long ones, blocks of one call) cannot tell the two apart.
    bool withinNoise() const {
        return blockEstimateNs >= medianCiLowNs && blockEstimateNs <= medianCiHighNs;
    }
    // The block estimate lies above the per-call median and at most
    // kCrosscheckTolerance above the measured calls' own means over runs of
    // groupCalls (more than one): the calls' slow tail, not a disturbance.
    bool tailExplains() const;
    // The measured calls kept getting faster (a falling trend, the last
    // quarter more than kCrosscheckTolerance below the first), and the
    // blocks, which run after them, are below the per-call median, at most
    // kCrosscheckTolerance above the last quarter and at most as far again
    // below it as the calls fell (plus kCrosscheckTolerance): the model (or
    // the machine) had not settled, and the median holds its slower start.
    bool driftExplains() const;
    // Judgeable, apart, beyond the noise, not the calls' tail, and their drift.
    bool apartByDrift() const;
    // Judgeable, apart, beyond the noise, and neither the calls' own tail
    // nor their drift.
    bool disagrees() const;
};

// nullopt when the run has no cross-check or no measured calls.
std::optional<Crosscheck> crosscheck(const Run& run);
// "blocks of 50 calls: 212 µs per call, per-call median 215 µs (+1.4%)"
std::string crosscheckText(const Crosscheck& check);
// "they agree", "they disagree: the measurement was disturbed", or, for
// fewer than kMinCrosscheckBlocks blocks, "too few blocks to judge"; after
// a recompile, "not comparable"; apart but within the per-call median's
// interval, that the calls are too few and spread out to tell.
std::string crosscheckVerdict(const Crosscheck& check);

// The rest of the machine while the probe measured (docs/measuring.md, "The
// rest of the machine"): a load that lasts through the measure phase slows
// single calls and blocks alike, so the cross-check cannot see it.
inline constexpr int64_t kMinMachineWallNs = 500'000'000; // shorter: the kernel's ticks are coarse
inline constexpr double kMinOtherCpus = 0.1;              // below: daemons, not a load
inline constexpr double kMinChildCpus = 0.05;             // below: not worth naming
inline constexpr double kStealShare = 0.05;

struct MachineLoad {
    int cpus = 0;          // the CPUs the probe could run on
    int probeThreads = 0;  // torch's intra-op threads; 0 unknown
    double wallNs = 0;     // the measure phase
    double probeCpus = 0;  // average CPUs the probe itself kept busy, its child processes included
    double childCpus = 0;  // of which its child processes (a recompile's C++ compiler)
    double otherCpus = 0;  // average CPUs everything else kept busy there
    double stealShare = 0; // of those CPUs' time, taken by the hypervisor
    bool judgeable() const { return wallNs >= static_cast<double>(kMinMachineWallNs); }
    // The probe and the others wanted more CPUs than there were, or steal
    // took a share: the timed calls waited for a CPU.
    bool contended() const;
};

// nullopt for a run without machine_cpu (not Linux, an older report, the aoti runner).
// The app's own CPU is left out of the others' unless the report's runs were on
// a remote target (`where.target`): then the app ran elsewhere.
std::optional<MachineLoad> machineLoad(const Run& run, const Environment& where);
// "other processes kept 1.30 of the probe's 2 CPUs busy (the probe 1.00, 1 thread); steal 0.0%";
// "(the probe 1.00, 0.87 of it in its child processes, ...)" when they took a share.
std::string machineLoadText(const MachineLoad& load);
// "others kept 1.30 of its 2 CPUs busy" (", steal 6.0%" when there was any to speak of)
std::string machineLoadShortText(const MachineLoad& load);
// "quiet enough", "the probe shared its CPUs: the median is high", or too short to judge.
std::string machineLoadVerdict(const MachineLoad& load);

// The machine's own speed (docs/measuring.md, "The machine's speed"): the
// host reference, a fixed CPU workload, timed before the warmup and after the
// measured calls. Beyond this ratio the machine changed speed.
inline constexpr double kHostDriftTolerance = 0.25;

// after ÷ before within one run; nullopt without a reference.
std::optional<double> hostDriftWithin(const Run& run);
// b's reference over a's (the mean of each run's two): above 1, the machine
// was slower while b was measured; nullopt unless both have one.
std::optional<double> hostSpeedRatio(const Run& a, const Run& b);
// Beyond kHostDriftTolerance either way.
bool hostDrifted(double ratio);
// "1.93× slower", "1.30× faster" (the machine, as the ratio says).
std::string hostRatioText(double ratio);
// "1.01 ms before the warmup and 1.02 ms after the measured calls"
std::string hostReferenceSpanText(const Run& run);
// The same with ": steady" (or ": the machine changed speed"); empty without a reference.
std::string hostReferenceText(const Run& run);

struct UnsettledCalls {
    int calls = 0;       // leading measured calls above the steady-state band
    double highNs = 0;   // the band's top
    double medianNs = 0; // the band's median
    int64_t worstNs = 0; // the slowest of them
};

inline constexpr size_t kMinCallsForUnsettled = 10;
// A last warmup call within this factor of the measured median had settled:
// slow first measured calls after it are the step into the measure phase
// (the 2-core VM: a DeBERTa's warmup ended at 98 µs, 1.14× its 85.8 µs
// median, then the first measured calls took 185, 136, 109 µs).
inline constexpr double kSettledWarmupFactor = 1.25;
// What the step costs a call at most: caches refilled, not work redone. The
// most seen was 225 µs over the median (311 µs against 86 µs, with /proc
// read right before the first call); calls slower than this were something else.
inline constexpr int64_t kPhaseStepNs = 500'000;

// The first measured calls above the steady-state band (core/analysis/comparison.h),
// over all measured calls whether or not the run drops them. nullopt when
// they settle at once, or when one call only sits just above the band (noise),
// and for fewer than kMinCallsForUnsettled measured calls.
std::optional<UnsettledCalls> unsettledCalls(const Run& run);

// The recompiles in the measure phase (Recompile::phase); the limit event
// is not a compile.
struct MeasureRecompiles {
    long long count = 0;
    std::vector<std::string> functions; // the user's names (functionName), each once, in order
};
MeasureRecompiles measureRecompiles(const Run& run);

// A measured call that recompiled (Recompile::callIndex), as the Latency
// chart and the advice number measured calls: from 1, over all of them
// whether or not the run drops unsettled ones.
struct RecompiledCall {
    int measuredCall = 0;
    int64_t latencyNs = 0;
    size_t recompile = 0; // into Run::recompiles
};

// In call order; recompiles of the same call each get an entry. Recompiles
// with no call or in a warmup call are not here.
std::vector<RecompiledCall> recompiledMeasuredCalls(const Run& run);
// The first recompile (not a limit hit: no compile there) in the call of this
// Iteration::index; nullptr when that call compiled nothing again.
const Recompile* recompileInCall(const Run& run, int callIndex);

// Whether the unsettled first calls were compiles rather than warmup: one
// of them recompiled, or, in a report that does not say which calls did,
// any measured call did.
bool unsettledByRecompiles(const Run& run, const UnsettledCalls& unsettled);

// When a recompile happened, as the charts number calls: "measured call 25",
// "call 3 (warmup)", "the first call", "call 12 (sweep)"; without a call, its
// phase ("the cross-check's blocks", "the profiled window"); empty when nothing is known.
std::string recompileWhenText(const Run& run, const Recompile& recompile);

// Drops (or, with drop false, restores) every run's unsettled calls from its
// statistics (Run::droppedUnsettled). Returns how many calls are dropped in all.
int setDropUnsettled(Report& report, bool drop);

} // namespace cs::core
