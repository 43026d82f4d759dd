// perf.page_faults: memory given back to the OS and faulted in again on every
// call, and perf.no_gain's note when a compiled setting faults and eager does not.
#include <gtest/gtest.h>

#include "core/analysis/page_faults.h"
#include "tests/core/advice_reports.h"

using namespace advice_test;

namespace {

constexpr int64_t kMs = 1'000'000;
constexpr int kCalls = 40;

// A run of 40 calls at `medianNs` whose measured calls took `faultsPerCall`
// page faults and `sysPerCallNs` of the kernel's CPU each.
cs::core::Run faultingRun(const std::string& mode, int64_t medianNs, int64_t faultsPerCall,
                          int64_t sysPerCallNs, std::string allocator = "glibc") {
    cs::core::Run run = timedRun(mode, {1000 * kMs}, constant(kCalls, medianNs));
    run.measureHostFaults = {
        kCalls, faultsPerCall * kCalls, 0, sysPerCallNs * kCalls, medianNs * kCalls,
        4096,   std::move(allocator),   {}};
    return run;
}

} // namespace

TEST(PageFaults, PerCallFiguresAndTheirText) {
    const cs::core::Run run = faultingRun("default", 40 * kMs, 4735, 12 * kMs);
    const auto faults = cs::core::pageFaults(run);
    ASSERT_TRUE(faults);
    EXPECT_DOUBLE_EQ(faults->perCall, 4735);
    EXPECT_DOUBLE_EQ(faults->bytesPerCall, 4735.0 * 4096);
    EXPECT_DOUBLE_EQ(faults->share(), 0.3);
    EXPECT_TRUE(faults->costly());
    EXPECT_EQ(cs::core::pageFaultsText(*faults),
              "4,735 page faults per call (18.5 MiB of fresh pages), 12.0 ms of the kernel's CPU "
              "per call (30% of the median); glibc malloc");
    // Few faults, or a kernel CPU that is a small share of the call: not costly.
    EXPECT_FALSE(cs::core::pageFaults(faultingRun("default", 40 * kMs, 40, 12 * kMs))->costly());
    EXPECT_FALSE(cs::core::pageFaults(faultingRun("default", 40 * kMs, 4735, 3 * kMs))->costly());
    const auto quiet = cs::core::pageFaults(faultingRun("eager", 32 * kMs, 1, 0));
    EXPECT_EQ(cs::core::pageFaultsText(*quiet), "1 page fault per call (4.00 KiB of fresh pages); "
                                                "glibc malloc");
    // Faults counted over calls that recompiled are the compiler's as much as
    // malloc's: told, and not costly.
    cs::core::Run recompiling = faultingRun("default", 40 * kMs, 4735, 12 * kMs);
    recompiling.recompiles.push_back(
        {"forward", "2/3: t0 == 1.5", 4, "", false, 8, "", "measure", 3});
    recompiling.recompiles.push_back(
        {"forward", "2/0: t0 == 1.2", 1, "", false, 8, "", "warmup", 1});
    const auto compiled = cs::core::pageFaults(recompiling);
    EXPECT_EQ(compiled->recompiles, 1);
    EXPECT_FALSE(compiled->costly());
    EXPECT_NE(cs::core::pageFaultsText(*compiled).find(
                  "counted over calls that recompiled 1 time, so the compiler's pages are in it"),
              std::string::npos)
        << cs::core::pageFaultsText(*compiled);
    EXPECT_TRUE(
        withRule(advise(reportOf({faultingRun("eager", 32 * kMs, 2, kMs / 10), recompiling}), {}),
                 "perf.page_faults")
            .empty());
    // A run without host_faults (an older report) has none.
    EXPECT_FALSE(cs::core::pageFaults(timedRun("default", {1}, constant(kCalls, kMs))));
}

