// Rules 3-5 at their threshold edges: no gain, warmup, memory cost.
#include <gtest/gtest.h>

#include "tests/core/advice_reports.h"

using namespace advice_test;

namespace {

constexpr int64_t kUs = 1000;
constexpr int64_t kMiB = int64_t{1024} * 1024;

cs::core::Run eagerRun(int64_t medianNs = 100 * kUs, size_t n = 30) {
    return timedRun("eager", {medianNs}, constant(n, medianNs));
}

// ---- rule 3: too small to gain ----

struct GainCase {
    const char* name;
    int64_t compiledNs;
    const char* backend;
    bool fires;
    bool slower;
};

const GainCase kGain[] = {
    {"same median: intervals overlap", 100 * kUs, "inductor", true, false},
    {"one microsecond faster: significant", 99 * kUs, "inductor", false, false},
    {"one microsecond slower: significant slowdown", 101 * kUs, "inductor", true, true},
    {"aot_eager is a debugging backend", 100 * kUs, "aot_eager", false, false},
};

class NoGainTable : public ::testing::TestWithParam<GainCase> {};

TEST_P(NoGainTable, FiresWhenTheIntervalsOverlapOrItIsSlower) {
    const auto& c = GetParam();
    auto compiled = timedRun("default", {c.compiledNs}, constant(30, c.compiledNs), c.backend);
    const auto findings = withRule(advise(reportOf({eagerRun(), compiled}), {}), "perf.no_gain");
    ASSERT_EQ(findings.size(), c.fires ? 1u : 0u);
    if (!c.fires)
        return;
    EXPECT_EQ(findings[0].run, 1);
    EXPECT_EQ(findings[0].tab, EvidenceTab::Compare);
    EXPECT_EQ(findings[0].title.find("slower") != std::string::npos, c.slower) << findings[0].title;
    EXPECT_NE(findings[0].evidence[0].find("100 µs"), std::string::npos) << findings[0].evidence[0];
    EXPECT_NE(findings[0].remedy.find("larger batch"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Advice, NoGainTable, ::testing::ValuesIn(kGain), [](const auto& info) {
    std::string name = info.param.name;
    for (auto& ch : name)
        ch = std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
    return name;
});

TEST(AdviceNoGain, SilentWithoutAnEagerBaseline) {
    auto compiled = timedRun("default", {100 * kUs}, constant(30, 100 * kUs));
    EXPECT_TRUE(advise(reportOf({compiled}), {}).empty());
}

TEST(AdviceNoGain, HarnessOverheadIsEvidenceFromTenPercent) {
    auto compiled = timedRun("default", {100 * kUs}, constant(30, 100 * kUs));
    auto eager = eagerRun();
    eager.harnessOverheadNs = 10 * kUs;
    auto f = withRule(advise(reportOf({eager, compiled}), {}), "perf.no_gain");
    ASSERT_EQ(f.size(), 1u);
    ASSERT_EQ(f[0].evidence.size(), 3u);
    EXPECT_NE(f[0].evidence[2].find("harness alone costs 10.0 µs"), std::string::npos)
        << f[0].evidence[2];
    eager.harnessOverheadNs = 10 * kUs - 1;
    f = withRule(advise(reportOf({eager, compiled}), {}), "perf.no_gain");
    ASSERT_EQ(f.size(), 1u);
    EXPECT_EQ(f[0].evidence.size(), 2u);
}

TEST(AdviceNoGain, IdleGpuSuggestsReduceOverheadOnCuda) {
    auto eager = eagerRun();
    eager.probe.device = "cuda:0";
    eager.kernels.present = true;
    eager.kernels.busyFraction = 0.3;
    eager.kernels.gpuNsPerIter = 30 * kUs;
    eager.kernels.launchesPerIter = 40;
    auto compiled = timedRun("default", {100 * kUs}, constant(30, 100 * kUs));
    compiled.probe.device = "cuda:0";
    const auto findings = advise(reportOf({eager, compiled}), {});
    const auto noGain = withRule(findings, "perf.no_gain");
    ASSERT_EQ(noGain.size(), 1u);
    EXPECT_NE(noGain[0].remedy.find("reduce-overhead"), std::string::npos);
    EXPECT_NE(noGain[0].evidence.back().find("busy only 30%"), std::string::npos)
        << noGain[0].evidence.back();
    EXPECT_EQ(withRule(findings, "perf.overhead_bound").size(), 1u);
    // Busy half the time or more is not launch-bound.
    eager.kernels.busyFraction = 0.5;
    EXPECT_TRUE(withRule(advise(reportOf({eager, compiled}), {}), "perf.overhead_bound").empty());
}

// On CPU, freezing folds the weights into the graph and prepacks them:
// torchvision's deeplabv3_mobilenet_v3_large (2-core VM) measured default no
// faster than eager and default with TORCHINDUCTOR_FREEZING=1 2.3x faster.
TEST(AdviceNoGain, OnCpuFreezingIsOfferedAndItsMeasuredTwinCited) {
    auto eager = eagerRun(40 * kUs * 1000);
    eager.probe.device = "cpu";
    auto compiled = timedRun("default", {40 * kUs * 1000}, constant(30, 40 * kUs * 1000));
    compiled.probe.device = "cpu";
    // A plain function has no weights to fold.
    auto noGain = withRule(advise(reportOf({eager, compiled}), {}), "perf.no_gain");
    ASSERT_EQ(noGain.size(), 1u);
    EXPECT_EQ(noGain[0].remedy.find("freez"), std::string::npos) << noGain[0].remedy;
    eager.model.parameters = compiled.model.parameters = 42'000'000;
    noGain = withRule(advise(reportOf({eager, compiled}), {}), "perf.no_gain");
    ASSERT_EQ(noGain.size(), 1u);
    EXPECT_NE(noGain[0].remedy.find("On CPU, freeze the weights for inference"), std::string::npos)
        << noGain[0].remedy;
    EXPECT_NE(noGain[0].remedy.find("--settings default,default:env=TORCHINDUCTOR_FREEZING=1"),
              std::string::npos)
        << noGain[0].remedy;

    // Measured in the report and faster: cited, and first.
    auto frozenRun = timedRun("default", {18 * kUs * 1000}, constant(30, 18 * kUs * 1000));
    frozenRun.probe.device = "cpu";
    frozenRun.setting.environment["TORCHINDUCTOR_FREEZING"] = "1";
    noGain = withRule(advise(reportOf({eager, compiled, frozenRun}), {}), "perf.no_gain");
    ASSERT_EQ(noGain.size(), 1u);
    EXPECT_EQ(noGain[0].setting, "default");
    EXPECT_EQ(noGain[0].remedy.rfind("Freeze the weights for inference (torch._inductor.config."
                                     "freezing = True, or TORCHINDUCTOR_FREEZING=1 in the "
                                     "environment): default TORCHINDUCTOR_FREEZING=1 measured "
                                     "18.0 ms here, 2.22× eager's speed.",
                                     0),
              0u)
        << noGain[0].remedy;
    EXPECT_EQ(noGain[0].remedy.find("leave this model eager"), std::string::npos)
        << noGain[0].remedy;
    EXPECT_TRUE(hasLine(noGain[0].evidence, "measured here as default TORCHINDUCTOR_FREEZING=1: "
                                            "median 18.0 ms"))
        << ::testing::PrintToString(noGain[0].evidence);

    // Measured and no faster: not offered again.
    frozenRun = compiled;
    frozenRun.setting.environment["TORCHINDUCTOR_FREEZING"] = "1";
    noGain = withRule(advise(reportOf({eager, compiled, frozenRun}), {}), "perf.no_gain");
    ASSERT_EQ(noGain.size(), 2u);
    for (const auto& f : noGain)
        EXPECT_EQ(f.remedy.find("freez"), std::string::npos) << f.setting << ": " << f.remedy;

    // On CUDA, not offered.
    eager.probe.device = compiled.probe.device = "cuda:0";
    noGain = withRule(advise(reportOf({eager, compiled}), {}), "perf.no_gain");
    ASSERT_EQ(noGain.size(), 1u);
    EXPECT_EQ(noGain[0].remedy.find("freez"), std::string::npos) << noGain[0].remedy;
}

// Every frame skipped (a break in a loop): no graph, so the remedy is the
// breaks, not a batch size.
TEST(AdviceNoGain, NothingCompiledPointsAtTheBreaksNotTheBatch) {
    auto compiled = timedRun("default", {300 * kUs}, constant(30, 300 * kUs));
    compiled.graphBreaks.push_back(
        makeBreak("graph break in loop", "graph break in loop", "/m/model.py", 9, "", -1, -1));
    const auto f = withRule(advise(reportOf({eagerRun(), compiled}), {}), "perf.no_gain");
    ASSERT_EQ(f.size(), 1u);
    EXPECT_NE(f[0].evidence.back().find("default compiled no graph: every call ran eagerly"),
              std::string::npos)
        << f[0].evidence.back();
    EXPECT_NE(f[0].remedy.find("remove the graph breaks first"), std::string::npos) << f[0].remedy;
    EXPECT_EQ(f[0].remedy.find("larger batch"), std::string::npos) << f[0].remedy;
}

// A clock read in forward recompiled every measured call until the limit
// (tests/probe/models/clock_in_forward.py): the recompiles, not the batch.
TEST(AdviceNoGain, RecompilesAmongTheMeasuredCallsPointAtTheRecompilesNotTheBatch) {
    auto compiled = timedRun("default", {300 * kUs}, constant(30, 300 * kUs));
    compiled.graphs.resize(3);
    compiled.recompiles.push_back({"torch_dynamo_resume_in_forward_at_20", "2/2: ___stack1 == 1.5",
                                   3, "", false, 8, "", "measure", 3});
    compiled.recompiles.push_back({"torch_dynamo_resume_in_forward_at_20", "2/7: ___stack1 == 1.6",
                                   8, "", true, 8, "", "measure", 8});
    const auto f = withRule(advise(reportOf({eagerRun(), compiled}), {}), "perf.no_gain");
    ASSERT_EQ(f.size(), 1u);
    EXPECT_TRUE(hasLine(f[0].evidence,
                        "1 measured call of default recompiled, and forward (after the break at "
                        "line 20) hit the recompile limit: torch runs it eagerly from then on"))
        << ::testing::PrintToString(f[0].evidence);
    EXPECT_NE(f[0].remedy.find("stop the recompiles first"), std::string::npos) << f[0].remedy;
    EXPECT_EQ(f[0].remedy.find("larger batch gives"), std::string::npos) << f[0].remedy;
}

TEST(AdviceNoGain, FewSamplesLowerTheConfidence) {
    auto compiled = timedRun("default", {100 * kUs}, constant(5, 100 * kUs));
    auto f = withRule(advise(reportOf({eagerRun(100 * kUs, 5), compiled}), {}), "perf.no_gain");
    ASSERT_EQ(f.size(), 1u);
    EXPECT_LE(f[0].confidence, 0.5);
}

// gpt2 (2 layers) measured while the CPU built C++: default's calls took
// either ~1.6 ms or ~5 ms, so its median's interval spans most of both.
TEST(AdviceNoGain, AnUnevenlyMeasuredSettingIsInconclusiveNotNoFaster) {
    std::vector<int64_t> uneven;
    for (int i = 0; i < 20; ++i)
        uneven.push_back(i % 2 ? 1600 * kUs : 5000 * kUs + i * kUs);
    auto compiled = timedRun("default", {3000 * kUs}, uneven);
    const auto all = advise(reportOf({eagerRun(5000 * kUs, 20), compiled}), {});
    EXPECT_TRUE(withRule(all, "perf.no_gain").empty());
    const auto f = withRule(all, "perf.inconclusive");
    ASSERT_EQ(f.size(), 1u);
    EXPECT_EQ(f[0].title.rfind("default against eager: measured too unevenly to tell (", 0), 0u)
        << f[0].title;
    EXPECT_EQ(f[0].run, 1);
    ASSERT_EQ(f[0].evidence.size(), 2u);
    EXPECT_EQ(f[0].evidence[1].rfind("default's interval spans ", 0), 0u) << f[0].evidence[1];
    EXPECT_NE(f[0].remedy.find("--repeat"), std::string::npos);
    // A steady setting with the same overlap is "no faster", as before.
    const auto steady = advise(
        reportOf({eagerRun(5000 * kUs, 20), timedRun("default", {1}, constant(20, 5000 * kUs))}),
        {});
    EXPECT_EQ(withRule(steady, "perf.no_gain").size(), 1u);
    EXPECT_TRUE(withRule(steady, "perf.inconclusive").empty());
}

// ---- rule 4: warmup outweighs savings ----

struct WarmupCase {
    const char* name;
    int64_t firstCallExtraNs; // on top of the compiled steady state (90 µs; eager 100 µs)
    int expectedCalls;
    bool fires;
};

// Saves 10 µs a call: 10 ms of extra warmup breaks even after exactly 1,000 calls.
const WarmupCase kWarmup[] = {
    {"break-even equals the calls: silent", 10'000 * kUs, 1000, false},
    {"one call more: fires", 10'010 * kUs, 1000, true},
    {"user makes more calls: silent", 10'010 * kUs, 2000, false},
    {"quick warmup: silent", 1 * kUs, 1000, false},
};

class WarmupTable : public ::testing::TestWithParam<WarmupCase> {};

TEST_P(WarmupTable, FiresAboveTheCallsTheProgramMakes) {
    const auto& c = GetParam();
    auto compiled =
        timedRun("default", {90 * kUs + c.firstCallExtraNs, 90 * kUs}, constant(30, 90 * kUs));
    cs::core::AdviceOptions options;
    options.expectedCalls = c.expectedCalls;
    const auto f = withRule(advise(reportOf({eagerRun(), compiled}), options), "perf.warmup");
    ASSERT_EQ(f.size(), c.fires ? 1u : 0u);
    if (!c.fires)
        return;
    EXPECT_NE(f[0].title.find("1,001 calls"), std::string::npos) << f[0].title;
    EXPECT_NE(f[0].title.find("makes 1,000"), std::string::npos) << f[0].title;
    EXPECT_EQ(f[0].tab, EvidenceTab::Warmup);
    EXPECT_NE(f[0].evidence[1].find("saves 10.0 µs per call"), std::string::npos)
        << f[0].evidence[1];
}

INSTANTIATE_TEST_SUITE_P(Advice, WarmupTable, ::testing::ValuesIn(kWarmup), [](const auto& info) {
    std::string name = info.param.name;
    for (auto& ch : name)
        ch = std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
    return name;
});

cs::core::Run slowWarmupRun() {
    return timedRun("default", {90 * kUs + 10'010 * kUs, 90 * kUs}, constant(30, 90 * kUs));
}

// A warmup spent compiling a Python loop unrolled: the finding says where the
// compile comes from and what compiling the body alone trades.
TEST(AdviceWarmup, AnUnrolledLoopIsWhereTheWarmupComesFrom) {
    auto compiled = slowWarmupRun();
    cs::core::Graph graph;
    for (int step = 0; step < 50; ++step) {
        cs::core::GraphNode node;
        node.name = "gru_cell_" + std::to_string(step);
        node.op = "call_function";
        node.target = "torch.gru_cell";
        node.file = "/m/rnn_loop.py";
        node.line = 27;
        node.module = "cell";
        graph.nodes.push_back(node);
    }
    compiled.graphs.push_back(graph);
    const auto f = withRule(advise(reportOf({eagerRun(), compiled})), "perf.warmup");
    ASSERT_EQ(f.size(), 1u);
    EXPECT_TRUE(hasLine(f[0].evidence,
                        "graph 0 holds a Python loop unrolled 50 times: the ops of "
                        "rnn_loop.py:27 and the lines with it repeat once per iteration, 50 of "
                        "its 50 ops (Graphs tab); Dynamo traces every iteration, so the compile "
                        "grows with the trip count, and a call with another trip count compiles "
                        "it all again"))
        << ::testing::PrintToString(f[0].evidence);
    EXPECT_NE(f[0].remedy.find("compiling only its body"), std::string::npos) << f[0].remedy;
    EXPECT_EQ(f[0].file, "/m/rnn_loop.py"); // the Advice list's "where": the loop
    EXPECT_EQ(f[0].line, 27);
    // Without the graph, no word of a loop.
    const auto plain = withRule(advise(reportOf({eagerRun(), slowWarmupRun()})), "perf.warmup");
    ASSERT_EQ(plain.size(), 1u);
    EXPECT_EQ(plain[0].remedy.find("loop"), std::string::npos) << plain[0].remedy;
}

// ConvNeXt-atto on CPU (2-core VM): default paid back after 16,913 calls,
// its frozen twin after 5,836; each had its own finding and neither named
// the other. The slower one cites the frozen twin and says to freeze.
TEST(AdviceWarmup, AFrozenTwinThatPaysBackSoonerIsCited) {
    auto compiled = slowWarmupRun();
    auto frozenRun =
        timedRun("default", {60 * kUs + 10'010 * kUs, 60 * kUs}, constant(30, 60 * kUs));
    frozenRun.setting.environment["TORCHINDUCTOR_FREEZING"] = "1";
    const auto f = withRule(advise(reportOf({eagerRun(), compiled, frozenRun})), "perf.warmup");
    ASSERT_EQ(f.size(), 1u) << "the frozen setting pays back within the calls";
    EXPECT_EQ(f[0].setting, "default");
    EXPECT_TRUE(
        hasLine(f[0].evidence, "measured here as default TORCHINDUCTOR_FREEZING=1: median 60.0 µs"))
        << ::testing::PrintToString(f[0].evidence);
    EXPECT_NE(f[0].remedy.find("Freeze the weights for inference (torch._inductor.config.freezing "
                               "= True, or TORCHINDUCTOR_FREEZING=1): default "
                               "TORCHINDUCTOR_FREEZING=1 paid back after"),
              std::string::npos)
        << f[0].remedy;
    // A frozen twin that pays back later is no remedy.
    auto slowerFrozen =
        timedRun("default", {95 * kUs + 20'010 * kUs, 95 * kUs}, constant(30, 95 * kUs));
    slowerFrozen.setting.environment["TORCHINDUCTOR_FREEZING"] = "1";
    for (const auto& finding :
         withRule(advise(reportOf({eagerRun(), compiled, slowerFrozen})), "perf.warmup"))
        EXPECT_EQ(finding.remedy.find("Freeze the weights"), std::string::npos) << finding.remedy;
}

TEST(AdviceWarmup, OptionsSavedInTheReportAreUsed) {
    auto compiled =
        timedRun("default", {90 * kUs + 10'010 * kUs, 90 * kUs}, constant(30, 90 * kUs));
    auto report = reportOf({eagerRun(), compiled});
    EXPECT_EQ(withRule(advise(report), "perf.warmup").size(), 1u);
    report.adviceOptions.expectedCalls = 5000;
    EXPECT_TRUE(withRule(advise(report), "perf.warmup").empty());
}

// The aoti row of the same report: 80 µs a call after a 50 µs-longer start,
// so it pays back within 3 calls where default needs 1,001.
cs::core::Run aotiRun() {
    auto run = timedRun("aoti", {80 * kUs + 50 * kUs, 80 * kUs}, constant(30, 80 * kUs));
    run.compilePhases = {{"export", 1.5}, {"package", 8.5}, {"load", 0.00005}};
    return run;
}

cs::core::Run slowWarmup() {
    return timedRun("default", {90 * kUs + 10'010 * kUs, 90 * kUs}, constant(30, 90 * kUs));
}

TEST(AdviceWarmup, PointsAtTheAotiSettingThatPaidBack) {
    const auto f = withRule(advise(reportOf({eagerRun(), slowWarmup(), aotiRun()})), "perf.warmup");
    ASSERT_EQ(f.size(), 1u); // aoti itself pays back
    EXPECT_EQ(f[0].run, 1);
    EXPECT_EQ(f[0].evidence.back(),
              "aoti, compiled ahead of time, pays back after 3 calls: median 80.0 µs (1.25×), "
              "and a start (package load and first call) takes 130 µs (Compare tab); export and "
              "package took 10.0 s, once, where it is built (Warmup tab)");
    EXPECT_NE(f[0].remedy.find("as the aoti setting did here"), std::string::npos) << f[0].remedy;
    EXPECT_EQ(f[0].remedy.find("--dynamic true"), std::string::npos) << f[0].remedy;
    EXPECT_EQ(f[0].remedy.back(), '.');
}

TEST(AdviceWarmup, AnAotiWhoseOutputsDifferIsNoWayOut) {
    auto aoti = aotiRun();
    cs::core::OutputsCheck check;
    check.status = "differ";
    check.precision = "float32";
    check.tolerance = 1e-3;
    check.leaves = 1;
    check.differing = 1;
    cs::core::OutputLeaf leaf;
    leaf.path = "output";
    leaf.kind = "values";
    leaf.dtype = "float32";
    leaf.relative = 0.05;
    leaf.mismatched = 3;
    leaf.differs = true;
    check.worst.push_back(leaf);
    aoti.outputsCheck = check;
    const auto f = withRule(advise(reportOf({eagerRun(), slowWarmup(), aoti})), "perf.warmup");
    ASSERT_EQ(f.size(), 1u);
    EXPECT_EQ(f[0].remedy.find("aoti"), std::string::npos) << f[0].remedy;
    EXPECT_EQ(f[0].evidence.size(), 3u);
}

TEST(AdviceWarmup, WithoutAnAotiRunItSaysHowToMeasureOne) {
    auto f = withRule(advise(reportOf({eagerRun(), slowWarmup()})), "perf.warmup");
    ASSERT_EQ(f.size(), 1u);
    EXPECT_NE(f[0].remedy.find("add aoti to the settings"), std::string::npos) << f[0].remedy;
    // An aoti run that failed (export refused it) has its own finding; no hint here.
    auto failed = aotiRun();
    failed.status = cs::core::RunStatus::Failed;
    f = withRule(advise(reportOf({eagerRun(), slowWarmup(), failed})), "perf.warmup");
    ASSERT_EQ(f.size(), 1u);
    EXPECT_EQ(f[0].remedy.find("aoti"), std::string::npos) << f[0].remedy;
}

// warmstart's report: the fresh compile, a warm Inductor cache and the
// portable artifacts of one setting. One finding, on the fresh compile,
// tells the other starts as measured; the warm start pays back here.
TEST(AdviceWarmup, OtherStartsOfTheSettingAreToldInTheFreshCompilesFinding) {
    auto warm = timedRun("default", {90 * kUs + 500 * kUs, 90 * kUs}, constant(30, 90 * kUs));
    warm.setting.start = cs::core::kStartWarmCache;
    auto artifacts = slowWarmup();
    artifacts.setting.start = cs::core::kStartCacheArtifacts;
    auto f = withRule(advise(reportOf({eagerRun(), slowWarmup(), warm, artifacts})), "perf.warmup");
    ASSERT_EQ(f.size(), 1u);
    EXPECT_EQ(f[0].run, 1);
    EXPECT_TRUE(hasLine(f[0].evidence, "default warm (a warm Inductor cache): pays back after 50 "
                                       "calls, within the 1,000 the program makes, warmup 500 "
                                       "µs more than eager's (Warmup tab)"))
        << ::testing::PrintToString(f[0].evidence) << f[0].remedy;
    EXPECT_NE(f[0].remedy.find("Keep Inductor's caches between starts: with them warm it paid "
                               "back after 50 calls here"),
              std::string::npos)
        << f[0].remedy;
    EXPECT_EQ(f[0].remedy.find("--warm-cache"), std::string::npos) << f[0].remedy;

    // A warm start alone (run --warm-cache) is not told to warm the cache.
    warm = slowWarmup();
    warm.setting.start = cs::core::kStartWarmCache;
    f = withRule(advise(reportOf({eagerRun(), warm})), "perf.warmup");
    ASSERT_EQ(f.size(), 1u);
    EXPECT_NE(f[0].remedy.find("This start had Inductor's caches warm already"), std::string::npos)
        << f[0].remedy;
    EXPECT_EQ(f[0].remedy.find("--warm-cache"), std::string::npos) << f[0].remedy;
}

TEST(AdviceWarmup, ARecompilingSettingIsToldToExportDynamicShapes) {
    auto compiled = slowWarmup();
    cs::core::Recompile rc;
    rc.reason = "tensor 'x' size mismatch at index 0. expected 8, actual 16";
    compiled.recompiles.push_back(rc);
    const auto f = withRule(advise(reportOf({eagerRun(), compiled, aotiRun()})), "perf.warmup");
    ASSERT_EQ(f.size(), 1u);
    EXPECT_NE(f[0].remedy.find("--dynamic true"), std::string::npos) << f[0].remedy;
}

// ---- rule 5: memory cost ----

// Phases load/compile/measure at t = 0..10..20..30; host RSS sampled in each.
cs::core::Run withMemory(cs::core::Run run, int64_t compileBytes, int64_t measureBytes) {
    run.phases = {{"load", 0, 10}, {"compile", 10, 20}, {"measure", 20, 30}};
    cs::core::MemorySeries rss;
    rss.kind = "host_rss";
    rss.samples = {{5, 100 * kMiB}, {15, compileBytes}, {20, measureBytes}, {25, measureBytes}};
    run.memory.push_back(rss);
    run.lastEventNs = 30;
    return run;
}

struct MemoryCase {
    const char* name;
    int64_t compileBytes;
    int64_t measureBytes;
    double fraction;
    const char* title; // "" = silent
    cs::core::Severity severity;
};

const MemoryCase kMemory[] = {
    {"exactly a quarter more: silent", 1250 * kMiB, 1000 * kMiB, 0.25, "",
     cs::core::Severity::Info},
    {"compile peak above a quarter", 1251 * kMiB, 1000 * kMiB, 0.25, "while compiling",
     cs::core::Severity::Info},
    {"steady state above a quarter", 1300 * kMiB, 1300 * kMiB, 0.25, "in steady state",
     cs::core::Severity::Warning},
    {"a larger fraction set: silent", 1300 * kMiB, 1300 * kMiB, 0.5, "", cs::core::Severity::Info},
};

class MemoryTable : public ::testing::TestWithParam<MemoryCase> {};

TEST_P(MemoryTable, FiresAboveTheFractionAndNamesThePhase) {
    const auto& c = GetParam();
    auto eager = withMemory(eagerRun(), 1000 * kMiB, 1000 * kMiB);
    auto compiled = withMemory(timedRun("default", {90 * kUs}, constant(30, 90 * kUs)),
                               c.compileBytes, c.measureBytes);
    cs::core::AdviceOptions options;
    options.memoryFraction = c.fraction;
    const auto f = withRule(advise(reportOf({eager, compiled}), options), "memory.cost");
    if (std::string(c.title).empty()) {
        EXPECT_TRUE(f.empty()) << f.front().title;
        return;
    }
    ASSERT_EQ(f.size(), 1u);
    EXPECT_NE(f[0].title.find(c.title), std::string::npos) << f[0].title;
    EXPECT_EQ(f[0].severity, c.severity);
    EXPECT_EQ(f[0].tab, EvidenceTab::Memory);
    EXPECT_NE(f[0].evidence[0].find("host RSS"), std::string::npos) << f[0].evidence[0];
}

INSTANTIATE_TEST_SUITE_P(Advice, MemoryTable, ::testing::ValuesIn(kMemory), [](const auto& info) {
    std::string name = info.param.name;
    for (auto& ch : name)
        ch = std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
    return name;
});

cs::core::Run withReserved(cs::core::Run run, int64_t compilePeak, int64_t measurePeak) {
    run.probe.device = "cuda:0";
    run.memoryStats = {{"compile", "begin", 0, 0, 0, 0},
                       {"compile", "end", 0, compilePeak, 0, compilePeak},
                       {"measure", "begin", 0, 0, 0, 0},
                       {"measure", "end", 0, measurePeak, 0, measurePeak}};
    return run;
}

TEST(AdviceMemory, CudaGraphPoolUnderReduceOverhead) {
    auto eager = withReserved(eagerRun(), 0, 1000 * kMiB);
    auto ro = withReserved(timedRun("reduce-overhead", {90 * kUs}, constant(30, 90 * kUs)),
                           1000 * kMiB, 1600 * kMiB);
    const auto f = withRule(advise(reportOf({eager, ro}), {}), "memory.cost");
    ASSERT_EQ(f.size(), 1u);
    EXPECT_NE(f[0].title.find("CUDA-graph pool"), std::string::npos) << f[0].title;
    EXPECT_NE(f[0].evidence[0].find("device reserved"), std::string::npos) << f[0].evidence[0];
    EXPECT_NE(f[0].remedy.find("max-autotune-no-cudagraphs"), std::string::npos);
}

TEST(AdviceMemory, AutotuneBuffersAtCompileUnderMaxAutotune) {
    auto eager = withReserved(eagerRun(), 0, 1000 * kMiB);
    auto ma =
        withReserved(timedRun("max-autotune-no-cudagraphs", {90 * kUs}, constant(30, 90 * kUs)),
                     2000 * kMiB, 1000 * kMiB);
    const auto f = withRule(advise(reportOf({eager, ma}), {}), "memory.cost");
    ASSERT_EQ(f.size(), 1u);
    EXPECT_NE(f[0].title.find("autotuning"), std::string::npos) << f[0].title;
    EXPECT_EQ(f[0].severity, cs::core::Severity::Info);
}

} // namespace

// ---- autocast that costs ----

namespace {

cs::core::Run withAutocast(cs::core::Run run, const std::string& autocast,
                           std::map<std::string, std::string> env = {}) {
    run.setting.autocast = autocast;
    run.setting.environment = std::move(env);
    return run;
}

cs::core::Run timed(const char* mode, int64_t medianNs) {
    return timedRun(mode, {medianNs}, constant(30, medianNs));
}

} // namespace

TEST(AdviceAutocast, FiresWhenAutocastIsSlowerThanTheSameSettingWithout) {
    const auto report = reportOf({timed("eager", 300 * kUs), timed("default", 100 * kUs),
                                  withAutocast(timed("default", 200 * kUs), "bf16")});
    const auto f = withRule(advise(report, {}), "perf.autocast");
    ASSERT_EQ(f.size(), 1u);
    EXPECT_EQ(f[0].run, 2);
    EXPECT_EQ(f[0].title, "default bf16 is 2.00× slower than default: autocast to bf16 costs "
                          "more than it saves here");
    EXPECT_NE(f[0].evidence[0].find("200 µs under autocast against 100 µs without"),
              std::string::npos)
        << f[0].evidence[0];
    EXPECT_NE(f[0].remedy.find("TORCHINDUCTOR_FREEZING=1"), std::string::npos) << f[0].remedy;
    EXPECT_NE(f[0].remedy.find("default:autocast=bf16,default:autocast=bf16:env="),
              std::string::npos)
        << f[0].remedy;
}

TEST(AdviceAutocast, SilentWhenAutocastGainsOrHasNoTwin) {
    // faster under autocast
    auto f = withRule(advise(reportOf({timed("eager", 300 * kUs), timed("default", 100 * kUs),
                                       withAutocast(timed("default", 80 * kUs), "bf16")}),
                             {}),
                      "perf.autocast");
    EXPECT_TRUE(f.empty());
    // no default without autocast to hold it against
    f = withRule(advise(reportOf({timed("eager", 100 * kUs),
                                  withAutocast(timed("default", 200 * kUs), "bf16")}),
                        {}),
                 "perf.autocast");
    EXPECT_TRUE(f.empty());
    // eager under autocast, faster than eager without
    f = withRule(advise(reportOf({timed("eager", 100 * kUs),
                                  withAutocast(timed("eager", 80 * kUs), "bf16")}),
                        {}),
                 "perf.autocast");
    EXPECT_TRUE(f.empty());
}

// The README's old "eager,eager:autocast=bf16,default:autocast=bf16" on a 2-layer
// Llama on CPU: eager 1.60× slower under bf16 had no finding, and nothing
// measured default without autocast.
TEST(AdviceAutocast, EagerSlowerUnderAutocastIsToldWhenNoCompiledSettingHasItsTwin) {
    auto f = withRule(
        advise(reportOf({timed("eager", 100 * kUs), withAutocast(timed("eager", 200 * kUs), "bf16"),
                         withAutocast(timed("default", 80 * kUs), "bf16")}),
               {}),
        "perf.autocast");
    ASSERT_EQ(f.size(), 1u);
    EXPECT_EQ(f[0].run, 1);
    EXPECT_EQ(f[0].title, "eager bf16 is 2.00× slower than eager: autocast to bf16 costs more "
                          "than it saves here");
    EXPECT_TRUE(hasLine(f[0].evidence, "default bf16 was not measured without autocast here"))
        << ::testing::PrintToString(f[0].evidence);
    EXPECT_NE(f[0].remedy.find("(--settings eager,default,default:autocast=bf16)"),
              std::string::npos)
        << f[0].remedy;
    // default measured both ways, bf16 the faster: eager's slowdown is still told.
    f = withRule(
        advise(reportOf({timed("eager", 100 * kUs), withAutocast(timed("eager", 200 * kUs), "bf16"),
                         timed("default", 80 * kUs),
                         withAutocast(timed("default", 60 * kUs), "bf16")}),
               {}),
        "perf.autocast");
    ASSERT_EQ(f.size(), 1u);
    EXPECT_EQ(f[0].run, 1);
    EXPECT_FALSE(hasLine(f[0].evidence, "not measured without autocast"))
        << ::testing::PrintToString(f[0].evidence);
    // Eager alone under autocast: told, with nothing to measure beside.
    f = withRule(advise(reportOf({timed("eager", 100 * kUs),
                                  withAutocast(timed("eager", 200 * kUs), "bf16")}),
                        {}),
                 "perf.autocast");
    ASSERT_EQ(f.size(), 1u);
    EXPECT_EQ(f[0].remedy.find("--settings"), std::string::npos) << f[0].remedy;
}

TEST(AdviceAutocast, CitesEagerBothWaysAndAFrozenTwin) {
    const std::map<std::string, std::string> frozen{{"TORCHINDUCTOR_FREEZING", "1"}};
    const auto report =
        reportOf({timed("eager", 300 * kUs), withAutocast(timed("eager", 210 * kUs), "bf16"),
                  timed("default", 100 * kUs), withAutocast(timed("default", 200 * kUs), "bf16"),
                  withAutocast(timed("default", 50 * kUs), "bf16", frozen)});
    const auto f = withRule(advise(report, {}), "perf.autocast");
    ASSERT_EQ(f.size(), 1u) << "the frozen bf16 setting is faster than default: no finding";
    EXPECT_EQ(f[0].run, 3);
    ASSERT_EQ(f[0].evidence.size(), 3u);
    EXPECT_EQ(f[0].evidence[1], "under eager, bf16 is 1.43× faster (210 µs against 300 µs): the "
                                "compiled graph is where bf16 loses");
    EXPECT_NE(f[0].evidence[2].find("measured here as default bf16 TORCHINDUCTOR_FREEZING=1: "
                                    "median 50.0 µs, 4.00× faster than without"),
              std::string::npos)
        << f[0].evidence[2];
}

TEST(AdviceAutocast, SaysWhenEagerIsSlowerUnderAutocastToo) {
    const auto report =
        reportOf({timed("eager", 300 * kUs), withAutocast(timed("eager", 600 * kUs), "fp16"),
                  timed("default", 100 * kUs), withAutocast(timed("default", 200 * kUs), "fp16")});
    const auto f = withRule(advise(report, {}), "perf.autocast");
    ASSERT_EQ(f.size(), 1u);
    EXPECT_EQ(f[0].evidence[1], "under eager, fp16 is 2.00× slower too (600 µs against 300 µs): "
                                "fp16 does not pay on this device");
    EXPECT_NE(f[0].remedy.find("model.to(torch.float16)"), std::string::npos) << f[0].remedy;
}

TEST(AdviceAutocast, EagerWithinNoiseIsSaidSo) {
    const auto report =
        reportOf({timed("eager", 300 * kUs), withAutocast(timed("eager", 300 * kUs), "bf16"),
                  timed("default", 100 * kUs), withAutocast(timed("default", 200 * kUs), "bf16")});
    const auto f = withRule(advise(report, {}), "perf.autocast");
    ASSERT_EQ(f.size(), 1u);
    EXPECT_EQ(f[0].evidence[1],
              "under eager, bf16 measured 300 µs against 300 µs, within noise of each other");
}
