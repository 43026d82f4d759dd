// Rule 4: warmup outweighs savings. A setting that is faster per call but pays
// back its extra warmup only after more calls than the program makes.
#include "core/advice/advice_rules.h"
#include "core/advice/advice_text.h"
#include "core/advice/perf_scope.h"
#include "core/analysis/comparison_text.h"
#include "core/analysis/units.h"

namespace cs::core::advice {

namespace {

// The aoti row's figures, for the evidence: compiling ahead of time, measured
// in the same report, is the way round a warmup a process cannot pay back.
std::string aheadOfTimeEvidence(const AdviceInput& input, const ComparisonRow& aoti) {
    // One analysis gives both the start and the build phases.
    const WarmupAnalysis warmup = analyzeWarmup(input.report.runs[static_cast<size_t>(aoti.run)]);
    const int64_t start = warmup.firstCallNs;
    double buildSeconds = 0;
    for (const auto& phase : warmup.buildPhases)
        buildSeconds += phase.seconds;
    const std::string payback = *aoti.breakEven <= 0
                                    ? "costs no more warmup than eager"
                                    : "pays back after " + callsText(*aoti.breakEven);
    return "aoti, compiled ahead of time, " + payback + ": median " +
           formatDuration(aoti.stats->median) + " (" + formatRatio(aoti.speedup->value) + ")" +
           (start >= 0 ? ", and a start (package load and first call) takes " +
                             formatDuration(static_cast<double>(start))
                       : std::string()) +
           " (Compare tab)" +
           (buildSeconds > 0 ? "; export and package took " + formatDuration(buildSeconds * 1e9) +
                                   ", once, where it is built (Warmup tab)"
                             : std::string());
}

// The same setting started another way (warmstart's fresh compile, warm
// Inductor cache and portable cache artifacts).
bool otherStartOf(const Setting& setting, const Setting& other) {
    Setting same = other;
    same.start = setting.start;
    return other.start != setting.start && same == setting;
}

// Whether a row's warmup outweighs its saving over the program's calls. Only
// a real, significant saving has a break-even; no saving is rule 3's.
bool paysBackLate(const AdviceInput& input, const ComparisonRow& row, int calls) {
    const Run& run = input.report.runs[static_cast<size_t>(row.run)];
    return !row.isBaseline && judgedForSpeed(run) && row.speedup && row.speedup->significant &&
           !row.noSignificantGain() && row.saves && row.breakEven && row.warmupNs && row.stats &&
           *row.breakEven > calls;
}

// "default warm (a warm Inductor cache): pays back after 1,142 calls, warmup
// 2.06 s more than eager's": another start of the setting, measured here.
std::string otherStartText(const Run& run, const ComparisonRow& row, double eagerWarmupNs,
                           int calls) {
    const std::string how = run.setting.warmCache() ? "a warm Inductor cache"
                            : run.setting.cacheArtifacts()
                                ? "torch's portable cache artifacts loaded first"
                                : "a fresh compile";
    std::string text = run.setting.label() + " (" + how + "): ";
    if (!row.stats || !row.speedup || !row.speedup->significant || row.noSignificantGain() ||
        !row.saves)
        text += "no significant saving per call";
    else if (!row.breakEven || *row.breakEven <= 0)
        text += "costs no more warmup than eager";
    else
        text +=
            "pays back after " + callsText(*row.breakEven) +
            (*row.breakEven <= calls ? ", within the " + formatCount(calls) + " the program makes"
                                     : std::string());
    if (row.warmupNs)
        text += ", warmup " + formatDuration(*row.warmupNs - eagerWarmupNs) + " more than eager's";
    return text;
}

} // namespace

void warmupRule(const AdviceInput& input, std::vector<Finding>& out) {
    const Run* eager = input.baselineRun();
    const ComparisonRow* base = eager ? input.baselineRow() : nullptr;
    if (!eager || !base || !base->stats || !base->warmupNs)
        return;
    const int calls = input.options.expectedCalls;
    for (const auto& row : input.comparison.rows) {
        const Run& run = input.report.runs[static_cast<size_t>(row.run)];
        if (!paysBackLate(input, row, calls))
            continue;
        // The same setting's other starts in this report: a start other than
        // fresh is told in the fresh compile's finding when that has one.
        std::vector<const ComparisonRow*> otherStarts;
        bool toldByFresh = false;
        for (const auto& other : input.comparison.rows) {
            const Run& otherRun = input.report.runs[static_cast<size_t>(other.run)];
            if (other.isBaseline || !otherStartOf(run.setting, otherRun.setting))
                continue;
            otherStarts.push_back(&other);
            toldByFresh = toldByFresh || (otherRun.setting.start == kStartFresh &&
                                          paysBackLate(input, other, calls));
        }
        if (toldByFresh)
            continue;
        const std::string label = run.setting.label();
        const double extra = *row.warmupNs - *base->warmupNs;
        const double saved = base->stats->median - row.stats->median;
        Finding f;
        f.rule = "perf.warmup";
        f.severity = Severity::Warning;
        f.title = label + " pays back its warmup only after " + formatCount(*row.breakEven) +
                  " calls; the program makes " + formatCount(calls);
        f.tab = EvidenceTab::Warmup;
        f.run = row.run;
        f.setting = label;
        f.evidence.push_back("warmup costs " + formatDuration(extra) +
                             " more than eager's (Warmup tab)");
        f.evidence.push_back("saves " + formatDuration(saved) + " per call: median " +
                             formatDuration(row.stats->median) + " vs eager " +
                             formatDuration(base->stats->median) + " (" +
                             formatRatio(row.speedup->value) + ", Compare tab)");
        f.evidence.push_back("break-even after " + formatCount(*row.breakEven) +
                             " calls, above the " + formatCount(calls) +
                             " calls set in the advice options");
        const ComparisonRow* warm = nullptr;
        for (const ComparisonRow* other : otherStarts) {
            const Run& otherRun = input.report.runs[static_cast<size_t>(other->run)];
            f.evidence.push_back(otherStartText(otherRun, *other, *base->warmupNs, calls) +
                                 " (Warmup tab)");
            if (otherRun.setting.warmCache())
                warm = other;
        }
        std::string remedy = "Compile only where a process makes more than " +
                             formatCount(*row.breakEven) + " calls; otherwise keep it eager. ";
        if (run.setting.warmCache())
            remedy += "This start had Inductor's caches warm already: what it still pays is "
                      "Dynamo's tracing and loading the kernels";
        else if (warm && warm->breakEven && *warm->breakEven <= 0)
            remedy += "Keep Inductor's caches between starts: with them warm it cost no more "
                      "warmup than eager here";
        else if (warm && warm->breakEven && *warm->breakEven <= calls)
            remedy += "Keep Inductor's caches between starts: with them warm it paid back after " +
                      callsText(*warm->breakEven) + " here";
        else if (warm && warm->breakEven && *warm->breakEven > 0)
            remedy += "Even with Inductor's caches warm it paid back only after " +
                      callsText(*warm->breakEven) + " here";
        else if (warm)
            remedy += "Keeping Inductor's caches between starts is measured here as " +
                      input.report.runs[static_cast<size_t>(warm->run)].setting.label();
        else
            remedy += "To cut the warmup, keep Inductor's caches between starts (measure it "
                      "with --warm-cache)";
        if (run.setting.mode == "max-autotune" || run.setting.mode == "max-autotune-no-cudagraphs")
            remedy += ", or use mode default, which skips autotuning";
        // On CPU the frozen twin's faster calls pay its warmup back sooner.
        if (const ComparisonRow* twin = frozenTwin(input, run);
            twin && !frozen(run.setting) && twin->breakEven && *twin->breakEven > 0 &&
            *twin->breakEven < *row.breakEven) {
            const std::string& twinLabel =
                input.report.runs[static_cast<size_t>(twin->run)].setting.label();
            f.evidence.push_back("measured here as " + twinLabel + ": median " +
                                 formatDuration(twin->stats->median) + " (" +
                                 formatRatio(twin->speedup->value) + "), pays back after " +
                                 callsText(*twin->breakEven) + " (Compare tab)");
            remedy += ". Freeze the weights for inference (torch._inductor.config.freezing = "
                      "True, or " +
                      std::string(kFreezing) + "=1): " + twinLabel + " paid back after " +
                      callsText(*twin->breakEven) + " here";
        }
        if (run.setting.mode != "aoti") {
            if (const ComparisonRow* aoti = input.deployableAoti(calls)) {
                f.evidence.push_back(aheadOfTimeEvidence(input, *aoti));
                remedy += ". Or deploy the model compiled ahead of time, as the aoti setting "
                          "did here: export and package it once where you build "
                          "(docs/aoti.md), so that a start pays only the package load";
                if (row.recompiles > 0 || row.sweepRecompiles > 0)
                    remedy += "; export it with dynamic shapes (--dynamic true) where the "
                              "input shapes change";
            } else if (!input.hasAoti()) {
                remedy += ". To measure compiling ahead of time instead, add aoti to the "
                          "settings (--settings ...,aoti; GUI: tick aoti)";
            }
        }
        if (const UnrolledLoopText loop = unrolledLoopText(run); !loop.evidence.empty()) {
            f.evidence.push_back(loop.evidence);
            remedy += ". Where the warmup comes from: " + loop.remedy;
            f.file = loop.file;
            f.line = loop.line;
        }
        f.remedy = remedy + ".";
        f.gain = "eager saves " + formatDuration(extra - saved * calls) + " of wall time over " +
                 formatCount(calls) + " calls";
        f.confidence = row.stats->count >= 20 && base->stats->count >= 20 ? 0.8 : 0.5;
        out.push_back(std::move(f));
    }
}

} // namespace cs::core::advice
