// Statistics against values computed by hand (and cross-checked with numpy).
#include <gtest/gtest.h>

#include <cmath>

#include "core/analysis/stats.h"

using namespace cs::core;

TEST(Stats, OneToTen) {
    auto s = computeStats({1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
    ASSERT_TRUE(s);
    EXPECT_EQ(s->count, 10u);
    EXPECT_DOUBLE_EQ(s->min, 1);
    EXPECT_DOUBLE_EQ(s->max, 10);
    EXPECT_DOUBLE_EQ(s->mean, 5.5);
    EXPECT_DOUBLE_EQ(s->median, 5.5);
    EXPECT_NEAR(s->p90, 9.1, 1e-12); // numpy.percentile(range(1,11), 90)
    EXPECT_NEAR(s->p99, 9.91, 1e-12);
    EXPECT_NEAR(s->std, 3.0276503540974917, 1e-12); // sqrt(82.5 / 9)
    EXPECT_DOUBLE_EQ(s->q1, 3.25);
    EXPECT_DOUBLE_EQ(s->q3, 7.75);
    // n = 10: ranks 2 and 9 (1-based) give 97.9% coverage; 3 and 8 only 89%.
    EXPECT_DOUBLE_EQ(s->medianCiLow, 2);
    EXPECT_DOUBLE_EQ(s->medianCiHigh, 9);
    EXPECT_EQ(s->outliers, 0u);
}

TEST(Stats, OutliersOutsideTukeyFences) {
    // q1 = 2, q3 = 4 (type 7 on 1,2,2,3,3,4,4,100): iqr 2, high fence 7.
    auto s = computeStats({1, 2, 2, 3, 3, 4, 4, 100});
    ASSERT_TRUE(s);
    EXPECT_DOUBLE_EQ(s->q1, 2);
    EXPECT_DOUBLE_EQ(s->q3, 4);
    EXPECT_EQ(s->outliers, 1u);
    EXPECT_DOUBLE_EQ(s->median, 3);
}

TEST(Stats, EmptyAndSingle) {
    EXPECT_FALSE(computeStats({}));
    auto s = computeStats({42});
    ASSERT_TRUE(s);
    EXPECT_DOUBLE_EQ(s->median, 42);
    EXPECT_DOUBLE_EQ(s->std, 0);
    EXPECT_DOUBLE_EQ(s->medianCiLow, 42);
}

TEST(Stats, MedianConfidenceRanks) {
    EXPECT_FALSE(medianConfidenceRanks(5)); // 2/32 = 6.25% outside even (min, max)
    auto six = medianConfidenceRanks(6);
    ASSERT_TRUE(six);
    EXPECT_EQ(six->first, 0u);
    EXPECT_EQ(six->second, 5u);
    // n = 100: the classic table gives ranks 40 and 61 (1-based).
    auto hundred = medianConfidenceRanks(100);
    ASSERT_TRUE(hundred);
    EXPECT_EQ(hundred->first, 39u);
    EXPECT_EQ(hundred->second, 60u);
    // The normal approximation above 2000 stays close to the exact answer.
    auto big = medianConfidenceRanks(10000);
    ASSERT_TRUE(big);
    EXPECT_NEAR(static_cast<double>(big->first), 4901.0, 2.0);
}

TEST(Stats, SpeedupAndSignificance) {
    LatencyStats eager, compiled;
    eager.median = 200, eager.medianCiLow = 190, eager.medianCiHigh = 210;
    compiled.median = 100, compiled.medianCiLow = 95, compiled.medianCiHigh = 105;
    auto sp = computeSpeedup(eager, compiled);
    ASSERT_TRUE(sp);
    EXPECT_DOUBLE_EQ(sp->value, 2.0);
    EXPECT_NEAR(sp->low, 190.0 / 105.0, 1e-12);
    EXPECT_NEAR(sp->high, 210.0 / 95.0, 1e-12);
    EXPECT_TRUE(sp->significant);
    compiled.medianCiHigh = 195; // intervals overlap
    EXPECT_FALSE(computeSpeedup(eager, compiled)->significant);
}

TEST(Stats, BreakEven) {
    // 10 s of extra warmup, 2 ms saved per call: 5000 calls.
    EXPECT_DOUBLE_EQ(*breakEvenIterations(10e9, 2e6), 5000.0);
    EXPECT_DOUBLE_EQ(*breakEvenIterations(10e9, 3e6),
                     3334.0); // rounded up: a partial call does not pay
    EXPECT_FALSE(breakEvenIterations(10e9, 0));
    EXPECT_FALSE(breakEvenIterations(10e9, -5));
    EXPECT_DOUBLE_EQ(*breakEvenIterations(-1, 5), 0.0);
}

TEST(Stats, MannKendallTrend) {
    using cs::core::mannKendallZ;
    // Strictly falling, 20 samples: S = -190, its deviation sqrt(20·19·45/18).
    std::vector<int64_t> falling;
    for (int64_t i = 0; i < 20; ++i)
        falling.push_back(2000 - 10 * i);
    EXPECT_NEAR(mannKendallZ(falling), -189 / std::sqrt(20.0 * 19 * 45 / 18), 1e-9);
    std::vector<int64_t> rising(falling.rbegin(), falling.rend());
    EXPECT_NEAR(mannKendallZ(rising), -mannKendallZ(falling), 1e-12);
    // No trend: a repeating pattern, and too few samples to say.
    std::vector<int64_t> level;
    for (int64_t i = 0; i < 60; ++i)
        level.push_back(1000 + (i * 7) % 5);
    EXPECT_GT(mannKendallZ(level), -3);
    EXPECT_LT(mannKendallZ(level), 3);
    EXPECT_EQ(mannKendallZ({5, 4}), 0);
    // Past kMaxTrendPoints the samples are averaged in runs: a fall still shows.
    std::vector<int64_t> many;
    for (int64_t i = 0; i < 5000; ++i)
        many.push_back(100'000 - i + (i % 7) * 40);
    EXPECT_LT(mannKendallZ(many), -3);
}
