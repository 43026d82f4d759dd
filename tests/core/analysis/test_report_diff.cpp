// The report diff on hand-made reports with known changes.
#include <gtest/gtest.h>

#include "core/analysis/report_diff.h"
#include "tests/core/report_capture.h"
#include "tests/core/sample_reports.h"

using namespace cs::core;
using cs::test::latencies;
using cs::test::runWithLatencies;

namespace {

constexpr int64_t kMs = 1000000;

Run withPeak(Run run, int64_t bytes) {
    run.memory.push_back(
        {"host_rss", {{1, bytes / 2}, {2, bytes}, {3, bytes / 3}}, {{"measure", bytes}}});
    return run;
}

// A: eager 1 ms, default 0.5 ms with one print break. B: the same model after
// a change that made default 30% slower, added an .item() break and 50% memory.
std::pair<Report, Report> beforeAndAfter() {
    Report a, b;
    a.environment.torch = "2.14.0";
    b.environment.torch = "2.15.0";
    const auto warm = std::vector<int64_t>{2000 * kMs, kMs / 2, kMs / 2};
    a.runs.push_back(
        withPeak(runWithLatencies("eager", {kMs, kMs}, latencies(kMs, kMs / 50, 200)), 100 << 20));
    b.runs.push_back(
        withPeak(runWithLatencies("eager", {kMs, kMs}, latencies(kMs, kMs / 50, 200)), 100 << 20));
    Run da =
        withPeak(runWithLatencies("default", warm, latencies(kMs / 2, kMs / 100, 200)), 200 << 20);
    da.graphBreaks.push_back(cs::test::graphBreak("/home/a/model.py", 12, "print", 0));
    Run db = withPeak(runWithLatencies("default", warm, latencies(kMs * 65 / 100, kMs / 100, 200)),
                      300 << 20);
    db.graphBreaks.push_back(cs::test::graphBreak("/srv/b/model.py", 12, "print", 0));
    db.graphBreaks.push_back(cs::test::graphBreak("/srv/b/model.py", 20, "Tensor.item()", 1));
    a.runs.push_back(da);
    b.runs.push_back(db);
    a.runs.push_back(runWithLatencies("reduce-overhead", warm, latencies(kMs / 2, kMs / 100, 50)));
    b.runs.push_back(runWithLatencies("max-autotune", warm, latencies(kMs / 2, kMs / 100, 50)));
    return {a, b};
}

const SettingDiff& setting(const ReportDiff& diff, const std::string& label) {
    for (const auto& s : diff.settings) {
        if (s.label == label)
            return s;
    }
    throw std::runtime_error("no setting " + label);
}

} // namespace

TEST(ReportDiff, FindsTheKnownRegression) {
    auto [a, b] = beforeAndAfter();
    cs::test::writeAndKeepReport(a, "diff_before");
    cs::test::writeAndKeepReport(b, "diff_after");
    const ReportDiff diff = diffReports(a, b, {10.0});
    ASSERT_EQ(diff.settings.size(), 4u);

    const SettingDiff& eager = setting(diff, "eager");
    EXPECT_FALSE(eager.hasRegression());
    EXPECT_NEAR(*eager.median.percent, 0.0, 1e-9);

    const SettingDiff& d = setting(diff, "default");
    EXPECT_TRUE(d.median.regression);
    EXPECT_NEAR(*d.median.percent, 30.0, 0.01);
    EXPECT_TRUE(d.peakMemory.regression);
    EXPECT_NEAR(*d.peakMemory.percent, 50.0, 0.01);
    EXPECT_FALSE(d.warmup.regression);
    EXPECT_TRUE(d.breaks.regression);
    EXPECT_EQ(d.breaks.a, 1);
    EXPECT_EQ(d.breaks.b, 2);
    // The print break is the same break (same file name and line) on two machines.
    ASSERT_EQ(d.breaksOnlyInB.size(), 1u);
    EXPECT_EQ(d.breaksOnlyInB[0].location, "model.py:20");
    EXPECT_EQ(d.breaksOnlyInB[0].reason, "Tensor.item()");
    EXPECT_TRUE(d.breaksOnlyInA.empty());
    EXPECT_EQ(d.regressions.size(), 3u);

    EXPECT_TRUE(setting(diff, "reduce-overhead").inA);
    EXPECT_FALSE(setting(diff, "reduce-overhead").inB);
    EXPECT_TRUE(setting(diff, "max-autotune").inB);
    EXPECT_FALSE(setting(diff, "max-autotune").inA);
    EXPECT_EQ(diff.regressionCount(), 3);
    ASSERT_EQ(diff.environment.size(), 1u);
    EXPECT_EQ(diff.environment[0].field, "torch");

    const std::string text = formatDiffText(diff, "before.json", "after.json");
    EXPECT_NE(text.find("REGRESSION"), std::string::npos) << text;
    EXPECT_NE(text.find("new break in B:  model.py:20"), std::string::npos) << text;
    EXPECT_NE(text.find("torch: 2.14.0 → 2.15.0"), std::string::npos) << text;
    EXPECT_NE(text.find("reduce-overhead: only in A"), std::string::npos) << text;
    EXPECT_NE(text.find("3 regressions beyond the threshold"), std::string::npos) << text;

    // Run again with malloc told to keep its memory (--env): the diff says so.
    b.environment.probeEnvironment = {{"MALLOC_ARENA_MAX", "2"}};
    const std::string tuned = formatDiffText(diffReports(a, b), "before.json", "after.json");
    EXPECT_NE(tuned.find("probe environment: — → MALLOC_ARENA_MAX=2"), std::string::npos) << tuned;
}

