#include <gtest/gtest.h>

#include "core/analysis/measurement_check.h"
#include "tests/core/advice_reports.h"

using namespace advice_test;

namespace {

constexpr int64_t kUs = 1000;

std::vector<int64_t> slowStart(std::vector<int64_t> first, size_t steady, int64_t ns) {
    for (size_t i = 0; i < steady; ++i)
        first.push_back(ns + static_cast<int64_t>(i % 3) * kUs);
    return first;
}

} // namespace

TEST(Crosscheck, DisagreesBeyondFivePercent) {
    cs::core::Run run = timedRun("eager", {500 * kUs}, constant(20, 200 * kUs));
    EXPECT_FALSE(crosscheck(run)) << "no blocks timed, nothing to check";
    run.crosscheckBlockCalls = 50;
    run.crosscheckBlockMeansNs = {194 * kUs, 191 * kUs, 500 * kUs};
    auto check = crosscheck(run);
    ASSERT_TRUE(check);
    EXPECT_DOUBLE_EQ(check->blockEstimateNs, 194 * kUs);
    EXPECT_FALSE(check->disagrees()) << "+3.1% is within 5%";
    run.crosscheckBlockMeansNs = {180 * kUs, 181 * kUs, 179 * kUs};
    check = crosscheck(run);
    ASSERT_TRUE(check);
    EXPECT_TRUE(check->disagrees()) << "+11%";
    EXPECT_EQ(crosscheckVerdict(*check), "they disagree: the measurement was disturbed");
    // one block is one number: no verdict, however far apart
    run.crosscheckBlockMeansNs = {180 * kUs};
    check = crosscheck(run);
    ASSERT_TRUE(check);
    EXPECT_FALSE(check->disagrees());
    EXPECT_NE(crosscheckVerdict(*check).find("too few blocks"), std::string::npos);
    EXPECT_NE(crosscheckText(*check).find("+11.1%"), std::string::npos) << crosscheckText(*check);
}

TEST(UnsettledCalls, CountsTheLeadingCallsAboveTheBand) {
    // The case: the first 4 of the measured calls at 11-19 ms against ~270 us.
    cs::core::Run run =
        timedRun("default", {50000 * kUs, 300 * kUs},
                 slowStart({19000 * kUs, 15000 * kUs, 11000 * kUs, 12000 * kUs}, 26, 269 * kUs));
    auto u = unsettledCalls(run);
    ASSERT_TRUE(u);
    EXPECT_EQ(u->calls, 4);
    EXPECT_EQ(u->worstNs, 19000 * kUs);
    // A single call a little above the band is noise; far above it is warmup.
    EXPECT_FALSE(unsettledCalls(timedRun("eager", {1}, slowStart({330 * kUs}, 29, 269 * kUs))));
    EXPECT_TRUE(unsettledCalls(timedRun("eager", {1}, slowStart({900 * kUs}, 29, 269 * kUs))));
    EXPECT_FALSE(unsettledCalls(timedRun("eager", {1}, constant(30, 269 * kUs))));
}

TEST(UnsettledCalls, SilentForASweepAndForAHandfulOfCalls) {
    cs::core::Run sweep =
        timedRun("default", {1}, slowStart({19000 * kUs, 15000 * kUs}, 28, 269 * kUs));
    ASSERT_TRUE(unsettledCalls(sweep));
    sweep.setting.sweep = true; // a slow call is a new input length there
    EXPECT_FALSE(unsettledCalls(sweep));
    EXPECT_FALSE(unsettledCalls(
        timedRun("default", {1}, slowStart({19000 * kUs, 15000 * kUs}, 3, 269 * kUs))));
}

TEST(UnsettledCalls, DroppingIsAChoiceThatCanBeUndone) {
    Report report =
        reportOf({timedRun("default", {1}, slowStart({19000 * kUs, 15000 * kUs}, 28, 269 * kUs)),
                  timedRun("eager", {1}, constant(30, 300 * kUs))});
    const auto all = report.runs[0].measuredLatencies();
    EXPECT_EQ(setDropUnsettled(report, true), 2);
    EXPECT_EQ(report.runs[0].droppedUnsettled, 2);
    EXPECT_EQ(report.runs[1].droppedUnsettled, 0);
    const auto kept = report.runs[0].measuredLatencies();
    EXPECT_EQ(kept, std::vector<int64_t>(all.begin() + 2, all.end()));
    // still found after dropping: the finding keeps saying what was dropped
    EXPECT_TRUE(unsettledCalls(report.runs[0]));
    EXPECT_EQ(setDropUnsettled(report, false), 0);
    EXPECT_EQ(report.runs[0].measuredLatencies(), all);
}
