// Box plot and histogram shapes on hand-computed data.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "core/analysis/latency_distribution.h"
#include "core/analysis/stats.h"

using namespace cs::core;

TEST(BoxSummary, WhiskersStopAtTheLastSampleInsideTheFences) {
    // q1 = 2, q3 = 4, IQR 2: fences -1 and 7; 100 is an outlier, 4 the top whisker.
    auto box = boxSummary({1, 2, 2, 3, 3, 4, 4, 100});
    ASSERT_TRUE(box);
    EXPECT_DOUBLE_EQ(box->q1, 2);
    EXPECT_DOUBLE_EQ(box->median, 3);
    EXPECT_DOUBLE_EQ(box->q3, 4);
    EXPECT_DOUBLE_EQ(box->lowerWhisker, 1);
    EXPECT_DOUBLE_EQ(box->upperWhisker, 4);
    ASSERT_EQ(box->outliers.size(), 1u);
    EXPECT_DOUBLE_EQ(box->outliers[0], 100);
    // The same count as the statistics table.
    EXPECT_EQ(box->outliers.size(), computeStats({1, 2, 2, 3, 3, 4, 4, 100})->outliers);
    EXPECT_FALSE(boxSummary({}));
    auto one = boxSummary({7});
    EXPECT_DOUBLE_EQ(one->lowerWhisker, 7);
    EXPECT_DOUBLE_EQ(one->upperWhisker, 7);
    EXPECT_TRUE(one->outliers.empty());
}

TEST(SharedHistogram, LogBinsSharedByEverySeries) {
    // 10..1000 in 2 log bins: edges 10, 100, 1000.
    auto h = sharedHistogram({{10, 20, 50}, {200, 1000, 500, 300}}, 2);
    ASSERT_EQ(h.edges.size(), 3u);
    EXPECT_NEAR(h.edges[0], 10, 1e-9);
    EXPECT_NEAR(h.edges[1], 100, 1e-9);
    EXPECT_NEAR(h.edges[2], 1000, 1e-9);
    EXPECT_NEAR(h.center(0), std::sqrt(1000.0), 1e-9);
    EXPECT_EQ(h.fractions[0], (std::vector<double>{1.0, 0.0}));
    // 1000, the top edge, belongs to the last bin.
    EXPECT_EQ(h.fractions[1], (std::vector<double>{0.0, 1.0}));
}

TEST(SharedHistogram, FractionsSumToOneAndEdgesAreSafe) {
    auto h = sharedHistogram({{500, 500, 500}, {}, {0, 400, 600}}, 10);
    ASSERT_EQ(h.fractions.size(), 3u);
    EXPECT_NEAR(std::accumulate(h.fractions[0].begin(), h.fractions[0].end(), 0.0), 1.0, 1e-12);
    EXPECT_NEAR(std::accumulate(h.fractions[1].begin(), h.fractions[1].end(), 0.0), 0.0, 1e-12);
    // A zero latency cannot go on a log axis; it is left out, not counted in a bin.
    EXPECT_NEAR(std::accumulate(h.fractions[2].begin(), h.fractions[2].end(), 0.0), 1.0, 1e-12);
    EXPECT_TRUE(sharedHistogram({{}, {}}).edges.empty());
    // All samples equal: the range is widened so the bins have a width.
    auto same = sharedHistogram({{500, 500}}, 4);
    EXPECT_LT(same.edges.front(), 500);
    EXPECT_GT(same.edges.back(), 500);
}
