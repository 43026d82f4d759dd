#include <gtest/gtest.h>

#include "core/html/report_html.h"
#include "tests/core/advice_reports.h"
#include "tests/core/sample_reports.h"

using namespace cs::core;

TEST(HtmlEscape, EscapesMarkupAndQuotes) {
    EXPECT_EQ(htmlEscape("</script><img src=x onerror=alert(1)>"),
              "&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;");
    EXPECT_EQ(htmlEscape("a\"b'c&d"), "a&quot;b&#39;c&amp;d");
}

TEST(HtmlEscape, InvalidUtf8BecomesReplacement) {
    EXPECT_EQ(htmlEscape(std::string("ok\xff\xfe!")), "ok\xEF\xBF\xBD\xEF\xBF\xBD!");
    EXPECT_EQ(htmlEscape("µs"), "µs");
    EXPECT_EQ(htmlEscape(std::string("a\x01z")), "a\xEF\xBF\xBDz");
}

TEST(ReportHtml, HostileStringsNeverReachTheMarkup) {
    Report report;
    report.model.spec = "<script>alert('spec')</script>";
    cs::core::Run run;
    run.status = RunStatus::Failed;
    run.error = ErrorInfo{"model_raised", "<img src=x onerror=alert(1)>", ""};
    run.setting.mode = "default";
    report.runs.push_back(run);
    const std::string html = writeReportHtml(report);
    EXPECT_EQ(html.find("<script>alert"), std::string::npos);
    EXPECT_EQ(html.find("<img src=x"), std::string::npos);
    EXPECT_NE(html.find("&lt;img src=x onerror=alert(1)&gt;"), std::string::npos);
}

namespace {

// Every section reads from the report: a report with one of each thing shows each.
Report fullReport() {
    Report report = cs::test::sampleReport();
    auto& run = report.runs[0];
    run.graphBreaks[0].gbType = "GB0001";
    run.kernels.top.push_back({"triton_poi_fused_relu_0", 10, 1000, 100});
    run.memoryStats.push_back({"compile", "end", 1 << 20, 2 << 20, 3 << 20, 4 << 20});
    run.harnessOverheadNs = 80;
    cs::core::Run eager =
        cs::test::runWithLatencies("eager", {2000, 1500}, cs::test::latencies(1500, 100, 30));
    report.runs.insert(report.runs.begin(), eager);
    return report;
}

// Eager at 100 ns a call and default at `defaultNs`, 20 measured calls each.
Report eagerAndDefault(int64_t defaultNs) {
    using cs::test::latencies;
    using cs::test::runWithLatencies;
    Report report;
    report.runs.push_back(runWithLatencies("eager", {300, 120}, latencies(100, 2, 20)));
    report.runs.push_back(runWithLatencies("default", {10000, 60}, latencies(defaultNs, 1, 20)));
    return report;
}

} // namespace

TEST(ReportHtml, HasEverySectionAndAStrictPolicy) {
    const std::string html = writeReportHtml(fullReport());
    for (const char* id :
         {"advice", "environment", "settings", "comparison", "breaks", "recompiles", "warmup",
          "latency", "memory", "kernels", "graphs", "problems"}) {
        EXPECT_NE(html.find("<section id=\"" + std::string(id) + "\">"), std::string::npos) << id;
    }
    // The policy is the first thing in <head>, before any text from the report.
    const size_t csp = html.find("Content-Security-Policy");
    ASSERT_NE(csp, std::string::npos);
    EXPECT_LT(csp, html.find("<title>"));
    EXPECT_NE(html.find("default-src 'none'"), std::string::npos);
    EXPECT_EQ(html.find("<script"), std::string::npos);
    EXPECT_EQ(html.find("http://"), std::string::npos);
    EXPECT_EQ(html.find("https://"), std::string::npos);
    // Real charts with labelled axes.
    EXPECT_NE(html.find("latency per call"), std::string::npos);
    EXPECT_NE(html.find("measured call number"), std::string::npos);
    EXPECT_NE(html.find("bytes held"), std::string::npos);
    EXPECT_NE(html.find("print(x)"), std::string::npos);      // the break's source line
    EXPECT_NE(html.find("size mismatch"), std::string::npos); // the recompile's guard
    EXPECT_NE(html.find("dynamo_tracing"), std::string::npos);
    EXPECT_NE(html.find("triton_poi_fused_relu_0"), std::string::npos);
    EXPECT_NE(html.find(">baseline<"), std::string::npos); // eager is the comparison's baseline
}

