#include "core/analysis/stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace cs::core {

double percentileSorted(const std::vector<double>& sorted, double fraction) {
    if (sorted.empty())
        return 0;
    const double position = fraction * static_cast<double>(sorted.size() - 1);
    const auto lower = static_cast<size_t>(std::floor(position));
    const auto upper = std::min(lower + 1, sorted.size() - 1);
    const double weight = position - static_cast<double>(lower);
    return sorted[lower] + weight * (sorted[upper] - sorted[lower]);
}

double medianValue(std::vector<double> values) {
    if (values.empty())
        return 0;
    std::sort(values.begin(), values.end());
    return percentileSorted(values, 0.5);
}

double mannKendallZ(const std::vector<int64_t>& samples) {
    std::vector<double> points;
    const size_t run =
        std::max<size_t>(1, (samples.size() + kMaxTrendPoints - 1) / kMaxTrendPoints);
    for (size_t first = 0; first < samples.size(); first += run) {
        const size_t end = std::min(samples.size(), first + run);
        double sum = 0;
        for (size_t i = first; i < end; ++i)
            sum += static_cast<double>(samples[i]);
        points.push_back(sum / static_cast<double>(end - first));
    }
    const size_t n = points.size();
    if (n < 3)
        return 0;
    double s = 0;
    for (size_t i = 0; i < n; ++i) {
        for (size_t j = i + 1; j < n; ++j)
            s += points[j] > points[i] ? 1 : points[j] < points[i] ? -1 : 0;
    }
    const double nd = static_cast<double>(n);
    const double sd = std::sqrt(nd * (nd - 1) * (2 * nd + 5) / 18);
    // Continuity correction: S moves in steps of 2.
    const double corrected = s > 0 ? s - 1 : s < 0 ? s + 1 : 0;
    return corrected / sd;
}

namespace {

// P(X <= k) for X ~ Binomial(n, 1/2), in log space so large n stays exact enough.
double binomialHalfCdf(size_t n, size_t k) {
    double total = 0;
    const double logHalfN = static_cast<double>(n) * std::log(0.5);
    for (size_t i = 0; i <= k; ++i) {
        const double logChoose = std::lgamma(static_cast<double>(n) + 1) -
                                 std::lgamma(static_cast<double>(i) + 1) -
                                 std::lgamma(static_cast<double>(n - i) + 1);
        total += std::exp(logChoose + logHalfN);
    }
    return std::min(total, 1.0);
}

} // namespace

std::optional<std::pair<size_t, size_t>> medianConfidenceRanks(size_t n, double confidence) {
    // [x(k), x(n-1-k)] (0-based) covers the median with probability
    // 1 - 2 P(B <= k), B ~ Binomial(n, 1/2) counting samples below it. Take
    // the largest k that keeps the coverage at or above `confidence`.
    const double tail = (1.0 - confidence) / 2.0;
    if (n == 0 || binomialHalfCdf(n, 0) > tail)
        return std::nullopt; // even (min, max) is not wide enough
    size_t k = 0;
    if (n > 2000) {
        // Normal approximation with continuity correction; the exact sum gets slow.
        const double z = 1.959963984540054;
        const double bound =
            static_cast<double>(n) / 2.0 - 0.5 - z * std::sqrt(static_cast<double>(n)) / 2.0;
        k = static_cast<size_t>(std::max(0.0, std::floor(bound)));
    } else {
        while (k + 1 < n / 2 && binomialHalfCdf(n, k + 1) <= tail)
            ++k;
    }
    return std::make_pair(k, n - 1 - k);
}

std::optional<LatencyStats> computeStats(const std::vector<int64_t>& samplesNs) {
    if (samplesNs.empty())
        return std::nullopt;
    std::vector<double> sorted(samplesNs.begin(), samplesNs.end());
    std::sort(sorted.begin(), sorted.end());
    LatencyStats s;
    s.count = sorted.size();
    s.min = sorted.front();
    s.max = sorted.back();
    s.mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / static_cast<double>(s.count);
    s.median = percentileSorted(sorted, 0.5);
    s.p90 = percentileSorted(sorted, 0.9);
    s.p99 = percentileSorted(sorted, 0.99);
    s.q1 = percentileSorted(sorted, 0.25);
    s.q3 = percentileSorted(sorted, 0.75);
    if (s.count > 1) {
        double squares = 0;
        for (double v : sorted)
            squares += (v - s.mean) * (v - s.mean);
        s.std = std::sqrt(squares / static_cast<double>(s.count - 1));
    }
    if (auto ranks = medianConfidenceRanks(s.count)) {
        s.medianCiLow = sorted[ranks->first];
        s.medianCiHigh = sorted[ranks->second];
    } else {
        s.medianCiLow = s.min;
        s.medianCiHigh = s.max;
    }
    const double iqr = s.q3 - s.q1;
    const double lowFence = s.q1 - 1.5 * iqr;
    const double highFence = s.q3 + 1.5 * iqr;
    s.outliers = static_cast<size_t>(std::count_if(
        sorted.begin(), sorted.end(), [&](double v) { return v < lowFence || v > highFence; }));
    return s;
}

std::optional<Speedup> computeSpeedup(const LatencyStats& baseline, const LatencyStats& setting) {
    if (baseline.median <= 0 || setting.median <= 0)
        return std::nullopt;
    Speedup sp;
    sp.value = baseline.median / setting.median;
    if (setting.medianCiHigh > 0 && setting.medianCiLow > 0) {
        sp.low = baseline.medianCiLow / setting.medianCiHigh;
        sp.high = baseline.medianCiHigh / setting.medianCiLow;
    } else {
        sp.low = sp.high = sp.value;
    }
    sp.significant =
        baseline.medianCiLow > setting.medianCiHigh || setting.medianCiLow > baseline.medianCiHigh;
    return sp;
}

std::optional<double> breakEvenIterations(double extraWarmupNs, double savedPerCallNs) {
    if (savedPerCallNs <= 0)
        return std::nullopt;
    if (extraWarmupNs <= 0)
        return 0.0;
    return std::ceil(extraWarmupNs / savedPerCallNs);
}

} // namespace cs::core
