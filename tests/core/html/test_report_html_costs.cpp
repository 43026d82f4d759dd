// The HTML report's "Where the time goes": top kernels and hot lines per
// setting with a profiled window; nothing without one; user text escaped.
#include <gtest/gtest.h>

#include "core/html/report_html.h"

using namespace cs::core;

namespace {

Run profiled(const std::string& mode, const std::string& code, const std::string& kernelName) {
    cs::core::Run run;
    run.setting.mode = mode;
    run.status = RunStatus::Ok;
    Graph graph;
    graph.compileId = "0/0";
    GraphNode relu;
    relu.name = "relu";
    relu.file = "/m/model.py";
    relu.line = 21;
    graph.nodes = {relu};
    run.graphs.push_back(graph);
    GeneratedCode generated;
    generated.compileId = "0/0";
    generated.part = "inference";
    CodeKernel kernel;
    kernel.name = kernelName;
    kernel.kind = "cpp";
    kernel.nodes = {"relu"};
    kernel.lines = {{"/m/model.py", 21, "forward", code, true}};
    generated.kernels = {kernel};
    run.code.push_back(generated);
    KernelProfile& p = run.kernelProfile;
    p.present = true;
    p.source = "torch_profiler";
    p.calls = 50;
    p.callNs = 10'000'000;
    p.kernels = {{"0/0", kernelName, 4'000'000, 50, false}};
    p.wrappers = {{"0/0", "", 1'000'000, 0, false}};
    p.eager = {{{"/m/model.py", 30, "forward", "z = x.tolist()", true}, 2'000'000}};
    p.eagerNs = 2'000'000;
    return run;
}

// The eager setting's run: a profiled window with no kernels, its time all eager.
Run eagerRun() {
    cs::core::Run eager = profiled("eager", "y = torch.relu(y)", "cpp_fused_relu_0");
    eager.code.clear();
    eager.graphs.clear();
    eager.kernelProfile.kernels.clear();
    eager.kernelProfile.wrappers.clear();
    return eager;
}

// The "Where the time goes" section of the report's HTML; "" when it has none.
std::string costsSection(const Report& report) {
    const std::string html = writeReportHtml(report);
    const size_t section = html.find("<section id=\"costs\">");
    if (section == std::string::npos)
        return {};
    return html.substr(section, html.find("</section>", section) - section);
}

} // namespace

TEST(ReportHtmlCosts, TopKernelsAndHotLinesPerProfiledSetting) {
    Report report;
    cs::core::Run eager;
    eager.setting.mode = "eager";
    eager.status = RunStatus::Ok;
    report.runs.push_back(eager);
    report.runs.push_back(profiled("default", "y = torch.relu(y)", "cpp_fused_relu_0"));
    const std::string html = writeReportHtml(report);
    const size_t section = html.find("<section id=\"costs\">");
    ASSERT_NE(section, std::string::npos);
    EXPECT_NE(html.find("<a href=\"#costs\">Where the time goes</a>"), std::string::npos);
    const std::string body = html.substr(section, html.find("</section>", section) - section);
    EXPECT_NE(body.find("Where the time goes"), std::string::npos);
    EXPECT_NE(body.find("50 profiled calls"), std::string::npos);
    EXPECT_NE(body.find("<code>cpp_fused_relu_0</code>"), std::string::npos);
    EXPECT_NE(body.find("80.0 µs"), std::string::npos) << body; // 4 ms / 50 calls
    EXPECT_NE(body.find("100.0 %"), std::string::npos);
    EXPECT_NE(body.find("outside kernels"), std::string::npos);
    EXPECT_NE(body.find("model.py:21"), std::string::npos);
    EXPECT_NE(body.find("<code class=\"src\">y = torch.relu(y)</code>"), std::string::npos);
    EXPECT_NE(body.find("<code class=\"src\">z = x.tolist()</code>"), std::string::npos);
    EXPECT_NE(body.find("40.0 µs"), std::string::npos); // the eager line: 2 ms / 50
    // Of the call's ops: 2 ms eager of 4 ms kernels, 1 ms graphs and 2 ms eager.
    EXPECT_NE(body.find("<td>28.6 %</td><td>40.0 µs</td>"), std::string::npos) << body;
    // The node is in the model's own forward: no module column, no modules table.
    EXPECT_EQ(body.find("Hot modules"), std::string::npos);
    EXPECT_EQ(body.find(">module<"), std::string::npos);
}