TEST(ReportHtml, EveryKindOfStringIsEscaped) {
    const std::string evil = "</script><img src=x onerror=alert(1)>\"'&";
    Report report = fullReport();
    report.model.spec = report.model.name = evil;
    report.environment.torch = report.environment.host = evil;
    report.generator = evil;
    auto& run = report.runs[1];
    run.graphBreaks[0].reason = evil;
    run.graphBreaks[0].frames[0].code = evil;
    run.graphBreaks[0].frames[0].file = evil;
    run.graphs[0].nodes[0].name = evil;
    run.graphs[0].function = evil;
    run.recompiles[0].reason = evil;
    run.logs.push_back({1, "error", evil});
    run.console = evil;
    run.kernels.top[0].name = evil;
    run.compilePhases[0].name = evil;
    run.memory[0].kind = evil;
    run.phases[0].name = evil;
    report.runs[2].error = ErrorInfo{evil, evil, evil};
    report.runs[2].setting.autocast = evil; // part of the label
    const std::string html = writeReportHtml(report);
    EXPECT_EQ(html.find("<img"), std::string::npos);
    EXPECT_EQ(html.find("</script>"), std::string::npos);
    EXPECT_EQ(html.find("<script"), std::string::npos);
    EXPECT_NE(html.find("&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;&quot;&#39;&amp;"),
              std::string::npos);
}

TEST(ReportHtml, HugeConsoleShowsItsEnds) {
    Report report = fullReport();
    report.runs[1].console = "FIRST" + std::string(1 << 20, 'x') + "LAST";
    const std::string html = writeReportHtml(report);
    EXPECT_NE(html.find("FIRST"), std::string::npos);
    EXPECT_NE(html.find("LAST"), std::string::npos);
    EXPECT_NE(html.find("bytes not shown here"), std::string::npos);
    EXPECT_LT(html.size(), 400u * 1024);
}

TEST(ReportHtml, EmptyReportStillExplainsItself) {
    const std::string html = writeReportHtml(Report{});
    EXPECT_NE(html.find("This report has no runs."), std::string::npos);
    EXPECT_NE(html.find("</html>"), std::string::npos);
}

// The sweep is on by default; the Settings table says whether the model had one.
TEST(ReportHtml, SweepCellSaysWhetherTheModelHadOne) {
    Report report;
    cs::core::Run asked;
    asked.setting.sweep = true;
    asked.status = RunStatus::Ok;
    cs::core::Run swept = asked;
    swept.phases.push_back({"sweep", 10, 20});
    cs::core::Run skipped = asked;
    skipped.setting.sweep = false;
    report.runs = {asked, swept, skipped};
    const std::string html = writeReportHtml(report);
    const size_t noneDefined = html.find(">none defined</td>");
    ASSERT_NE(noneDefined, std::string::npos);
    EXPECT_EQ(html.find(">none defined</td>", noneDefined + 1), std::string::npos);
    EXPECT_NE(html.find(">yes</td>"), std::string::npos); // no other column says yes here
}

// The comparison has an input-sweep column only when a setting swept, with
// the sweep's recompiles in the figure's title.
TEST(ReportHtml, TheComparisonShowsTheSweepWhenThereIsOne) {
    Report report = eagerAndDefault(50);
    const std::string heading = "title=\"wall time of the input sweep after measuring";
    EXPECT_EQ(writeReportHtml(report).find(heading), std::string::npos);
    report.runs[0].phases.push_back({"sweep", 10, 10 + 2'000'000});
    report.runs[1].phases.push_back({"sweep", 10, 10 + 250'000'000});
    cs::core::Recompile recompile;
    recompile.phase = "sweep";
    report.runs[1].recompiles = {recompile, recompile};
    const std::string html = writeReportHtml(report);
    EXPECT_NE(html.find(heading), std::string::npos);
    EXPECT_NE(html.find("title=\"input sweep 250 ms, 2 recompiles in it\">250 ms<"),
              std::string::npos);
}

