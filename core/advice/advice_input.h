// What the rules read: the report, the user's thresholds, and the comparison
// of every run against eager (core/comparison.h), the same figures the Compare
// tab and the HTML table show, so a finding never disagrees with the table.
#pragma once

#include <map>

#include "core/advice/advice_options.h"
#include "core/analysis/comparison.h"
#include "core/analysis/kernel_cost.h"
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
    // The run's cost breakdown (its profiled window), made once: several
    // rules read it. `run` is one of report's runs.
    const CostBreakdown& costOf(const Run& run) const;
    mutable std::map<const Run*, CostBreakdown> costCache; // costOf's, by run
};

AdviceInput makeAdviceInput(const Report& report, const AdviceOptions& options);

} // namespace cs::core::advice
