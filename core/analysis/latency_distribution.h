// The shapes the Latency tab draws, computed here so views only draw: a box
// plot with Tukey whiskers and outliers, and histograms on shared log bins.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace cs::core {

struct BoxSummary {
    double lowerWhisker = 0; // smallest sample within 1.5 IQR below q1
    double q1 = 0;
    double median = 0;
    double q3 = 0;
    double upperWhisker = 0;      // largest sample within 1.5 IQR above q3
    std::vector<double> outliers; // beyond the whiskers, as LatencyStats counts them
};

std::optional<BoxSummary> boxSummary(const std::vector<int64_t>& samplesNs);

// Histograms of several series over the same bins, so they overlay. Bins are
// evenly spaced in log(latency): settings a factor apart share one axis.
struct SharedHistogram {
    std::vector<double> edges;                  // bins + 1 ascending edges (ns)
    std::vector<std::vector<double>> fractions; // per series, per bin: share of its calls
    double center(size_t bin) const;            // geometric centre of a bin
};

SharedHistogram sharedHistogram(const std::vector<std::vector<int64_t>>& series, int bins = 40);

} // namespace cs::core