TEST(PageFaultRule, NamesTheFaultingSettingWithEagerForContrastAndSaysHowToKeepTheMemory) {
    const auto report = reportOf({faultingRun("eager", 32 * kMs, 2, kMs / 10),
                                  faultingRun("default", 40 * kMs, 4735, 12 * kMs)});
    const auto findings = withRule(advise(report, {}), "perf.page_faults");
    ASSERT_EQ(findings.size(), 1u);
    const auto& f = findings[0];
    EXPECT_EQ(f.run, 1);
    EXPECT_EQ(f.tab, EvidenceTab::Latency);
    EXPECT_NE(f.title.find("default: its memory goes back to the OS"), std::string::npos)
        << f.title;
    ASSERT_EQ(f.evidence.size(), 2u);
    EXPECT_NE(f.evidence[0].find("default: 4,735 page faults per call"), std::string::npos);
    EXPECT_NE(f.evidence[1].find("eager for contrast: 2 page faults per call"), std::string::npos);
    // Both tunables together, or another allocator.
    EXPECT_NE(f.remedy.find("MALLOC_MMAP_THRESHOLD_=33554432 MALLOC_TRIM_THRESHOLD_="),
              std::string::npos);
    EXPECT_NE(f.remedy.find("set both"), std::string::npos);
    EXPECT_NE(f.remedy.find("jemalloc"), std::string::npos);
    // How to measure it in one report, with the worst setting's mode: a list that parses.
    EXPECT_NE(f.remedy.find("--settings default,default:env=MALLOC_MMAP_THRESHOLD_=33554432:env="
                            "MALLOC_TRIM_THRESHOLD_=1073741824 "),
              std::string::npos)
        << f.remedy;

    // perf.no_gain says the compiled calls fault and eager's do not, and what to do first.
    const auto noGain = withRule(advise(report, {}), "perf.no_gain");
    ASSERT_EQ(noGain.size(), 1u);
    EXPECT_TRUE(hasLine(noGain[0].evidence, "4,735 page faults per call against 2"));
    EXPECT_EQ(noGain[0].remedy.rfind("First keep malloc's memory", 0), 0u) << noGain[0].remedy;
}

TEST(PageFaultRule, QuietWithoutCostlyFaultsAndNoGainSaysNothingOfThem) {
    const auto report = reportOf({faultingRun("eager", 32 * kMs, 2, kMs / 10),
                                  faultingRun("default", 40 * kMs, 30, kMs / 5)});
    EXPECT_TRUE(withRule(advise(report, {}), "perf.page_faults").empty());
    const auto noGain = withRule(advise(report, {}), "perf.no_gain");
    ASSERT_EQ(noGain.size(), 1u);
    EXPECT_FALSE(hasLine(noGain[0].evidence, "page faults"));
    EXPECT_EQ(noGain[0].remedy.find("malloc"), std::string::npos);
}

TEST(PageFaultRule, OneFindingForEverySettingThatFaultsTheWorstFirst) {
    const auto report = reportOf({faultingRun("eager", 32 * kMs, 3000, 4 * kMs),
                                  faultingRun("default", 40 * kMs, 4735, 12 * kMs)});
    const auto findings = withRule(advise(report, {}), "perf.page_faults");
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_EQ(findings[0].run, 1); // 30% of its median against eager's 12.5%
    EXPECT_NE(findings[0].title.find("default and eager: their memory"), std::string::npos)
        << findings[0].title;
    // Both fault: no_gain does not blame the allocator for the difference.
    const auto noGain = withRule(advise(report, {}), "perf.no_gain");
    ASSERT_EQ(noGain.size(), 1u);
    EXPECT_FALSE(hasLine(noGain[0].evidence, "page faults"));
}

TEST(PageFaultRule, TheRemedyFollowsTheAllocatorAndItsTuning) {
    cs::core::Run tuned = faultingRun("default", 40 * kMs, 4735, 12 * kMs);
    tuned.measureHostFaults.mallocEnv = {{"MALLOC_MMAP_THRESHOLD_", "33554432"},
                                         {"MALLOC_TRIM_THRESHOLD_", "1073741824"}};
    auto findings = withRule(advise(reportOf({tuned}), {}), "perf.page_faults");
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_NE(findings[0].remedy.find("malloc was tuned (glibc malloc with "
                                      "MALLOC_MMAP_THRESHOLD_=33554432"),
              std::string::npos)
        << findings[0].remedy;
    EXPECT_NE(findings[0].remedy.find("32 MiB at most"), std::string::npos);

    findings = withRule(
        advise(reportOf({faultingRun("default", 40 * kMs, 4735, 12 * kMs, "jemalloc")}), {}),
        "perf.page_faults");
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_EQ(findings[0].remedy.rfind("jemalloc gives freed memory back", 0), 0u);
    EXPECT_NE(findings[0].evidence[0].find("jemalloc (preloaded)"), std::string::npos);
}

