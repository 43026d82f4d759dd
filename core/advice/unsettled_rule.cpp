// Rule 7: warmup too short. The first measured calls sit above the
// steady-state band: they were still warming up, and they pull the mean and
// the tail. The user may drop them from the statistics, as a visible choice.
// When the slow calls recompiled (a guard on a value that changes every call),
// more warmup is the wrong advice: it hides a compile the program pays too.
#include <set>

#include "core/advice/advice_rules.h"
#include "core/advice/advice_text.h"
#include "core/analysis/measurement_check.h"
#include "core/analysis/units.h"

namespace cs::core::advice {

namespace {

struct MeasuredRecompiles {
    long long count = 0;
    std::vector<std::string> functions;
};

// The recompiles among the measured calls; the limit event is not a compile.
MeasuredRecompiles measuredRecompiles(const Run& run) {
    MeasuredRecompiles m;
    std::set<std::string> seen;
    for (const auto& rc : run.recompiles) {
        if (rc.phase != "measure" || rc.limitHit)
            continue;
        ++m.count;
        if (!rc.function.empty() && seen.insert(rc.function).second)
            m.functions.push_back(rc.function);
    }
    return m;
}

} // namespace

void unsettledRule(const AdviceInput& input, std::vector<Finding>& out) {
    const auto& runs = input.report.runs;
    for (size_t r = 0; r < runs.size(); ++r) {
        const Run& run = runs[r];
        const auto unsettled = unsettledCalls(run);
        // An imported TORCH_TRACE log measured no calls: nothing can be unsettled.
        if (!unsettled || run.status == RunStatus::Imported)
            continue;
        const std::string label = run.setting.label();
        const std::string n = std::to_string(unsettled->calls);
        const auto recompiled = measuredRecompiles(run);
        Finding f;
        f.rule = "measure.unsettled";
        f.severity = Severity::Warning;
        f.title = recompiled.count > 0 ? label + ": the measured calls recompiled; the first " + n +
                                             " were not steady"
                                       : label + ": warmup too short; the first " + n +
                                             " measured calls were still warming up";
        f.tab = EvidenceTab::Latency;
        f.run = static_cast<int>(r);
        f.setting = label;
        f.evidence.push_back("measured calls 1-" + n + " took up to " +
                             formatDuration(static_cast<double>(unsettled->worstNs)) +
                             ", above the steady-state band's top " +
                             formatDuration(unsettled->highNs) + " (median " +
                             formatDuration(unsettled->medianNs) + ")");
        f.evidence.push_back("after " + std::to_string(run.setting.warmup) +
                             " warmup calls it took " + n + " more calls to settle");
        if (recompiled.count > 0)
            f.evidence.push_back(
                plural(recompiled.count, "recompile", "recompiles") +
                (recompiled.functions.empty() ? "" : " of " + joinWords(recompiled.functions)) +
                " happened among the measured calls: compile time, not warmup");
        if (run.droppedUnsettled > 0)
            f.evidence.push_back(std::to_string(run.droppedUnsettled) +
                                 " of them are left out of the statistics, as asked");
        const std::string dropThem = "leave these calls out of the statistics: --drop-unsettled, "
                                     "or \"Drop unsettled calls\" in the Latency tab.";
        f.remedy = recompiled.count > 0
                       ? "Stop the recompiles (the recompile finding says which guard failed): "
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
