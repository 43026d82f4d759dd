// memory.growth: memory kept after every call at the same inputs, counted
// around the measured calls and again around the cross-check's.
#include <gtest/gtest.h>

#include "core/analysis/kept_memory.h"
#include "tests/core/advice_reports.h"

using namespace advice_test;

namespace {

constexpr int64_t kMs = 1'000'000;
constexpr int kCalls = 20;
constexpr int kChecked = 240;
constexpr int64_t kBase = 150 << 20;

// A run whose malloc grew `measuredPerCall` per measured call and
// `checkedPerCall` per cross-check call.
cs::core::Run heldRun(const std::string& mode, int64_t measuredPerCall, int64_t checkedPerCall) {
    cs::core::Run run = timedRun(mode, {1000 * kMs}, constant(kCalls, kMs));
    run.crosscheckBlockCalls = kChecked / 4;
    run.crosscheckBlockMeansNs = {1e6, 1e6, 1e6, 1e6};
    const int64_t measureEnd = kBase + measuredPerCall * kCalls;
    run.measureHostHeld = {"malloc", kCalls, kBase, measureEnd};
    run.crosscheckHostHeld = {"malloc", kChecked, measureEnd + 4096,
                              measureEnd + 4096 + checkedPerCall * kChecked};
    return run;
}

} // namespace