TEST(ReportHtml, ComparisonNotesAreShownEscaped) {
    using cs::test::latencies;
    using cs::test::runWithLatencies;
    Report report;
    report.runs.push_back(runWithLatencies("eager", {300, 120}, latencies(100, 2, 20)));
    auto compiled = runWithLatencies("default", {10000, 60}, latencies(50, 1, 20));
    compiled.setting.backend = "<aot_eager>"; // a backend that ignores the mode: a note
    compiled.setting.mode = "max-autotune";
    compiled.compilePhases = {{"precompiled_header", 4e-6}};
    report.runs.push_back(compiled);
    const std::string html = writeReportHtml(report);
    EXPECT_NE(html.find("backend &lt;aot_eager&gt; ignores mode max-autotune"), std::string::npos);
    EXPECT_NE(html.find("built torch&#39;s precompiled C++ header (4.00 µs"), std::string::npos);
    EXPECT_EQ(html.find("<aot_eager>"), std::string::npos);
}

TEST(ReportHtml, PageFaultsAreListedWithTheMeasurementChecks) {
    Report report = eagerAndDefault(150);
    report.runs[0].measureHostFaults = {20, 40, 0, 0, 2000, 4096, "glibc", {}};
    report.runs[1].measureHostFaults = {20, 94'700, 0, 1000, 3000, 4096, "glibc", {}};
    const std::string html = writeReportHtml(report);
    EXPECT_NE(html.find("page faults: 2 page faults per call (8.00 KiB of fresh pages); glibc"),
              std::string::npos);
    EXPECT_NE(html.find("page faults, costly (see Advice): 4,735 page faults per call"),
              std::string::npos);
    EXPECT_NE(html.find("perf.page_faults"), std::string::npos); // the finding, in Advice
}

TEST(ReportHtml, MemoryKeptPerCallIsTabledWithTheSettingThatKeepsIt) {
    Report report = eagerAndDefault(150);
    for (auto& run : report.runs) {
        run.crosscheckBlockCalls = 100;
        run.crosscheckBlockMeansNs = {150, 150};
        run.measureHostHeld = {"malloc", 20, 1 << 20, (1 << 20) + 400};
        run.crosscheckHostHeld = {"malloc", 200, 2 << 20, 2 << 20};
    }
    report.runs[1].measureHostHeld.endBytes = (1 << 20) + 20 * 8192;
    report.runs[1].crosscheckHostHeld.endBytes = (2 << 20) + 200 * 8192;
    const std::string html = writeReportHtml(report);
    const size_t table = html.find("<h3>Memory kept per call at the same inputs</h3>");
    ASSERT_NE(table, std::string::npos);
    EXPECT_NE(html.find("+400 B over 20 calls", table), std::string::npos);
    EXPECT_NE(html.find("+1.56 MiB over 200 calls", table), std::string::npos);
    EXPECT_NE(html.find("yes: it grows with every call", table), std::string::npos);
    EXPECT_NE(html.find("memory.growth"), std::string::npos); // the finding, in Advice
    // Runs without the windows (an older report) have no such table.
    EXPECT_EQ(writeReportHtml(eagerAndDefault(150)).find("Memory kept per call"),
              std::string::npos);
}

// Every torch variable the probes started with is listed with where it came
// from: the shell's apart from what compilescope set (--env, env=), one that
// voids the measurement marked, a value escaped like any string.
TEST(ReportHtml, TheTorchVariablesAreListedWithWhereTheyCameFrom) {
    Report report = eagerAndDefault(150);
    report.environment.probeEnvironment = {{"OMP_NUM_THREADS", "2"}};
    for (auto& run : report.runs)
        run.probe.torchEnvironment = {{"OMP_NUM_THREADS", "2"}, {"TORCH_LOGS", "<b>"}};
    report.runs[1].setting.environment = {{"CUDA_LAUNCH_BLOCKING", "1"}};
    report.runs[1].probe.torchEnvironment["CUDA_LAUNCH_BLOCKING"] = "1";
    const std::string html = writeReportHtml(report);
    const auto table = html.find("Torch variables the probes started with");
    ASSERT_NE(table, std::string::npos);
    auto rowOf = [&](const std::string& name) {
        const auto at = html.find(">" + name + "</td>", table);
        if (at == std::string::npos)
            return std::string();
        const auto start = html.rfind("<tr", at);
        return html.substr(start, html.find("</tr>", at) - start);
    };
    const std::string logs = rowOf("TORCH_LOGS");
    EXPECT_NE(logs.find("&lt;b&gt;"), std::string::npos) << logs;
    EXPECT_NE(logs.find("inherited from the shell"), std::string::npos) << logs;
    EXPECT_NE(logs.find("turns torch&#39;s compile logging on"), std::string::npos) << logs;
    EXPECT_NE(logs.find(">all</td>"), std::string::npos) << logs;
    const std::string threads = rowOf("OMP_NUM_THREADS");
    EXPECT_NE(threads.find(">--env</td>"), std::string::npos) << threads;
    const std::string blocking = rowOf("CUDA_LAUNCH_BLOCKING");
    EXPECT_NE(blocking.find("class=\"bad\""), std::string::npos) << blocking;
    EXPECT_NE(blocking.find("the setting&#39;s env="), std::string::npos) << blocking;
    EXPECT_NE(blocking.find(">default CUDA_LAUNCH_BLOCKING=1</td>"), std::string::npos) << blocking;
    EXPECT_NE(html.find("env.inherited"), std::string::npos); // the finding, in Advice
}

// Each probe's row; a probe that ran another interpreter than the first is marked.
TEST(ReportHtml, EachProbeIsListedAndADifferentInterpreterMarked) {
    Report report = eagerAndDefault(150);
    for (auto& run : report.runs) {
        run.sawHello = true;
        run.probe.pythonExecutable = "/venv/bin/python";
        run.probe.threads = 2;
        run.probe.cpuAffinity = {0, 1};
    }
    report.runs[1].probe.pythonExecutable = "/usr/bin/python3";
    const std::string html = writeReportHtml(report);
    const auto table = html.find("<h3>Each probe</h3>");
    ASSERT_NE(table, std::string::npos);
    const std::string probes = html.substr(table, html.find("</table>", table) - table);
    EXPECT_NE(probes.find("<td class=\"l\">/venv/bin/python</td>"), std::string::npos) << probes;
    EXPECT_NE(probes.find("<td class=\"l warn\" title=\"not what the first probe had\">"
                          "/usr/bin/python3</td>"),
              std::string::npos)
        << probes;
    EXPECT_NE(probes.find("2 intra-op threads on CPUs 0-1"), std::string::npos) << probes;
}

// A report without torch_env (or with none set) has no variables table.
TEST(ReportHtml, NoTorchVariablesNoTable) {
    using cs::test::latencies;
    using cs::test::runWithLatencies;
    Report report;
    report.runs.push_back(runWithLatencies("eager", {300, 120}, latencies(100, 2, 20)));
    const std::string html = writeReportHtml(report);
    EXPECT_NE(html.find("id=\"environment\""), std::string::npos);
    EXPECT_EQ(html.find("Torch variables the probes started with"), std::string::npos);
}

TEST(ReportHtml, AMeasuredCallThatRecompiledIsMarkedAndNamed) {
    std::vector<int64_t> measured = advice_test::constant(30, 200'000);
    measured[11] = 90'000'000;
    cs::core::Run run = advice_test::timedRun("default", {900'000'000, 300'000}, measured);
    Recompile rc;
    rc.function = "forward";
    rc.reason = "0/0: self.level == 0";
    rc.phase = "measure";
    rc.callIndex = 13; // two warmup calls, then measured call 12
    run.recompiles.push_back(rc);
    const std::string html = writeReportHtml(advice_test::reportOf({run}));
    EXPECT_NE(html.find("<polygon class=\"marker\""), std::string::npos);
    EXPECT_NE(html.find("measured call 12 recompiled forward (90.0 ms)"), std::string::npos);
    EXPECT_NE(html.find(">measured call 12</td>"), std::string::npos) << "the Recompiles table";
    EXPECT_NE(html.find("<code>0/0: self.level == 0</code></td>"), std::string::npos)
        << "a guard with no comment is shown whole, with nothing folded under it";

    // torch's source comment and hint fold away under the guard.
    run.recompiles[0].reason =
        "0/0: self.level == 0  # return x * self.level  # m.py:9 in forward (HINT: make it a "
        "tensor)";
    const std::string commented = writeReportHtml(advice_test::reportOf({run}));
    EXPECT_NE(commented.find("<code>0/0: self.level == 0</code><details>"), std::string::npos);
    EXPECT_NE(commented.find("(HINT: make it a tensor)</pre></details>"), std::string::npos);

    // Dropped as unsettled, the call has no point left to mark.
    run.droppedUnsettled = 12;
    const std::string dropped = writeReportHtml(advice_test::reportOf({run}));
    EXPECT_EQ(dropped.find("<polygon class=\"marker\""), std::string::npos);
}

TEST(ReportHtml, AWarmupCallThatRecompiledIsMarkedOnTheFirstCalls) {
    cs::core::Run run =
        advice_test::timedRun("default", {900'000'000, 300'000, 200'000, 80'000'000, 200'000},
                              advice_test::constant(30, 200'000));
    Recompile rc;
    rc.function = "forward";
    rc.phase = "warmup";
    rc.callIndex = 3;
    run.recompiles.push_back(rc);
    const std::string html = writeReportHtml(advice_test::reportOf({run}));
    const size_t warmup = html.find("id=\"warmup\"");
    ASSERT_NE(warmup, std::string::npos);
    const size_t mark = html.find("<polygon class=\"marker\"", warmup);
    ASSERT_NE(mark, std::string::npos);
    EXPECT_LT(mark, html.find("</section>", warmup));
    EXPECT_NE(html.find("call 4 (warmup): 80.0 ms, recompiled forward"), std::string::npos);
    EXPECT_NE(html.find("a call that recompiled"), std::string::npos);
}

// A break in a loop, as the probe recorded it: the map and the table name the
// cause and say which frame torch skipped and ran eagerly.
TEST(ReportHtml, ABreakInALoopSaysWhichFrameRunsEagerly) {
    cs::core::Setting setting;
    setting.backend = "aot_eager";
    const std::string html = writeReportHtml(
        advice_test::reportOf({advice_test::fixtureRun("advice_loop_break.jsonl", setting)}));
    const size_t skipped = html.find("break at loop_break.py:18: Dynamic shape operator; pick "
                                     "skipped, runs eagerly");
    ASSERT_NE(skipped, std::string::npos);
    // In the order they ran: graph 0, then the break no graph followed.
    EXPECT_LT(html.find("<b>graph 0</b>"), skipped);
    EXPECT_NE(
        html.find(
            "<small>graph break in loop: torch skipped the frame pick for it; all of pick runs "
            "eagerly</small>"),
        std::string::npos);
}

// A setting's env= makes its label one long word: it may break after _ and =
// in a table with no room, and reads the same once the breaks are taken out.
TEST(ReportHtml, ALongSettingLabelCanBreakInItsTableCell) {
    Report report = eagerAndDefault(150);
    report.runs[1].setting.environment = {{"TORCHINDUCTOR_MAX_AUTOTUNE_POINTWISE", "<1>"}};
    const std::string html = writeReportHtml(report);
    // The swatch and the first word ("default") do not part.
    const std::string broken = "default</span> TORCHINDUCTOR_<wbr>MAX_<wbr>AUTOTUNE_<wbr>"
                               "POINTWISE=<wbr>&lt;1&gt;";
    EXPECT_NE(html.find(broken), std::string::npos);
    EXPECT_NE(html.find("td .run{white-space:normal}"), std::string::npos);
    EXPECT_NE(html.find(".run .lead{white-space:nowrap}"), std::string::npos);
}

TEST(ReportHtml, ASettingLabelKeepsItsFirstWordWithTheSwatch) {
    Report report = eagerAndDefault(150);
    report.runs[1].setting.mode = "max-autotune-no-cudagraphs";
    report.runs[1].setting.environment = {{"A_B", "1"}};
    const std::string html = writeReportHtml(report);
    EXPECT_NE(html.find("max-</span><wbr>autotune-no-cudagraphs A_<wbr>B=<wbr>1</span>"),
              std::string::npos);
    report.runs[1].setting.environment.clear();
    report.runs[1].setting.mode = "default";
    report.runs[1].setting.dynamic = "true";
    EXPECT_NE(writeReportHtml(report).find("default</span> dyn</span>"), std::string::npos);
}

// The phases' sources name their settings; eager's "none: why" is not a source.
TEST(ReportHtml, PhaseSourcesNameTheirSettings) {
    Report report = eagerAndDefault(50);
    report.runs[0].compilePhases = {{"other", 0.0001}};
    report.runs[0].compilePhasesSource = "none: mode eager compiles nothing";
    report.runs.push_back(report.runs[1]);
    report.runs[2].setting.mode = "max-autotune";
    for (size_t i : {1u, 2u}) {
        report.runs[i].compilePhases = {{"dynamo_tracing", 0.5}, {"other", 0.1}};
        report.runs[i].compilePhasesSource = "torch counters";
    }
    const std::string html = writeReportHtml(report);
    EXPECT_NE(html.find("default, max-autotune: phases from <code>torch counters</code>."),
              std::string::npos);
    EXPECT_NE(html.find("eager: no compile phases (mode eager compiles nothing)."),
              std::string::npos);
    EXPECT_EQ(html.find("Phases from"), std::string::npos);
}
