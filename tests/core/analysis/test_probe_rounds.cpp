// Repeated probes (--repeat): a speedup judged over every round, the spread
// of a setting's probes, and their place in the JSON report.
#include <gtest/gtest.h>

#include "core/analysis/comparison.h"
#include "core/analysis/comparison_text.h"
#include "core/analysis/probe_rounds.h"
#include "core/report/report_json.h"

using namespace cs::core;

namespace {

// Measured calls around `ns` with a little noise, enough for a tight 95% interval.
std::vector<int64_t> callsAround(int64_t ns) {
    std::vector<int64_t> calls;
    for (int i = 0; i < 60; ++i)
        calls.push_back(ns + (i % 5) - 2);
    return calls;
}

cs::core::Run runOf(const std::string& mode, int64_t firstNs,
                    const std::vector<int64_t>& repeatNs) {
    cs::core::Run run;
    run.setting.mode = mode;
    run.status = RunStatus::Ok;
    run.probe.device = "cpu";
    int index = 0;
    run.iterations.push_back({index++, firstNs * 50, firstNs * 50, 0, true, true});
    for (auto ns : callsAround(firstNs))
        run.iterations.push_back({index++, ns, ns, 0, false, false});
    int round = 1;
    for (auto ns : repeatNs) {
        RepeatProbe probe;
        probe.round = round++;
        probe.status = RunStatus::Ok;
        probe.latencyNs = callsAround(ns);
        run.repeats.push_back(probe);
    }
    return run;
}

Report reportOf(std::vector<Run> runs) {
    Report report;
    report.runs = std::move(runs);
    return report;
}

} // namespace

TEST(ProbeRounds, WithoutRepeatsTheSpeedupIsThePairs) {
    const auto c = compareRuns(reportOf({runOf("eager", 2000, {}), runOf("default", 1000, {})}));
    ASSERT_TRUE(c.rows[1].speedup);
    EXPECT_EQ(c.rows[1].speedup->rounds, 1);
    EXPECT_TRUE(c.rows[1].speedup->significant);
    EXPECT_NE(comparisonTable(c).find("speedup (95% CI)"), std::string::npos);
}

TEST(ProbeRounds, EveryRoundFasterKeepsTheGainAndWidensTheInterval) {
    // Rounds: 2000/1000 = 2, 2400/1000 = 2.4, 2000/1250 = 1.6.
    const auto c = compareRuns(
        reportOf({runOf("eager", 2000, {2400, 2000}), runOf("default", 1000, {1000, 1250})}));
    const auto& sp = *c.rows[1].speedup;
    EXPECT_EQ(sp.rounds, 3);
    EXPECT_NEAR(sp.value, 2.0, 0.01); // the first pair's, as the median column shows
    EXPECT_NEAR(sp.roundsLow, 1.6, 0.01);
    EXPECT_NEAR(sp.roundsHigh, 2.4, 0.01);
    EXPECT_NEAR(sp.low, 1.6, 0.01);
    EXPECT_NEAR(sp.high, 2.4, 0.01);
    EXPECT_TRUE(sp.significant);
    EXPECT_FALSE(c.rows[1].noSignificantGain());
    const std::string table = comparisonTable(c);
    EXPECT_NE(table.find("speedup (all probes)"), std::string::npos) << table;
    EXPECT_NE(table.find("measured by 3 probes, medians 1.00 µs to 1.25 µs (1.25×), one per round"),
              std::string::npos)
        << table;
    EXPECT_NE(speedupBasis(sp).find("the same side of 1× in all 3 probe rounds, whose ratios ran "
                                    "1.60× to 2.40×"),
              std::string::npos)
        << speedupBasis(sp);
}

TEST(ProbeRounds, ARoundOnTheOtherSideOfOneIsNoGain) {
    // The first pair says 1.5× faster; the second round 0.9×: processes differ.
    const auto c =
        compareRuns(reportOf({runOf("eager", 1500, {900}), runOf("default", 1000, {1000})}));
    const auto& row = c.rows[1];
    ASSERT_TRUE(row.speedup);
    EXPECT_EQ(row.speedup->rounds, 2);
    EXPECT_FALSE(row.speedup->significant);
    EXPECT_TRUE(row.noSignificantGain());
    EXPECT_NE(breakEvenDetail(row).find("interval over 2 probe rounds"), std::string::npos)
        << breakEvenDetail(row);
    EXPECT_NE(comparisonSummary(c).find("within noise over 2 probe rounds, whose ratios ran "
                                        "0.90× to 1.50×"),
              std::string::npos)
        << comparisonSummary(c);
}

TEST(ProbeRounds, AFailedRepeatIsLeftOutAndNamed) {
    cs::core::Run eager = runOf("eager", 2000, {2000});
    cs::core::Run compiled = runOf("default", 1000, {});
    RepeatProbe failed;
    failed.round = 1;
    failed.status = RunStatus::Timeout;
    failed.error = "timeout: stopped after 900 s";
    compiled.repeats.push_back(failed);
    EXPECT_EQ(probeMedians(compiled).size(), size_t(1));
    EXPECT_FALSE(probeSpread(compiled));
    const auto c = compareRuns(reportOf({eager, compiled}));
    EXPECT_EQ(c.rows[1].speedup->rounds, 1); // no round both measured but the first
    bool named = false;
    for (const auto& note : c.rows[1].notes)
        named |= note.find("its probe 2 (a repeat) timeout: timeout: stopped after 900 s") !=
                 std::string::npos;
    EXPECT_TRUE(named);
}

TEST(ProbeRounds, RoundsPairByTheirNumberNotTheirPlace) {
    // eager's round 1 failed: default's round 1 has nothing to pair with.
    cs::core::Run eager = runOf("eager", 2000, {});
    RepeatProbe failed;
    failed.round = 1;
    failed.status = RunStatus::Crashed;
    eager.repeats.push_back(failed);
    RepeatProbe second;
    second.round = 2;
    second.status = RunStatus::Ok;
    second.latencyNs = callsAround(3000);
    eager.repeats.push_back(second);
    const cs::core::Run compiled = runOf("default", 1000, {500, 1000});
    const Speedup sp = acrossRounds(eager, compiled, {2.0, 1.9, 2.1, true});
    EXPECT_EQ(sp.rounds, 2); // rounds 0 and 2
    EXPECT_NEAR(sp.roundsHigh, 3.0, 0.01);
}

TEST(ProbeRounds, RepeatsRoundTripThroughTheJsonReport) {
    cs::core::Run run = runOf("default", 1000, {1100});
    run.repeats.front().hostReference = {5000, 5100};
    RepeatProbe failed;
    failed.round = 2;
    failed.status = RunStatus::Failed;
    failed.error = "model_raised: boom";
    run.repeats.push_back(failed);
    Report report = reportOf({runOf("eager", 2000, {2100}), run});
    const auto j = reportToJson(report);
    const auto& repeats = j["runs"][1]["latency"]["repeats"];
    ASSERT_EQ(repeats.size(), 2u);
    EXPECT_EQ(repeats[1]["status"], "failed");
    EXPECT_EQ(j["comparison"]["rows"][1]["speedup"]["rounds"], 2);
    const auto back = readReportJson(j.dump(), "repeats.json");
    ASSERT_TRUE(back.ok) << back.error;
    ASSERT_EQ(back.report.runs.size(), 2u);
    EXPECT_EQ(back.report.runs[1].repeats, report.runs[1].repeats);
}