TEST(ReportHtmlCosts, HotModulesIndentSubmodulesUnderTheirParents) {
    Report report;
    cs::core::Run run = profiled("default", "y = torch.relu(y)", "cpp_fused_relu_0");
    run.graphs[0].nodes[0].module = "encoder.act";
    report.runs.push_back(run);
    const std::string body = costsSection(report);
    ASSERT_FALSE(body.empty());
    EXPECT_NE(body.find(">module<"), std::string::npos) << body; // the kernels' column
    EXPECT_NE(body.find("<td class=\"l\">encoder.act</td>"), std::string::npos) << body;
    const size_t modules = body.find("Hot modules");
    ASSERT_NE(modules, std::string::npos) << body;
    const size_t parent = body.find("padding-left:0em\"><code>encoder</code>", modules);
    const size_t child = body.find("padding-left:1em\"><code>encoder.act</code>", modules);
    ASSERT_NE(parent, std::string::npos) << body;
    ASSERT_NE(child, std::string::npos) << body;
    EXPECT_LT(parent, child);
}

TEST(ReportHtmlCosts, NoSectionWithoutAProfile) {
    Report report;
    cs::core::Run run = profiled("default", "y = torch.relu(y)", "cpp_fused_relu_0");
    run.kernelProfile = {};
    report.runs.push_back(run);
    const std::string html = writeReportHtml(report);
    EXPECT_EQ(html.find("id=\"costs\""), std::string::npos);
    EXPECT_EQ(html.find("#costs"), std::string::npos);
}