// The remedy measured beside the faulting setting in one report
// ("eager,eager:env=MALLOC_..."): the finding quotes it instead of asking for it.
TEST(PageFaultRule, ARemedyMeasuredInTheReportIsQuoted) {
    cs::core::Run plain = faultingRun("eager", 50 * kMs, 4451, 16 * kMs);
    cs::core::Run tuned = faultingRun("eager", 37 * kMs, 0, kMs / 3);
    tuned.setting.environment = {{"MALLOC_MMAP_THRESHOLD_", "33554432"},
                                 {"MALLOC_TRIM_THRESHOLD_", "1073741824"}};
    tuned.measureHostFaults.mallocEnv = {{"MALLOC_MMAP_THRESHOLD_", "33554432"},
                                         {"MALLOC_TRIM_THRESHOLD_", "1073741824"}};
    cs::core::Run compiled = faultingRun("default", 30 * kMs, 0, kMs / 3);
    auto findings = withRule(advise(reportOf({plain, tuned, compiled}), {}), "perf.page_faults");
    ASSERT_EQ(findings.size(), 1u);
    const auto& f = findings[0];
    EXPECT_TRUE(hasLine(f.evidence, "measured in this report: eager MALLOC_MMAP_THRESHOLD_="
                                    "33554432 MALLOC_TRIM_THRESHOLD_=1073741824 kept its "
                                    "memory, median 37.0 ms against 50.0 ms (1.35× as fast"));
    EXPECT_EQ(f.remedy.rfind("This report measured the remedy: eager MALLOC_", 0), 0u) << f.remedy;
    EXPECT_EQ(f.remedy.find("--settings"), std::string::npos) << f.remedy;

    // Another mode's calm run is no measurement of the remedy: default kept its
    // memory without any tuning.
    findings = withRule(advise(reportOf({plain, compiled}), {}), "perf.page_faults");
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_NE(findings[0].remedy.find("--settings eager,eager:env="), std::string::npos);
}

// SSD eager on a quiet machine: per-call 72.2 ms against blocks of 61.9 ms,
// with 3,328 page faults per call. The disturbance is named as the faults,
// not a busy machine; on a busy machine the machine stays the cause.
TEST(PageFaultRule, ADisturbedMeasurementOnAQuietMachineNamesTheFaults) {
    cs::core::Run run = faultingRun("eager", 72 * kMs, 3328, 24 * kMs);
    run.crosscheckBlockCalls = 1;
    run.crosscheckBlockMeansNs = {62e6, 61.5e6, 62.2e6, 61.9e6, 62e6, 61.8e6, 62.1e6, 61.7e6};
    run.probe.threads = 2;
    run.probe.cpuAffinity = {0, 1};
    // 2 s on the probe's 2 CPUs: the probe's 1.72 CPUs, others 0.01.
    run.measureMachineCpu =
        MachineCpu{2, 2'000'000'000, 3'460'000'000, 0, 3'440'000'000, 10'000'000};
    auto findings = withRule(advise(reportOf({run}), {}), "measure.disturbed");
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_NE(findings[0].title.find("every call faults its memory in again"), std::string::npos)
        << findings[0].title;
    EXPECT_TRUE(hasLine(findings[0].evidence, "every measured call took 3,328 page faults"));
    EXPECT_EQ(findings[0].remedy.rfind("The machine was quiet", 0), 0u) << findings[0].remedy;

    // Others kept 1.2 CPUs busy: the machine's doing, as before.
    run.measureMachineCpu.busyNs = 5'840'000'000;
    findings = withRule(advise(reportOf({run}), {}), "measure.disturbed");
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_EQ(findings[0].title.find("faults"), std::string::npos) << findings[0].title;
    EXPECT_EQ(findings[0].remedy.rfind("A busy machine", 0), 0u) << findings[0].remedy;
}
