// A first call that compiles for minutes gets a finding of its own, with no
// eager baseline: the dominant phase and the levers.
#include <gtest/gtest.h>

#include "tests/core/advice_reports.h"

using namespace advice_test;

namespace {

constexpr int64_t kS = 1'000'000'000;

// One setting, default, whose first call compiled for 480 s, most of it in C++ compile.
Run longCompile() {
    Run run = timedRun("default", {480 * kS, 2'000'000}, constant(30, 2'000'000));
    run.firstCallNs = 480 * kS;
    run.compilePhases = {{"dynamo_tracing", 12},
                         {"aot_autograd", 30},
                         {"inductor_codegen", 48},
                         {"cpp_triton_compile", 380},
                         {"other", 10}};
    return run;
}

TEST(AdviceCompileTime, LongFirstCallNamesTheDominantPhaseAndTheLevers) {
    cs::core::Run run = longCompile();
    run.probe.device.clear(); // an imported log's: of unknown device
    const auto findings = withRule(advise(reportOf({run}), {}), "perf.compile_time");
    ASSERT_EQ(findings.size(), 1u);
    const Finding& f = findings.front();
    EXPECT_EQ(f.severity, Severity::Warning);
    EXPECT_EQ(f.setting, "default");
    EXPECT_EQ(f.tab, EvidenceTab::Warmup);
    EXPECT_NE(f.title.find("most of it in C++/Triton compile"), std::string::npos) << f.title;
    ASSERT_GE(f.evidence.size(), 2u);
    EXPECT_NE(f.evidence[1].find("C++/Triton compile"), std::string::npos) << f.evidence[1];
    EXPECT_NE(f.evidence[1].find("79%"), std::string::npos) << f.evidence[1];
    for (const char* lever :
         {"--warm-cache", "torch.compiler.save_cache_artifacts", "load_cache_artifacts"})
        EXPECT_NE(f.remedy.find(lever), std::string::npos) << lever << " in " << f.remedy;
    // Of unknown device: the artifacts for CUDA, the cache directory for CPU.
    EXPECT_NE(f.remedy.find("(on CUDA; on CPU, keep Inductor's cache directory"), std::string::npos)
        << f.remedy;
    // Neither recompiles nor a repeated block in the graphs: those levers are left out.
    EXPECT_EQ(f.remedy.find("dynamic=True"), std::string::npos) << f.remedy;
    EXPECT_EQ(f.remedy.find("regional"), std::string::npos) << f.remedy;
}

// An encoder of four identical layers (same ops on the same shapes) between
// an embedding and a head: the regional-compilation lever names its list.
TEST(AdviceCompileTime, RepeatedIdenticalBlocksAreNamedForRegionalCompilation) {
    cs::core::Run run = longCompile();
    Graph graph;
    auto add = [&](const std::string& module, int count) {
        for (int i = 0; i < count; ++i) {
            GraphNode n;
            n.name = module + std::to_string(i);
            n.op = "call_function";
            n.target = "aten.mm";
            n.shape = "[8, 64]";
            n.module = module;
            graph.nodes.push_back(n);
        }
    };
    add("embed", 3);
    for (int layer = 0; layer < 4; ++layer) {
        add("encoder.layer." + std::to_string(layer) + ".attention", 6);
        add("encoder.layer." + std::to_string(layer) + ".mlp", 4);
    }
    add("head", 2);
    run.graphs.push_back(graph);
    cs::core::Recompile rc;
    rc.function = "forward";
    rc.reason = "0/0: tensor 'x' size mismatch at index 0. expected 8, actual 4";
    run.recompiles.push_back(rc);
    const auto findings = withRule(advise(reportOf({run}), {}), "perf.compile_time");
    ASSERT_EQ(findings.size(), 1u);
    const Finding& f = findings.front();
    EXPECT_NE(f.remedy.find("for block in model.encoder.layer: block.compile()"), std::string::npos)
        << f.remedy;
    EXPECT_NE(f.remedy.find("reuses it for all 4"), std::string::npos) << f.remedy;
    EXPECT_NE(f.remedy.find("dynamic=True"), std::string::npos) << f.remedy; // it recompiled
    bool said = false;
    for (const auto& e : f.evidence)
        said = said || e.find("repeat one block 4 times") != std::string::npos;
    EXPECT_TRUE(said) << ::testing::PrintToString(f.evidence);
}

// dynamic=True spares shape recompiles only: LeViT's recompile on a cache's
// key (a dict the first call fills) gets no such lever.
TEST(AdviceCompileTime, TheDynamicLeverNeedsARecompileOnAShape) {
    cs::core::Run run = longCompile();
    cs::core::Recompile rc;
    rc.function = "forward";
    rc.reason = "0/0: not ___dict_contains('cpu', self.cache)  # if k not in self.cache:";
    run.recompiles.push_back(rc);
    auto found = withRule(advise(reportOf({run}), {}), "perf.compile_time");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].remedy.find("dynamic=True"), std::string::npos) << found[0].remedy;
    rc.reason = "0/0: tensor 'x' size mismatch at index 0. expected 8, actual 4";
    run.recompiles.push_back(rc);
    found = withRule(advise(reportOf({run}), {}), "perf.compile_time");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_NE(found[0].remedy.find("dynamic=True compiles once"), std::string::npos)
        << found[0].remedy;
}