TEST(ReportHtmlCosts, UserTextIsEscaped) {
    Report report;
    cs::core::Run run =
        profiled("default", "<script>alert('line')</script>", "k<script>alert(1)</script>");
    run.graphs[0].nodes[0].file = "/m/<script>x</script>.py";
    run.graphs[0].nodes[0].module = "blocks.<script>m</script>";
    run.code[0].kernels[0].lines[0].file = "/m/<script>x</script>.py";
    run.kernelProfile.note = "<img src=x onerror=alert(2)>";
    run.kernelProfile.source = "<b>cupti</b>";
    report.runs.push_back(run);
    const std::string html = writeReportHtml(report);
    ASSERT_NE(html.find("<section id=\"costs\">"), std::string::npos);
    EXPECT_EQ(html.find("<script>"), std::string::npos);
    EXPECT_EQ(html.find("<img src=x"), std::string::npos);
    EXPECT_EQ(html.find("<b>cupti"), std::string::npos);
    EXPECT_NE(html.find("&lt;script&gt;alert(&#39;line&#39;)&lt;/script&gt;"), std::string::npos);
    EXPECT_NE(html.find("k&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
}

TEST(ReportHtmlCosts, AnEagerWindowSaysSoInsteadOfAnEmptyKernelTable) {
    Report report;
    report.runs.push_back(eagerRun());
    const std::string body = costsSection(report);
    ASSERT_FALSE(body.empty());
    EXPECT_EQ(body.find("Top kernels"), std::string::npos) << body;
    EXPECT_NE(body.find("No compiled kernel ran in the window"), std::string::npos);
    EXPECT_NE(body.find("<code class=\"src\">z = x.tolist()</code>"), std::string::npos);
    // Its lines have eager time only: no compiled columns, no kernels; the
    // share is of the call's ops (2 ms of 2 ms), not of the profiled call (10 ms).
    const size_t lines = body.find("Hot lines");
    ASSERT_NE(lines, std::string::npos) << body;
    EXPECT_EQ(body.find(">compiled share<", lines), std::string::npos) << body;
    EXPECT_EQ(body.find(">kernels<", lines), std::string::npos) << body;
    EXPECT_NE(body.find(">eager share<", lines), std::string::npos) << body;
    EXPECT_NE(body.find("<td>100.0 %</td><td>40.0 µs</td>", lines), std::string::npos) << body;
}

TEST(ReportHtmlCosts, AnEagerRunsModulesShowTheirEagerTime) {
    Report report;
    cs::core::Run eager = eagerRun();
    eager.kernelProfile.eagerModules = {{"encoder.fc", 1'500'000}, {"", 500'000}};
    report.runs.push_back(eager);
    const std::string body = costsSection(report);
    ASSERT_FALSE(body.empty());
    const size_t modules = body.find("Hot modules");
    ASSERT_NE(modules, std::string::npos) << body;
    EXPECT_NE(body.find(">eager share<", modules), std::string::npos) << body;
    EXPECT_EQ(body.find(">compiled share<", modules), std::string::npos) << body;
    EXPECT_NE(body.find("<code>encoder.fc</code>", modules), std::string::npos) << body;
    EXPECT_NE(body.find("75.0 %", modules), std::string::npos) << body;  // 1.5 of 2 ms
    EXPECT_NE(body.find("30.0 µs", modules), std::string::npos) << body; // 1.5 ms / 50 calls
}

// A compiled setting's modules that ran ops uncompiled, after a graph break:
// their eager time beside the compiled; one that compiled nothing reads "—".
TEST(ReportHtmlCosts, ACompiledRunsModulesShowWhatRanUncompiled) {
    Report report;
    cs::core::Run run = profiled("default", "y = torch.relu(y)", "cpp_fused_relu_0");
    run.graphs[0].nodes[0].module = "blocks.1";
    run.kernelProfile.eagerModules = {{"blocks.0", 1'500'000}, {"blocks.1", 500'000}};
    report.runs.push_back(run);
    const std::string body = costsSection(report);
    const size_t modules = body.find("Hot modules");
    ASSERT_NE(modules, std::string::npos) << body;
    EXPECT_NE(body.find(">compiled share<", modules), std::string::npos) << body;
    EXPECT_NE(body.find(">eager per call<", modules), std::string::npos) << body;
    const size_t zero = body.find("<code>blocks.0</code>", modules);
    ASSERT_NE(zero, std::string::npos) << body;
    const std::string cells = body.substr(zero, body.find("</tr>", zero) - zero);
    EXPECT_NE(cells.find("<td>—</td><td>—</td><td>30.0 µs</td>"), std::string::npos) << cells;
    const size_t one = body.find("<code>blocks.1</code>", modules);
    ASSERT_NE(one, std::string::npos) << body;
    EXPECT_NE(body.substr(one, body.find("</tr>", one) - one).find("<td>10.0 µs</td>"),
              std::string::npos);
}

TEST(ReportHtmlCosts, ModulesAcrossSettingsPutEachBlocksTimeSideBySide) {
    Report report;
    cs::core::Run eager = eagerRun();
    eager.kernelProfile.eagerModules = {{"encoder.act", 1'500'000}, {"", 500'000}};
    report.runs.push_back(eager);
    cs::core::Run compiled = profiled("default", "y = torch.relu(y)", "cpp_fused_relu_0");
    compiled.graphs[0].nodes[0].module = "encoder.act";
    report.runs.push_back(compiled);
    const std::string body = costsSection(report);
    const size_t across = body.find("Modules across settings");
    ASSERT_NE(across, std::string::npos) << body;
    // encoder.act: 30 µs a call eager (1.5 ms / 50), 80 µs compiled (4 ms / 50); eager's the best.
    const size_t row = body.find("<code>encoder.act</code>", across);
    ASSERT_NE(row, std::string::npos) << body.substr(across);
    const std::string cells = body.substr(row, body.find("</tr>", row) - row);
    EXPECT_NE(cells.find("<td class=\"best\">30.0 µs</td><td>80.0 µs</td>"), std::string::npos)
        << cells;
    // One setting alone has nothing to set beside.
    report.runs.erase(report.runs.begin());
    EXPECT_EQ(costsSection(report).find("Modules across settings"), std::string::npos);
}
