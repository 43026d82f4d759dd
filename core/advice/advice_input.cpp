#include "core/advice/advice_input.h"

#include "core/advice/perf_scope.h"

namespace cs::core::advice {

const Run* AdviceInput::baselineRun() const {
    const int b = comparison.baseline;
    if (b < 0 || b >= static_cast<int>(report.runs.size()))
        return nullptr;
    return &report.runs[static_cast<size_t>(b)];
}

const ComparisonRow* AdviceInput::baselineRow() const {
    return comparison.row(comparison.baseline);
}

const ComparisonRow* AdviceInput::deployableAoti(int calls) const {
    for (const auto& row : comparison.rows) {
        const Run& run = report.runs[static_cast<size_t>(row.run)];
        if (run.setting.mode == "aoti" && judgedForSpeed(run) && row.speedup &&
            row.speedup->significant && !row.noSignificantGain() && row.saves && row.breakEven &&
            *row.breakEven <= calls && !row.outputsDiffer)
            return &row;
    }
    return nullptr;
}

bool AdviceInput::hasAoti() const {
    for (const Run& run : report.runs) {
        if (run.setting.mode == "aoti")
            return true;
    }
    return false;
}

const CostBreakdown& AdviceInput::costOf(const Run& run) const {
    auto found = costCache.find(&run);
    if (found == costCache.end())
        found = costCache.emplace(&run, costBreakdown(run)).first;
    return found->second;
}

AdviceInput makeAdviceInput(const Report& report, const AdviceOptions& options) {
    return AdviceInput{report, options, compareRuns(report), {}};
}

} // namespace cs::core::advice
