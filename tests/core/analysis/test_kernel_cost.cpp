#include <gtest/gtest.h>

#include <numeric>
#include <set>

#include "core/analysis/kernel_cost.h"
#include "tests/core/advice_reports.h"

using namespace cs::core;

namespace {

const std::string kFile = "/m/model.py";

GraphNode node(const std::string& name, int line, const std::string& file = kFile) {
    GraphNode n;
    n.name = name;
    n.op = "call_function";
    n.file = file;
    n.line = line;
    return n;
}

SourceFrame frame(int line, const std::string& code) {
    return SourceFrame{kFile, line, "forward", code, true};
}

CodeKernel kernel(const std::string& name, const std::string& kind, std::vector<std::string> nodes,
                  std::vector<SourceFrame> lines = {}) {
    CodeKernel k;
    k.name = name;
    k.kind = kind;
    k.nodes = std::move(nodes);
    k.lines = std::move(lines);
    return k;
}

// One graph 0/0: addmm (line 20) as an extern kernel, relu and mul (lines 21,
// 22) fused into one cpp kernel, a sum (line 23) in a second one. Profiled
// over 10 calls.
Run oneGraph() {
    cs::core::Run run;
    run.status = RunStatus::Ok;
    Graph graph;
    graph.compileId = "0/0";
    graph.nodes = {node("x", 0, ""), node("linear", 20), node("relu", 21), node("mul", 22),
                   node("sum_1", 23)};
    run.graphs.push_back(graph);
    GeneratedCode code;
    code.compileId = "0/0";
    code.part = "inference";
    code.fusionSource = "provenance";
    code.kernels = {kernel("extern_kernels.addmm", "extern", {"linear"}, {frame(20, "self.fc(x)")}),
                    kernel("cpp_fused_mul_relu_0", "cpp", {"relu", "mul"},
                           {frame(21, "y = torch.relu(y)"), frame(22, "y = y * 2")}),
                    kernel("cpp_fused_sum_1", "cpp", {"sum_1"}, {frame(23, "return y.sum()")})};
    run.code.push_back(code);
    KernelProfile& p = run.kernelProfile;
    p.present = true;
    p.source = "torch_profiler";
    p.calls = 10;
    p.windowNs = 2'000'000;
    p.callNs = 1'500'000;
    p.kernels = {{"0/0", "extern_kernels.addmm", 600'000, 10, false},
                 {"0/0", "cpp_fused_mul_relu_0", 300'000, 10, false},
                 {"0/0", "cpp_fused_sum_1", 100'000, 10, false}};
    p.wrappers = {{"0/0", "", 200'000, 0, false}};
    p.eagerNs = 100'000;
    return run;
}

double compiledShareSum(const CostBreakdown& cost) {
    return std::accumulate(cost.lines.begin(), cost.lines.end(), 0.0,
                           [](double s, const LineCostRow& r) { return s + r.compiledShare; });
}

const LineCostRow* lineRow(const CostBreakdown& cost, int line) {
    for (const auto& row : cost.lines)
        if (!row.file.empty() && row.line == line)
            return &row;
    return nullptr;
}

const LineCostRow* noLineRow(const CostBreakdown& cost) {
    for (const auto& row : cost.lines)
        if (row.file.empty())
            return &row;
    return nullptr;
}

} // namespace

TEST(KernelCost, KernelsPerCallCostliestFirstWithTheWrapperOnItsOwnRow) {
    const cs::core::Run run = oneGraph();
    const CostBreakdown cost = costBreakdown(run);
    ASSERT_TRUE(cost.profiled);
    EXPECT_EQ(cost.calls, 10);
    EXPECT_EQ(cost.source, "torch_profiler");
    EXPECT_DOUBLE_EQ(cost.compiledNsPerCall, 100'000);
    EXPECT_DOUBLE_EQ(cost.wrapperNsPerCall, 20'000);
    EXPECT_DOUBLE_EQ(cost.eagerNsPerCall, 10'000);
    EXPECT_DOUBLE_EQ(cost.callNsPerCall, 150'000);
    EXPECT_DOUBLE_EQ(cost.opsNsPerCall, 130'000); // kernels, graphs outside them, eager ops
    ASSERT_EQ(cost.kernels.size(), 4u);
    EXPECT_EQ(cost.kernels[0].name, "extern_kernels.addmm");
    EXPECT_DOUBLE_EQ(*cost.kernels[0].nsPerCall, 60'000);
    EXPECT_DOUBLE_EQ(cost.kernels[0].share, 0.6);
    EXPECT_EQ(cost.kernels[0].launchesPerCall, 1);
    EXPECT_EQ(cost.kernels[0].part, "inference");
    EXPECT_EQ(cost.kernels[0].kernel, &run.code[0].kernels[0]);
    EXPECT_EQ(cost.kernels[0].code, &run.code[0]);
    EXPECT_EQ(cost.kernels[1].name, "cpp_fused_mul_relu_0");
    EXPECT_EQ(cost.kernels[2].kind, "wrapper");
    EXPECT_EQ(cost.kernels[2].compileId, "0/0");
    EXPECT_DOUBLE_EQ(*cost.kernels[2].nsPerCall, 20'000);
    EXPECT_DOUBLE_EQ(cost.kernels[2].share, 0);
    EXPECT_EQ(cost.kernels[3].name, "cpp_fused_sum_1");
}

TEST(KernelCost, EachKernelSplitsEquallyOverItsNodesAndSharesSumToAll) {
    const CostBreakdown cost = costBreakdown(oneGraph());
    ASSERT_EQ(cost.lines.size(), 4u); // the wrapper is not spread: no "no source line"
    EXPECT_EQ(noLineRow(cost), nullptr);
    const auto* l20 = lineRow(cost, 20);
    const auto* l21 = lineRow(cost, 21);
    const auto* l22 = lineRow(cost, 22);
    const auto* l23 = lineRow(cost, 23);
    ASSERT_TRUE(l20 && l21 && l22 && l23);
    EXPECT_EQ(cost.lines[0].line, 20);
    EXPECT_DOUBLE_EQ(l20->compiledNsPerCall, 60'000);
    EXPECT_DOUBLE_EQ(l21->compiledNsPerCall, 15'000); // 30 µs over relu and mul
    EXPECT_DOUBLE_EQ(l22->compiledNsPerCall, 15'000);
    EXPECT_DOUBLE_EQ(l22->compiledShare, 0.15);
    EXPECT_DOUBLE_EQ(l23->compiledNsPerCall, 10'000);
    EXPECT_EQ(l21->code, "y = torch.relu(y)");
    EXPECT_EQ(l21->function, "forward");
    EXPECT_EQ(l21->kernels, std::vector<std::string>{"cpp_fused_mul_relu_0"});
    EXPECT_EQ(l21->nodes, std::vector<std::string>{"relu"});
    EXPECT_NEAR(compiledShareSum(cost), 1.0, 1e-12);
}

TEST(KernelCost, ANodeWithoutALineFallsBackToTheKernelsOnlyLineElseNoSourceLine) {
    cs::core::Run run = oneGraph();
    // relu lost its line in the graph; its kernel names two lines: no source line.
    run.graphs[0].nodes[2].file.clear();
    run.graphs[0].nodes[2].line = 0;
    // sum_1 is not in the graph at all; its kernel has one line: that one.
    run.graphs[0].nodes.pop_back();
    // A kernel with no nodes: all to "no source line".
    run.code[0].kernels.push_back(kernel("cpp_fused_2", "cpp", {}));
    run.kernelProfile.kernels.push_back({"0/0", "cpp_fused_2", 50'000, 10, false});
    const CostBreakdown cost = costBreakdown(run);
    const auto* none = noLineRow(cost);
    ASSERT_NE(none, nullptr);
    EXPECT_EQ(&cost.lines.back(), none); // last, whatever it costs
    EXPECT_DOUBLE_EQ(none->compiledNsPerCall, 15'000 + 5'000);
    EXPECT_EQ(none->kernels, (std::vector<std::string>{"cpp_fused_mul_relu_0", "cpp_fused_2"}));
    EXPECT_EQ(none->nodes, std::vector<std::string>{"relu"});
    ASSERT_NE(lineRow(cost, 23), nullptr);
    EXPECT_DOUBLE_EQ(lineRow(cost, 23)->compiledNsPerCall, 10'000);
    EXPECT_EQ(lineRow(cost, 21), nullptr);
    EXPECT_NEAR(compiledShareSum(cost), 1.0, 1e-12);
}

// An ATen op with views of its inputs fused in (GPT-2's attention: a
// transpose, a view, a split): the op's line takes the time, not the views'.
TEST(KernelCost, ViewsInAKernelWithWorkTakeNoTimeAndAViewOnlyKernelSplitsOverItsViews) {
    cs::core::Run run = oneGraph();
    GraphNode transpose = node("transpose_1", 24);
    transpose.op = "call_method";
    transpose.target = "transpose";
    GraphNode view = node("view_2", 25);
    view.op = "call_method";
    view.target = "view";
    GraphNode permute = node("permute", 26);
    permute.target = "torch.permute";
    run.graphs[0].nodes.insert(run.graphs[0].nodes.end(), {transpose, view, permute});
    run.code[0].kernels[0].nodes = {"linear", "transpose_1", "view_2"};
    run.code[0].kernels.push_back(kernel("cpp_fused_clone_2", "cpp", {"permute"}));
    run.kernelProfile.kernels.push_back({"0/0", "cpp_fused_clone_2", 40'000, 10, false});
    const CostBreakdown cost = costBreakdown(run);
    ASSERT_NE(lineRow(cost, 20), nullptr);
    EXPECT_DOUBLE_EQ(lineRow(cost, 20)->compiledNsPerCall, 60'000);
    EXPECT_EQ(lineRow(cost, 24), nullptr);
    EXPECT_EQ(lineRow(cost, 25), nullptr);
    // A kernel that only materializes a permute does the copy: its line pays.
    ASSERT_NE(lineRow(cost, 26), nullptr);
    EXPECT_DOUBLE_EQ(lineRow(cost, 26)->compiledNsPerCall, 4'000);
    EXPECT_NEAR(compiledShareSum(cost), 1.0, 1e-12);
}

// BERT's attention fallback as Inductor's provenance names it: the op, a
// linear whose addmm is its own kernel, a mask op computed in a cpp kernel,
// and the op's node in that cpp kernel too. Only the op is the fallback's work.
TEST(KernelCost, ASingleOpKernelChargesTheNodeNamedLikeItsOp) {
    cs::core::Run run = oneGraph();
    GraphNode attn = node("attn", 30);
    attn.target = "torch._C._nn.scaled_dot_product_attention";
    run.graphs[0].nodes.push_back(attn);
    run.code[0].kernels.push_back(
        kernel("torch.ops.aten._scaled_dot_product_flash_attention_for_cpu.default", "fallback",
               {"attn", "linear", "relu"}));
    run.code[0].kernels[1].nodes.push_back("attn"); // the mask's cpp kernel names it too
    run.kernelProfile.kernels.push_back(
        {"0/0", "torch.ops.aten._scaled_dot_product_flash_attention_for_cpu.default", 80'000, 10,
         false});
    const CostBreakdown cost = costBreakdown(run);
    ASSERT_NE(lineRow(cost, 30), nullptr);
    EXPECT_DOUBLE_EQ(lineRow(cost, 30)->compiledNsPerCall, 8'000 + 10'000); // + a third of cpp
    EXPECT_DOUBLE_EQ(lineRow(cost, 20)->compiledNsPerCall, 60'000);         // its addmm only
    EXPECT_DOUBLE_EQ(lineRow(cost, 21)->compiledNsPerCall, 10'000);         // a third of cpp
    EXPECT_NEAR(compiledShareSum(cost), 1.0, 1e-12);
}

// No node named like the op: the nodes no other kernel contains.
TEST(KernelCost, ASingleOpKernelLeavesOutNodesThatOtherKernelsCompute) {
    cs::core::Run run = oneGraph();
    run.graphs[0].nodes.push_back(node("gather", 30));
    run.code[0].kernels.push_back(
        kernel("torch.ops.aten.index_put.default", "fallback", {"gather", "linear", "relu"}));
    run.kernelProfile.kernels.push_back(
        {"0/0", "torch.ops.aten.index_put.default", 80'000, 10, false});
    const CostBreakdown cost = costBreakdown(run);
    ASSERT_NE(lineRow(cost, 30), nullptr);
    EXPECT_DOUBLE_EQ(lineRow(cost, 30)->compiledNsPerCall, 8'000);
    EXPECT_DOUBLE_EQ(lineRow(cost, 20)->compiledNsPerCall, 60'000); // its addmm only
    EXPECT_DOUBLE_EQ(lineRow(cost, 21)->compiledNsPerCall, 15'000); // its cpp kernel only
    // A fused (cpp) kernel keeps a node another kernel also computes: Inductor
    // may compute a pointwise op twice.
    run.code[0].kernels[2].nodes = {"sum_1", "relu"};
    const CostBreakdown fused = costBreakdown(run);
    EXPECT_DOUBLE_EQ(lineRow(fused, 23)->compiledNsPerCall, 5'000);
    EXPECT_DOUBLE_EQ(lineRow(fused, 21)->compiledNsPerCall, 15'000 + 5'000);
    EXPECT_NEAR(compiledShareSum(fused), 1.0, 1e-12);
}

TEST(KernelCost, FusedAttentionKernelsAreNamedByTheirSdpaBackend) {
    using cs::core::fusedAttentionBackend;
    EXPECT_EQ(
        fusedAttentionBackend("torch.ops.aten._scaled_dot_product_flash_attention_for_cpu.default"),
        "CPU flash");
    EXPECT_EQ(fusedAttentionBackend("aten._scaled_dot_product_flash_attention.default"), "flash");
    EXPECT_EQ(fusedAttentionBackend("aten::_flash_attention_forward"), "flash");
    EXPECT_EQ(fusedAttentionBackend("aten._scaled_dot_product_efficient_attention.default"),
              "memory-efficient");
    EXPECT_EQ(fusedAttentionBackend("aten._efficient_attention_backward.default"),
              "memory-efficient");
    EXPECT_EQ(fusedAttentionBackend("aten._scaled_dot_product_cudnn_attention.default"), "cuDNN");
    // The math backend is attention written out in ops: not a fused kernel.
    EXPECT_EQ(fusedAttentionBackend("aten._scaled_dot_product_attention_math.default"), "");
    EXPECT_EQ(fusedAttentionBackend("aten.nonzero.default"), "");
    EXPECT_EQ(fusedAttentionBackend("extern_kernels.bmm"), "");
    EXPECT_EQ(fusedAttentionBackend("cpp_fused_flash_attention_0"), "");
    // Shown as its own kind: the advice does not count it among the fallbacks.
    EXPECT_EQ(cs::core::kernelKindLabel("fallback",
                                        "aten._scaled_dot_product_efficient_attention.default"),
              "attention");
    EXPECT_EQ(cs::core::kernelKindLabel("fallback", "aten.nonzero.default"), "fallback");
    EXPECT_EQ(cs::core::kernelKindLabel("extern", "aten._flash_attention_forward"), "extern");
}

TEST(KernelCost, CustomOpsAreNamedByTheirNamespace) {
    using cs::core::customOpName;
    EXPECT_EQ(customOpName("torch.ops.transformers.grouped_mm_fallback.default"),
              "transformers::grouped_mm_fallback");
    EXPECT_EQ(customOpName("torch.ops.mylib.op"), "mylib::op");
    // torch's own namespaces are not custom ops of another library
    EXPECT_EQ(customOpName("torch.ops.aten.nonzero.default"), "");
    EXPECT_EQ(customOpName("torch.ops.quantized.linear_dynamic.default"), "");
    EXPECT_EQ(customOpName("torch.ops.prims.iota.default"), "");
    EXPECT_EQ(customOpName("aten.nonzero.default"), "");
    EXPECT_EQ(customOpName("extern_kernels.mm"), "");
    EXPECT_EQ(customOpName("torch.ops.mylib"), "");
    EXPECT_EQ(cs::core::kernelKindLabel("fallback", "torch.ops.mylib.op.default"), "custom op");
    EXPECT_EQ(cs::core::kernelKindLabel("other", "torch.ops.mylib.op.default"), "other");
}

TEST(KernelCost, TwoNodesOfOneKernelOnOneLineAddUp) {
    cs::core::Run run = oneGraph();
    run.graphs[0].nodes[3].line = 21; // mul on relu's line
    const CostBreakdown cost = costBreakdown(run);
    ASSERT_NE(lineRow(cost, 21), nullptr);
    EXPECT_DOUBLE_EQ(lineRow(cost, 21)->compiledNsPerCall, 30'000);
    EXPECT_EQ(lineRow(cost, 21)->nodes, (std::vector<std::string>{"relu", "mul"}));
    EXPECT_EQ(lineRow(cost, 21)->kernels.size(), 1u);
    EXPECT_EQ(lineRow(cost, 22), nullptr);
}

TEST(KernelCost, AProfiledKernelMissingFromTheCodeIsKeptUnmapped) {
    cs::core::Run run = oneGraph();
    run.kernelProfile.kernels.push_back({"0/0", "triton_poi_fused_9", 1'000'000, 10, false});
    const CostBreakdown cost = costBreakdown(run);
    ASSERT_FALSE(cost.kernels.empty());
    const KernelCostRow& top = cost.kernels[0];
    EXPECT_EQ(top.name, "triton_poi_fused_9");
    EXPECT_EQ(top.kernel, nullptr);
    EXPECT_EQ(top.code, nullptr);
    EXPECT_NEAR(top.share, 1'000'000.0 / 2'000'000.0, 1e-12);
    const auto* none = noLineRow(cost);
    ASSERT_NE(none, nullptr);
    EXPECT_DOUBLE_EQ(none->compiledNsPerCall, 100'000);
    EXPECT_NEAR(compiledShareSum(cost), 1.0, 1e-12);
}

TEST(KernelCost, KernelsTheWindowNeverSawComeLastWithoutATime) {
    cs::core::Run run = oneGraph();
    run.kernelProfile.kernels.pop_back(); // cpp_fused_sum_1 did not run
    const CostBreakdown cost = costBreakdown(run);
    ASSERT_EQ(cost.kernels.size(), 4u);
    EXPECT_EQ(cost.kernels.back().name, "cpp_fused_sum_1");
    EXPECT_FALSE(cost.kernels.back().nsPerCall);
    EXPECT_EQ(lineRow(cost, 23), nullptr);
    EXPECT_NEAR(compiledShareSum(cost), 1.0, 1e-12);
}

TEST(KernelCost, RepeatedNamesTakeTheCodesKernelsInOrder) {
    cs::core::Run run = oneGraph();
    run.graphs[0].nodes.push_back(node("linear_1", 30));
    run.code[0].kernels.push_back(kernel("extern_kernels.addmm", "extern", {"linear_1"}));
    run.kernelProfile.kernels.push_back({"0/0", "extern_kernels.addmm", 400'000, 10, false});
    const CostBreakdown cost = costBreakdown(run);
    ASSERT_NE(lineRow(cost, 20), nullptr);
    ASSERT_NE(lineRow(cost, 30), nullptr);
    EXPECT_DOUBLE_EQ(lineRow(cost, 20)->compiledNsPerCall, 60'000);
    EXPECT_DOUBLE_EQ(lineRow(cost, 30)->compiledNsPerCall, 40'000);
}

TEST(KernelCost, AnAmbiguousCudaNameSplitsEvenlyOverTheGraphsThatHaveIt) {
    cs::core::Run run;
    run.status = RunStatus::Ok;
    for (const char* id : {"0/0", "1/0"}) {
        Graph graph;
        graph.compileId = id;
        graph.nodes = {node("relu", id == std::string("0/0") ? 10 : 40)};
        run.graphs.push_back(graph);
        GeneratedCode code;
        code.compileId = id;
        code.part = "inference";
        code.kernels = {kernel("triton_poi_fused_relu_0", "triton", {"relu"})};
        run.code.push_back(code);
    }
    run.kernelProfile.present = true;
    run.kernelProfile.source = "cupti";
    run.kernelProfile.calls = 4;
    run.kernelProfile.kernels = {{"", "triton_poi_fused_relu_0", 800, 8, true},
                                 {"", "triton_other", 200, 4, true}};
    const CostBreakdown cost = costBreakdown(run);
    ASSERT_EQ(cost.kernels.size(), 3u);
    EXPECT_EQ(cost.kernels[0].compileId, "0/0");
    EXPECT_TRUE(cost.kernels[0].ambiguous);
    EXPECT_DOUBLE_EQ(*cost.kernels[0].nsPerCall, 100);
    EXPECT_EQ(cost.kernels[0].launchesPerCall, 1);
    EXPECT_EQ(cost.kernels[1].compileId, "1/0");
    EXPECT_DOUBLE_EQ(*cost.kernels[1].nsPerCall, 100);
    // A shared name the code does not know: one unmapped row, no compile id.
    EXPECT_EQ(cost.kernels[2].compileId, "");
    EXPECT_EQ(cost.kernels[2].kernel, nullptr);
    EXPECT_TRUE(cost.kernels[2].ambiguous);
    ASSERT_NE(lineRow(cost, 10), nullptr);
    ASSERT_NE(lineRow(cost, 40), nullptr);
    EXPECT_DOUBLE_EQ(lineRow(cost, 10)->compiledShare, 0.4);
    EXPECT_DOUBLE_EQ(lineRow(cost, 40)->compiledShare, 0.4);
    EXPECT_NEAR(compiledShareSum(cost), 1.0, 1e-12);

    // One graph with the name: it takes it all.
    run.code.pop_back();
    const CostBreakdown one = costBreakdown(run);
    EXPECT_EQ(one.kernels[0].compileId, "0/0");
    EXPECT_DOUBLE_EQ(*one.kernels[0].nsPerCall, 200);
}

// The share is of the call's ops, not of the profiled call: that adds the
// Python between the ops, which the window's line tracer slows.
TEST(KernelCost, EagerLinesAreASeparateColumnShareOfTheCallsOps) {
    cs::core::Run run = oneGraph();
    run.kernelProfile.eager = {{{kFile, 30, "forward", "z = x.tolist()", true}, 90'000},
                               {{kFile, 21, "forward", "y = torch.relu(y)", true}, 3'000}};
    const CostBreakdown cost = costBreakdown(run);
    const auto* l30 = lineRow(cost, 30);
    ASSERT_NE(l30, nullptr);
    EXPECT_DOUBLE_EQ(l30->eagerNsPerCall, 9'000);
    EXPECT_DOUBLE_EQ(l30->eagerShare, 90'000.0 / 1'300'000.0);
    EXPECT_DOUBLE_EQ(l30->compiledNsPerCall, 0);
    EXPECT_DOUBLE_EQ(l30->compiledShare, 0);
    EXPECT_EQ(l30->code, "z = x.tolist()");
    EXPECT_DOUBLE_EQ(lineRow(cost, 21)->eagerNsPerCall, 300);
    EXPECT_DOUBLE_EQ(lineRow(cost, 21)->compiledNsPerCall, 15'000);
    EXPECT_NEAR(compiledShareSum(cost), 1.0, 1e-12); // eager time is not in the 100 %
}

TEST(KernelCost, RunsWithoutAProfileOrCodeGiveAnUnprofiledBreakdown) {
    const cs::core::Run empty;
    const CostBreakdown none = costBreakdown(empty);
    EXPECT_FALSE(none.profiled);
    EXPECT_TRUE(none.kernels.empty());
    EXPECT_TRUE(none.lines.empty());
    EXPECT_NE(costText(empty).find("no kernel profile"), std::string::npos);

    cs::core::Run codeOnly = oneGraph();
    codeOnly.kernelProfile = {};
    const CostBreakdown unprofiled = costBreakdown(codeOnly);
    EXPECT_FALSE(unprofiled.profiled);
    ASSERT_EQ(unprofiled.kernels.size(), 3u); // the code's kernels, without a time
    EXPECT_FALSE(unprofiled.kernels[0].nsPerCall);
    EXPECT_TRUE(unprofiled.lines.empty());
    EXPECT_NE(costText(codeOnly).find("3 kernels"), std::string::npos);

    cs::core::Run noCalls = oneGraph();
    noCalls.kernelProfile.calls = 0;
    EXPECT_FALSE(costBreakdown(noCalls).profiled);
    EXPECT_TRUE(costBreakdown(noCalls).lines.empty());

    cs::core::Run profileOnly = oneGraph();
    profileOnly.code.clear();
    profileOnly.graphs.clear();
    const CostBreakdown unmapped = costBreakdown(profileOnly);
    EXPECT_TRUE(unmapped.profiled);
    ASSERT_EQ(unmapped.lines.size(), 1u);
    EXPECT_TRUE(unmapped.lines[0].file.empty());
    EXPECT_DOUBLE_EQ(unmapped.lines[0].compiledShare, 1.0);
}

TEST(KernelCost, KernelNodesAndNodeKernelsWithinOneCompileId) {
    cs::core::Run run = oneGraph();
    GeneratedCode backward;
    backward.compileId = "0/0";
    backward.part = "backward";
    backward.kernels = {kernel("cpp_fused_threshold_backward_0", "cpp", {"relu", "mul"})};
    run.code.push_back(backward);
    EXPECT_EQ(kernelNodes(run, "0/0", "cpp_fused_mul_relu_0"),
              (std::vector<std::string>{"relu", "mul"}));
    EXPECT_TRUE(kernelNodes(run, "1/0", "cpp_fused_mul_relu_0").empty());
    EXPECT_TRUE(kernelNodes(run, "0/0", "nope").empty());
    EXPECT_EQ(nodeKernels(run, "0/0", "relu"),
              (std::vector<std::string>{"cpp_fused_mul_relu_0", "cpp_fused_threshold_backward_0"}));
    EXPECT_EQ(nodeKernels(run, "0/0", "linear"), std::vector<std::string>{"extern_kernels.addmm"});
    EXPECT_TRUE(nodeKernels(run, "0/0", "x").empty());
    EXPECT_TRUE(nodeKernels(cs::core::Run{}, "0/0", "x").empty());
}

TEST(KernelCost, CompareMatchesByNameAndTellsReplacedNewAndReFused) {
    const cs::core::Run a = oneGraph();
    cs::core::Run b = oneGraph();
    // max-autotune: addmm became a template kernel, relu+mul re-fused under
    // another name, sum unchanged but faster.
    b.code[0].kernels = {kernel("cpp_template_0", "template", {"linear"}),
                         kernel("cpp_fused_relu_mul_7", "cpp", {"mul", "relu"}),
                         kernel("cpp_fused_sum_1", "cpp", {"sum_1"}, {frame(23, "return y.sum()")}),
                         kernel("cpp_fused_extra_3", "cpp", {"extra"})};
    b.kernelProfile.kernels = {{"0/0", "cpp_template_0", 300'000, 10, false},
                               {"0/0", "cpp_fused_relu_mul_7", 300'000, 10, false},
                               {"0/0", "cpp_fused_sum_1", 50'000, 10, false}};
    const CostComparison c = compareCosts(a, b);
    ASSERT_EQ(c.kernels.size(), 4u);
    auto find = [&](const std::string& change) -> const KernelChange* {
        for (const auto& k : c.kernels)
            if (k.change == change)
                return &k;
        return nullptr;
    };
    const auto* same = find("same");
    ASSERT_NE(same, nullptr);
    EXPECT_EQ(same->nameA, "cpp_fused_sum_1");
    EXPECT_DOUBLE_EQ(*same->nsPerCallA, 10'000);
    EXPECT_DOUBLE_EQ(*same->nsPerCallB, 5'000);
    const auto* refused = find("re-fused");
    ASSERT_NE(refused, nullptr);
    EXPECT_EQ(refused->nameA, "cpp_fused_mul_relu_0");
    EXPECT_EQ(refused->nameB, "cpp_fused_relu_mul_7");
    const auto* replaced = find("replaced");
    ASSERT_NE(replaced, nullptr);
    EXPECT_EQ(replaced->nameA, "extern_kernels.addmm");
    EXPECT_EQ(replaced->nameB, "cpp_template_0"); // same node, a kernel of another kind
    EXPECT_DOUBLE_EQ(*replaced->nsPerCallB, 30'000);
    const auto* added = find("new");
    ASSERT_NE(added, nullptr);
    EXPECT_EQ(added->nameB, "cpp_fused_extra_3");
    EXPECT_TRUE(added->nameA.empty());
    EXPECT_FALSE(added->nsPerCallA);
    EXPECT_FALSE(added->nsPerCallB); // in the code, not run in the window
    EXPECT_EQ(c.kernels[0].compileId, "0/0");

    // Lines by file:line, largest gain first: line 20 went 60 → 30 µs.
    ASSERT_FALSE(c.lines.empty());
    EXPECT_EQ(c.lines[0].line, 20);
    EXPECT_DOUBLE_EQ(c.lines[0].nsPerCallA, 60'000);
    EXPECT_DOUBLE_EQ(c.lines[0].nsPerCallB, 30'000);
    EXPECT_EQ(c.lines[1].line, 23);
    EXPECT_EQ(c.lines[1].code, "return y.sum()");
}

TEST(KernelCost, CompareKeepsCompileIdsApart) {
    cs::core::Run a = oneGraph();
    cs::core::Run b = oneGraph();
    b.code[0].compileId = "1/0";
    b.graphs[0].compileId = "1/0";
    for (auto& k : b.kernelProfile.kernels)
        k.compileId = "1/0";
    const CostComparison c = compareCosts(a, b);
    ASSERT_EQ(c.kernels.size(), 6u);
    for (const auto& k : c.kernels)
        EXPECT_EQ(k.change, k.compileId == "0/0" ? "replaced" : "new");
    EXPECT_TRUE(c.kernels[0].nameB.empty());
    // The lines are the same lines, at the same cost.
    for (const auto& l : c.lines)
        EXPECT_DOUBLE_EQ(l.nsPerCallA, l.nsPerCallB);
    const CostComparison empty = compareCosts(cs::core::Run{}, cs::core::Run{});
    EXPECT_TRUE(empty.kernels.empty());
    EXPECT_TRUE(empty.lines.empty());
}

TEST(KernelCost, TextNamesTheTopKernelsAndHotLines) {
    cs::core::Run run = oneGraph();
    run.kernelProfile.eager = {{{kFile, 30, "forward", "z = x.tolist()", true}, 90'000}};
    const std::string text = costText(run);
    EXPECT_NE(text.find("10 calls (torch_profiler)"), std::string::npos) << text;
    EXPECT_NE(text.find("extern_kernels.addmm [0/0 inference]  model.py:20"), std::string::npos)
        << text;
    EXPECT_NE(text.find("60.0%"), std::string::npos) << text;
    EXPECT_NE(text.find("outside kernels"), std::string::npos) << text;
    EXPECT_NE(text.find("model.py:22  y = y * 2"), std::string::npos) << text;
    EXPECT_NE(text.find("model.py:30  z = x.tolist()"), std::string::npos) << text;
    const std::string short_ = costText(run, 1, 1);
    EXPECT_EQ(short_.find("cpp_fused_sum_1"), std::string::npos) << short_;
    EXPECT_EQ(short_.find("model.py:23"), std::string::npos) << short_;
}

// A real probe stream (the gallery MLP under default on CPU, with its
// generated code and a 5-call window; memory samples trimmed): every kernel
// maps to graph nodes and a line of the model, and the line shares add up.
TEST(KernelCost, RealMlpStreamMapsEveryKernelToNodesAndLines) {
    Setting setting;
    setting.mode = "default";
    const cs::core::Run run = advice_test::fixtureRun("mlp_default_code_cpu.jsonl", setting);
    ASSERT_EQ(run.code.size(), 1u);
    ASSERT_EQ(run.graphs.size(), 1u);
    std::set<std::string> graphNodes;
    for (const auto& n : run.graphs[0].nodes)
        graphNodes.insert(n.name);
    ASSERT_FALSE(run.code[0].kernels.empty());
    for (const auto& k : run.code[0].kernels) {
        ASSERT_FALSE(k.nodes.empty()) << k.name;
        for (const auto& n : k.nodes)
            EXPECT_TRUE(graphNodes.count(n)) << k.name << " names " << n;
        ASSERT_FALSE(k.lines.empty()) << k.name;
        EXPECT_NE(k.lines[0].file.find("mlp.py"), std::string::npos) << k.lines[0].file;
    }
    const CostBreakdown cost = costBreakdown(run);
    ASSERT_TRUE(cost.profiled);
    EXPECT_EQ(cost.calls, 5);
    double shares = 0;
    for (const auto& line : cost.lines) {
        shares += line.compiledShare;
        EXPECT_FALSE(line.file.empty()) << "kernel time with no source line";
    }
    EXPECT_NEAR(shares, 1.0, 1e-9);
    for (const auto& row : cost.kernels) {
        if (row.kind != "wrapper") {
            EXPECT_NE(row.kernel, nullptr) << row.name << " profiled but not in the code";
            EXPECT_FALSE(row.modules.empty()) << row.name << " in no module";
        }
    }
    // The MLP's layers (fc1, fc2, head) and its own forward make the whole time.
    EXPECT_TRUE(hasSubmoduleCost(cost));
    ASSERT_FALSE(cost.modules.empty());
    EXPECT_EQ(cost.modules.front().path, "");
    double moduleShares = cost.modules.front().selfNsPerCall / cost.compiledNsPerCall;
    for (const auto& module : cost.modules) {
        EXPECT_TRUE(module.attributed) << "kernel time in no module";
        if (module.depth == 1)
            moduleShares += module.compiledShare;
    }
    EXPECT_NEAR(moduleShares, 1.0, 1e-9);
}

TEST(KernelCost, ShortNamesDropTheOpNamespaceAndTheDefaultOverload) {
    using cs::core::shortKernelName;
    EXPECT_EQ(shortKernelName("torch.ops.aten._scaled_dot_product_flash_attention_for_cpu.default"),
              "aten._scaled_dot_product_flash_attention_for_cpu");
    EXPECT_EQ(shortKernelName("torch.ops.aten.sort.stable"), "aten.sort.stable"); // an overload
    EXPECT_EQ(shortKernelName("extern_kernels.addmm"), "addmm"); // the kind says extern
    EXPECT_EQ(shortKernelName("extern_kernels."), "extern_kernels.");
    EXPECT_EQ(shortKernelName("cpp_fused_relu_0"), "cpp_fused_relu_0");
    EXPECT_EQ(shortKernelName(".default"), ".default");
}

namespace {

// oneGraph with its nodes in modules: the addmm in encoder.0.fc, relu in
// encoder.0.act, mul in encoder.1, the sum in the model's own forward.
Run oneGraphInModules() {
    Run run = oneGraph();
    for (auto& n : run.graphs[0].nodes) {
        n.module = n.name == "linear" ? "encoder.0.fc"
                   : n.name == "relu" ? "encoder.0.act"
                   : n.name == "mul"  ? "encoder.1"
                                      : "";
    }
    return run;
}

const ModuleCostRow* moduleRow(const CostBreakdown& cost, const std::string& path) {
    for (const auto& row : cost.modules)
        if (row.attributed && row.path == path)
            return &row;
    return nullptr;
}

} // namespace

TEST(KernelCost, ModulesSumTheirNodesAndSubmodulesInTreeOrder) {
    const CostBreakdown cost = costBreakdown(oneGraphInModules());
    std::vector<std::string> order;
    for (const auto& row : cost.modules)
        order.push_back(row.path);
    // Each module followed by its submodules, costliest first.
    EXPECT_EQ(order, (std::vector<std::string>{"", "encoder", "encoder.0", "encoder.0.fc",
                                               "encoder.0.act", "encoder.1"}));
    const auto* model = moduleRow(cost, "");
    ASSERT_NE(model, nullptr);
    EXPECT_DOUBLE_EQ(model->compiledNsPerCall, 100'000);
    EXPECT_DOUBLE_EQ(model->compiledShare, 1.0);
    EXPECT_DOUBLE_EQ(model->selfNsPerCall, 10'000); // the sum, in forward itself
    const auto* block = moduleRow(cost, "encoder.0");
    ASSERT_NE(block, nullptr);
    EXPECT_EQ(block->depth, 2);
    EXPECT_DOUBLE_EQ(block->compiledNsPerCall, 75'000); // addmm + half of mul_relu
    EXPECT_DOUBLE_EQ(block->selfNsPerCall, 0);
    EXPECT_EQ(block->kernels,
              (std::vector<std::string>{"extern_kernels.addmm", "cpp_fused_mul_relu_0"}));
    EXPECT_DOUBLE_EQ(moduleRow(cost, "encoder")->compiledShare, 0.9);
    EXPECT_DOUBLE_EQ(moduleRow(cost, "encoder.1")->compiledNsPerCall, 15'000);
    EXPECT_DOUBLE_EQ(moduleRow(cost, "encoder.0.fc")->selfNsPerCall, 60'000);

    // Each kernel names the modules of the nodes it charges.
    ASSERT_EQ(cost.kernels[0].name, "extern_kernels.addmm");
    EXPECT_EQ(modulesText(cost.kernels[0].modules), "encoder.0.fc");
    ASSERT_EQ(cost.kernels[1].name, "cpp_fused_mul_relu_0");
    EXPECT_EQ(cost.kernels[1].modules, (std::vector<std::string>{"encoder.0.act", "encoder.1"}));
    EXPECT_EQ(modulesText(cost.kernels[1].modules), "encoder (2 modules)");
    EXPECT_EQ(modulesText(cost.kernels[3].modules), "the model");
}

// A graph Dynamo compiled for blocks.0's frame (a break in Block.forward) and
// reused for blocks.1 and blocks.2: each block gets its calls' share.
Run oneGraphForEveryBlock() {
    Run run = oneGraph();
    for (auto& n : run.graphs[0].nodes)
        n.module = n.name == "linear" ? "blocks.0.fc" : "blocks.0";
    run.graphs[0].frameModule = "blocks.0";
    run.kernelProfile.graphCalls = {{"0/0", "blocks.0", 250'000, 10},
                                    {"0/0", "blocks.1", 500'000, 10},
                                    {"0/0", "blocks.2", 250'000, 10}};
    return run;
}

TEST(KernelCost, AGraphReusedForOtherModulesOfItsClassIsSplitByTheModulesThatRanIt) {
    const CostBreakdown cost = costBreakdown(oneGraphForEveryBlock());
    // addmm: 60 µs per call over the three blocks by their calls' time.
    ASSERT_NE(moduleRow(cost, "blocks.1.fc"), nullptr);
    EXPECT_DOUBLE_EQ(moduleRow(cost, "blocks.0.fc")->compiledNsPerCall, 15'000);
    EXPECT_DOUBLE_EQ(moduleRow(cost, "blocks.1.fc")->compiledNsPerCall, 30'000);
    EXPECT_DOUBLE_EQ(moduleRow(cost, "blocks.2.fc")->compiledNsPerCall, 15'000);
    EXPECT_DOUBLE_EQ(moduleRow(cost, "blocks.1")->compiledNsPerCall, 50'000);
    EXPECT_DOUBLE_EQ(moduleRow(cost, "blocks")->compiledNsPerCall, 100'000);
    ASSERT_EQ(cost.kernels[0].name, "extern_kernels.addmm");
    EXPECT_EQ(cost.kernels[0].modules,
              (std::vector<std::string>{"blocks.0.fc", "blocks.1.fc", "blocks.2.fc"}));
    EXPECT_EQ(modulesText(cost.kernels[0].modules), "blocks (3 modules)");

    // Without the calls by module (an older report), all of it stays where it compiled.
    cs::core::Run older = oneGraphForEveryBlock();
    older.kernelProfile.graphCalls.clear();
    const CostBreakdown before = costBreakdown(older);
    EXPECT_DOUBLE_EQ(moduleRow(before, "blocks.0")->compiledNsPerCall, 100'000);
    EXPECT_EQ(moduleRow(before, "blocks.1"), nullptr);

    // The model's own forward, run by the model: nothing moves; a node in
    // another module than the frame's (held in a global) keeps its own.
    cs::core::Run whole = oneGraphInModules();
    whole.graphs[0].frameModule = "";
    whole.kernelProfile.graphCalls = {{"0/0", "", 1'000'000, 10}};
    auto byPath = [](const CostBreakdown& c) {
        std::vector<std::pair<std::string, double>> out;
        for (const auto& row : c.modules)
            out.emplace_back(row.path, row.compiledNsPerCall);
        return out;
    };
    EXPECT_EQ(byPath(costBreakdown(whole)), byPath(costBreakdown(oneGraphInModules())));
    cs::core::Run global = oneGraphForEveryBlock();
    global.graphs[0].nodes[1].module = "shared_head";
    EXPECT_DOUBLE_EQ(moduleRow(costBreakdown(global), "shared_head")->compiledNsPerCall, 60'000);
}

TEST(KernelCost, TimeWithoutAGraphNodeIsTheNoModuleRowAndSharesSumToAll) {
    cs::core::Run run = oneGraphInModules();
    run.kernelProfile.kernels.push_back({"0/0", "mystery_kernel", 100'000, 10, false});
    const CostBreakdown cost = costBreakdown(run);
    ASSERT_FALSE(cost.modules.empty());
    const ModuleCostRow& last = cost.modules.back();
    EXPECT_FALSE(last.attributed);
    EXPECT_DOUBLE_EQ(last.compiledNsPerCall, 10'000);
    EXPECT_EQ(last.kernels, std::vector<std::string>{"mystery_kernel"});
    // The model's row and "no module" make the whole compiled time.
    EXPECT_NEAR(moduleRow(cost, "")->compiledShare + last.compiledShare, 1.0, 1e-12);
    // A run whose graph has no modules still has the model's row.
    EXPECT_EQ(costBreakdown(oneGraph()).modules.front().path, "");
}

TEST(KernelCost, TheModuleOverviewGoesAsDeepAsItsRowsAllow) {
    const CostBreakdown cost = costBreakdown(oneGraphInModules());
    auto paths = [&](size_t maxRows) {
        std::vector<std::string> out;
        for (const auto* row : moduleOverview(cost, maxRows))
            out.push_back(row->path);
        return out;
    };
    EXPECT_EQ(paths(20), (std::vector<std::string>{"encoder", "encoder.0", "encoder.0.fc",
                                                   "encoder.0.act", "encoder.1"}));
    EXPECT_EQ(paths(3), (std::vector<std::string>{"encoder", "encoder.0", "encoder.1"}));
    EXPECT_EQ(paths(2), std::vector<std::string>{"encoder"});
    const std::string text = costText(oneGraphInModules());
    EXPECT_NE(text.find("hot modules"), std::string::npos) << text;
    EXPECT_NE(text.find("extern_kernels.addmm [0/0 inference]  encoder.0.fc  model.py:20"),
              std::string::npos)
        << text;
    // Without modules below the model there is no overview.
    EXPECT_EQ(costText(oneGraph()).find("hot modules"), std::string::npos);
    EXPECT_FALSE(hasSubmoduleCost(costBreakdown(oneGraph())));
    EXPECT_TRUE(hasSubmoduleCost(cost));
}

TEST(KernelCost, ModulesTextNamesTheCommonAncestor) {
    EXPECT_EQ(modulesText({}), "");
    EXPECT_EQ(modulesText({""}), "the model");
    EXPECT_EQ(modulesText({"a.b.c", "a.b.d", "a.bx"}), "a (3 modules)");
    EXPECT_EQ(modulesText({"a.b", "a.b.c"}), "a.b (2 modules)");
    EXPECT_EQ(modulesText({"a", "b"}), "2 modules");
}

TEST(KernelCost, CompareGivesEachModulesTimeInBothRunsLargestGainFirst) {
    const cs::core::Run a = oneGraphInModules();
    cs::core::Run b = oneGraphInModules();
    b.kernelProfile.kernels[0].ns = 300'000; // the addmm in encoder.0.fc: 60 → 30 µs
    for (auto& n : b.graphs[0].nodes) {
        if (n.name == "relu")
            n.module = "encoder.2"; // the relu moved to another module
    }
    const CostComparison c = compareCosts(a, b);
    auto change = [&](const std::string& path) -> const ModuleChange* {
        for (const auto& m : c.modules)
            if (m.path == path)
                return &m;
        return nullptr;
    };
    ASSERT_FALSE(c.modules.empty());
    EXPECT_EQ(c.modules.front().path, "encoder.0"); // 75 → 30 µs: the fc and the relu left
    ASSERT_NE(change("encoder.0.fc"), nullptr);
    EXPECT_DOUBLE_EQ(change("encoder.0.fc")->nsPerCallA, 60'000);
    EXPECT_DOUBLE_EQ(change("encoder.0.fc")->nsPerCallB, 30'000);
    ASSERT_NE(change("encoder.0.act"), nullptr);
    EXPECT_DOUBLE_EQ(change("encoder.0.act")->nsPerCallB, 0); // only in A
    ASSERT_NE(change("encoder.2"), nullptr);
    EXPECT_DOUBLE_EQ(change("encoder.2")->nsPerCallA, 0); // only in B
    EXPECT_DOUBLE_EQ(change("encoder.2")->nsPerCallB, 15'000);
    EXPECT_EQ(c.modules.back().path, "encoder.2"); // the largest loss last
    EXPECT_EQ(change(""), nullptr);                // the model itself is the whole
}

// A real eager run of the gallery MLP with a 5-call window: its eager time by
// module (recorded with the probe's global forward hooks, which its module
// frames have since replaced), against the compiled run's kernels.
TEST(KernelCost, RealEagerStreamGivesEachLayerItsEagerTime) {
    Setting eagerSetting;
    eagerSetting.mode = "eager";
    const cs::core::Run eager =
        advice_test::fixtureRun("mlp_eager_profile_cpu.jsonl", eagerSetting);
    ASSERT_FALSE(eager.kernelProfile.eagerModules.empty());
    const CostBreakdown cost = costBreakdown(eager);
    ASSERT_TRUE(cost.profiled);
    EXPECT_TRUE(hasSubmoduleCost(cost));
    ASSERT_FALSE(cost.modules.empty());
    const ModuleCostRow& model = cost.modules.front();
    EXPECT_EQ(model.path, "");
    // Every op of a call runs inside the model: the model's row is all the eager time.
    EXPECT_NEAR(model.eagerShare, 1.0, 1e-9);
    EXPECT_DOUBLE_EQ(model.compiledNsPerCall, 0);
    double layers = 0;
    for (const auto& row : cost.modules) {
        if (row.depth == 1) {
            EXPECT_TRUE(row.path == "fc1" || row.path == "fc2" || row.path == "head") << row.path;
            EXPECT_GT(row.eagerNsPerCall, 0) << row.path;
            layers += row.eagerShare;
        }
    }
    EXPECT_GT(layers, 0.5); // the linears are most of an MLP's time
    EXPECT_LE(layers, 1.0 + 1e-9);
    const std::string text = costText(eager);
    EXPECT_NE(text.find("share of the call's ops"), std::string::npos) << text;
    EXPECT_NE(text.find("  fc2\n"), std::string::npos) << text;

    // Against the compiled run: each layer's eager time beside its kernels'.
    Setting compiledSetting;
    compiledSetting.mode = "default";
    const cs::core::Run compiled =
        advice_test::fixtureRun("mlp_default_code_cpu.jsonl", compiledSetting);
    const CostComparison c = compareCosts(eager, compiled);
    std::set<std::string> both;
    for (const auto& m : c.modules) {
        if (m.nsPerCallA > 0 && m.nsPerCallB > 0)
            both.insert(m.path);
    }
    EXPECT_EQ(both, (std::set<std::string>{"fc1", "fc2", "head"}));
}

TEST(KernelCost, EagerModuleTimeAddsUpToItsAncestors) {
    cs::core::Run run;
    run.status = RunStatus::Ok;
    KernelProfile& p = run.kernelProfile;
    p.present = true;
    p.calls = 10;
    p.callNs = 2'000'000;
    p.eagerNs = 1'000'000;
    p.eagerModules = {{"blocks.0.fc", 500'000}, {"blocks.1", 300'000}, {"", 200'000}};
    const CostBreakdown cost = costBreakdown(run);
    std::vector<std::string> order;
    for (const auto& row : cost.modules)
        order.push_back(row.path);
    EXPECT_EQ(order,
              (std::vector<std::string>{"", "blocks", "blocks.0", "blocks.0.fc", "blocks.1"}));
    EXPECT_DOUBLE_EQ(cost.modules[0].eagerNsPerCall, 100'000);
    EXPECT_DOUBLE_EQ(cost.modules[1].eagerNsPerCall, 80'000);
    EXPECT_DOUBLE_EQ(cost.modules[1].eagerShare, 0.8);
    EXPECT_DOUBLE_EQ(cost.modules[3].eagerNsPerCall, 50'000);
    EXPECT_DOUBLE_EQ(cost.modules[3].selfNsPerCall, 0); // self is compiled time only
    std::vector<std::string> overview;
    for (const auto* row : moduleOverview(cost, 20))
        overview.push_back(row->path);
    EXPECT_EQ(overview,
              (std::vector<std::string>{"blocks", "blocks.0", "blocks.0.fc", "blocks.1"}));
}
