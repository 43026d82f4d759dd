// What the rules read: the report, the user's thresholds, and the comparison
// of every run against eager (core/comparison.h), the same figures the Compare
// tab and the HTML table show, so a finding never disagrees with the table.
#pragma once

#include "core/advice/advice_options.h"
#include "core/analysis/comparison.h"
#include "core/report/session.h"

namespace cs::core::advice {

struct AdviceInput {
    const Report& report;
    AdviceOptions options;
    Comparison comparison;
    // The eager run every speedup is against, with its figures; null when none was measured.
    const Run* baselineRun() const;
    const ComparisonRow* baselineRow() const;
    // The aoti row, when the package it measured is one to deploy: finished,
    // significantly faster than eager, paid back within `calls`, and with
    // outputs that do not differ from eager's. Null otherwise.
    const ComparisonRow* deployableAoti(int calls) const;
    // Some run of the report is an aoti setting, whatever became of it.
    bool hasAoti() const;
};

AdviceInput makeAdviceInput(const Report& report, const AdviceOptions& options);

} // namespace cs::core::advice
