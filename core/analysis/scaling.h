// What a batch-size walk says: per setting and size, median latency with its
// interval, throughput, speedup over eager at the same size, peak memory and
// compile cost; and the findings that rest on those curves.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/analysis/stats.h"
#include "core/report/session.h"

namespace cs::core {

struct ScaleRow {
    int64_t batchSize = 0;
    std::optional<LatencyStats> latency;
    // samples per second from the median, and from the median's interval
    double throughput = 0, throughputLow = 0, throughputHigh = 0;
    std::optional<double> speedup; // eager median / this median at the same size
    int64_t peakMemoryBytes = -1;
    int64_t firstCallNs = -1;
};

struct ScaleCurve {
    size_t runIndex = 0;
    std::string label; // the setting's label
    bool eager = false;
    std::vector<ScaleRow> rows; // ascending batch size
    std::optional<ScaleStop> stop;
};

// One curve per run that has a walk, in report order.
std::vector<ScaleCurve> scaleCurves(const Report& report);
bool hasScaling(const Report& report);

// The walk as a text table (the CLI's scale output): per setting and size,
// median with its interval, throughput, speedup over eager, peak memory,
// first call; then how each walk ended.
std::string scalingTable(const Report& report);

// Parses "1,2,4" (ascending, positive) or "auto"; returns what is wrong.
std::optional<std::string> checkBatchSizes(const std::string& text);

} // namespace cs::core
