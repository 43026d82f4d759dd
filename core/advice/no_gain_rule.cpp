// Rule 3: too small to gain. Compile buys no significant speedup (the medians'
// 95% intervals overlap) or makes it slower; where the evidence shows why
// (per-call time near the harness's own overhead, an idle GPU), say so.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <optional>
#include <set>

#include "core/advice/advice_rules.h"
#include "core/advice/advice_text.h"
#include "core/advice/perf_scope.h"
#include "core/analysis/function_name.h"
#include "core/analysis/kernel_cost.h"
#include "core/analysis/page_faults.h"
#include "core/analysis/run_summary.h"
#include "core/analysis/stats.h"
#include "core/analysis/units.h"

namespace cs::core::advice {

namespace {

// The harness's own cost is at least this share of eager's per-call time.
constexpr double kOverheadShare = 0.10;
// Below this busy fraction the GPU waits on the host: launch-bound.
constexpr double kLaunchBoundBusy = 0.5;
// Fewer measured calls than this make the interval wide: say so in confidence.
constexpr size_t kSolidSamples = 20;
// A line, or the compiled graphs' time outside their kernels, is worth naming
// when it costs at least this share of eager's median more than under eager.
constexpr double kLossShare = 0.02;
constexpr size_t kLostLines = 3;
// A module that takes this many times eager's time compiled is called slower
// (perf.slower_module) when its setting is faster than eager overall.
constexpr double kSlowerModuleRatio = 1.25;
// Eager ops at or above this share of a compiled setting's ops: it barely compiled.
constexpr double kMostlyUncompiled = 0.5;
// On CPU, Inductor takes the weights as inputs unless frozen; frozen, it
// folds them into the graph and prepacks the convolutions' and matmuls'
// weights. torchvision's deeplabv3_mobilenet_v3_large (2-core VM, torch
// 2.15, two probes each): default 42.5-43.8 ms against eager 40.3-42.6 ms,
// with TORCHINDUCTOR_FREEZING=1 17.6-21.0 ms. "" on CUDA, where frozen, for
// a model without parameters (a plain function: nothing to fold), or where
// the report measured it without a gain.
std::string freezingLever(const AdviceInput& input, const Run& run) {
    if (run.probe.device.rfind("cpu", 0) != 0 || frozen(run.setting) || run.model.parameters <= 0)
        return {};
    constexpr const char* how =
        "torch._inductor.config.freezing = True, or TORCHINDUCTOR_FREEZING=1 in the environment";
    if (const ComparisonRow* twin = frozenTwin(input, run)) {
        if (!twin->speedup->significant || twin->speedup->value <= 1)
            return {};
        const Run& measured = input.report.runs[static_cast<size_t>(twin->run)];
        return "Freeze the weights for inference (" + std::string(how) +
               "): " + measured.setting.label() + " measured " +
               formatDuration(twin->stats->median) + " here, " + formatRatio(twin->speedup->value) +
               " eager's speed. ";
    }
    const std::string& mode = run.setting.mode;
    return "On CPU, freeze the weights for inference: Inductor then folds them into the graph "
           "and prepacks the convolutions' and matmuls' weights (" +
           std::string(how) + "); measure it beside: --settings " + mode + "," + mode +
           ":env=TORCHINDUCTOR_FREEZING=1. ";
}

std::string medianText(const LatencyStats& s) {
    return formatDuration(s.median) + " (95% CI " + formatDuration(s.medianCiLow) + "–" +
           formatDuration(s.medianCiHigh) + ")";
}

// Why per-call work is too small for compile to help, from what was measured.
std::vector<std::string> overheadEvidence(const Run& eager, const LatencyStats& eagerStats) {
    std::vector<std::string> why;
    if (eager.harnessOverheadNs > 0 &&
        eager.harnessOverheadNs >= kOverheadShare * eagerStats.median) {
        why.push_back(
            "the timing harness alone costs " +
            formatDuration(static_cast<double>(eager.harnessOverheadNs)) + " per call, " +
            std::to_string(static_cast<int>(100 * eager.harnessOverheadNs / eagerStats.median)) +
            "% of eager's median: the call is mostly overhead (Latency tab)");
    }
    if (eager.kernels.present && eager.kernels.busyFraction > 0 &&
        eager.kernels.busyFraction < kLaunchBoundBusy) {
        why.push_back("the GPU is busy only " +
                      std::to_string(std::lround(100 * eager.kernels.busyFraction)) +
                      "% of each eager call (" + formatDuration(eager.kernels.gpuNsPerIter) +
                      " of kernels, " + formatCount(eager.kernels.launchesPerIter) +
                      " launches): launch-bound (Kernels tab)");
    }
    return why;
}

// The modules that lost at least `floor` per call against eager and ran at
// least `ratio` times eager's time, each the deepest such (a block, not the
// container above it as well), largest loss first: a model built of
// containers runs every block from one line, so its lines cannot say which
// block compiling made slower. Eager's time by module is there only in reports
// from a probe that tracks modules in its window.
std::vector<const ModuleChange*> lostModules(const std::vector<ModuleChange>& changes, double floor,
                                             double ratio = 1.0) {
    std::vector<const ModuleChange*> lost;
    for (auto it = changes.rbegin(); it != changes.rend(); ++it) {
        if (it->nsPerCallB - it->nsPerCallA < floor)
            break;
        // A module eager never entered says nothing.
        if (it->nsPerCallA > 0 && it->nsPerCallB >= ratio * it->nsPerCallA)
            lost.push_back(&*it);
    }
    std::vector<const ModuleChange*> deepest;
    for (const auto* module : lost) {
        const bool deeperLost = std::any_of(lost.begin(), lost.end(), [&](const auto* other) {
            return other->path.rfind(module->path + ".", 0) == 0;
        });
        if (!deeperLost)
            deepest.push_back(module);
        if (deepest.size() == kLostLines)
            break;
    }
    return deepest;
}

// "layer4.0.conv2 1.39 ms → 4.06 ms"
std::string lossText(const ModuleChange& module) {
    return moduleName(module.path) + " " + formatDuration(module.nsPerCallA) + " → " +
           formatDuration(module.nsPerCallB);
}

// Where the compiled setting lost time against eager, from both profiled
// windows (docs/kernel-cost.md): the lines that cost more per call, and the
// compiled graphs' own time outside their kernels, which eager does not have.
std::vector<std::string> lossEvidence(const CostBreakdown& theirs, const CostBreakdown& mine,
                                      double eagerMedian) {
    std::vector<std::string> where;
    if (!mine.profiled || !theirs.profiled)
        return where;
    const double floor = kLossShare * eagerMedian;
    const CostComparison changes = compareCosts(theirs, mine);
    std::vector<std::string> lines;
    // Lines eager's calls spent nothing on: transformers' Mamba scans with
    // associative_scan only where is_torchdynamo_compiling(), a loop in eager.
    std::vector<std::string> compiledOnly;
    // Largest gain first: the losses from the end.
    for (auto it = changes.lines.rbegin();
         it != changes.lines.rend() && lines.size() + compiledOnly.size() < kLostLines; ++it) {
        if (it->nsPerCallB - it->nsPerCallA < floor)
            break;
        if (it->file.empty())
            continue;
        const std::string line =
            shortLocation(it->file, it->line) + (it->code.empty() ? "" : " `" + it->code + "`");
        if (it->nsPerCallA > 0)
            lines.push_back(line + " " + formatDuration(it->nsPerCallA) + " → " +
                            formatDuration(it->nsPerCallB));
        else
            compiledOnly.push_back(line + " " + formatDuration(it->nsPerCallB));
    }
    if (!lines.empty())
        where.push_back("the lines that cost more per call than under eager (profiled window, "
                        "Code tab): " +
                        joinWords(lines));
    if (!compiledOnly.empty())
        where.push_back("lines only the compiled calls ran, with no time under eager (code that "
                        "checks torch.compiler.is_compiling() takes another path when compiled; "
                        "profiled window, Code tab): " +
                        joinWords(compiledOnly));
    std::vector<std::string> lostText;
    for (const auto* module : lostModules(changes.modules, floor))
        lostText.push_back(lossText(*module));
    if (!lostText.empty())
        where.push_back("the modules that cost more per call than under eager (Code tab, "
                        "Compare): " +
                        joinWords(lostText));
    // A custom op's Python between its ops is timed there too (docs/kernel-cost.md),
    // and eager runs that Python as well.
    const bool customOps = std::any_of(mine.kernels.begin(), mine.kernels.end(),
                                       [](const auto& k) { return isCustomOp(k.kind, k.name); });
    if (mine.wrapperNsPerCall >= floor)
        where.push_back("the compiled graphs spend " + formatDuration(mine.wrapperNsPerCall) +
                        " per call outside their kernels (the generated code's own work, " +
                        std::to_string(std::lround(100 * mine.wrapperNsPerCall / eagerMedian)) +
                        "% of eager's median)" +
                        (customOps ? ", with the Python of the custom ops they call, which eager "
                                     "runs too (Code tab)"
                                   : ", time eager does not have (Code tab)"));
    return where;
}

// The compiled calls pay page faults that eager's do not (perf.page_faults):
// the evidence line for it, or "" when they do not.
std::string faultsBeyondEager(const Run& eager, const Run& run) {
    const auto mine = pageFaults(run);
    const auto base = pageFaults(eager);
    if (!mine || !base || !mine->costly() || base->costly())
        return "";
    return "its calls fault their memory in again each time, eager's do not: " +
           formatCount(mine->perCall) + " page faults per call against " +
           formatCount(base->perCall) + " (perf.page_faults, Latency tab)";
}

bool reportHasMode(const Report& report, const std::string& mode) {
    return std::any_of(report.runs.begin(), report.runs.end(), [&](const Run& r) {
        return r.setting.mode == mode && r.status == RunStatus::Ok;
    });
}

// The costliest source line among a module's nodes (or its submodules'), to
// place the finding where the user can open it; null when none has a line.
const LineCostRow* lineOfModule(const Run& run, const CostBreakdown& cost,
                                const std::string& path) {
    std::set<std::string> nodes;
    for (const auto& graph : run.graphs) {
        for (const auto& node : graph.nodes) {
            if (inModule(node.module, path))
                nodes.insert(node.name);
        }
    }
    for (const auto& line : cost.lines) { // costliest first
        if (!line.file.empty() && std::any_of(line.nodes.begin(), line.nodes.end(),
                                              [&](const auto& n) { return nodes.count(n) > 0; }))
            return &line;
    }
    return nullptr;
}

// A lost module as judged: where, and whether the kernels its loss is in are
// all ATen's own ops (extern, fallback, attention), which eager runs too.
struct JudgedModule {
    const ModuleChange* change = nullptr;
    bool atenOnly = false;
};

bool lostAgainstEager(double compiledNs, double eagerNs, double floor) {
    return eagerNs > 0 && compiledNs - eagerNs >= floor &&
           compiledNs >= kSlowerModuleRatio * eagerNs;
}

// Where a lost module is judged. A kernel fused across modules splits its
// time over their nodes, so a module's part of it against that module's eager
// time says little (Segformer: two layer norms in one kernel). A module whose
// own kernels (those of its nodes alone) lost the time is judged there;
// otherwise where the modules of its fused kernels meet. nullopt when that is
// the model, or lost nothing.
std::optional<JudgedModule> judgedModule(const CostBreakdown& mine,
                                         const std::vector<ModuleChange>& changes,
                                         const ModuleChange& lost, double floor) {
    const auto inside = [&](const std::string& m) { return inModule(m, lost.path); };
    std::vector<std::string> met{lost.path};
    double ownNs = 0;
    bool atenOnly = true;
    for (const auto& k : mine.kernels) {
        if (!k.nsPerCall || k.kind == "wrapper" ||
            std::none_of(k.modules.begin(), k.modules.end(), inside))
            continue;
        if (std::all_of(k.modules.begin(), k.modules.end(), inside)) {
            ownNs += *k.nsPerCall;
            atenOnly =
                atenOnly && (k.kind == "extern" || k.kind == "fallback" || k.kind == "attention");
        } else {
            met.insert(met.end(), k.modules.begin(), k.modules.end());
        }
    }
    if (met.size() == 1 || lostAgainstEager(ownNs, lost.nsPerCallA, floor))
        return JudgedModule{&lost, ownNs > 0 && atenOnly};
    const std::string meet = commonModule(met);
    const auto at = std::find_if(changes.begin(), changes.end(),
                                 [&](const ModuleChange& c) { return c.path == meet; });
    if (meet.empty() || at == changes.end() ||
        !lostAgainstEager(at->nsPerCallB, at->nsPerCallA, floor))
        return std::nullopt;
    return judgedModule(mine, changes, *at, floor);
}

// A setting faster than eager overall can still run one block slower than
// eager did (perf.slower_module): that block is worth leaving eager.
void slowerModule(const AdviceInput& input, const Run& eager, const Run& run,
                  const ComparisonRow& row, double eagerMedian, std::vector<Finding>& out) {
    const CostBreakdown& mine = input.costOf(run);
    if (!mine.profiled || !hasSubmoduleCost(mine) || eager.kernelProfile.eagerModules.empty() ||
        !row.stats || disturbedWindow(mine, row.stats->median))
        return;
    const auto changes = compareCosts(input.costOf(eager), mine).modules;
    const double floor = kLossShare * eagerMedian;
    std::vector<const ModuleChange*> lost;
    bool worstAtenOnly = false;
    for (const auto* module : lostModules(changes, floor, kSlowerModuleRatio)) {
        const auto judged = judgedModule(mine, changes, *module, floor);
        if (!judged || std::find(lost.begin(), lost.end(), judged->change) != lost.end())
            continue;
        if (lost.empty())
            worstAtenOnly = judged->atenOnly;
        lost.push_back(judged->change);
    }
    if (lost.empty())
        return;
    const ModuleChange& worst = *lost.front();
    const std::string label = run.setting.label();
    Finding f;
    f.rule = "perf.slower_module";
    f.severity = Severity::Info;
    f.title = label + ": " + moduleName(worst.path) + " runs slower compiled than eager (" +
              formatDuration(worst.nsPerCallA) + " → " + formatDuration(worst.nsPerCallB) +
              " per call)";
    f.tab = EvidenceTab::Code;
    f.run = row.run;
    f.setting = label;
    if (const LineCostRow* line = lineOfModule(run, mine, worst.path)) {
        f.file = line->file;
        f.line = line->line;
        f.code = line->code;
    }
    std::vector<std::string> named;
    for (const auto* module : lost)
        named.push_back(lossText(*module));
    f.evidence.push_back("eager → compiled time per call, in the profiled windows after the "
                         "measured calls (Code tab, Compare): " +
                         joinWords(named));
    for (const auto& module : mine.modules) {
        if (module.attributed && module.path == worst.path && !module.kernels.empty()) {
            std::vector<std::string> kernels;
            for (size_t i = 0; i < module.kernels.size() && i < 3; ++i)
                kernels.push_back(shortKernelName(module.kernels[i]));
            f.evidence.push_back("its kernels, costliest first: " + joinWords(kernels) +
                                 " (Code tab, Modules)");
        }
    }
    f.evidence.push_back(label + " is still " + formatRatio(row.speedup->value) +
                         " faster than eager over the whole call");
    const std::string access = pythonAccess(worst.path);
    // OPT's first out_proj addmm took 74 µs compiled, the second layer's the
    // same op 20 µs: where it runs, not what Inductor made of it.
    if (worstAtenOnly)
        f.remedy = "The time it lost is in ATen's own ops (extern kernels), which eager runs "
                   "too: compiling did not change that code. The same op takes longer where it "
                   "now runs: its inputs' layout, the caches the kernels before it leave, a "
                   "thread pool waking. Leaving " +
                   moduleName(worst.path) +
                   " eager would run the same op and add a graph break around it: compare the "
                   "kernel's time with the same op elsewhere in the model (Code tab) and run "
                   "again before acting; the windows are short.";
    else
        f.remedy = "Leave " + moduleName(worst.path) +
                   " eager and compile the rest: wrap its forward in " +
                   "torch.compiler.disable (" + access + ".forward = torch.compiler.disable(" +
                   access +
                   ".forward)), or compile the other "
                   "blocks one by one; measure that beside this setting (setting as-written keeps "
                   "your file's own torch.compile calls), since the break it adds has "
                   "a cost of its own. The windows are short: run again before acting on a "
                   "difference of a few percent.";
    f.confidence = 0.6;
    out.push_back(std::move(f));
}

// Overlapping intervals of which one is wide: the measurement cannot tell a
// gain from none. Told as such rather than "no faster": gpt2 (2 layers) on a
// CPU shared with a build measured 3.42x (0.46x-4.19x) and read "no faster
// than eager: leave this model eager".
Finding inconclusive(const std::string& label, const ComparisonRow& row, const LatencyStats& stats,
                     const LatencyStats& eager, const Speedup& sp) {
    Finding f;
    f.rule = "perf.inconclusive";
    f.severity = Severity::Warning;
    f.title = label + " against eager: measured too unevenly to tell (" + formatRatio(sp.value) +
              ", anywhere from " + formatRatio(sp.low) + " to " + formatRatio(sp.high) + ")";
    f.tab = EvidenceTab::Compare;
    f.run = row.run;
    f.setting = label;
    f.evidence.push_back("median " + medianText(stats) + " vs eager " + medianText(eager) +
                         " (Compare tab)");
    for (const auto& [name, s] :
         {std::pair{label, &stats}, std::pair{std::string("eager"), &eager}})
        if (unsettledMedian(*s))
            f.evidence.push_back(name + "'s interval spans " + formatPercent(medianSpread(*s)) +
                                 " of its median: its calls did not take one steady time "
                                 "(Latency tab)");
    f.remedy = "Measure again before deciding: on a quiet machine (close other work, pin the "
               "threads with --threads N or taskset -c), with more calls (--iters), or over "
               "several probes (--repeat 3). The measurement findings say what disturbed this "
               "run.";
    f.confidence = 0.7;
    return f;
}

} // namespace

void noGainRule(const AdviceInput& input, std::vector<Finding>& out) {
    const Run* eager = input.baselineRun();
    const ComparisonRow* base = eager ? input.baselineRow() : nullptr;
    if (!eager || !base || !base->stats)
        return;
    const auto why = overheadEvidence(*eager, *base->stats);
    const bool cudaGraphsMeasured = reportHasMode(input.report, "reduce-overhead");

    for (const auto& row : input.comparison.rows) {
        const Run& run = input.report.runs[static_cast<size_t>(row.run)];
        // Compiled nothing: compiledNothingRule says why; its speed is eager's.
        if (row.isBaseline || !judgedForSpeed(run) || !row.stats || !row.speedup ||
            row.compiledNothing)
            continue;
        const Speedup& sp = *row.speedup;
        const bool slower = sp.significant && sp.value < 1;
        if (sp.significant && !slower) {
            slowerModule(input, *eager, run, row, base->stats->median, out);
            continue;
        }
        const std::string label = run.setting.label();
        if (!sp.significant && (unsettledMedian(*row.stats) || unsettledMedian(*base->stats))) {
            out.push_back(inconclusive(label, row, *row.stats, *base->stats, sp));
            continue;
        }
        Finding f;
        f.rule = "perf.no_gain";
        f.severity = Severity::Warning;
        f.title = slower ? label + " is slower than eager (" + formatRatio(sp.value) + ")"
                         : label + " is no faster than eager: compile will not pay off here";
        f.tab = EvidenceTab::Compare;
        f.run = row.run;
        f.setting = label;
        f.evidence.push_back("median " + medianText(*row.stats) + " vs eager " +
                             medianText(*base->stats) + " (Compare tab)");
        f.evidence.push_back("speedup " + formatRatio(sp.value) + " (" + formatRatio(sp.low) + "–" +
                             formatRatio(sp.high) + ")" +
                             (slower ? ": significantly below 1" : ": the intervals overlap"));
        f.evidence.insert(f.evidence.end(), why.begin(), why.end());
        if (const CostBreakdown& mine = input.costOf(run);
            disturbedWindow(mine, row.stats->median)) {
            f.evidence.push_back(disturbedWindowText(label, mine, row.stats->median,
                                                     "where it lost time against eager"));
        } else {
            const auto lost = lossEvidence(input.costOf(*eager), mine, base->stats->median);
            f.evidence.insert(f.evidence.end(), lost.begin(), lost.end());
        }
        const std::string faults = faultsBeyondEager(*eager, run);
        if (!faults.empty())
            f.evidence.push_back(faults);
        if (const ComparisonRow* twin = frozenTwin(input, run); twin && !frozen(run.setting))
            f.evidence.push_back("measured here as " +
                                 input.report.runs[static_cast<size_t>(twin->run)].setting.label() +
                                 ": median " + medianText(*twin->stats) + ", " +
                                 formatRatio(twin->speedup->value) +
                                 " eager's speed (Compare tab)");
        // Breaks and no graph (a frame skipped for a break in a loop): nothing
        // compiled, so a batch or a mode cannot help; the breaks can.
        const bool nothingCompiled = run.graphs.empty() && !run.graphBreaks.empty();
        if (nothingCompiled)
            f.evidence.push_back(label +
                                 " compiled no graph: every call ran eagerly, plus "
                                 "torch.compile's own work around it (" +
                                 plural(static_cast<long long>(run.graphBreaks.size()),
                                        "graph break", "graph breaks") +
                                 ", Breaks tab)");
        // Graphs, but most of the call's ops outside them (a break under an
        // nn.Sequential, or in a loop): the same, by the profiled window.
        double uncompiledShare = 0;
        if (!nothingCompiled && !run.graphBreaks.empty()) {
            const CostBreakdown& cost = input.costOf(run);
            if (cost.profiled && cost.opsNsPerCall > 0)
                uncompiledShare = cost.eagerNsPerCall / cost.opsNsPerCall;
            if (uncompiledShare >= kMostlyUncompiled)
                f.evidence.push_back(
                    formatPercent(uncompiledShare) + " of " + label + "'s ops ran uncompiled, " +
                    formatDuration(cost.eagerNsPerCall) + " of the " +
                    formatDuration(cost.opsNsPerCall) + " per call its ops took, with its " +
                    plural(static_cast<long long>(run.graphBreaks.size()), "graph break",
                           "graph breaks") +
                    " (profiled window, Code tab)");
        }
        const bool mostlyUncompiled = uncompiledShare >= kMostlyUncompiled;
        // Compiles among the measured calls, or frames torch gave up on at the
        // recompile limit: what was timed is compile time and eager code.
        const int measuredRecompiles = measuredRecompileCount(run);
        const auto limit = std::find_if(run.recompiles.begin(), run.recompiles.end(),
                                        [](const Recompile& rc) { return rc.limitHit; });
        const bool recompiling = measuredRecompiles > 0 || limit != run.recompiles.end();
        if (recompiling)
            f.evidence.push_back(
                (measuredRecompiles > 0
                     ? plural(measuredRecompiles, "measured call", "measured calls") + " of " +
                           label + " recompiled"
                     : std::string()) +
                (measuredRecompiles > 0 && limit != run.recompiles.end() ? ", and " : "") +
                (limit != run.recompiles.end()
                     ? functionLabel(limit->function.empty() ? "the compiled function"
                                                             : limit->function) +
                           " hit the recompile limit: torch runs it eagerly from then on"
                     : std::string()) +
                " (recompile findings)");
        std::string remedy;
        if (recompiling && !nothingCompiled)
            remedy = "The measured calls compiled again and again, or ran eagerly past the "
                     "recompile limit: stop the recompiles first (the recompile findings), then "
                     "measure again. A larger batch does not help code torch keeps recompiling "
                     "or no longer compiles.";
        else if (nothingCompiled)
            remedy = "Nothing of the model was compiled: remove the graph breaks first (the "
                     "graph-break findings), then measure again. Until then torch.compile only "
                     "adds its own work to each call.";
        else if (mostlyUncompiled)
            remedy = "Most of each call runs outside the compiled graphs: remove the graph breaks "
                     "first (the graph-break findings, and the modules they leave uncompiled), "
                     "then measure again. A larger batch or another mode does not speed up code "
                     "that is not compiled.";
        else if (!faults.empty())
            remedy += "First keep malloc's memory between calls (the page-fault finding) and "
                      "measure again: that cost is the allocator's, not the compiled code's. ";
        if (!nothingCompiled && !mostlyUncompiled && !recompiling) {
            if (onCuda(run) && !usesCudaGraphs(run.setting.mode) && !cudaGraphsMeasured)
                remedy +=
                    "Try mode reduce-overhead: CUDA graphs remove the per-kernel launch cost. ";
            const std::string freeze = freezingLever(input, run);
            // Measured faster: the thing to do, and "stay eager" no longer holds.
            if (freeze.rfind("Freeze", 0) == 0)
                remedy = freeze + remedy;
            else
                remedy += freeze + "A larger batch gives the compiled kernels more work per "
                                   "call; otherwise leave this model eager and save the compile "
                                   "time.";
        }
        f.remedy = remedy.substr(0, remedy.find_last_not_of(' ') + 1);
        const size_t n = std::min(row.stats->count, base->stats->count);
        f.confidence = n >= kSolidSamples ? (slower ? 0.9 : 0.8) : 0.5;
        out.push_back(std::move(f));
    }

    // A launch-bound model with CUDA graphs never measured: the mode made for it.
    if (onCuda(*eager) && !cudaGraphsMeasured && !why.empty() && eager->kernels.present) {
        Finding f;
        f.rule = "perf.overhead_bound";
        f.severity = Severity::Info;
        f.title = "Per-call time is mostly launch overhead: measure reduce-overhead";
        f.tab = EvidenceTab::Kernels;
        f.run = input.comparison.baseline;
        f.setting = eager->setting.label();
        f.evidence = why;
        f.remedy = "Add the reduce-overhead setting: it captures the model in a CUDA graph and "
                   "replays it with one launch per call.";
        f.confidence = 0.7;
        out.push_back(std::move(f));
    }
}

} // namespace cs::core::advice
