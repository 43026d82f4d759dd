#include "core/advice/advice_input.h"

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

AdviceInput makeAdviceInput(const Report& report, const AdviceOptions& options) {
    return AdviceInput{report, options, compareRuns(report)};
}

} // namespace cs::core::advice