TEST(AdviceCompileTime, AnAotiStartInTheReportIsALever) {
    cs::core::Run aoti = timedRun("aoti", {3 * kS, 1'500'000}, constant(30, 1'500'000));
    aoti.firstCallNs = 3 * kS;
    auto found = withRule(advise(reportOf({longCompile(), aoti}), {}), "perf.compile_time");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_NE(found[0].remedy.find("as the aoti setting did here: its start (package load and "
                                   "first call) took 3.00 s"),
              std::string::npos)
        << found[0].remedy;
    // A package whose start is no quicker is not one.
    aoti.firstCallNs = 500 * kS;
    found = withRule(advise(reportOf({longCompile(), aoti}), {}), "perf.compile_time");
    ASSERT_FALSE(found.empty());
    EXPECT_EQ(found[0].remedy.find("aoti"), std::string::npos) << found[0].remedy;
}

TEST(AdviceCompileTime, ThresholdIsAnOption) {
    AdviceOptions options;
    options.longCompileSeconds = 600;
    EXPECT_TRUE(withRule(advise(reportOf({longCompile()}), options), "perf.compile_time").empty());
    options.longCompileSeconds = 0; // off
    EXPECT_TRUE(withRule(advise(reportOf({longCompile()}), options), "perf.compile_time").empty());
}

TEST(AdviceCompileTime, RecordedRunBelowTheDefaultGivesNone) {
    // mlp under default on CPU: a 55 s first call, 45 s of it C++ compile.
    Setting setting;
    const cs::core::Run run = fixtureRun("mlp_default_cpu.jsonl", setting);
    EXPECT_TRUE(withRule(advise(reportOf({run}), {}), "perf.compile_time").empty());
    AdviceOptions options;
    options.longCompileSeconds = 30;
    const auto findings = withRule(advise(reportOf({run}), options), "perf.compile_time");
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_NE(findings.front().title.find("C++/Triton compile"), std::string::npos);
    // fc1, fc2, head: nothing repeats, so regional compilation is not offered.
    EXPECT_EQ(findings.front().remedy.find("regional"), std::string::npos)
        << findings.front().remedy;
}

