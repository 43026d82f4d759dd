// Warmup analysis of one run and the side-by-side comparison of all runs of a
// report against eager. Pure data in, pure data out: the Compare and Warmup
// tabs, the CLI table and the JSON/HTML writers all read these.
// How warmup and the steady-state band are defined: docs/measuring.md.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/analysis/stats.h"
#include "core/report/session.h"

namespace cs::core {

// The latencies a steady-state call may have: median ± halfWidth, where
// halfWidth = max(3 × MAD, 10% of the median) over the measured calls.
struct SteadyBand {
    double median = 0;
    double mad = 0; // median absolute deviation from the median (unscaled)
    double halfWidth = 0;
    double low = 0;
    double high = 0;
    bool contains(double latencyNs) const { return latencyNs >= low && latencyNs <= high; }
};

inline constexpr double kBandMads = 3.0;
inline constexpr double kBandMinFraction = 0.10;
// The first-calls curve shows at least this many calls (fewer if the run made fewer).
inline constexpr int kFirstCallsShown = 20;

struct WarmupCall {
    int index = 0; // in call order, 0 = the first (compiling) call
    int64_t latencyNs = 0;
    int64_t wallNs = 0;
    bool warmup = false;     // the probe ran it as a warmup call (not measured)
    bool inBand = false;     // within the steady-state band
    bool recompiled = false; // a recompile happened in it (Recompile::callIndex)
};

struct WarmupAnalysis {
    std::optional<SteadyBand> band; // nullopt without measured calls
    // The first calls in call order: every warmup call and the first measured
    // ones, at least kFirstCallsShown and a few past where warmup ends.
    std::vector<WarmupCall> curve;
    // Call index where warmup ends: the first call whose latency is at or
    // below the band's top. nullopt when no call gets there (or no band).
    std::optional<int> steadyFrom;
    // Warmup calls at or after steadyFrom that recompiled: warmup again.
    std::vector<int> recompiledAfterSteady;
    // Wall time of the calls before steadyFrom (all calls when it never ends)
    // and of recompiledAfterSteady.
    int64_t warmupWallNs = 0;
    // What those calls cost beyond steady state: sum of (latency - steady
    // median). This is the warmup cost break-even pays back. nullopt without a band.
    std::optional<double> extraNs;
    // The first call's wall time and its compile phases (torch's counters),
    // with "other" recomputed so that the phases add up to firstCallNs.
    int64_t firstCallNs = -1;
    std::vector<CompilePhase> phases;
    // aoti's export and package (isBuildPhase): paid once where the package is
    // built, never in a first call, so kept apart from `phases`.
    std::vector<CompilePhase> buildPhases;
    std::string phasesSource;
    double phasesSeconds() const;
    // Compile work the later warmup calls did (the probe's compile_time of
    // scope "warmup": CUDA-graph recording, runtime autotuning, recompiles):
    // named phases only; that scope's "other" is mostly running those calls.
    std::vector<CompilePhase> laterPhases;
    double laterSeconds() const;
    // torch's precompiled C++ header, built inside the first call of whichever
    // setting compiles first on a machine (the `precompiled_header` phase).
    int64_t headerBuildNs = 0;
};

WarmupAnalysis analyzeWarmup(const Run& run);
// An aoti run's "export" and "package" compile phases (docs/aoti.md).
bool isBuildPhase(const std::string& name);
// torch's precompiled C++ header (`precompiled_header`): built once per machine,
// never counted as a setting's own compile cost.
bool isHeaderBuildPhase(const std::string& name);
// The largest named phase that holds time (not "other", not the header), or null.
const CompilePhase* largestCompilePhase(const std::vector<CompilePhase>& phases);
std::optional<SteadyBand> steadyBand(const std::vector<int64_t>& measuredNs);

// Columns of the comparison where one value is best.
enum class CompareColumn {
    Graphs,
    Breaks,
    Recompiles,
    Warmup,
    Median,
    P99,
    Speedup,
    BreakEven,
    Memory,
    Sweep
};
inline constexpr size_t kCompareColumnCount = 10;

struct ComparisonRow {
    int run = -1; // index into Report::runs
    std::string label;
    RunStatus status = RunStatus::Pending;
    std::optional<LatencyStats> stats; // measured calls; partial for a timeout/cancel
    int graphs = 0;
    int breaks = 0;
    int recompiles = 0;
    // Dynamo traced it, so graphs, breaks and recompiles apply; false for
    // eager, and for aoti, whose graph comes from torch.export (shown as "—",
    // never best).
    bool dynamo = true;
    // WarmupAnalysis's warmupWallNs and extraNs: until steady state, and later
    // warmup calls that recompiled.
    std::optional<int64_t> warmupWallNs;
    std::optional<double> warmupNs;
    // The input sweep after measuring (get_input_sweep(), --sweep): its wall
    // time, and the recompiles in it, which warmup leaves out. nullopt
    // without a finished sweep.
    std::optional<int64_t> sweepWallNs;
    int sweepRecompiles = 0;
    std::optional<Speedup> speedup; // vs eager; nullopt without a baseline or stats
    // Calls until the extra warmup over eager is paid back by what each call
    // saves; nullopt = never (or not applicable: see saves and isBaseline).
    std::optional<double> breakEven;
    bool saves = false;      // faster per call than eager
    bool isBaseline = false; // this row is the eager run every speedup is against
    // A compiled setting that compiled nothing (torch_environment.h): it ran
    // eager code, so its speedup is eager against eager and has no break-even.
    bool compiledNothing = false;
    // False for an eager setting beside the baseline (eager:autocast=bf16):
    // no compile, so no warmup to pay back and no break-even.
    bool compiles = true;
    // Other work shared the probe's CPUs while it measured (MachineLoad::contended):
    // its median is high by that work's share, which differs between settings.
    bool measuredUnderLoad = false;
    std::optional<int64_t> peakMemoryBytes;
    std::string memoryKind; // "device reserved", "device", "host RSS"
    // The outputs check against eager's outputs (OutputsCheck): a short cell
    // and its detail; both empty where no check ran (eager, --iters 0, older reports).
    std::string outputs;
    std::string outputsDetail;
    // A wrong result, or values past the tolerance that float64 does not
    // excuse as eager's low-precision rounding.
    bool outputsDiffer = false;
    std::optional<ErrorInfo> error;
    // What torch actually did where it differs from what the setting asked
    // (CUDA graphs on CPU, CUDA graphs skipped, recompile limit hit).
    std::vector<std::string> notes;
    std::array<bool, kCompareColumnCount> best{}; // best value of its column
    bool isBest(CompareColumn column) const { return best[static_cast<size_t>(column)]; }
    // The speedup's 95% interval includes 1×: no gain that the noise cannot
    // explain, so a break-even figure would mean nothing (it stays in breakEven).
    bool noSignificantGain() const {
        return speedup && !isBaseline && speedup->low <= 1 && speedup->high >= 1;
    }
};

struct Comparison {
    int baseline = -1;               // run index of the eager run; -1 when none measured
    std::vector<ComparisonRow> rows; // one per run, in report order
    const ComparisonRow* row(int run) const;
    // Some setting swept its inputs: the tables then show a sweep column.
    bool swept() const;
};

Comparison compareRuns(const Report& report);

// The comparison's outputs cell for one run's check: {cell, detail}.
struct OutputsCell {
    std::string text;
    std::string detail;
    bool differs = false;
};
OutputsCell outputsCell(const OutputsCheck& check);

// The peak memory a run held, and which counter it came from.
std::optional<int64_t> peakMemory(const Run& run, std::string* kind = nullptr);
// Plain-words facts about what torch did with this setting (see ComparisonRow::notes).
std::vector<std::string> whatTorchDid(const Run& run);

} // namespace cs::core