TEST(ReportDiff, ThresholdDecides) {
    auto [a, b] = beforeAndAfter();
    const ReportDiff diff = diffReports(a, b, {60.0});
    const SettingDiff& d = setting(diff, "default");
    EXPECT_FALSE(d.median.regression);     // +30% < 60%
    EXPECT_FALSE(d.peakMemory.regression); // +50% < 60%
    EXPECT_TRUE(d.breaks.regression);      // a new break is a regression at any threshold
    EXPECT_EQ(diff.regressionCount(), 1);
}

TEST(ReportDiff, NoiseIsNotARegression) {
    Report a, b;
    // +15% median, but both runs are so noisy that their 95% intervals overlap.
    a.runs.push_back(runWithLatencies("default", {kMs}, latencies(kMs, kMs * 9 / 10, 9)));
    b.runs.push_back(
        runWithLatencies("default", {kMs}, latencies(kMs * 115 / 100, kMs * 9 / 10, 9)));
    const ReportDiff diff = diffReports(a, b, {10.0});
    const SettingDiff& d = diff.settings[0];
    EXPECT_NEAR(*d.median.percent, 15.0, 0.01);
    EXPECT_FALSE(d.median.regression);
    EXPECT_NE(d.median.note.find("overlap"), std::string::npos);
    EXPECT_EQ(diff.regressionCount(), 0);
}

// --repeat in both: B's first probe is 30% slower with its interval apart,
// but B's other probe was as fast as A's: processes differ, no regression.
// With every probe of B slower than every probe of A, it is one.
TEST(ReportDiff, OverRepeatedProbesEveryProbeMustAgree) {
    auto [a, b] = beforeAndAfter();
    auto probe = [](int round, int64_t ns) {
        RepeatProbe p;
        p.round = round;
        p.status = RunStatus::Ok;
        p.latencyNs = latencies(ns, kMs / 100, 50);
        return p;
    };
    a.runs[1].repeats = {probe(1, kMs * 55 / 100)};
    b.runs[1].repeats = {probe(1, kMs * 52 / 100)};
    ReportDiff diff = diffReports(a, b, {10.0});
    const SettingDiff* d = &setting(diff, "default");
    ASSERT_TRUE(d->probesA && d->probesB);
    EXPECT_FALSE(d->median.regression);
    EXPECT_FALSE(d->medianSeparate);
    EXPECT_NE(d->median.note.find("their probes' medians overlap (A 500 µs to 550 µs, B 520 µs "
                                  "to 650 µs)"),
              std::string::npos)
        << d->median.note;
    b.runs[1].repeats = {probe(1, kMs * 62 / 100)};
    diff = diffReports(a, b, {10.0});
    d = &setting(diff, "default");
    EXPECT_TRUE(d->medianSeparate);
    EXPECT_TRUE(d->median.regression);
}

