#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

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

// Five long calls and blocks of one call each (torchvision's RAFT on CPU,
// rounded): 8% apart, but the block estimate lies among the calls themselves, so
// the two cannot be told apart; many tight calls can.
TEST(Crosscheck, NoVerdictWithinTheSpreadOfAFewCalls) {
    constexpr int64_t kMs = 1000 * kUs;
    cs::core::Run run = timedRun("default", {80'000 * kMs},
                                 {120 * kMs, 127 * kMs, 146 * kMs, 125 * kMs, 131 * kMs});
    run.crosscheckBlockCalls = 1;
    run.crosscheckBlockMeansNs = {138 * kMs, 137 * kMs, 140 * kMs, 139 * kMs};
    auto check = crosscheck(run);
    ASSERT_TRUE(check);
    EXPECT_GT(std::fabs(check->difference()), kCrosscheckTolerance);
    EXPECT_TRUE(check->withinNoise());
    EXPECT_FALSE(check->disagrees());
    EXPECT_NE(crosscheckVerdict(*check).find("within the per-call median's 95% interval"),
              std::string::npos)
        << crosscheckVerdict(*check);
    EXPECT_TRUE(withRule(advise(reportOf({run}), {}), "measure.disturbed").empty());

    // Thirty calls close together: the same 8% is beyond their median's interval.
    run = timedRun("default", {80'000 * kMs}, slowStart({}, 30, 127 * kMs));
    run.crosscheckBlockCalls = 1;
    run.crosscheckBlockMeansNs = {138 * kMs, 135 * kMs, 138 * kMs, 150 * kMs};
    check = crosscheck(run);
    ASSERT_TRUE(check);
    EXPECT_FALSE(check->withinNoise());
    EXPECT_TRUE(check->disagrees());
    EXPECT_EQ(withRule(advise(reportOf({run}), {}), "measure.disturbed").size(), 1u);
}

// A call in ten twice as slow (a quantize_dynamic MLP of 77 us on the 2-core
// VM had such a tail): blocks time the mean of back-to-back calls, 10% above
// the median, and so do the measured calls averaged over runs as long as a
// block. That is the calls' own tail, not a disturbance; blocks above that
// mean still are one.
TEST(Crosscheck, TheCallsOwnTailIsNoDisturbance) {
    std::vector<int64_t> calls;
    for (int i = 0; i < 100; ++i)
        calls.push_back(i % 10 == 9 ? 200 * kUs : 100 * kUs + (i % 3) * kUs);
    cs::core::Run run = timedRun("eager", {500 * kUs}, calls);
    run.crosscheckBlockCalls = 129;
    run.crosscheckBlockMeansNs = {110 * kUs, 112 * kUs, 109 * kUs};
    auto check = crosscheck(run);
    ASSERT_TRUE(check);
    EXPECT_TRUE(check->apart()) << crosscheckText(*check);
    EXPECT_EQ(check->groupCalls, 33) << "as long as a block, at most a third of the calls";
    EXPECT_NEAR(check->perCallGroupNs, 110.0 * kUs, 1.0 * kUs);
    EXPECT_TRUE(check->tailExplains());
    EXPECT_FALSE(check->disagrees());
    EXPECT_NE(crosscheckVerdict(*check).find("they agree as means"), std::string::npos)
        << crosscheckVerdict(*check);
    EXPECT_TRUE(withRule(advise(reportOf({run}), {}), "measure.disturbed").empty());

    run.crosscheckBlockMeansNs = {124 * kUs, 126 * kUs, 125 * kUs};
    check = crosscheck(run);
    ASSERT_TRUE(check);
    EXPECT_FALSE(check->tailExplains());
    EXPECT_TRUE(check->disagrees());
    EXPECT_EQ(withRule(advise(reportOf({run}), {}), "measure.disturbed").size(), 1u);

    // Blocks below the median: a tail cannot lower a mean.
    run.crosscheckBlockMeansNs = {94 * kUs, 93 * kUs, 95 * kUs};
    check = crosscheck(run);
    ASSERT_TRUE(check);
    EXPECT_TRUE(check->disagrees());
    // A tail that lifts the means by more than a quarter: no steady time.
    std::vector<int64_t> heavy = calls;
    for (size_t i = 4; i < heavy.size(); i += 10)
        heavy[i] = 400 * kUs;
    run = timedRun("eager", {500 * kUs}, heavy);
    run.crosscheckBlockCalls = 129;
    run.crosscheckBlockMeansNs = {140 * kUs, 141 * kUs, 139 * kUs};
    check = crosscheck(run);
    ASSERT_TRUE(check);
    EXPECT_GT(check->perCallGroupNs, 1.25 * check->perCallMedianNs);
    EXPECT_TRUE(check->disagrees());

    // Blocks of one call: the runs are single calls, their median the median.
    run = timedRun("eager", {500 * kUs}, calls);
    run.crosscheckBlockCalls = 1;
    run.crosscheckBlockMeansNs = {110 * kUs, 112 * kUs, 109 * kUs};
    check = crosscheck(run);
    ASSERT_TRUE(check);
    EXPECT_EQ(check->groupCalls, 1);
    EXPECT_FALSE(check->tailExplains());
    EXPECT_TRUE(check->disagrees());
}

// Calls that kept getting faster through the measure phase (a DETR on the
// 2-core VM after 5 warmup calls: quarters 1.82, 1.67, 1.58, 1.62 ms, blocks
// after them 1.44 ms): the median holds the slower start. Blocks above the
// median, or the same blocks after level calls, are a disturbance.
TEST(Crosscheck, CallsStillGettingFasterAreNoDisturbance) {
    std::vector<int64_t> falling;
    for (int64_t i = 0; i < 100; ++i)
        falling.push_back(1800 * kUs - 2 * kUs * i + (i % 4) * 20 * kUs);
    cs::core::Run run = timedRun("default", {20'000'000 * kUs}, falling);
    run.crosscheckBlockCalls = 6;
    run.crosscheckBlockMeansNs = {1620 * kUs, 1600 * kUs, 1610 * kUs, 1590 * kUs};
    auto check = crosscheck(run);
    ASSERT_TRUE(check);
    EXPECT_TRUE(check->apart()) << crosscheckText(*check);
    EXPECT_LT(check->trendZ, kFallingTrendZ);
    EXPECT_NEAR(check->firstQuarterNs, 1804 * kUs, 5 * kUs);
    EXPECT_NEAR(check->lastQuarterNs, 1658 * kUs, 5 * kUs);
    EXPECT_TRUE(check->driftExplains());
    EXPECT_TRUE(check->apartByDrift());
    EXPECT_FALSE(check->disagrees());
    EXPECT_NE(crosscheckVerdict(*check).find("apart, as the measured calls kept getting faster"),
              std::string::npos)
        << crosscheckVerdict(*check);
    const auto report = reportOf({run});
    EXPECT_TRUE(withRule(advise(report, {}), "measure.disturbed").empty());
    const auto unsettled = withRule(advise(report, {}), "measure.unsettled");
    ASSERT_EQ(unsettled.size(), 1u);
    EXPECT_NE(unsettled[0].title.find("the measured calls kept getting faster"), std::string::npos)
        << unsettled[0].title;
    EXPECT_NE(unsettled[0].remedy.find("--warmup 105 or more"), std::string::npos)
        << unsettled[0].remedy;

    // Blocks slower than the calls, or below the last of them by more than
    // the calls fell (8%, and 5% more): no fall of theirs explains that.
    for (const int64_t blockUs : {1900, 1430}) {
        run.crosscheckBlockMeansNs = std::vector<double>(3, static_cast<double>(blockUs * kUs));
        check = crosscheck(run);
        ASSERT_TRUE(check);
        EXPECT_FALSE(check->driftExplains()) << blockUs;
        EXPECT_TRUE(check->disagrees()) << blockUs;
    }
    run.crosscheckBlockMeansNs = std::vector<double>(3, 1450.0 * kUs);
    EXPECT_TRUE(crosscheck(run)->driftExplains());

    // Level calls, as slow as the falling ones' median: no trend, disturbed.
    std::vector<int64_t> level;
    for (int64_t i = 0; i < 100; ++i)
        level.push_back(1700 * kUs + (i % 4) * 20 * kUs);
    run = timedRun("default", {20'000'000 * kUs}, level);
    run.crosscheckBlockCalls = 6;
    run.crosscheckBlockMeansNs = {1620 * kUs, 1600 * kUs, 1610 * kUs, 1590 * kUs};
    check = crosscheck(run);
    ASSERT_TRUE(check);
    EXPECT_GT(check->trendZ, kFallingTrendZ);
    EXPECT_TRUE(check->disagrees());
    EXPECT_TRUE(withRule(advise(reportOf({run}), {}), "measure.unsettled").empty());
    EXPECT_EQ(withRule(advise(reportOf({run}), {}), "measure.disturbed").size(), 1u);
}

TEST(UnsettledCalls, CountsTheLeadingCallsAboveTheBand) {
    // The case: the first 4 of the measured calls at 11-19 ms against
    // ~270 us, far beyond what the step into the measure phase costs.
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

// The probe's last warmup calls run as the measured ones do: when the last
// was already near steady, slow first measured calls are the probe's step into
// the measure phase (a transformers DeBERTa on the 2-core VM: warmup ending
// 100, 98 µs, then 185, 136, 109, 106 µs measured, 85.8 µs median), not a
// warmup too short.
TEST(UnsettledCalls, SilentWhenTheWarmupHadSettledAlready) {
    const auto measured =
        slowStart({185 * kUs, 136 * kUs, 109 * kUs, 106 * kUs, 100 * kUs}, 40, 86 * kUs);
    EXPECT_FALSE(
        unsettledCalls(timedRun("default", {9'000'000 * kUs, 100 * kUs, 98 * kUs}, measured)));
    // The warmup still well above the median when it ended: too short.
    const auto u =
        unsettledCalls(timedRun("default", {9'000'000 * kUs, 180 * kUs, 150 * kUs}, measured));
    ASSERT_TRUE(u);
    EXPECT_EQ(u->calls, 5);
}

// The front ends ask for the input sweep by default; its calls come after the
// measured ones and are not among them, so it changes nothing here.
TEST(UnsettledCalls, SaidWithTheSweepOnAndSilentForAHandfulOfCalls) {
    cs::core::Run sweep =
        timedRun("default", {1}, slowStart({19000 * kUs, 15000 * kUs}, 28, 269 * kUs));
    sweep.setting.sweep = true;
    ASSERT_TRUE(unsettledCalls(sweep));
    EXPECT_EQ(unsettledCalls(sweep)->calls, 2);
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

// A guard that fails every 20 calls (tests/probe/models/periodic_guard.py,
// recorded): 21 warmup calls, 60 measured; torch recompiled in call 20 and
// in measured calls 19, 39 and 59, then in the cross-check's blocks.
TEST(RecompiledCalls, RealStreamNamesTheMeasuredCallsThatCompiled) {
    cs::core::Setting setting;
    setting.backend = "eager";
    setting.warmup = 21;
    const cs::core::Run run = fixtureRun("recompiles_mid_measure.jsonl", setting);
    const auto calls = recompiledMeasuredCalls(run);
    ASSERT_EQ(calls.size(), 3u);
    EXPECT_EQ(calls[0].measuredCall, 19);
    EXPECT_EQ(calls[1].measuredCall, 39);
    EXPECT_EQ(calls[2].measuredCall, 59);
    const auto measured = run.measuredLatencies();
    std::vector<int64_t> sorted = measured;
    std::sort(sorted.begin(), sorted.end());
    for (const auto& c : calls) {
        EXPECT_EQ(c.latencyNs, measured[static_cast<size_t>(c.measuredCall - 1)]);
        EXPECT_GT(c.latencyNs, 5 * sorted[sorted.size() / 2]) << "a compile is slow";
    }
    ASSERT_GE(run.recompiles.size(), 5u);
    EXPECT_EQ(recompileWhenText(run, run.recompiles[0]), "call 20 (warmup)");
    EXPECT_EQ(recompileWhenText(run, run.recompiles[1]), "measured call 19");
    EXPECT_EQ(recompileWhenText(run, run.recompiles[4]), "the cross-check's blocks");
    EXPECT_EQ(run.recompiles[4].callIndex, -1);
}

TEST(RecompiledCalls, WhenText) {
    cs::core::Run run = timedRun("default", {900 * kUs, 300 * kUs}, constant(5, 200 * kUs));
    cs::core::Recompile rc;
    EXPECT_EQ(recompileWhenText(run, rc), "") << "nothing known";
    rc.phase = "sweep";
    EXPECT_EQ(recompileWhenText(run, rc), "sweep");
    rc.phase = "profile"; // an older probe's blocks, or the window itself
    EXPECT_EQ(recompileWhenText(run, rc), "the profiled window");
    rc.phase = "sweep";
    rc.callIndex = 0;
    EXPECT_EQ(recompileWhenText(run, rc), "the first call");
    rc.callIndex = 1;
    EXPECT_EQ(recompileWhenText(run, rc), "call 2 (warmup)");
    rc.callIndex = 6;
    EXPECT_EQ(recompileWhenText(run, rc), "measured call 5");
    rc.callIndex = 40; // a call not (yet) among the iterations
    EXPECT_EQ(recompileWhenText(run, rc), "call 41 (sweep)");
    // The limit event is no compile: not a recompiled call.
    rc.callIndex = 4;
    rc.limitHit = true;
    run.recompiles.push_back(rc);
    EXPECT_TRUE(recompiledMeasuredCalls(run).empty());
}

TEST(Crosscheck, NoVerdictWhenTorchRecompiledWhileItTimed) {
    cs::core::Run run = timedRun("default", {500 * kUs}, constant(20, 200 * kUs));
    run.crosscheckBlockCalls = 50;
    run.crosscheckBlockMeansNs = {280 * kUs, 281 * kUs, 279 * kUs}; // eager past the limit
    ASSERT_TRUE(crosscheck(run)->disagrees());
    cs::core::Recompile rc;
    rc.phase = "warmup";
    run.recompiles.push_back(rc);
    EXPECT_TRUE(crosscheck(run)->disagrees()) << "a warmup recompile is before both";
    for (const char* phase : {"measure", "crosscheck", "profile"}) {
        run.recompiles.back().phase = phase;
        const auto check = crosscheck(run);
        ASSERT_TRUE(check);
        EXPECT_FALSE(check->disagrees()) << phase;
        EXPECT_NE(crosscheckVerdict(*check).find("not comparable"), std::string::npos) << phase;
    }
}
