// Rule 7: warmup too short. The first measured calls sit above the
// steady-state band: they were still warming up, and they pull the mean and
// the tail. The user may drop them from the statistics, as a visible choice.
#include "core/advice/advice_rules.h"
#include "core/analysis/measurement_check.h"
#include "core/analysis/units.h"

namespace cs::core::advice {

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
        Finding f;
        f.rule = "measure.unsettled";
        f.severity = Severity::Warning;
        f.title =
            label + ": warmup too short; the first " + n + " measured calls were still warming up";
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
        if (run.droppedUnsettled > 0)
            f.evidence.push_back(std::to_string(run.droppedUnsettled) +
                                 " of them are left out of the statistics, as asked");
        f.remedy = "Warm up longer (--warmup " +
                   std::to_string(run.setting.warmup + unsettled->calls) +
                   " or more), or leave these calls out of the statistics: --drop-unsettled, or "
                   "\"Drop unsettled calls\" in the Latency tab.";
        f.confidence = unsettled->calls >= 3 ? 0.8 : 0.6;
        out.push_back(std::move(f));
    }
}

} // namespace cs::core::advice
