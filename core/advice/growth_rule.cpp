// Rule memory.growth: memory kept per call at the same inputs
// (docs/measuring.md, "Memory kept per call"). Measured around the measured
// calls and again around the cross-check's; only growth in both windows
// counts, so a cache filled once is not taken for a leak. When eager keeps it
// too it is the model's; when only a compiled setting does, the compiled
// program's, with the recompiles in those calls named where there were any.
#include <optional>

#include "core/advice/advice_rules.h"
#include "core/advice/advice_text.h"
#include "core/advice/perf_scope.h"
#include "core/analysis/kept_memory.h"

namespace cs::core::advice {

namespace {

std::optional<KeptMemory> keeping(const Run& run) {
    return run.status == RunStatus::Ok ? keptPerCall(run) : std::nullopt;
}

// The same counter of another run, for contrast.
std::optional<KeptMemory> sameCounter(const Run& run, const KeptMemory& like) {
    for (const auto& kept : keptMemory(run))
        if (kept.device == like.device)
            return kept;
    return std::nullopt;
}

std::string atExpectedCalls(const KeptMemory& kept, int expectedCalls) {
    return "at " + formatCount(expectedCalls) + " calls (the expected calls) that is " +
           formatBytes(kept.bytesPerCall() * expectedCalls) +
           " more, and it grows for as long as the calls go on";
}

// Both forms of the finding: a warning on one run's memory, the Memory tab.
Finding growthFinding(int run, const std::string& setting) {
    Finding f;
    f.rule = "memory.growth";
    f.severity = Severity::Warning;
    f.tab = EvidenceTab::Memory;
    f.run = run;
    f.setting = setting;
    return f;
}

int recompilesInWindows(const Run& run) {
    int count = 0;
    for (const auto& r : run.recompiles)
        count += r.phase == "measure" || r.phase == "crosscheck" ? 1 : 0;
    return count;
}

} // namespace

void growthRule(const AdviceInput& input, std::vector<Finding>& out) {
    const auto& runs = input.report.runs;
    const int expectedCalls = std::max(1, input.options.expectedCalls);
    const Run* eager = input.baselineRun();
    const std::optional<KeptMemory> eagerKeeps = eager ? keeping(*eager) : std::nullopt;

    if (eagerKeeps) {
        // The model's own: one finding for every setting that keeps it.
        Finding f = growthFinding(input.comparison.baseline, eager->setting.label());
        std::vector<std::string> labels;
        for (size_t r = 0; r < runs.size(); ++r) {
            const auto kept = keeping(runs[r]);
            if (kept) {
                labels.push_back(runs[r].setting.label());
                f.evidence.push_back(runs[r].setting.label() + ": " + keptMemoryText(*kept) +
                                     " (Memory tab)");
            } else if (const auto other = sameCounter(runs[r], *eagerKeeps)) {
                f.evidence.push_back(runs[r].setting.label() +
                                     " for contrast: " + keptMemoryText(*other));
            }
        }
        f.title = "The model keeps " + formatBytes(eagerKeeps->bytesPerCall()) +
                  " more memory after every call (" + joinWords(labels) + ")";
        f.evidence.push_back(atExpectedCalls(*eagerKeeps, expectedCalls));
        f.remedy = "Eager keeps it too, so the model's own code does: something its forward "
                   "reaches adds each call's tensors to a list, dict or attribute that outlives "
                   "the call (a history kept for debugging, a cache keyed by call). Keep a "
                   "bounded number (collections.deque(maxlen=N)), drop them once used, or keep "
                   "them only while debugging.";
        f.confidence = 0.85; // counted by the allocator, in two windows
        out.push_back(std::move(f));
        return;
    }

    for (size_t r = 0; r < runs.size(); ++r) {
        const Run& run = runs[r];
        if (run.setting.mode == "eager")
            continue;
        const auto kept = keeping(run);
        if (!kept)
            continue;
        const std::string label = run.setting.label();
        Finding f = growthFinding(static_cast<int>(r), label);
        f.evidence.push_back(label + ": " + keptMemoryText(*kept) + " (Memory tab)");
        const auto eagerSame = eager ? sameCounter(*eager, *kept) : std::nullopt;
        if (eagerSame)
            f.evidence.push_back(eager->setting.label() +
                                 " for contrast: " + keptMemoryText(*eagerSame));
        f.evidence.push_back(atExpectedCalls(*kept, expectedCalls));
        const int recompiles = recompilesInWindows(run);
        f.title = label + " keeps " + formatBytes(kept->bytesPerCall()) +
                  " more memory after every call" + (eagerSame ? "; eager does not" : "");
        if (recompiles > 0) {
            f.evidence.push_back(plural(recompiles, "recompile", "recompiles") +
                                 " happened in these calls (Recompiles tab)");
            f.remedy = "Each recompile keeps its compiled code and guards for the rest of the "
                       "process: stop the recompiles first (the recompile finding).";
            f.confidence = 0.7;
        } else if (eagerSame) {
            f.remedy = "Eager runs the same calls without it, so the compiled program keeps "
                       "it. Where memory is the limit, use a setting that does not grow (Compare "
                       "tab); this report reproduces it for a PyTorch issue.";
            f.confidence = 0.75;
        } else {
            f.remedy = "No eager run was measured to tell the model's own from the compiled "
                       "program's: add eager to the settings. If eager keeps it too, look for "
                       "tensors the forward adds to a list, dict or attribute on every call.";
            f.confidence = 0.6;
        }
        out.push_back(std::move(f));
    }
}

} // namespace cs::core::advice
