// Latency statistics that stay honest on skewed, outlier-prone timings:
// order statistics, a distribution-free confidence interval of the median.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace cs::core {

struct LatencyStats {
    size_t count = 0;
    double min = 0;
    double max = 0;
    double mean = 0;
    double median = 0;
    double p90 = 0;
    double p99 = 0;
    double std = 0;         // sample standard deviation (n-1)
    double medianCiLow = 0; // 95% confidence interval of the median
    double medianCiHigh = 0;
    double q1 = 0;
    double q3 = 0;
    size_t outliers = 0; // outside Tukey's fences (1.5 IQR beyond the quartiles)
};

// A median whose 95% interval is wider than this share of it came from calls
// that did not take one steady time (a loaded machine): the advice draws no
// verdict and no curve's shape from it.
inline constexpr double kSettledSpread = 0.25;

// The median's 95% interval as a share of the median; 0 without a median.
inline double medianSpread(const LatencyStats& s) {
    return s.median > 0 ? (s.medianCiHigh - s.medianCiLow) / s.median : 0;
}

inline bool unsettledMedian(const LatencyStats& s) {
    return medianSpread(s) > kSettledSpread;
}

// Percentile by linear interpolation between order statistics (Hyndman-Fan
// type 7, what numpy.percentile does by default). `sorted` must be ascending.
double percentileSorted(const std::vector<double>& sorted, double fraction);

// Ranks (0-based, inclusive) bracketing the median at ~95% confidence, from
// the binomial distribution of order statistics; nullopt when n is too small
// for any pair of ranks to reach 95%.
std::optional<std::pair<size_t, size_t>> medianConfidenceRanks(size_t n, double confidence = 0.95);

std::optional<LatencyStats> computeStats(const std::vector<int64_t>& samplesNs);

// The median of any values (the mean of the middle two for an even count); 0
// for none.
double medianValue(std::vector<double> values);

// The Mann-Kendall trend statistic of samples in time order, as a normal
// score: about -3 or below, a falling trend that noise alone makes less
// than once in 700 times. More than kMaxTrendPoints samples are first
// averaged in runs of consecutive ones (the test is quadratic). 0 for fewer
// than 3.
inline constexpr size_t kMaxTrendPoints = 512;
double mannKendallZ(const std::vector<int64_t>& samples);

// Speedup of `setting` over `baseline` (baseline median / setting median) with
// a conservative interval from the two medians' confidence intervals.
struct Speedup {
    double value = 0;
    double low = 0;
    double high = 0;
    bool significant = false; // the medians' intervals do not overlap
    // Over repeated probes (--repeat): the rounds in which both settings
    // measured, and the lowest and highest ratio of their medians among them.
    // With more than one, low and high also span these, and it is significant
    // only when every round agrees (docs/measuring.md "Repeated probes").
    int rounds = 1;
    double roundsLow = 0;
    double roundsHigh = 0;
};
std::optional<Speedup> computeSpeedup(const LatencyStats& baseline, const LatencyStats& setting);

// Calls needed before the extra warmup of a setting is paid back by what it
// saves per call. nullopt means never (it saves nothing per call).
std::optional<double> breakEvenIterations(double extraWarmupNs, double savedPerCallNs);

} // namespace cs::core