TEST(AdviceCompileTime, RecordedResidualBlocksAreTheRegionalBlock) {
    // The gallery's clean.py: two residual blocks of the same ops on the same
    // shapes, between which the graph's input and parameters are placeholders.
    Setting setting;
    setting.backend = "aot_eager";
    cs::core::Run run = fixtureRun("clean_aot_eager_cpu.jsonl", setting);
    run.setting.backend = "inductor"; // the rule judges the first call, not the backend
    run.firstCallNs = 90 * kS;
    const auto findings = withRule(advise(reportOf({run}), {}), "perf.compile_time");
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_NE(findings.front().remedy.find("for block in model.blocks: block.compile()"),
              std::string::npos)
        << findings.front().remedy;
    EXPECT_NE(findings.front().remedy.find("reuses it for all 2"), std::string::npos);
}

// torchvision's RAFT (torch 2.15, CPU): C++ compile was the largest phase at
// 47% of a 122 s first call, which is not "most of it".
TEST(AdviceCompileTime, ALargestPhaseUnderHalfIsNotMostOfIt) {
    cs::core::Run run = longCompile();
    run.compilePhases = {
        {"dynamo_tracing", 100}, {"aot_autograd", 80}, {"cpp_triton_compile", 220}, {"other", 80}};
    const auto findings = withRule(advise(reportOf({run}), {}), "perf.compile_time");
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_NE(findings.front().title.find("the largest part in C++/Triton compile"),
              std::string::npos)
        << findings.front().title;
    EXPECT_EQ(findings.front().title.find("most of it"), std::string::npos)
        << findings.front().title;
}

// torch's precompiled header is built once per machine: it does not make a
// compile long, and it is never the phase the title blames.
TEST(AdviceCompileTime, TheOnceAMachineHeaderBuildIsSaidNotCounted) {
    cs::core::Run run = longCompile();
    run.compilePhases.insert(run.compilePhases.begin() + 4, {"precompiled_header", 400});
    run.firstCallNs = 880 * kS;
    auto findings = withRule(advise(reportOf({run}), {}), "perf.compile_time");
    ASSERT_EQ(findings.size(), 1u);
    const Finding& f = findings.front();
    EXPECT_NE(f.title.find("most of it in C++/Triton compile"), std::string::npos) << f.title;
    bool said = false;
    for (const auto& e : f.evidence)
        said = said || e.find("precompiled C++ header") != std::string::npos;
    EXPECT_TRUE(said);

    // 40 s of compile beside 400 s of header: below the default threshold.
    run.compilePhases = {{"cpp_triton_compile", 40}, {"precompiled_header", 400}};
    run.firstCallNs = 440 * kS;
    EXPECT_TRUE(withRule(advise(reportOf({run}), {}), "perf.compile_time").empty());
}

TEST(AdviceCompileTime, EagerIsNeverJudged) {
    cs::core::Run eager = longCompile();
    eager.setting.mode = "eager";
    EXPECT_TRUE(withRule(advise(reportOf({eager}), {}), "perf.compile_time").empty());
}

} // namespace

// On CPU the portable artifacts carry C++ source that a fresh cache builds
// again (warm_start.artifacts): not offered as a lever there; on CUDA they are.
TEST(AdviceCompileTime, TheArtifactsLeverFollowsTheDevice) {
    cs::core::Run cpu = longCompile();
    cpu.probe.device = "cpu";
    const auto onCpu = withRule(advise(reportOf({cpu}), {}), "perf.compile_time");
    ASSERT_EQ(onCpu.size(), 1u);
    EXPECT_EQ(onCpu[0].remedy.find("save_cache_artifacts"), std::string::npos) << onCpu[0].remedy;
    EXPECT_NE(onCpu[0].remedy.find("TORCHINDUCTOR_CACHE_DIR"), std::string::npos);
    cs::core::Run cuda = longCompile();
    cuda.probe.device = "cuda:0";
    const auto onCuda = withRule(advise(reportOf({cuda}), {}), "perf.compile_time");
    ASSERT_EQ(onCuda.size(), 1u);
    EXPECT_NE(onCuda[0].remedy.find("save_cache_artifacts"), std::string::npos);
    EXPECT_EQ(onCuda[0].remedy.find("on CPU"), std::string::npos) << onCuda[0].remedy;
}