TEST(KeptMemory, BothWindowsMustGrowPerCall) {
    const auto kept = cs::core::keptMemory(heldRun("eager", 65'536, 65'536));
    ASSERT_EQ(kept.size(), 1u);
    EXPECT_FALSE(kept[0].device);
    EXPECT_EQ(kept[0].calls(), kCalls + kChecked);
    EXPECT_EQ(kept[0].grownBytes(), 65'536 * (kCalls + kChecked));
    EXPECT_DOUBLE_EQ(kept[0].bytesPerCall(), 65'536);
    EXPECT_TRUE(kept[0].keepsPerCall());
    EXPECT_EQ(cs::core::keptMemoryText(kept[0]),
              "malloc's bytes in use grew 64.0 KiB per call: +1.25 MiB over 20 measured calls, "
              "+15.0 MiB over 240 cross-check calls");
    // A cache filled once (all of it in the measured calls) is not kept per call.
    EXPECT_FALSE(cs::core::keptMemory(heldRun("eager", 65'536, 0))[0].keepsPerCall());
    // The allocator's own drift (ResNet-18: about 110 B per call) is not either.
    EXPECT_FALSE(cs::core::keptMemory(heldRun("eager", 110, 110))[0].keepsPerCall());
    // A run without both windows (an older report) has nothing to judge.
    cs::core::Run older = heldRun("eager", 65'536, 65'536);
    older.crosscheckHostHeld = {};
    EXPECT_TRUE(cs::core::keptMemory(older).empty());
}

// torchvision's SSDlite in eager (recorded by the probe, 5 measured and 6
// cross-check calls): 1.4 KiB per call in both windows, 15 KiB in all, and
// it grew no more after its first 45 calls. Too little over too few calls to
// call it kept; the same rate over the default 100 calls is.
TEST(KeptMemory, AFewKibOverAFewCallsCannotBeToldFromACacheFilling) {
    cs::core::Run run = timedRun("eager", {1000 * kMs}, constant(5, kMs));
    run.crosscheckBlockCalls = 1;
    run.crosscheckBlockMeansNs = {1e6, 1e6, 1e6, 1e6, 1e6, 1e6};
    run.measureHostHeld = {"malloc", 5, 172'277'056, 172'286'080};
    run.crosscheckHostHeld = {"malloc", 6, 172'286'688, 172'293'312};
    const auto kept = cs::core::keptMemory(run);
    ASSERT_EQ(kept.size(), 1u);
    EXPECT_EQ(kept[0].verdict(), cs::core::KeptVerdict::TooFewCalls);
    EXPECT_FALSE(kept[0].keepsPerCall());
    EXPECT_EQ(cs::core::notKeptText(kept[0]),
              "+15.3 KiB over 11 calls in all, below 64.0 KiB: a cache still filling over its "
              "first calls grows as much; measure with more calls (--iters 100)");
    EXPECT_TRUE(withRule(advise(reportOf({run}), {}), "memory.growth").empty());

    const auto longer = cs::core::keptMemory(heldRun("eager", 1'024, 1'024));
    EXPECT_EQ(longer[0].verdict(), cs::core::KeptVerdict::Kept);
    EXPECT_TRUE(cs::core::notKeptText(longer[0]).empty());
    EXPECT_EQ(cs::core::notKeptText(cs::core::keptMemory(heldRun("eager", 110, 110))[0]),
              "below 1.00 KiB per call in either window");
}

TEST(KeptMemory, TheDevicesAllocatedBytesAtThePhaseEdges) {
    cs::core::Run run = heldRun("reduce-overhead", 0, 0);
    run.probe.device = "cuda:0";
    const int64_t mib = 1 << 20;
    run.memoryStats = {{"measure", "begin", 100 * mib, 200 * mib, 0, 0},
                       {"measure", "end", 120 * mib, 200 * mib, 0, 0},
                       {"crosscheck", "begin", 120 * mib, 200 * mib, 0, 0},
                       {"crosscheck", "end", 360 * mib, 400 * mib, 0, 0}};
    const auto kept = cs::core::keptMemory(run);
    ASSERT_EQ(kept.size(), 2u);
    EXPECT_TRUE(kept[0].device); // the device's first
    EXPECT_EQ(kept[0].measure.calls, kCalls);
    EXPECT_EQ(kept[0].crosscheck.calls, kChecked);
    EXPECT_DOUBLE_EQ(kept[0].bytesPerCall(), 1.0 * mib);
    EXPECT_TRUE(kept[0].keepsPerCall());
    EXPECT_EQ(cs::core::keptCounterText(kept[0]), "allocated device memory");
    EXPECT_FALSE(kept[1].keepsPerCall());
}

TEST(GrowthRule, EagerKeepingItTooMakesItTheModelsOwn) {
    const auto report =
        reportOf({heldRun("eager", 65'536, 65'536), heldRun("default", 65'900, 65'900)});
    const auto findings = withRule(advise(report, {}), "memory.growth");
    ASSERT_EQ(findings.size(), 1u);
    const auto& f = findings[0];
    EXPECT_EQ(f.run, 0);
    EXPECT_EQ(f.tab, EvidenceTab::Memory);
    EXPECT_EQ(f.severity, Severity::Warning);
    EXPECT_EQ(f.title, "The model keeps 64.0 KiB more memory after every call (eager and default)")
        << f.title;
    ASSERT_EQ(f.evidence.size(), 3u);
    EXPECT_EQ(f.evidence[0].rfind("eager: malloc's bytes in use grew 64.0 KiB per call", 0), 0u);
    EXPECT_EQ(f.evidence[1].rfind("default: malloc's bytes in use grew 64.4 KiB", 0), 0u);
    EXPECT_EQ(f.evidence[2], "at 1,000 calls (the expected calls) that is 62.5 MiB more, and it "
                             "grows for as long as the calls go on");
    EXPECT_NE(f.remedy.find("collections.deque(maxlen=N)"), std::string::npos);
}

TEST(GrowthRule, OnlyTheCompiledSettingKeepingItIsTheCompiledPrograms) {
    auto compiled = heldRun("default", 8'192, 8'192);
    const auto report = reportOf({heldRun("eager", 20, 0), compiled});
    auto findings = withRule(advise(report, {}), "memory.growth");
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_EQ(findings[0].run, 1);
    EXPECT_EQ(findings[0].title, "default keeps 8.00 KiB more memory after every call; eager "
                                 "does not");
    EXPECT_EQ(findings[0].evidence[1].rfind("eager for contrast: malloc's bytes in use grew", 0),
              0u);
    EXPECT_NE(findings[0].remedy.find("the compiled program keeps it"), std::string::npos);

    // Recompiles in those calls are named, and stopping them comes first.
    cs::core::Recompile recompile;
    recompile.phase = "crosscheck";
    compiled.recompiles = {recompile, recompile};
    findings = withRule(advise(reportOf({heldRun("eager", 20, 0), compiled}), {}), "memory.growth");
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_NE(std::find(findings[0].evidence.begin(), findings[0].evidence.end(),
                        "2 recompiles happened in these calls (Recompiles tab)"),
              findings[0].evidence.end());
    EXPECT_NE(findings[0].remedy.find("stop the recompiles first"), std::string::npos);

    // Without eager it cannot say whose it is, and says so.
    findings = withRule(advise(reportOf({compiled}), {}), "memory.growth");
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_EQ(findings[0].title, "default keeps 8.00 KiB more memory after every call");
}

TEST(GrowthRule, SilentForAOneOffGrowthAndForDrift) {
    const auto report = reportOf({heldRun("eager", 110, 110), heldRun("default", 65'536, 0),
                                  heldRun("max-autotune", 0, 65'536)});
    EXPECT_TRUE(withRule(advise(report, {}), "memory.growth").empty());
}

TEST(GrowthRule, TheDisturbedFindingNamesTheGrowthAsTheCause) {
    auto keeps = heldRun("eager", 65'536, 65'536);
    keeps.crosscheckBlockMeansNs = {3e6, 3e6, 3e6, 3e6}; // slower than the 1 ms median
    auto findings = withRule(advise(reportOf({keeps}), {}), "measure.disturbed");
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_EQ(findings[0].title,
              "eager: per-call and block timing disagree; every call keeps memory");
    ASSERT_GE(findings[0].evidence.size(), 2u);
    EXPECT_EQ(findings[0].evidence[1], "every call kept more memory (memory.growth): the measured "
                                       "calls added 1.25 MiB, the cross-check's 15.0 MiB");
    EXPECT_NE(findings[0].remedy.find("Stop what the calls keep"), std::string::npos);

    // Without the growth it is the machine's, as before.
    auto calm = heldRun("eager", 0, 0);
    calm.crosscheckBlockMeansNs = keeps.crosscheckBlockMeansNs;
    findings = withRule(advise(reportOf({calm}), {}), "measure.disturbed");
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_NE(findings[0].remedy.find("A busy machine"), std::string::npos);
}
