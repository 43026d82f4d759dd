// Rules 6-7: a disturbed measurement (the cross-check disagrees) and a warmup
// too short (the first measured calls still above the steady-state band).
#include <gtest/gtest.h>

#include "tests/core/advice_reports.h"

using namespace advice_test;

namespace {

constexpr int64_t kUs = 1000;

Run checkedRun(int64_t perCallNs, std::vector<double> blockMeans) {
    cs::core::Run run = timedRun("default", {50000 * kUs}, constant(40, perCallNs));
    run.crosscheckBlockCalls = 50;
    run.crosscheckBlockMeansNs = std::move(blockMeans);
    run.probe.threads = 2;
    run.probe.cpuAffinity = {0, 1};
    run.appCpuMeasureNs = 3000 * kUs;
    return run;
}

} // namespace

TEST(DisturbedRule, FiresWhenBlocksAndPerCallDisagree) {
    // per-call 230 us against blocks of 210 us: +9.5%, as a busy machine gives
    const auto report = reportOf({timedRun("eager", {1}, constant(40, 300 * kUs)),
                                  checkedRun(230 * kUs, {210e3, 211e3, 209e3})});
    const auto findings = withRule(advise(report, {}), "measure.disturbed");
    ASSERT_EQ(findings.size(), 1u);
    const auto& f = findings[0];
    EXPECT_EQ(f.run, 1);
    EXPECT_EQ(f.tab, EvidenceTab::Latency);
    EXPECT_NE(f.evidence[0].find("+9.5%"), std::string::npos) << f.evidence[0];
    EXPECT_NE(f.remedy.find("--threads"), std::string::npos);
    EXPECT_NE(f.remedy.find("--iters"), std::string::npos);
    bool namesAppCpu = false;
    for (const auto& e : f.evidence)
        namesAppCpu =
            namesAppCpu || e.find("compilescope itself used 3.00 ms") != std::string::npos;
    EXPECT_TRUE(namesAppCpu);
}

TEST(DisturbedRule, QuietWhenTheyAgreeOrThereIsNoCrosscheck) {
    const auto report = reportOf({timedRun("eager", {1}, constant(40, 300 * kUs)),
                                  checkedRun(230 * kUs, {225e3, 226e3, 224e3})});
    EXPECT_TRUE(withRule(advise(report, {}), "measure.disturbed").empty());
}

TEST(UnsettledRule, SaysHowManyCallsItTookToSettle) {
    std::vector<int64_t> measured{19000 * kUs, 15000 * kUs, 11000 * kUs, 12000 * kUs};
    for (int i = 0; i < 6; ++i)
        measured.push_back((269 + i) * kUs);
    cs::core::Run run = timedRun("default", {50000 * kUs, 900 * kUs}, measured);
    run.setting.warmup = 2;
    const auto findings = withRule(advise(reportOf({run}), {}), "measure.unsettled");
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_NE(findings[0].title.find("first 4 measured calls"), std::string::npos)
        << findings[0].title;
    EXPECT_NE(findings[0].remedy.find("--warmup 6"), std::string::npos) << findings[0].remedy;
    EXPECT_NE(findings[0].remedy.find("--drop-unsettled"), std::string::npos);

    run.droppedUnsettled = 4;
    const auto dropped = withRule(advise(reportOf({run}), {}), "measure.unsettled");
    ASSERT_EQ(dropped.size(), 1u);
    EXPECT_NE(dropped[0].evidence.back().find("4 of them are left out"), std::string::npos);

    EXPECT_TRUE(withRule(advise(reportOf({timedRun("default", {1}, constant(10, 269 * kUs))}), {}),
                         "measure.unsettled")
                    .empty());
}
