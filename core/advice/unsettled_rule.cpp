// Rule 7: warmup too short. The first measured calls sit above the
// steady-state band: they were still warming up, and they pull the mean and
// the tail. The user may drop them from the statistics, as a visible choice.
// When the slow calls recompiled (a guard on a value that changes every call),
// more warmup is the wrong advice: it hides a compile the program pays too.
// A recompile later among the measured calls (a guard that fails every so
// often) is not an unsettled start but an outlier with a cause:
// measure.recompiled, said apart from a short warmup.
#include <cstdio>

#include "core/advice/advice_rules.h"
#include "core/advice/advice_text.h"
#include "core/analysis/function_name.h"
#include "core/analysis/measurement_check.h"
#include "core/analysis/stats.h"
#include "core/analysis/units.h"

namespace cs::core::advice {

namespace {

// "measured call 25 took 251 ms: forward recompiled (self.level == 0)", the
// first few; the rest counted.
void addRecompiledCalls(const Run& run, Finding& f) {
    constexpr size_t kShown = 4;
    const auto calls = recompiledMeasuredCalls(run);
    for (size_t i = 0; i < calls.size() && i < kShown; ++i) {
        const Recompile& rc = run.recompiles[calls[i].recompile];
        std::string line =
            "measured call " + std::to_string(calls[i].measuredCall) + " took " +
            formatDuration(static_cast<double>(calls[i].latencyNs)) + ": " +
            (rc.function.empty() ? std::string("a function") : functionLabel(rc.function)) +
            " recompiled";
        if (const std::string guard = guardExpression(rc.reason); !guard.empty())
            line += " (" + guard + ")";
        f.evidence.push_back(std::move(line));
    }
    if (const size_t more = calls.size() > kShown ? calls.size() - kShown : 0; more > 0)
        f.evidence.push_back(std::to_string(more) + (more == 1
                                                         ? " more measured call recompiled"
                                                         : " more measured calls recompiled"));
}

const char* const kStopRecompiles =
    "Stop the recompiles (the recompile finding says which guard failed): ";

// Recompiles among the measured calls that did not leave the first calls
// unsettled (a guard that fails every so often): outliers in the mean and
// the tail, compile time rather than the model's speed.
void recompiledMidMeasure(const Run& run, int r, const MeasureRecompiles& recompiled,
                          std::vector<Finding>& out) {
    const std::string label = run.setting.label();
    Finding f;
    f.rule = "measure.recompiled";
    f.severity = Severity::Warning;
    f.title = label + ": " + plural(recompiled.count, "recompile", "recompiles") +
              " among the measured calls";
    f.tab = EvidenceTab::Latency;
    f.run = r;
    f.setting = label;
    addRecompiledCalls(run, f);
    if (f.evidence.empty())
        f.evidence.push_back(
            plural(recompiled.count, "recompile", "recompiles") +
            (recompiled.functions.empty() ? "" : " of " + joinWords(recompiled.functions)) +
            " happened among the measured calls (the report does not say which)");
    if (const auto stats = computeStats(run.measuredLatencies()))
        f.evidence.push_back("the median, " + formatDuration(stats->median) +
                             ", barely moves; the mean (" + formatDuration(stats->mean) +
                             ") and the slowest call (" + formatDuration(stats->max) +
                             ") hold compile time");
    f.remedy = std::string(kStopRecompiles) +
               "your program pays these compiles too, whenever the guard fails. Until then "
               "read the median, not the mean or the tail.";
    f.confidence = recompiledMeasuredCalls(run).empty() ? 0.6 : 0.8;
    out.push_back(std::move(f));
}

// The measured calls kept getting faster through the measure phase, and the
// blocks after them agree with where they ended (Crosscheck::driftExplains):
// the median holds a start the model (or the machine) had not settled from.
// A slow start of a few calls is unsettledCalls' and said there.
void stillGettingFaster(const Run& run, int r, const Crosscheck& check, std::vector<Finding>& out) {
    const std::string label = run.setting.label();
    Finding f;
    f.rule = "measure.unsettled";
    f.severity = Severity::Warning;
    f.title = label + ": warmup too short; the measured calls kept getting faster";
    f.tab = EvidenceTab::Latency;
    f.run = r;
    f.setting = label;
    char z[32];
    std::snprintf(z, sizeof z, "%.1f", check.trendZ);
    f.evidence.push_back(
        "the measured calls' first quarter took " + formatDuration(check.firstQuarterNs) +
        " (median), their last " + formatDuration(check.lastQuarterNs) +
        ", falling throughout, beyond noise (Mann-Kendall trend test: z = " + z + ")");
    f.evidence.push_back("cross-check: " + crosscheckText(check) +
                         ": the blocks, which ran after the measured calls, were no slower than "
                         "the last of them");
    if (const auto drift = hostDriftWithin(run); drift && *drift < 1 - kCrosscheckTolerance)
        f.evidence.push_back("the machine sped up too: the host reference took " +
                             hostReferenceSpanText(run));
    const int calls = run.setting.warmup + static_cast<int>(run.measuredLatencies().size());
    f.remedy = "Warm up longer, at least as many calls as this run made before its blocks "
               "(--warmup " +
               std::to_string(calls) +
               " or more), so the measured calls start where the model has settled; the "
               "median then agrees with the blocks. Until then the blocks' " +
               formatDuration(check.blockEstimateNs) + " per call is the closer figure.";
    f.confidence = 0.7;
    out.push_back(std::move(f));
}

} // namespace

void unsettledRule(const AdviceInput& input, std::vector<Finding>& out) {
    const auto& runs = input.report.runs;
    for (size_t r = 0; r < runs.size(); ++r) {
        const Run& run = runs[r];
        // An imported TORCH_TRACE log measured no calls: nothing can be unsettled.
        if (run.status == RunStatus::Imported)
            continue;
        const auto unsettled = unsettledCalls(run);
        const auto recompiled = measureRecompiles(run);
        const bool compiledAtStart = unsettled && unsettledByRecompiles(run, *unsettled);
        if (recompiled.count > 0 && !compiledAtStart)
            recompiledMidMeasure(run, static_cast<int>(r), recompiled, out);
        if (!unsettled) {
            if (const auto check = crosscheck(run); check && check->apartByDrift())
                stillGettingFaster(run, static_cast<int>(r), *check, out);
            continue;
        }
        const std::string label = run.setting.label();
        const std::string n = std::to_string(unsettled->calls);
        Finding f;
        f.rule = "measure.unsettled";
        f.severity = Severity::Warning;
        const bool one = unsettled->calls == 1;
        const std::string first = one ? "the first" : "the first " + n;
        f.title = compiledAtStart ? label + ": the measured calls recompiled; " + first +
                                        (one ? " was not steady" : " were not steady")
                                  : label + ": warmup too short; " + first +
                                        (one ? " measured call was still warming up"
                                             : " measured calls were still warming up");
        f.tab = EvidenceTab::Latency;
        f.run = static_cast<int>(r);
        f.setting = label;
        f.evidence.push_back(
            (one ? "measured call 1 took " : "measured calls 1-" + n + " took up to ") +
            formatDuration(static_cast<double>(unsettled->worstNs)) +
            ", above the steady-state band's top " + formatDuration(unsettled->highNs) +
            " (median " + formatDuration(unsettled->medianNs) + ")");
        f.evidence.push_back("after " + std::to_string(run.setting.warmup) +
                             " warmup calls it took " +
                             plural(unsettled->calls, "more call", "more calls") + " to settle");
        if (compiledAtStart) {
            f.evidence.push_back(
                plural(recompiled.count, "recompile", "recompiles") +
                (recompiled.functions.empty() ? "" : " of " + joinWords(recompiled.functions)) +
                " happened among the measured calls: compile time, not warmup");
            addRecompiledCalls(run, f);
        }
        if (run.droppedUnsettled > 0)
            f.evidence.push_back(std::to_string(run.droppedUnsettled) +
                                 " of them are left out of the statistics, as asked");
        const std::string dropThem =
            "leave these calls out of the statistics: --drop-unsettled, "
            "or the Latency tab's \"Leave out unsettled measured calls\" box.";
        f.remedy = compiledAtStart
                       ? std::string(kStopRecompiles) +
                             "a longer warmup would only hide compiles your program pays as well. "
                             "Until then, " +
                             dropThem
                       : "Warm up longer (--warmup " +
                             std::to_string(run.setting.warmup + unsettled->calls) +
                             " or more), or " + dropThem;
        f.confidence = unsettled->calls >= 3 ? 0.8 : 0.6;
        out.push_back(std::move(f));
    }
}

} // namespace cs::core::advice
