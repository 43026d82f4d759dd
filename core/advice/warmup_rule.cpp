// Rule 4: warmup outweighs savings. A setting that is faster per call but pays
// back its extra warmup only after more calls than the program makes.
#include "core/advice/advice_rules.h"
#include "core/advice/advice_text.h"
#include "core/advice/perf_scope.h"
#include "core/analysis/units.h"

namespace cs::core::advice {

void warmupRule(const AdviceInput& input, std::vector<Finding>& out) {
    const Run* eager = input.baselineRun();
    const ComparisonRow* base = eager ? input.baselineRow() : nullptr;
    if (!eager || !base || !base->stats || !base->warmupNs)
        return;
    const int calls = input.options.expectedCalls;
    for (const auto& row : input.comparison.rows) {
        const Run& run = input.report.runs[static_cast<size_t>(row.run)];
        // Only a real, significant saving has a break-even; no saving is rule 3's.
        if (row.isBaseline || !judgedForSpeed(run) || !row.speedup || !row.speedup->significant ||
            row.noSignificantGain() || !row.saves || !row.breakEven || !row.warmupNs || !row.stats)
            continue;
        if (*row.breakEven <= calls)
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
        std::string remedy = "Compile only where a process makes more than " +
                             formatCount(*row.breakEven) +
                             " calls; otherwise keep it eager. To cut the warmup, keep Inductor's "
                             "caches between starts (measure it with --warm-cache)";
        if (run.setting.mode == "max-autotune" || run.setting.mode == "max-autotune-no-cudagraphs")
            remedy += ", or use mode default, which skips autotuning";
        f.remedy = remedy + ".";
        f.gain = "eager saves " + formatDuration(extra - saved * calls) + " of wall time over " +
                 formatCount(calls) + " calls";
        f.confidence = row.stats->count >= 20 && base->stats->count >= 20 ? 0.8 : 0.5;
        out.push_back(std::move(f));
    }
}

} // namespace cs::core::advice
