// The kernel rules: a dominant kernel, time in ATen fallbacks, a line that
// runs uncompiled after a graph break; each only with a profiled window.
#include <gtest/gtest.h>

#include <algorithm>

#include "tests/core/advice_reports.h"

using namespace advice_test;

namespace {

const std::string kFile = "/m/model.py";

GraphNode nodeAt(const std::string& name, int line) {
    GraphNode n;
    n.name = name;
    n.op = "call_function";
    n.file = kFile;
    n.line = line;
    return n;
}

CodeKernel codeKernel(const std::string& name, const std::string& kind,
                      std::vector<std::string> nodes, int line, const std::string& code) {
    CodeKernel k;
    k.name = name;
    k.kind = kind;
    k.nodes = std::move(nodes);
    k.lines = {{kFile, line, "forward", code, true}};
    return k;
}

// A default run whose graph 0/0 has three kernels taking `a`, `b`, `c` ns over
// 10 profiled calls; the second is of kind `kindB`.
Run profiledRun(int64_t a, int64_t b, int64_t c, const std::string& kindB = "cpp") {
    cs::core::Run run = timedRun("default", {1000}, constant(20, 100));
    Graph graph;
    graph.index = 0;
    graph.compileId = "0/0";
    graph.nodes = {nodeAt("linear", 20), nodeAt("relu", 21), nodeAt("nonzero", 22)};
    run.graphs.push_back(graph);
    GeneratedCode code;
    code.compileId = "0/0";
    code.part = "inference";
    code.kernels = {codeKernel("extern_kernels.addmm", "extern", {"linear"}, 20, "self.fc(x)"),
                    codeKernel("aten.nonzero", kindB, {"nonzero"}, 22, "idx = y.nonzero()"),
                    codeKernel("cpp_fused_relu_0", "cpp", {"relu"}, 21, "y = torch.relu(y)")};
    run.code.push_back(code);
    KernelProfile& p = run.kernelProfile;
    p.present = true;
    p.source = "torch_profiler";
    p.calls = 10;
    p.callNs = (a + b + c) * 2;
    p.kernels = {{"0/0", "extern_kernels.addmm", a, 10, false},
                 {"0/0", "aten.nonzero", b, 10, false},
                 {"0/0", "cpp_fused_relu_0", c, 10, false}};
    return run;
}

// A second aten.nonzero fallback at model.py:23, taking `ns` over the window.
void addSecondNonzero(cs::core::Run& run, int64_t ns) {
    run.graphs[0].nodes.push_back(nodeAt("nonzero_1", 23));
    run.code[0].kernels.push_back(
        codeKernel("aten.nonzero", "fallback", {"nonzero_1"}, 23, "idx2 = z.nonzero()"));
    run.kernelProfile.kernels.push_back({"0/0", "aten.nonzero", ns, 10, false});
}

// Eager at a 100 µs median with a profiled window of 10 calls whose eager
// ops took `eagerNs` in all.
Run profiledEager(int64_t eagerNs) {
    cs::core::Run eager = timedRun("eager", {10}, constant(20, 100'000));
    KernelProfile& e = eager.kernelProfile;
    e.present = true;
    e.source = "torch_profiler";
    e.calls = 10;
    e.callNs = 1'000'000;
    e.eagerNs = eagerNs;
    return eager;
}

// default at `medianNs` with profiledRun's graph, code and window.
Run timedProfiledRun(int64_t medianNs, int64_t a, int64_t b, int64_t c) {
    const cs::core::Run profiled = profiledRun(a, b, c, "fallback");
    cs::core::Run run = timedRun("default", {1000}, constant(20, medianNs));
    run.graphs = profiled.graphs;
    run.code = profiled.code;
    run.kernelProfile = profiled.kernelProfile;
    return run;
}

bool anyEvidence(const Finding& f, const std::string& part) {
    for (const auto& e : f.evidence)
        if (e.find(part) != std::string::npos)
            return true;
    return false;
}

} // namespace

TEST(KernelRule, OneKernelAboveHalfTheKernelTimeWithItsLine) {
    const auto report = reportOf(
        {timedRun("eager", {10}, constant(20, 100)), profiledRun(700'000, 200'000, 100'000)});
    const auto found = withRule(advise(report), "kernel.dominant");
    ASSERT_EQ(found.size(), 1U);
    const Finding& f = found.front();
    EXPECT_EQ(f.run, 1);
    EXPECT_EQ(f.setting, "default");
    EXPECT_EQ(f.tab, EvidenceTab::Code);
    EXPECT_EQ(f.file, kFile);
    EXPECT_EQ(f.line, 20);
    EXPECT_EQ(f.code, "self.fc(x)");
    EXPECT_NE(f.title.find("70%"), std::string::npos) << f.title;
    EXPECT_NE(f.title.find("extern_kernels.addmm"), std::string::npos) << f.title;
    EXPECT_TRUE(anyEvidence(f, "70.0 µs per call")) << f.evidence[0];
    EXPECT_TRUE(anyEvidence(f, "10 profiled calls"));
    EXPECT_TRUE(anyEvidence(f, "model.py:20 `self.fc(x)`"));
    EXPECT_NE(f.remedy.find("max-autotune"), std::string::npos);
}

TEST(KernelRule, ADominantKernelNamesItsModuleWhereTheModelHasSubmodules) {
    cs::core::Run run = profiledRun(700'000, 200'000, 100'000);
    const auto without = withRule(advise(reportOf({run})), "kernel.dominant");
    ASSERT_EQ(without.size(), 1U);
    EXPECT_FALSE(anyEvidence(without.front(), "module")); // all in the model's own forward
    run.graphs[0].nodes[0].module = "blocks.3.fc";
    const auto found = withRule(advise(reportOf({run})), "kernel.dominant");
    ASSERT_EQ(found.size(), 1U);
    EXPECT_TRUE(anyEvidence(found.front(), "its nodes are in module blocks.3.fc"));
}

TEST(KernelRule, NoDominantKernelAtHalfOrWithOneKernelOrWithoutAProfile) {
    EXPECT_TRUE(
        withRule(advise(reportOf({profiledRun(500'000, 300'000, 200'000)})), "kernel.dominant")
            .empty());
    // Two near-equal kernels (two identical layers): neither dominates.
    EXPECT_TRUE(
        withRule(advise(reportOf({profiledRun(510'000, 490'000, 1)})), "kernel.dominant").empty());
    EXPECT_EQ(
        withRule(advise(reportOf({profiledRun(600'000, 300'000, 100'000)})), "kernel.dominant")
            .size(),
        1U);
    cs::core::Run single = profiledRun(700'000, 0, 0);
    single.kernelProfile.kernels.resize(1);
    EXPECT_TRUE(withRule(advise(reportOf({single})), "kernel.dominant").empty());
    cs::core::Run unprofiled = profiledRun(700'000, 200'000, 100'000);
    unprofiled.kernelProfile = {};
    const auto findings = advise(reportOf({unprofiled}));
    for (const auto& f : findings)
        EXPECT_NE(f.rule.rfind("kernel.", 0), 0U) << f.rule;
}

TEST(KernelRule, FallbacksAtATenthOfTheKernelTime) {
    const auto report = reportOf({profiledRun(450'000, 100'000, 450'000, "fallback")});
    const auto found = withRule(advise(report), "kernel.fallback");
    ASSERT_EQ(found.size(), 1U);
    const Finding& f = found.front();
    EXPECT_EQ(f.severity, Severity::Warning);
    EXPECT_EQ(f.line, 22);
    EXPECT_EQ(f.code, "idx = y.nonzero()");
    EXPECT_NE(f.title.find("10%"), std::string::npos) << f.title;
    EXPECT_TRUE(anyEvidence(f, "aten.nonzero: 10.0 µs per call (10%), from model.py:22"));
    // Just under a tenth: nothing.
    EXPECT_TRUE(withRule(advise(reportOf({profiledRun(450'000, 99'000, 451'000, "fallback")})),
                         "kernel.fallback")
                    .empty());
    // Not a fallback: nothing.
    EXPECT_TRUE(withRule(advise(reportOf({profiledRun(450'000, 100'000, 450'000, "cpp")})),
                         "kernel.fallback")
                    .empty());
}

// Two layers running the same ATen op: one op to change, named once.
TEST(KernelRule, FallbacksOfOneOpAreNamedOnceWithTheirKernelCount) {
    cs::core::Run run = profiledRun(400'000, 100'000, 400'000, "fallback");
    addSecondNonzero(run, 120'000);
    const auto found = withRule(advise(reportOf({run})), "kernel.fallback");
    ASSERT_EQ(found.size(), 1U);
    const Finding& f = found.front();
    EXPECT_TRUE(anyEvidence(f, "2 fallback kernels take 22.0 µs per call")) << f.evidence[0];
    EXPECT_FALSE(anyEvidence(f, " of 1 op")) << f.evidence[0];
    EXPECT_TRUE(anyEvidence(f, "aten.nonzero: 22.0 µs per call (22%, 2 kernels), from model.py:23"))
        << f.evidence[1];
    EXPECT_EQ(f.evidence.size(), 2U); // the op once, not a line per kernel
    EXPECT_EQ(f.line, 23);            // the costlier of its two lines
}

// A library's layer (nn.TransformerEncoderLayer's fast path) has no line of
// the user's: its fallback is placed by its modules instead.
TEST(KernelRule, AFallbackWithoutALineNamesItsModules) {
    cs::core::Run run = profiledRun(400'000, 100'000, 400'000, "fallback");
    addSecondNonzero(run, 120'000);
    for (auto& n : run.graphs[0].nodes) {
        n.file.clear();
        n.line = 0;
        n.module = n.name == "nonzero" ? "layers.0" : n.name == "nonzero_1" ? "layers.1" : "";
    }
    for (auto& k : run.code[0].kernels)
        k.lines.clear();
    const auto found = withRule(advise(reportOf({run})), "kernel.fallback");
    ASSERT_EQ(found.size(), 1U);
    EXPECT_TRUE(anyEvidence(found.front(), "aten.nonzero: 22.0 µs per call (22%, 2 kernels), in "
                                           "modules layers.1 and layers.0"))
        << ::testing::PrintToString(found.front().evidence);
}

// A fallback in a library's code is not the user's line to rewrite; in
// transformers' MoE experts (grouped_mm: histc, sort, cumsum on the routed
// tokens) the remedy is the batched_mm implementation.
TEST(KernelRule, AFallbackInALibrarysLineSaysWhoseCodeItIs) {
    cs::core::Run run = profiledRun(450'000, 100'000, 450'000, "fallback");
    const std::string moe = "/venv/lib/python3.11/site-packages/transformers/integrations/moe.py";
    auto inFile = [&](const std::string& file) {
        for (auto& n : run.graphs[0].nodes)
            n.file = file;
        for (auto& k : run.code[0].kernels)
            for (auto& l : k.lines)
                l.file = file;
        return withRule(advise(reportOf({run})), "kernel.fallback");
    };
    auto found = inFile(moe);
    ASSERT_EQ(found.size(), 1U);
    EXPECT_EQ(found[0].file, moe);
    EXPECT_NE(found[0].remedy.find("The line is transformers's code, not the model file's"),
              std::string::npos)
        << found[0].remedy;
    EXPECT_NE(found[0].remedy.find("experts_implementation=\"batched_mm\""), std::string::npos)
        << found[0].remedy;
    EXPECT_EQ(found[0].remedy.find("Express the line"), std::string::npos) << found[0].remedy;

    // Another file of the package: whose code it is, no MoE advice.
    found = inFile("/venv/lib/python3.11/site-packages/transformers/models/bert/modeling_bert.py");
    ASSERT_EQ(found.size(), 1U);
    EXPECT_NE(found[0].remedy.find("transformers's code"), std::string::npos) << found[0].remedy;
    EXPECT_EQ(found[0].remedy.find("batched_mm"), std::string::npos) << found[0].remedy;

    // The model file's own line: rewrite it.
    found = inFile(kFile);
    ASSERT_EQ(found.size(), 1U);
    EXPECT_NE(found[0].remedy.find("Express the line with ops Inductor lowers"), std::string::npos)
        << found[0].remedy;
}

// A custom op (torch.library) is called whole by design, not for want of a
// lowering: "express the line with ops Inductor lowers" does not fit it.
TEST(KernelRule, CustomOpsAreSaidToBeBlackBoxesNotFailedLowerings) {
    cs::core::Run run = profiledRun(250'000, 600'000, 150'000, "fallback");
    const std::string op = "torch.ops.mylib.grouped.default";
    run.code[0].kernels[1].name = op;
    run.kernelProfile.kernels[1].name = op;
    auto found = withRule(advise(reportOf({run})), "kernel.fallback");
    ASSERT_EQ(found.size(), 1U);
    const Finding& f = found.front();
    EXPECT_NE(f.title.find("60% of the compiled kernel time is in custom ops, which Inductor "
                           "calls as black boxes"),
              std::string::npos)
        << f.title;
    EXPECT_TRUE(anyEvidence(f, op + " (a custom op): 60.0 µs per call (60%)"));
    EXPECT_NE(f.remedy.find("custom ops (torch.library; here mylib::grouped)"), std::string::npos)
        << f.remedy;
    EXPECT_NE(f.remedy.find("call them directly instead of through the op"), std::string::npos)
        << f.remedy;
    EXPECT_EQ(f.remedy.find("Express the line"), std::string::npos) << f.remedy;

    // A package's op (torchvision's roi_align): not the user's to inline.
    cs::core::Run library = run;
    const std::string ops = "/venv/lib/python3.11/site-packages/torchvision/ops/roi_align.py";
    for (auto& n : library.graphs[0].nodes)
        n.file = ops;
    for (auto& k : library.code[0].kernels)
        for (auto& l : k.lines)
            l.file = ops;
    found = withRule(advise(reportOf({library})), "kernel.fallback");
    ASSERT_EQ(found.size(), 1U);
    EXPECT_NE(found[0].remedy.find("The op is torchvision's, called from its code"),
              std::string::npos)
        << found[0].remedy;
    EXPECT_NE(found[0].remedy.find("compiling leaves its time as eager has it"), std::string::npos)
        << found[0].remedy;
    EXPECT_EQ(found[0].remedy.find("call them directly"), std::string::npos) << found[0].remedy;

    // The dominant kernel's remedy says so too.
    const auto dominant = withRule(advise(reportOf({run})), "kernel.dominant");
    ASSERT_EQ(dominant.size(), 1U);
    EXPECT_NE(dominant[0].remedy.find("a custom op (mylib::grouped)"), std::string::npos)
        << dominant[0].remedy;

    // Beside a costlier ATen fallback: both named, the usual remedy first.
    addSecondNonzero(run, 700'000);
    found = withRule(advise(reportOf({run})), "kernel.fallback");
    ASSERT_EQ(found.size(), 1U);
    EXPECT_NE(found[0].title.find("ops Inductor does not compile (ATen fallbacks and custom ops)"),
              std::string::npos)
        << found[0].title;
    EXPECT_NE(found[0].remedy.find("Express the line"), std::string::npos) << found[0].remedy;
    EXPECT_NE(found[0].remedy.find("The custom ops among them (mylib::grouped)"), std::string::npos)
        << found[0].remedy;
}

// Ops on complex tensors (a spectral layer's einsum, its FFTs) are fallbacks
// because Inductor writes no code for complex dtypes: "try a newer torch, or
// express the line with ops Inductor lowers" misled there.
TEST(KernelRule, FallbacksOnComplexTensorsSayInductorWritesNoCodeForThem) {
    const cs::core::Run real = profiledRun(400'000, 300'000, 300'000, "fallback");
    const auto generic = withRule(advise(reportOf({real})), "kernel.fallback");
    ASSERT_EQ(generic.size(), 1U);
    EXPECT_NE(generic.front().remedy.find("Express the line with ops Inductor lowers"),
              std::string::npos);
    EXPECT_FALSE(anyEvidence(generic.front(), "complex"));

    cs::core::Run made = real; // the op makes a complex tensor
    made.graphs[0].nodes[2].dtype = "complex64";
    cs::core::Run reads = real; // the op reads one
    reads.graphs[0].nodes[0].dtype = "complex64";
    reads.graphs[0].nodes[2].dtype = "float32";
    reads.graphs[0].nodes[2].inputs = {"linear"};
    for (const auto& run : {made, reads}) {
        const auto found = withRule(advise(reportOf({run})), "kernel.fallback");
        ASSERT_EQ(found.size(), 1U);
        EXPECT_TRUE(anyEvidence(found.front(), "aten.nonzero on complex tensors: 30.0 µs per call"))
            << ::testing::PrintToString(found.front().evidence);
        EXPECT_NE(found.front().remedy.find("Inductor generates no code"), std::string::npos)
            << found.front().remedy;
        EXPECT_EQ(found.front().remedy.find("newer torch, which may"), std::string::npos);
    }
}

// The fallback kernel at `index` of the run's code and profile, renamed.
void renameKernel(cs::core::Run& run, size_t index, const std::string& name) {
    run.code[0].kernels[index].name = name;
    run.kernelProfile.kernels[index].name = name;
}

// FFTs are library transforms under any mode: like fused attention they are
// left out of the fallback share, and named as left out where other
// fallbacks make the finding.
TEST(KernelRule, FftsAreLeftOutOfTheFallbacksAndNamed) {
    const std::string fft = "torch.ops.aten._fft_r2c.default";
    cs::core::Run run = profiledRun(400'000, 300'000, 300'000, "fallback");
    renameKernel(run, 1, fft);
    EXPECT_TRUE(withRule(advise(reportOf({run})), "kernel.fallback").empty());

    cs::core::Run both = profiledRun(400'000, 300'000, 300'000, "fallback");
    addSecondNonzero(both, 200'000);
    renameKernel(both, both.code[0].kernels.size() - 1, fft);
    const auto found = withRule(advise(reportOf({both})), "kernel.fallback");
    ASSERT_EQ(found.size(), 1U);
    EXPECT_TRUE(anyEvidence(found.front(), "left out: FFTs, 20.0 µs per call"))
        << ::testing::PrintToString(found.front().evidence);
    EXPECT_FALSE(anyEvidence(found.front(), "_fft_r2c"));
}

// Inductor runs SDPA's fused kernels as fallbacks on purpose: they are not
// ops it failed to lower, and no rewrite of the line would beat them.
TEST(KernelRule, FusedAttentionIsLeftOutOfTheFallbacks) {
    const std::string sdpa = "torch.ops.aten._scaled_dot_product_flash_attention_for_cpu.default";
    cs::core::Run run = profiledRun(400'000, 300'000, 300'000, "fallback");
    renameKernel(run, 1, sdpa);
    EXPECT_TRUE(withRule(advise(reportOf({run})), "kernel.fallback").empty());

    // With another fallback above a tenth, only that one counts.
    addSecondNonzero(run, 250'000);
    const auto found = withRule(advise(reportOf({run})), "kernel.fallback");
    ASSERT_EQ(found.size(), 1U);
    const Finding& f = found.front();
    EXPECT_NE(f.title.find(": 20% of the compiled kernel time"), std::string::npos) << f.title;
    EXPECT_EQ(f.line, 23);
    EXPECT_TRUE(anyEvidence(f, "1 fallback kernel takes 25.0 µs per call")) << f.evidence[0];
    EXPECT_TRUE(anyEvidence(f, "left out: ATen's fused attention (CPU flash), 30.0 µs per call "
                               "(24%)"));
}

// nn.TransformerEncoder in eval mode without grad: each layer is one fused
// ATen op, all of the compiled kernel time, with no line of the user's.
TEST(KernelRule, TheTransformerFastPathIsTurnedOffToLetInductorCompileTheLayer) {
    const std::string layer = "torch.ops.aten._transformer_encoder_layer_fwd.default";
    cs::core::Run run = profiledRun(100'000, 800'000, 100'000, "fallback");
    run.code[0].kernels[1].name = layer;
    run.kernelProfile.kernels[1].name = layer;
    const auto found = withRule(advise(reportOf({run})), "kernel.fallback");
    ASSERT_EQ(found.size(), 1U);
    EXPECT_NE(found[0].remedy.find("torch.backends.mha.set_fastpath_enabled(False)"),
              std::string::npos)
        << found[0].remedy;
    // Any other fallback keeps the general remedy.
    const auto plain = withRule(
        advise(reportOf({profiledRun(100'000, 800'000, 100'000, "fallback")})), "kernel.fallback");
    ASSERT_EQ(plain.size(), 1U);
    EXPECT_EQ(plain[0].remedy.find("fastpath"), std::string::npos) << plain[0].remedy;
}

TEST(KernelRule, ADominantAttentionKernelNamesItsBackendsLevers) {
    const std::string efficient = "aten._scaled_dot_product_efficient_attention.default";
    cs::core::Run run = profiledRun(100'000, 700'000, 200'000, "fallback");
    run.code[0].kernels[1].name = efficient;
    run.kernelProfile.kernels[1].name = efficient;
    auto found = withRule(advise(reportOf({run})), "kernel.dominant");
    ASSERT_EQ(found.size(), 1U);
    EXPECT_NE(found[0].remedy.find("memory-efficient backend"), std::string::npos);
    EXPECT_NE(found[0].remedy.find("--autocast bf16"), std::string::npos) << found[0].remedy;
    EXPECT_EQ(found[0].remedy.find("could not lower"), std::string::npos);

    const std::string flash = "aten._scaled_dot_product_flash_attention.default";
    run.code[0].kernels[1].name = flash;
    run.kernelProfile.kernels[1].name = flash;
    found = withRule(advise(reportOf({run})), "kernel.dominant");
    ASSERT_EQ(found.size(), 1U);
    EXPECT_NE(found[0].remedy.find("flash backend"), std::string::npos);
    EXPECT_EQ(found[0].remedy.find("--autocast"), std::string::npos) << found[0].remedy;
}

// profiledRun's window (500 µs of kernels over 10 calls) with a break at
// model.py:29 and these eager lines, 500 µs of eager ops in all.
Run afterABreakAtLine29(std::vector<cs::core::EagerLineCost> eager) {
    cs::core::Run run = profiledRun(300'000, 100'000, 100'000);
    run.graphBreaks.push_back(
        makeBreak("Unsupported Tensor.item() call", "item", kFile, 29, "n = int(y.sum().item())"));
    run.kernelProfile.eager = std::move(eager);
    run.kernelProfile.eagerNs = 500'000;
    return run;
}

TEST(KernelRule, AnEagerLineAfterABreakRunsUncompiled) {
    cs::core::Run run =
        afterABreakAtLine29({{{kFile, 30, "forward", "z = x.tolist()", true}, 200'000},
                             {{kFile, 10, "forward", "x = x + 1", true}, 250'000},
                             {{kFile, 31, "forward", "w = z[0]", true}, 50'000}});
    // The Python between the ops, slowed by the line tracer, is not in the share.
    run.kernelProfile.callNs = 1'600'000;
    const auto found = withRule(advise(reportOf({run})), "kernel.uncompiled_line");
    // Line 30 (20% of the call's ops, kernels 500 µs and eager 500 µs, after
    // the break at 29); line 10 is before any break; line 31 is 5%.
    ASSERT_EQ(found.size(), 1U);
    const Finding& f = found.front();
    EXPECT_EQ(f.line, 30);
    EXPECT_EQ(f.code, "z = x.tolist()");
    EXPECT_EQ(f.graphBreak, 0);
    EXPECT_EQ(f.tab, EvidenceTab::Code);
    EXPECT_NE(f.title.find("model.py:30 runs uncompiled, 20% of the call"), std::string::npos)
        << f.title;
    EXPECT_TRUE(anyEvidence(f, "20.0 µs per call outside any compiled graph, 20% of the 100 µs "
                               "the call's ops took"));
    EXPECT_TRUE(anyEvidence(f, "graph break at model.py:29"));
}

// Several lines of one function after one break (a frame Dynamo runs eagerly,
// as SSD's postprocess_detections): one finding, not one per line.
TEST(KernelRule, TheUncompiledLinesOfOneFunctionAreOneFinding) {
    const cs::core::Run run =
        afterABreakAtLine29({{{kFile, 30, "forward", "z = x.tolist()", true}, 200'000},
                             {{kFile, 31, "forward", "w = z[0]", true}, 150'000},
                             {{kFile, 40, "helper", "v = w * 2", true}, 150'000}});
    const auto found = withRule(advise(reportOf({run})), "kernel.uncompiled_line");
    ASSERT_EQ(found.size(), 2U);
    const Finding& f = found.front();
    EXPECT_EQ(f.title, "default: forward() runs uncompiled at model.py:30 and 31, 35% of the call");
    EXPECT_EQ(f.line, 30); // the costliest
    EXPECT_TRUE(anyEvidence(f, "model.py:30 `z = x.tolist()` took 20.0 µs per call"));
    EXPECT_TRUE(anyEvidence(f, "model.py:31 `w = z[0]` took 15.0 µs per call"));
    EXPECT_TRUE(anyEvidence(f, "they come after the graph break at model.py:29"));
    EXPECT_NE(f.remedy.find("These lines run in Python"), std::string::npos) << f.remedy;
    // Another function's line is its own finding.
    EXPECT_EQ(found[1].title, "default: model.py:40 runs uncompiled, 15% of the call");
}

// A break in blocks.1 under torch's nn.Sequential: the Sequential runs
// eagerly, and with it blocks.0 and blocks.2, in which nothing breaks.
Run siblingsOfABreak() {
    cs::core::Run run = profiledRun(300'000, 100'000, 100'000);
    run.graphs[0].nodes[0].module = "blocks.1.fc";
    run.graphs[0].nodes[1].module = "blocks.1";
    run.graphs[0].nodes[2].module = "head";
    run.graphBreaks.push_back(
        makeBreak("Unsupported Tensor.item() call", "item", kFile, 17, "peak = h.max().item()"));
    run.kernelProfile.eagerModules = {
        {"blocks.0", 100'000}, {"blocks.0.inner", 200'000}, {"blocks.2", 100'000}};
    run.kernelProfile.eagerNs = 400'000;
    return run;
}

TEST(KernelRule, ModulesThatRanWhollyUncompiledAfterABreak) {
    const cs::core::Run run = siblingsOfABreak();
    const auto found = withRule(advise(reportOf({run})), "kernel.uncompiled_modules");
    ASSERT_EQ(found.size(), 1U);
    const Finding& f = found.front();
    // Kernels 50 µs and eager 40 µs a call: blocks.0 and blocks.2 are 44% of
    // the ops; blocks.0.inner is counted in blocks.0, blocks.1 compiled.
    EXPECT_EQ(f.title, "default: blocks.0 and blocks.2 run uncompiled, 44% of the call");
    EXPECT_TRUE(anyEvidence(f, "blocks.0 30.0 µs and blocks.2 10.0 µs per call ran outside every "
                               "compiled graph"))
        << f.evidence.front();
    EXPECT_TRUE(anyEvidence(f, "the graph break behind them: model.py:17"));
    EXPECT_EQ(f.line, 17);
    EXPECT_EQ(f.graphBreak, 0);
    EXPECT_EQ(f.tab, EvidenceTab::Code);
    EXPECT_NE(f.remedy.find("(model.blocks[0].compile(), nn.Module.compile)"), std::string::npos)
        << f.remedy;

    // A model that is an nn.Sequential: its children by index, as Python has them.
    cs::core::Run sequential = siblingsOfABreak();
    sequential.kernelProfile.eagerModules = {{"0", 300'000}, {"2", 100'000}};
    const auto inSequential = withRule(advise(reportOf({sequential})), "kernel.uncompiled_modules");
    ASSERT_EQ(inSequential.size(), 1U);
    EXPECT_EQ(inSequential[0].title,
              "default: model[0] and model[2] run uncompiled, 44% of the call");

    // A few percent of the call is not worth a finding.
    cs::core::Run small = siblingsOfABreak();
    small.kernelProfile.eagerModules = {{"blocks.0", 30'000}};
    small.kernelProfile.eagerNs = 30'000;
    EXPECT_TRUE(withRule(advise(reportOf({small})), "kernel.uncompiled_modules").empty());
    // Eager mode runs every module uncompiled: no finding.
    cs::core::Run eager = siblingsOfABreak();
    eager.setting.mode = "eager";
    EXPECT_TRUE(withRule(advise(reportOf({eager})), "kernel.uncompiled_modules").empty());
    // Without a graph break nothing made them run eagerly that the rule can name.
    cs::core::Run whole = siblingsOfABreak();
    whole.graphBreaks.clear();
    EXPECT_TRUE(withRule(advise(reportOf({whole})), "kernel.uncompiled_modules").empty());
}

// The gallery's sequential_break.py, recorded (torch 2.15, CPU, Inductor):
// an nn.Sequential whose forward holds the break in its loop runs eagerly
// but the breaking block model[6].
TEST(KernelRule, RealSequentialBreakLeavesItsLayersUncompiled) {
    Setting setting; // default, inductor
    const cs::core::Run run = fixtureRun("advice_sequential_break.jsonl", setting);
    ASSERT_EQ(run.status, RunStatus::Ok);
    const auto found = withRule(advise(reportOf({run}), {}), "kernel.uncompiled_modules");
    ASSERT_EQ(found.size(), 1u);
    const Finding& f = found.front();
    EXPECT_NE(f.title.find("and 10 more modules run uncompiled"), std::string::npos) << f.title;
    EXPECT_NE(f.title.find("model[0]"), std::string::npos) << f.title;
    EXPECT_EQ(f.title.find("model[6]"), std::string::npos) << f.title; // it compiled
    EXPECT_EQ(f.line, 17);
    EXPECT_NE(f.file.find("sequential_break.py"), std::string::npos);
    EXPECT_TRUE(anyEvidence(f, "the graph break behind them: sequential_break.py:17"));
    // Ranked with the break, whose cost it shows: right after it.
    const auto all = advise(reportOf({run}), {});
    std::vector<std::string> rules;
    for (const auto& finding : all)
        rules.push_back(finding.rule);
    const auto at = std::find(rules.begin(), rules.end(), "kernel.uncompiled_modules");
    ASSERT_NE(at, rules.begin());
    EXPECT_EQ(*(at - 1), "graph_break.item") << ::testing::PrintToString(rules);
    // And the break's finding says what removing it brings back.
    const Finding& item = all[static_cast<size_t>(at - rules.begin()) - 1];
    EXPECT_NE(item.gain.find("removes 1 of the 1 graph break measured in default, and with it "
                             "model[0], "),
              std::string::npos)
        << item.gain;
    EXPECT_NE(item.gain.find("more modules, which run uncompiled: 9"), std::string::npos)
        << item.gain;
}

// torchvision's nms under SSD: the eager line is the op that breaks the graph,
// which is its own kernel in or out of a graph, so removing the break is not
// offered as what saves its time.
TEST(KernelRule, AnEagerLineThatIsTheBreaksOwnDataDependentOp) {
    cs::core::Run run = profiledRun(300'000, 100'000, 100'000);
    const std::string reason =
        "Dynamic shape operator\n  Explanation: Operator `torchvision.nms.default`'s output "
        "shape depends on input Tensor data.";
    run.graphBreaks.push_back(makeBreak("Dynamic shape operator", reason, kFile, 54,
                                        "return torch.ops.torchvision.nms(b, s, t)"));
    run.kernelProfile.eager = {
        {{kFile, 54, "nms", "return torch.ops.torchvision.nms(b, s, t)", true}, 150'000}};
    run.kernelProfile.eagerNs = 150'000;
    run.kernelProfile.callNs = 1'000'000;
    auto found = withRule(advise(reportOf({run})), "kernel.uncompiled_line");
    ASSERT_EQ(found.size(), 1U);
    const Finding& f = found.front();
    EXPECT_TRUE(anyEvidence(f, "the graph breaks at this line (Dynamic shape operator)"));
    EXPECT_FALSE(anyEvidence(f, "comes after"));
    EXPECT_NE(f.remedy.find("torchvision.nms.default's output size depends on tensor values"),
              std::string::npos)
        << f.remedy;
    EXPECT_NE(f.remedy.find("saves the break's cost, not this time"), std::string::npos);
    EXPECT_EQ(f.remedy.find("lets Dynamo compile it"), std::string::npos);

    // A line below the op's break keeps the general remedy.
    run.kernelProfile.eager = {{{kFile, 55, "nms", "keep = keep[:k]", true}, 150'000}};
    found = withRule(advise(reportOf({run})), "kernel.uncompiled_line");
    ASSERT_EQ(found.size(), 1U);
    EXPECT_TRUE(anyEvidence(found.front(), "comes after the graph break at model.py:54"));
    EXPECT_NE(found.front().remedy.find("lets Dynamo compile it"), std::string::npos);
}

TEST(KernelRule, AnEagerLineWhereTheBackendFailed) {
    // EnCodec's reflect pad by tensor amounts: the line is the break itself,
    // not "after" one that removing would compile.
    cs::core::Run run = profiledRun(300'000, 100'000, 100'000);
    const std::string reason =
        "Backend compiler exception\n  Explanation: Backend compiler `inductor` failed with "
        "aten._local_scalar_dense.default\n\n    While executing %padded : [num_users=2] = "
        "call_function[target=torch._C._nn.pad](args = (%l_x_, (%l_p_0_, %l_p_1_), reflect, "
        "None), kwargs = {})";
    run.graphBreaks.push_back(makeBreak("Backend compiler exception", reason, kFile, 27,
                                        "padded = nn.functional.pad(x, paddings, \"reflect\")"));
    run.kernelProfile.eager = {{{kFile, 27, "torch_dynamo_resume_in__pad1d_at_24",
                                 "padded = nn.functional.pad(x, paddings, \"reflect\")", true},
                                150'000}};
    run.kernelProfile.eagerNs = 150'000;
    run.kernelProfile.callNs = 1'000'000;
    const auto found = withRule(advise(reportOf({run})), "kernel.uncompiled_line");
    ASSERT_EQ(found.size(), 1U);
    EXPECT_EQ(found.front().remedy,
              "This line is where the backend failed on torch._C._nn.pad: torch runs it, and the "
              "rest of _pad1d after it, eagerly. The break's finding says what lets the backend "
              "compile it.");
}

TEST(KernelRule, AnEagerLineBetweenTheGraphsOfABreakElsewhere) {
    cs::core::Run run = profiledRun(300'000, 100'000, 100'000);
    Graph after;
    after.index = 1;
    after.compileId = "1/0";
    after.nodes = {nodeAt("mul", 40)};
    run.graphs.push_back(after);
    // The break is in a helper in another file; its graphs sit around line 30.
    run.graphBreaks.push_back(
        makeBreak("Unsupported Tensor.item() call", "item", "/m/helper.py", 5, "v.item()", 0, 1));
    run.kernelProfile.eager = {{{kFile, 30, "forward", "z = x.tolist()", true}, 200'000},
                               {{kFile, 50, "forward", "late()", true}, 200'000}};
    run.kernelProfile.eagerNs = 400'000;
    run.kernelProfile.callNs = 1'000'000;
    const auto found = withRule(advise(reportOf({run})), "kernel.uncompiled_line");
    ASSERT_EQ(found.size(), 1U);
    EXPECT_EQ(found.front().line, 30);

    // Eager mode runs everything uncompiled: no finding.
    run.setting.mode = "eager";
    EXPECT_TRUE(withRule(advise(reportOf({run})), "kernel.uncompiled_line").empty());
    // Under aot_eager the compiled graphs run op by op: the profiler cannot
    // tell their ops from uncompiled ones, so no finding either.
    run.setting.mode = "default";
    run.setting.backend = "aot_eager";
    EXPECT_TRUE(withRule(advise(reportOf({run})), "kernel.uncompiled_line").empty());
    run.setting.backend = "inductor";
    // No graph at all (a frame skipped for a break in a loop): every line is
    // uncompiled, which the break's own finding says.
    const auto graphs = run.graphs;
    run.graphs.clear();
    EXPECT_TRUE(withRule(advise(reportOf({run})), "kernel.uncompiled_line").empty());
    run.graphs = graphs;
    // No break: no finding.
    run.setting.mode = "default";
    run.graphBreaks.clear();
    EXPECT_TRUE(withRule(advise(reportOf({run})), "kernel.uncompiled_line").empty());
}

TEST(KernelRule, ASlowerSettingNamesTheLinesThatCostMoreAndItsTimeOutsideKernels) {
    cs::core::Run eager = profiledEager(400'000);
    eager.kernelProfile.eager = {{{kFile, 20, "forward", "self.fc(x)", true}, 300'000},
                                 {{kFile, 22, "forward", "idx = y.nonzero()", true}, 100'000}};
    // Per call under default: line 20 30 µs as before, 22 50 µs (was 10), 21 10 µs
    // (eager spent nothing there), and 20 µs in the graph outside its kernels.
    cs::core::Run slower = timedProfiledRun(150'000, 300'000, 500'000, 100'000);
    slower.kernelProfile.wrappers = {{"0/0", "", 200'000, 10, false}};

    const auto found = withRule(advise(reportOf({eager, slower})), "perf.no_gain");
    ASSERT_EQ(found.size(), 1U);
    const Finding& f = found.front();
    EXPECT_TRUE(anyEvidence(f, "cost more per call than under eager (profiled window, Code "
                               "tab): model.py:22 `idx = y.nonzero()` 10.0 µs → 50.0 µs"))
        << ::testing::PrintToString(f.evidence);
    // A line eager's calls spent nothing on is not "0 → 10.0 µs": the
    // compiled code ran it and eager did not (transformers' Mamba scans
    // with associative_scan only under torch.compile).
    EXPECT_TRUE(anyEvidence(f, "lines only the compiled calls ran, with no time under eager "
                               "(code that checks torch.compiler.is_compiling() takes another "
                               "path when compiled; profiled window, Code tab): model.py:21 `y = "
                               "torch.relu(y)` 10.0 µs"))
        << ::testing::PrintToString(f.evidence);
    EXPECT_FALSE(anyEvidence(f, "0 → "));
    EXPECT_FALSE(anyEvidence(f, "model.py:20")); // it cost the same
    EXPECT_TRUE(anyEvidence(f, "spend 20.0 µs per call outside their kernels"))
        << ::testing::PrintToString(f.evidence);
    EXPECT_TRUE(anyEvidence(f, "20% of eager's median), time eager does not have"));

    // A custom op among the kernels: its Python runs outside them, and in eager too.
    cs::core::Run custom = slower;
    const std::string op = "torch.ops.mylib.grouped.default";
    custom.code[0].kernels[1].name = op;
    custom.kernelProfile.kernels[1].name = op;
    const auto withCustom = withRule(advise(reportOf({eager, custom})), "perf.no_gain");
    ASSERT_EQ(withCustom.size(), 1U);
    EXPECT_TRUE(anyEvidence(withCustom.front(), "with the Python of the custom ops they call, "
                                                "which eager runs too"))
        << ::testing::PrintToString(withCustom.front().evidence);
    EXPECT_FALSE(anyEvidence(withCustom.front(), "time eager does not have"));

    // No module took eager time (a report from before the probe tracked modules): none named.
    EXPECT_FALSE(anyEvidence(f, "modules that cost more"));

    // With eager's time by module: the deepest module that lost, not its parent too.
    cs::core::Run withModules = slower;
    for (auto& n : withModules.graphs[0].nodes)
        n.module = n.name == "nonzero" ? "head.select" : "body";
    eager.kernelProfile.eagerModules = {{"head.select", 100'000}, {"body", 300'000}};
    const auto byModule = withRule(advise(reportOf({eager, withModules})), "perf.no_gain");
    ASSERT_EQ(byModule.size(), 1U);
    EXPECT_TRUE(anyEvidence(byModule.front(), "the modules that cost more per call than under "
                                              "eager (Code tab, Compare): head.select 10.0 µs → "
                                              "50.0 µs"))
        << ::testing::PrintToString(byModule.front().evidence);
    EXPECT_FALSE(anyEvidence(byModule.front(), "head ")); // its parent, no deeper news
    eager.kernelProfile.eagerModules.clear();

    // Without eager's profiled window there is nothing to set the lines against.
    eager.kernelProfile = {};
    const auto unprofiled = withRule(advise(reportOf({eager, slower})), "perf.no_gain");
    ASSERT_EQ(unprofiled.size(), 1U);
    EXPECT_FALSE(anyEvidence(unprofiled.front(), "cost more per call"));

    // A window that ran far slower than the measured calls (290 µs of ops a call
    // against a median of 150): disturbed, said so, and no line is read from it.
    eager = profiledEager(400'000);
    eager.kernelProfile.eager = {{{kFile, 20, "forward", "self.fc(x)", true}, 300'000},
                                 {{kFile, 22, "forward", "idx = y.nonzero()", true}, 100'000}};
    cs::core::Run disturbed = slower;
    for (auto& k : disturbed.kernelProfile.kernels)
        k.ns *= 3;
    const auto noisy = withRule(advise(reportOf({eager, disturbed})), "perf.no_gain");
    ASSERT_EQ(noisy.size(), 1U);
    EXPECT_FALSE(anyEvidence(noisy.front(), "cost more per call"));
    EXPECT_TRUE(anyEvidence(noisy.front(), "default's profiled window (the calls after the "
                                           "measured ones) took 290 µs per call in its ops "
                                           "against a median of 150 µs: slower than the "
                                           "measured calls"))
        << ::testing::PrintToString(noisy.front().evidence);
}

// perf.autocast reads the casts' kernels from both windows, unless one ran far
// slower than its measured calls (a build beside default's window: 11.4 ms of
// ops a call against a median of 603 µs had read as "the kernels take 861 µs
// per call in all against 10.8 ms without autocast").
TEST(KernelRule, AutocastsCastsAreNotReadFromADisturbedWindow) {
    const cs::core::Run plain = timedProfiledRun(100'000, 400'000, 300'000, 200'000);
    cs::core::Run bf16 = timedProfiledRun(200'000, 800'000, 400'000, 300'000);
    bf16.setting.autocast = "bf16";
    bf16.kernelProfile.kernels[2].name = "cpp_fused__to_copy_relu_0";
    bf16.code[0].kernels[2].name = "cpp_fused__to_copy_relu_0";
    auto found = withRule(advise(reportOf({plain, bf16})), "perf.autocast");
    ASSERT_EQ(found.size(), 1U);
    EXPECT_TRUE(anyEvidence(found.front(), "1 kernel converts dtypes"))
        << ::testing::PrintToString(found.front().evidence);

    cs::core::Run disturbed = plain;
    for (auto& k : disturbed.kernelProfile.kernels)
        k.ns *= 3;
    found = withRule(advise(reportOf({disturbed, bf16})), "perf.autocast");
    ASSERT_EQ(found.size(), 1U);
    EXPECT_FALSE(anyEvidence(found.front(), "converts dtypes"));
    EXPECT_TRUE(anyEvidence(found.front(), "default's profiled window (the calls after the "
                                           "measured ones) took 270 µs per call in its ops "
                                           "against a median of 100 µs: slower than the "
                                           "measured calls"))
        << ::testing::PrintToString(found.front().evidence);
    EXPECT_TRUE(anyEvidence(found.front(), "so what the casts cost is not read from it"))
        << ::testing::PrintToString(found.front().evidence);
}

// A slower setting that compiled a graph but ran most of its ops outside it
// (a break under an nn.Sequential): the breaks, not a batch or a mode.
TEST(KernelRule, ASlowerSettingThatMostlyRanUncompiledPointsAtTheBreaks) {
    const cs::core::Run eager = profiledEager(400'000);
    cs::core::Run slower = timedProfiledRun(150'000, 100'000, 50'000, 50'000);
    slower.graphBreaks.push_back(
        makeBreak("Unsupported Tensor.item() call", "item", kFile, 17, "x.max().item()"));
    slower.kernelProfile.eagerNs = 600'000; // 60 µs eager of 80 µs ops a call
    const auto found = withRule(advise(reportOf({eager, slower})), "perf.no_gain");
    ASSERT_EQ(found.size(), 1U);
    const Finding& f = found.front();
    EXPECT_TRUE(anyEvidence(f, "75% of default's ops ran uncompiled, 60.0 µs of the 80.0 µs per "
                               "call its ops took, with its 1 graph break"))
        << ::testing::PrintToString(f.evidence);
    EXPECT_NE(f.remedy.find("remove the graph breaks first"), std::string::npos) << f.remedy;
    EXPECT_EQ(f.remedy.find("larger batch gives"), std::string::npos) << f.remedy;

    // Under half uncompiled: the usual remedy.
    slower.kernelProfile.eagerNs = 100'000;
    const auto usual = withRule(advise(reportOf({eager, slower})), "perf.no_gain");
    ASSERT_EQ(usual.size(), 1U);
    EXPECT_FALSE(anyEvidence(usual.front(), "ran uncompiled"));
    EXPECT_NE(usual.front().remedy.find("larger batch gives"), std::string::npos);
}

// A setting twice as fast as eager whose blocks.0.fc still went from 20 to
// 30 µs a call: worth leaving that block eager.
TEST(KernelRule, AFasterSettingNamesAModuleThatRanSlowerThanUnderEager) {
    cs::core::Run eager = profiledEager(900'000);
    eager.kernelProfile.eagerModules = {
        {"blocks.0.fc", 200'000}, {"blocks.1", 300'000}, {"head", 400'000}};
    cs::core::Run faster = timedProfiledRun(50'000, 300'000, 100'000, 100'000);
    for (auto& n : faster.graphs[0].nodes)
        n.module = n.name == "linear" ? "blocks.0.fc" : n.name == "relu" ? "blocks.1" : "head";

    const auto findings = advise(reportOf({eager, faster}));
    EXPECT_TRUE(withRule(findings, "perf.no_gain").empty());
    const auto found = withRule(findings, "perf.slower_module");
    ASSERT_EQ(found.size(), 1U);
    const Finding& f = found.front();
    EXPECT_EQ(f.title,
              "default: blocks.0.fc runs slower compiled than eager (20.0 µs → 30.0 µs per call)");
    EXPECT_EQ(f.file, kFile); // at the module's line, to open
    EXPECT_EQ(f.line, 20);
    EXPECT_EQ(f.code, "self.fc(x)");
    EXPECT_TRUE(anyEvidence(f, "its kernels, costliest first: addmm"))
        << ::testing::PrintToString(f.evidence);
    EXPECT_TRUE(anyEvidence(f, "still 2.00× faster than eager"))
        << ::testing::PrintToString(f.evidence);
    EXPECT_FALSE(anyEvidence(f, "blocks 5")); // its parent is not named besides it
    // Its kernel is ATen's addmm, which eager runs too: no disable to offer.
    EXPECT_NE(f.remedy.find("compiling did not change that code"), std::string::npos) << f.remedy;
    EXPECT_EQ(f.remedy.find("torch.compiler.disable"), std::string::npos) << f.remedy;
    {
        // Code Inductor generated for it (a GEMM template): leave that block eager.
        cs::core::Run generated = faster;
        generated.code[0].kernels[0].kind = "template";
        const auto own = withRule(advise(reportOf({eager, generated})), "perf.slower_module");
        ASSERT_EQ(own.size(), 1U);
        EXPECT_NE(own.front().remedy.find("model.blocks[0].fc.forward = "
                                          "torch.compiler.disable(model.blocks[0].fc.forward)"),
                  std::string::npos)
            << own.front().remedy;
    }
    {
        // A kernel fused across blocks.0.fc and blocks.1, 52 µs split over both: fc's
        // half (26 µs against 20) is judged where they meet, the blocks, at 62 µs
        // against eager's 50, within a quarter.
        cs::core::Run fused = faster;
        fused.code[0].kernels[0].kind = "cpp";
        fused.code[0].kernels[0].nodes = {"linear", "relu"};
        fused.kernelProfile.kernels[0].ns = 520'000;
        for (auto& n : fused.graphs[0].nodes)
            if (n.name != "nonzero")
                n.module = n.name == "linear" ? "blocks.0.fc" : "blocks.1";
        const auto none = withRule(advise(reportOf({eager, fused})), "perf.slower_module");
        EXPECT_TRUE(none.empty()) << none.front().title;
    }
    {
        // Its own addmm lost the time (30 µs against 20), beside a small kernel it shares
        // with blocks.1 (OPT's out_proj): judged there, ATen's op.
        cs::core::Run shared = faster;
        shared.code[0].kernels[2].nodes = {"relu", "linear"};
        const auto own = withRule(advise(reportOf({eager, shared})), "perf.slower_module");
        ASSERT_EQ(own.size(), 1U);
        EXPECT_NE(own.front().title.find("blocks.0.fc runs slower"), std::string::npos)
            << own.front().title;
        EXPECT_NE(own.front().remedy.find("ATen's own ops"), std::string::npos)
            << own.front().remedy;
    }

    // A model that is an nn.Sequential: its child by index, as Python reaches it.
    {
        cs::core::Run seqEager = eager;
        seqEager.kernelProfile.eagerModules = {{"0", 200'000}, {"1", 300'000}, {"2", 400'000}};
        cs::core::Run seqFaster = faster;
        for (auto& n : seqFaster.graphs[0].nodes)
            n.module = n.name == "linear" ? "0" : n.name == "relu" ? "1" : "2";
        const auto seq = withRule(advise(reportOf({seqEager, seqFaster})), "perf.slower_module");
        ASSERT_EQ(seq.size(), 1U);
        EXPECT_EQ(seq.front().title,
                  "default: model[0] runs slower compiled than eager (20.0 µs → 30.0 µs per call)");
    }

    {
        // The window after the measured calls ran at 3x their median (the CPU shared with
        // a build): its modules' times say nothing against eager's.
        cs::core::Run disturbed = faster;
        for (auto& k : disturbed.kernelProfile.kernels)
            k.ns *= 3;
        EXPECT_TRUE(withRule(advise(reportOf({eager, disturbed})), "perf.slower_module").empty());
    }

    // Within a quarter of eager's time: noise for a short window, not a finding.
    faster.kernelProfile.kernels[0].ns = 240'000; // 24 µs against 20
    EXPECT_TRUE(withRule(advise(reportOf({eager, faster})), "perf.slower_module").empty());
    // No eager time by module (a report from before the probe tracked modules): nothing to
    // hold against.
    faster.kernelProfile.kernels[0].ns = 300'000;
    eager.kernelProfile.eagerModules.clear();
    EXPECT_TRUE(withRule(advise(reportOf({eager, faster})), "perf.slower_module").empty());
}