TEST(ReportDiff, FasterIsBetterAndAFailedSettingIsARegression) {
    Report a, b;
    a.runs.push_back(runWithLatencies("default", {kMs}, latencies(kMs, kMs / 100, 100)));
    b.runs.push_back(runWithLatencies("default", {kMs}, latencies(kMs / 2, kMs / 100, 100)));
    a.runs.push_back(runWithLatencies("max-autotune", {kMs}, latencies(kMs, kMs / 100, 100)));
    cs::core::Run crashed;
    crashed.setting.mode = "max-autotune";
    crashed.status = RunStatus::Crashed;
    b.runs.push_back(crashed);
    const ReportDiff diff = diffReports(a, b);
    EXPECT_TRUE(diff.settings[0].median.improvement);
    EXPECT_FALSE(diff.settings[0].hasRegression());
    EXPECT_TRUE(diff.settings[1].statusRegression);
    EXPECT_EQ(diff.regressionCount(), 1);
    EXPECT_NE(formatDiffText(diff, "a", "b").find("better"), std::string::npos);
}

TEST(ReportDiff, SameLabelTwiceMatchesInOrder) {
    Report a, b;
    for (int i = 0; i < 2; ++i) {
        a.runs.push_back(runWithLatencies("default", {kMs}, latencies(kMs, kMs / 100, 50)));
        b.runs.push_back(runWithLatencies("default", {kMs}, latencies(kMs, kMs / 100, 50)));
    }
    b.runs.push_back(runWithLatencies("default", {kMs}, latencies(kMs, kMs / 100, 50)));
    const ReportDiff diff = diffReports(a, b);
    ASSERT_EQ(diff.settings.size(), 3u);
    EXPECT_TRUE(diff.settings[0].inA && diff.settings[0].inB);
    EXPECT_TRUE(diff.settings[1].inA && diff.settings[1].inB);
    EXPECT_TRUE(!diff.settings[2].inA && diff.settings[2].inB);
}

TEST(ReportDiff, ChangingTheThresholdRemarksWithoutRecomputing) {
    auto [a, b] = beforeAndAfter();
    ReportDiff diff = diffReports(a, b, {10.0});
    EXPECT_EQ(diff.regressionCount(), 3);
    markRegressions(diff, 60.0);
    EXPECT_EQ(diff.regressionCount(), 1);
    EXPECT_DOUBLE_EQ(diff.thresholdPercent, 60.0);
    markRegressions(diff, 40.0); // memory +50% counts again, median +30% not
    EXPECT_EQ(diff.regressionCount(), 2);
    EXPECT_TRUE(setting(diff, "default").peakMemory.regression);
    EXPECT_FALSE(setting(diff, "default").median.regression);
}

// Outputs that came to differ from eager's are a regression at any
// threshold; a difference float64 blames on eager's rounding is not.
TEST(ReportDiff, OutputsThatCameToDifferAreARegression) {
    auto check = [](double relative, std::optional<double> compiledError) {
        OutputsCheck c;
        c.status = relative > 1e-3 ? "differ" : "match";
        c.precision = "float32";
        c.tolerance = 1e-3;
        OutputLeaf leaf;
        leaf.path = "output";
        leaf.kind = "values";
        leaf.relative = relative;
        leaf.differs = relative > 1e-3;
        c.worst = {leaf};
        if (compiledError) {
            c.float64EagerError = 0.05;
            c.float64CompiledError = compiledError;
        }
        return c;
    };
    Report a, b;
    for (Report* r : {&a, &b})
        for (const char* mode : {"default", "max-autotune", "reduce-overhead"})
            r->runs.push_back(runWithLatencies(mode, {kMs}, latencies(kMs, kMs / 100, 100)));
    a.runs[0].outputsCheck = check(1e-7, std::nullopt);
    b.runs[0].outputsCheck = check(0.032, std::nullopt);
    a.runs[1].outputsCheck = check(1e-7, std::nullopt);
    b.runs[1].outputsCheck = check(0.07, 0.003);       // nearer float64: eager's rounding
    b.runs[2].outputsCheck = check(0.2, std::nullopt); // A had no check
    const ReportDiff diff = diffReports(a, b, {50});
    EXPECT_TRUE(diff.settings[0].outputsRegression);
    EXPECT_EQ(diff.settings[0].regressions,
              std::vector<std::string>{"outputs agree → differ 3.2% against eager's"});
    EXPECT_FALSE(diff.settings[1].outputsRegression);
    EXPECT_EQ(diff.settings[1].outputsB, "differ 7.0%, nearer exact");
    EXPECT_TRUE(diff.settings[2].outputsRegression);
    EXPECT_EQ(diff.settings[2].regressions.front(),
              "outputs unchecked → differ 20% against eager's");
    const std::string text = formatDiffText(diff, "a", "b");
    EXPECT_NE(text.find("    outputs:         agree → differ 3.2%  REGRESSION"), std::string::npos)
        << text;
}
