// What the performance rules read about each run: its statistics and how it
// compares with eager. Field names follow core/comparison.h's ComparisonRow so
// that the rules read the comparison itself once it is in main.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "advice_options.h"
#include "session.h"
#include "stats.h"

namespace cs::core::advice {

struct RunFigures {
    int run = -1;
    std::optional<LatencyStats> stats;
    std::optional<double> warmupNs; // extra cost of the first calls over steady state
    std::optional<Speedup> speedup; // vs the eager baseline
    std::optional<double> breakEven;
    bool saves = false;
    bool isBaseline = false;
    std::optional<int64_t> peakMemoryBytes;
    std::string memoryKind;
};

struct AdviceInput {
    const Report& report;
    AdviceOptions options;
    int baseline = -1; // run index of the eager run every speedup is against
    std::vector<RunFigures> rows;
    const RunFigures* row(int run) const;
    const Run* baselineRun() const;
};

AdviceInput makeAdviceInput(const Report& report, const AdviceOptions& options);

} // namespace cs::core::advice
