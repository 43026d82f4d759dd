#include "core/analysis/latency_distribution.h"

#include <algorithm>
#include <cmath>

#include "core/analysis/stats.h"

namespace cs::core {

std::optional<BoxSummary> boxSummary(const std::vector<int64_t>& samplesNs) {
    if (samplesNs.empty())
        return std::nullopt;
    std::vector<double> sorted(samplesNs.begin(), samplesNs.end());
    std::sort(sorted.begin(), sorted.end());
    BoxSummary box;
    box.q1 = percentileSorted(sorted, 0.25);
    box.median = percentileSorted(sorted, 0.5);
    box.q3 = percentileSorted(sorted, 0.75);
    const double iqr = box.q3 - box.q1;
    const double lowFence = box.q1 - 1.5 * iqr;
    const double highFence = box.q3 + 1.5 * iqr;
    box.lowerWhisker = box.q1;
    box.upperWhisker = box.q3;
    for (double v : sorted) {
        if (v < lowFence || v > highFence) {
            box.outliers.push_back(v);
            continue;
        }
        box.lowerWhisker = std::min(box.lowerWhisker, v);
        box.upperWhisker = std::max(box.upperWhisker, v);
    }
    return box;
}

double SharedHistogram::center(size_t bin) const {
    return std::sqrt(edges[bin] * edges[bin + 1]);
}

SharedHistogram sharedHistogram(const std::vector<std::vector<int64_t>>& series, int bins) {
    SharedHistogram h;
    h.fractions.resize(series.size());
    double low = 0, high = 0;
    bool any = false;
    for (const auto& s : series) {
        for (auto ns : s) {
            if (ns <= 0)
                continue; // no log of zero; a zero latency is a broken timer, not a call
            const double v = static_cast<double>(ns);
            low = any ? std::min(low, v) : v;
            high = any ? std::max(high, v) : v;
            any = true;
        }
    }
    if (!any || bins < 1)
        return h;
    // Widen a degenerate range so every sample falls in a bin of non-zero width.
    if (high <= low * 1.0001) {
        low *= 0.95;
        high *= 1.05;
    }
    const double logLow = std::log(low);
    const double step = (std::log(high) - logLow) / bins;
    for (int i = 0; i <= bins; ++i)
        h.edges.push_back(std::exp(logLow + step * i));
    for (size_t s = 0; s < series.size(); ++s) {
        auto& out = h.fractions[s];
        out.assign(static_cast<size_t>(bins), 0.0);
        size_t counted = 0;
        for (auto ns : series[s]) {
            if (ns <= 0)
                continue;
            auto bin = static_cast<int>((std::log(static_cast<double>(ns)) - logLow) / step);
            bin = std::clamp(bin, 0, bins - 1); // the top edge belongs to the last bin
            out[static_cast<size_t>(bin)] += 1;
            ++counted;
        }
        for (auto& f : out)
            f = counted ? f / static_cast<double>(counted) : 0;
    }
    return h;
}

} // namespace cs::core
