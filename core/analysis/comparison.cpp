#include "core/analysis/comparison.h"

#include "core/analysis/function_name.h"
#include "core/analysis/measurement_check.h"
#include "core/analysis/probe_rounds.h"
#include "core/analysis/run_summary.h"
#include "core/analysis/torch_environment.h"
#include "core/analysis/units.h"

#include <algorithm>
#include <cmath>
#include <functional>

namespace cs::core {

namespace {

bool startsWith(const std::string& text, const std::string& prefix) {
    return text.compare(0, prefix.size(), prefix) == 0;
}

bool usesCudaGraphs(const std::string& mode) {
    return mode == "reduce-overhead" || mode == "max-autotune";
}

} // namespace

double WarmupAnalysis::phasesSeconds() const {
    double total = 0;
    for (const auto& p : phases)
        total += p.seconds;
    return total;
}

double WarmupAnalysis::laterSeconds() const {
    double total = 0;
    for (const auto& p : laterPhases)
        total += p.seconds;
    return total;
}

std::optional<SteadyBand> steadyBand(const std::vector<int64_t>& measuredNs) {
    if (measuredNs.empty())
        return std::nullopt;
    SteadyBand band;
    band.median = medianValue({measuredNs.begin(), measuredNs.end()});
    std::vector<double> deviations;
    deviations.reserve(measuredNs.size());
    for (auto ns : measuredNs)
        deviations.push_back(std::fabs(static_cast<double>(ns) - band.median));
    band.mad = medianValue(std::move(deviations));
    band.halfWidth = std::max(kBandMads * band.mad, kBandMinFraction * band.median);
    band.low = std::max(0.0, band.median - band.halfWidth); // no call takes less than nothing
    band.high = band.median + band.halfWidth;
    return band;
}

bool isBuildPhase(const std::string& name) {
    return name == "export" || name == "package";
}

bool isHeaderBuildPhase(const std::string& name) {
    return name == "precompiled_header";
}

const CompilePhase* largestCompilePhase(const std::vector<CompilePhase>& phases) {
    const CompilePhase* largest = nullptr;
    for (const auto& p : phases) {
        if (p.name != "other" && !isHeaderBuildPhase(p.name) && p.seconds > 0 &&
            (!largest || p.seconds > largest->seconds))
            largest = &p;
    }
    return largest;
}

WarmupAnalysis analyzeWarmup(const Run& run) {
    WarmupAnalysis w;
    w.band = steadyBand(run.measuredLatencies());

    // Warmup ends at the first call at or below the band's top: a call faster
    // than steady state is not still warming up.
    const auto& calls = run.iterations;
    for (size_t i = 0; i < calls.size() && w.band; ++i) {
        if (static_cast<double>(calls[i].latencyNs) <= w.band->high) {
            w.steadyFrom = static_cast<int>(i);
            break;
        }
    }
    const size_t before = w.steadyFrom ? static_cast<size_t>(*w.steadyFrom) : calls.size();
    double extra = 0;
    for (size_t i = 0; i < calls.size(); ++i) {
        // A warmup call that recompiled after steady state is compile cost too
        // (a new shape's dynamic recompile, a guard that flips at call 20).
        const bool warming =
            i < before || (calls[i].warmup && recompileInCall(run, calls[i].index) != nullptr);
        if (!warming)
            continue;
        if (i >= before)
            w.recompiledAfterSteady.push_back(static_cast<int>(i));
        w.warmupWallNs += calls[i].wallNs;
        if (w.band)
            extra += static_cast<double>(calls[i].latencyNs) - w.band->median;
    }
    if (w.band)
        w.extraNs = extra;

    size_t warmupCalls = 0;
    for (const auto& c : calls)
        warmupCalls += c.warmup ? 1 : 0;
    size_t shown = std::max({static_cast<size_t>(kFirstCallsShown), warmupCalls + 5, before + 5});
    shown = std::min(shown, calls.size());
    for (size_t i = 0; i < shown; ++i) {
        const auto& c = calls[i];
        w.curve.push_back({static_cast<int>(i), c.latencyNs, c.wallNs, c.warmup,
                           w.band && w.band->contains(static_cast<double>(c.latencyNs)),
                           recompileInCall(run, c.index) != nullptr});
    }

    w.firstCallNs = run.firstCallNs;
    if (w.firstCallNs < 0) {
        for (const auto& c : calls) {
            if (c.firstCall) {
                w.firstCallNs = c.wallNs;
                break;
            }
        }
    }
    // Named phases as torch counted them; "other" is what they leave of the
    // first call's wall time, so the parts always add up to it.
    double named = 0;
    for (const auto& p : run.compilePhases) {
        if (p.name == "other")
            continue;
        if (isHeaderBuildPhase(p.name))
            w.headerBuildNs += static_cast<int64_t>(std::llround(p.seconds * 1e9));
        if (isBuildPhase(p.name)) {
            w.buildPhases.push_back(p);
            continue;
        }
        w.phases.push_back(p);
        named += p.seconds;
    }
    if (w.firstCallNs >= 0) {
        const double wall = static_cast<double>(w.firstCallNs) / 1e9;
        if (named > wall && named > 0) {
            // Counters that overlap the call's edges: keep their proportions.
            for (auto& p : w.phases)
                p.seconds *= wall / named;
            named = wall;
        }
        w.phases.push_back({"other", std::max(0.0, wall - named)});
    }
    w.phasesSource = run.compilePhasesSource;
    for (const auto& p : run.warmupCompilePhases) {
        if (p.name != "other" && p.seconds > 0)
            w.laterPhases.push_back(p);
    }
    return w;
}

std::optional<int64_t> peakMemory(const Run& run, std::string* kind) {
    auto seriesPeak = [](const MemorySeries& s) {
        std::optional<int64_t> peak;
        for (const auto& [t, bytes] : s.samples)
            peak = std::max(peak.value_or(bytes), bytes);
        for (const auto& [phase, bytes] : s.phasePeaks)
            peak = std::max(peak.value_or(bytes), bytes);
        return peak;
    };
    auto answer = [kind](std::optional<int64_t> peak, const char* what) {
        if (peak && kind)
            *kind = what;
        return peak;
    };
    // The caching allocator's reserved peak is what the device really held for torch.
    std::optional<int64_t> reserved;
    for (const auto& s : run.memoryStats)
        reserved = std::max(reserved.value_or(s.peakReserved), s.peakReserved);
    if (reserved && *reserved > 0)
        return answer(reserved, "device reserved");
    if (const auto* device = run.memorySeries("device"))
        if (auto peak = seriesPeak(*device))
            return answer(peak, "device");
    if (const auto* host = run.memorySeries("host_rss"))
        if (auto peak = seriesPeak(*host))
            return answer(peak, "host RSS");
    return std::nullopt;
}

std::vector<std::string> whatTorchDid(const Run& run) {
    std::vector<std::string> notes;
    const auto& mode = run.setting.mode;
    // Where the variable came from is the advice's to say (env.compile_disabled).
    if (compiledNothing(run)) {
        const auto cause = compileDisabledBy(run);
        notes.push_back(cause ? "compiled nothing: " + cause->name + "=" + cause->value +
                                    " turned torch.compile off, so it ran eager"
                        : run.dynamoOff.empty()
                            ? "compiled nothing: no graph, no graph break, no compile"
                            : "compiled nothing: " + run.dynamoOff + " held Dynamo off");
    }
    if (usesCudaGraphs(mode) && startsWith(run.probe.device, "cpu")) {
        notes.push_back("mode " + mode +
                        " asks for CUDA graphs, which exist only on CUDA: on CPU torch compiled "
                        "it without them");
    }
    for (const auto& log : run.logs) {
        // An older probe's line has no code.
        if (log.code == "cudagraphs_skipped" ||
            (log.code.empty() && startsWith(log.message, "torch skipped CUDA graphs")))
            notes.push_back(log.message);
    }
    for (const auto& r : run.recompiles) {
        if (r.limitHit) {
            const std::string limit = r.limit > 0 ? " (" + std::to_string(r.limit) + ")" : "";
            const std::string function = recompiledFunction(run, r);
            notes.push_back("hit the recompile limit" + limit + " in " +
                            (function.empty() ? "a compiled function" : functionLabel(function)) +
                            ": torch runs it eagerly from then on");
        }
    }
    if (mode != "eager" && mode != "default" && run.setting.backend != "inductor") {
        notes.push_back("backend " + run.setting.backend + " ignores mode " + mode +
                        " (the mode configures Inductor)");
    }
    return notes;
}

const ComparisonRow* Comparison::row(int run) const {
    for (const auto& r : rows) {
        if (r.run == run)
            return &r;
    }
    return nullptr;
}

bool Comparison::swept() const {
    return std::any_of(rows.begin(), rows.end(),
                       [](const ComparisonRow& r) { return r.sweepWallNs.has_value(); });
}

namespace {

// Marks the best value of one column among the rows that qualify. Ties for
// best are all marked; with fewer than two candidates, or all of them equal,
// there is nothing to tell apart and nothing is marked.
void markBest(std::vector<ComparisonRow>& rows, CompareColumn column,
              const std::function<std::optional<double>(const ComparisonRow&)>& value,
              bool higherIsBetter) {
    std::optional<double> best, worst;
    int candidates = 0;
    for (const auto& r : rows) {
        if (auto v = value(r)) {
            ++candidates;
            if (!best || (higherIsBetter ? *v > *best : *v < *best))
                best = v;
            if (!worst || (higherIsBetter ? *v < *worst : *v > *worst))
                worst = v;
        }
    }
    auto same = [](double a, double b) {
        return std::fabs(a - b) <= 1e-9 * std::max(1.0, std::fabs(b));
    };
    if (candidates < 2 || !best || same(*worst, *best))
        return;
    for (auto& r : rows) {
        auto v = value(r);
        if (v && same(*v, *best))
            r.best[static_cast<size_t>(column)] = true;
    }
}

} // namespace

OutputsCell outputsCell(const OutputsCheck& check) {
    OutputsCell cell;
    const std::string allowed =
        formatPercent(check.tolerance) + " allowed in " +
        (check.precision.empty() ? std::string("its precision") : check.precision);
    if (check.status == "match") {
        cell.text = "agree";
        const double worst = check.worst.empty() ? 0.0 : check.worst.front().relative;
        cell.detail = "the same inputs as eager: largest difference " + formatPercent(worst) +
                      " of the output's largest value (" + allowed + ")";
        return cell;
    }
    if (check.status != "differ" || check.worst.empty()) {
        cell.text = "not compared";
        cell.detail = check.message;
        return cell;
    }
    const OutputLeaf& worst = check.worst.front();
    cell.differs = true;
    if (worst.kind == "nonfinite") {
        cell.text = "NaN/inf";
        cell.detail = worst.path + ": " + formatCount(static_cast<double>(worst.nonfinite)) +
                      " values NaN or infinite where eager's are finite, or the other way";
        return cell;
    }
    if (worst.kind != "values") {
        cell.text = worst.kind == "structure" ? "structure" : worst.kind;
        cell.detail = worst.path + ": " + worst.detail;
        if (check.sizeFollowsFloat64()) {
            cell.differs = false;
            cell.text += ", as float64";
            cell.detail += "; float64's output has the compiled shape: eager's rounding moved a "
                           "value across the threshold that sets the size";
        }
        return cell;
    }
    cell.text = "differ " + formatPercent(worst.relative);
    cell.detail = worst.path + ": largest difference " + formatPercent(worst.relative) +
                  " of its largest value (" + allowed + ")";
    if (check.maskedRowsOnly() && !check.roundingOnly() && worst.zeroRows) {
        const ZeroRows& z = *worst.zeroRows;
        cell.differs = false;
        cell.text =
            "agree outside " + formatCount(static_cast<double>(z.differingRows)) + " zero rows";
        cell.detail += "; every difference past it lies in rows " + z.side +
                       " left all zeros (padded positions); in the other rows the largest "
                       "difference is " +
                       formatPercent(z.relativeElsewhere);
        return cell;
    }
    if (check.fastPathOnly()) {
        // Still a difference: the deployed compiled model gives other numbers
        // than eager does; the advice says why.
        cell.text += ", fast path";
        cell.detail += "; eager with PyTorch's fast path off is " +
                       formatPercent(check.fastPath->compiledRelative) +
                       " from the compiled outputs: the fast path is the difference";
        return cell;
    }
    if (check.roundingOnly()) {
        cell.differs = false;
        cell.text += ", nearer exact";
        cell.detail += "; in float64 the compiled outputs are " +
                       formatPercent(*check.float64CompiledError) +
                       " from the exact result, eager's " +
                       formatPercent(*check.float64EagerError) + ": eager's own rounding";
    }
    return cell;
}

Comparison compareRuns(const Report& report) {
    Comparison c;
    std::vector<WarmupAnalysis> warmups;
    for (size_t i = 0; i < report.runs.size(); ++i) {
        const Run& run = report.runs[i];
        ComparisonRow row;
        row.run = static_cast<int>(i);
        row.label = run.setting.label();
        row.status = run.status;
        row.stats = computeStats(run.measuredLatencies());
        row.graphs = static_cast<int>(run.graphs.size());
        row.breaks = static_cast<int>(run.graphBreaks.size());
        row.recompiles = recompileCount(run);
        row.dynamo = run.setting.mode != "aoti" && run.setting.mode != "eager";
        row.error = run.error;
        row.peakMemoryBytes = peakMemory(run, &row.memoryKind);
        if (const PhaseSpan* sweep = run.phase("sweep"); sweep && sweep->endNs > sweep->beginNs) {
            row.sweepWallNs = sweep->endNs - sweep->beginNs;
            row.sweepRecompiles = static_cast<int>(
                std::count_if(run.recompiles.begin(), run.recompiles.end(),
                              [](const Recompile& r) { return r.phase == "sweep"; }));
        }
        row.notes = whatTorchDid(run);
        if (run.outputsCheck.present()) {
            OutputsCell cell = outputsCell(run.outputsCheck);
            row.outputs = std::move(cell.text);
            row.outputsDetail = std::move(cell.detail);
            row.outputsDiffer = cell.differs;
        }
        row.compiledNothing = compiledNothing(run);
        row.compiles = run.setting.mode != "eager";
        if (const auto load = machineLoad(run, report.environment); load && load->contended()) {
            row.measuredUnderLoad = true;
            row.notes.push_back("measured while other work shared its CPUs (" +
                                machineLoadShortText(*load) +
                                "): its median is high by that "
                                "work's share");
        }
        if (const auto drift = hostDriftWithin(run); drift && hostDrifted(*drift))
            row.notes.push_back(
                "the machine changed speed while it measured: a fixed reference workload took " +
                hostReferenceSpanText(run));
        for (const auto& repeat : run.repeats) {
            if (repeat.status != RunStatus::Ok)
                row.notes.push_back("its probe " + std::to_string(repeat.round + 1) +
                                    " (a repeat) " + toString(repeat.status) +
                                    (repeat.error.empty() ? "" : ": " + repeat.error) +
                                    "; the other probes stand");
        }
        if (const std::string spread = probeSpreadText(run); !spread.empty())
            row.notes.push_back("measured by " + spread + ", one per round");
        warmups.push_back(analyzeWarmup(run));
        const auto& w = warmups.back();
        if (w.band) {
            // The header is paid once per machine by whichever setting compiles
            // first: counted against that one, it skews warmup and break-even.
            const int64_t header = std::min(w.headerBuildNs, w.warmupWallNs);
            row.warmupWallNs = w.warmupWallNs - header;
            row.warmupNs = std::max(0.0, *w.extraNs - static_cast<double>(header));
            if (header > 0)
                row.notes.push_back("its first call also built torch's precompiled C++ header (" +
                                    formatDuration(static_cast<double>(header)) +
                                    ", once per machine, by whichever setting compiles first): "
                                    "left out of its warmup cost and break-even");
        }
        if (c.baseline < 0 && run.setting.mode == "eager" && run.status == RunStatus::Ok &&
            row.stats)
            c.baseline = row.run;
        c.rows.push_back(std::move(row));
    }

    if (c.baseline >= 0) {
        auto& base = c.rows[static_cast<size_t>(c.baseline)];
        base.isBaseline = true;
        for (auto& row : c.rows) {
            if (row.isBaseline || !row.stats)
                continue;
            const Run& baseRun = report.runs[static_cast<size_t>(c.baseline)];
            const Run& run = report.runs[static_cast<size_t>(row.run)];
            row.speedup = computeSpeedup(*base.stats, *row.stats);
            if (row.speedup)
                row.speedup = acrossRounds(baseRun, run, *row.speedup);
            if (const auto ratio = hostSpeedRatio(baseRun, run); ratio && hostDrifted(*ratio))
                row.notes.push_back(
                    "measured while the machine ran " + hostRatioText(*ratio) +
                    " than during eager's measurement (a fixed reference workload: " +
                    formatDuration(run.hostReference.meanNs()) + " against " +
                    formatDuration(baseRun.hostReference.meanNs()) +
                    "): the speedup is not like for like");
            const double saved = base.stats->median - row.stats->median;
            row.saves = saved > 0;
            if (row.warmupNs && base.warmupNs && row.compiles)
                row.breakEven = breakEvenIterations(*row.warmupNs - *base.warmupNs, saved);
        }
    }

    // Best per column, among settings that finished; the baseline has no
    // speedup or break-even of its own and compiles nothing.
    auto finished = [](const ComparisonRow& r) { return r.status == RunStatus::Ok; };
    auto againstEager = [&](const ComparisonRow& r) {
        return finished(r) && !r.isBaseline &&
               report.runs[static_cast<size_t>(r.run)].setting.mode != "eager";
    };
    // Graphs, breaks and recompiles are Dynamo's; aoti races in speed and break-even.
    auto compiled = [&](const ComparisonRow& r) { return againstEager(r) && r.dynamo; };
    using Value = std::optional<double>;
    markBest(
        c.rows, CompareColumn::Graphs,
        [&](const ComparisonRow& r) { return compiled(r) ? Value(r.graphs) : std::nullopt; },
        false);
    markBest(
        c.rows, CompareColumn::Breaks,
        [&](const ComparisonRow& r) { return compiled(r) ? Value(r.breaks) : std::nullopt; },
        false);
    markBest(
        c.rows, CompareColumn::Recompiles,
        [&](const ComparisonRow& r) { return compiled(r) ? Value(r.recompiles) : std::nullopt; },
        false);
    markBest(
        c.rows, CompareColumn::Warmup,
        [&](const ComparisonRow& r) {
            return finished(r) && r.warmupWallNs ? Value(static_cast<double>(*r.warmupWallNs))
                                                 : std::nullopt;
        },
        false);
    markBest(
        c.rows, CompareColumn::Median,
        [&](const ComparisonRow& r) {
            return finished(r) && r.stats ? Value(r.stats->median) : std::nullopt;
        },
        false);
    markBest(
        c.rows, CompareColumn::P99,
        [&](const ComparisonRow& r) {
            return finished(r) && r.stats ? Value(r.stats->p99) : std::nullopt;
        },
        false);
    markBest(
        c.rows, CompareColumn::Speedup,
        [&](const ComparisonRow& r) {
            // A slowdown is never "best", even the smallest one.
            return againstEager(r) && r.speedup && r.speedup->value > 1 ? Value(r.speedup->value)
                                                                        : std::nullopt;
        },
        true);
    markBest(
        c.rows, CompareColumn::BreakEven,
        [&](const ComparisonRow& r) {
            return againstEager(r) && r.breakEven && !r.noSignificantGain() ? Value(*r.breakEven)
                                                                            : std::nullopt;
        },
        false);
    markBest(
        c.rows, CompareColumn::Sweep,
        [&](const ComparisonRow& r) {
            return finished(r) && r.sweepWallNs ? Value(static_cast<double>(*r.sweepWallNs))
                                                : std::nullopt;
        },
        false);
    // Host RSS and device memory are not comparable: mark only within one kind.
    std::string memoryKind;
    bool oneKind = true;
    for (const auto& r : c.rows) {
        if (!finished(r) || !r.peakMemoryBytes)
            continue;
        if (memoryKind.empty())
            memoryKind = r.memoryKind;
        oneKind &= r.memoryKind == memoryKind;
    }
    if (oneKind) {
        markBest(
            c.rows, CompareColumn::Memory,
            [&](const ComparisonRow& r) {
                return finished(r) && r.peakMemoryBytes
                           ? Value(static_cast<double>(*r.peakMemoryBytes))
                           : std::nullopt;
            },
            false);
    }
    return c;
}

} // namespace cs::core
