// Writes a report whose every string is hostile — markup that would run script
// if it reached the page unescaped, quotes that would end an attribute, bytes
// that are not UTF-8, a 1 MB line — as HTML and JSON, for the browser test
// (test_report_html_browser.py). Strings with raw bytes can only come from
// C++ (a live run's console, a model's print): JSON cannot carry them.
//   make_hostile_report OUT_DIR
#include <cstdio>
#include <filesystem>
#include <string>

#include "core/events/event_parser.h"
#include "core/html/report_html.h"
#include "core/report/report_json.h"

using namespace cs::core;

namespace {

const std::string kScript = "</script><img src=x onerror=alert(1)>";
const std::string kQuotes = "\"'><svg onload=alert(2)><a href=\"javascript:alert(3)\">x</a>";
const std::string kBytes =
    "bad\xff\xfe bytes\xc0\xbc overlong\xe0\x80\xbc surrogate\xed\xa0\x80 end";
const std::string kMarkup =
    "<!-- --><style>body{display:none}</style><iframe src=x></iframe>&lt;b&gt;";

// Each field gets the payloads plus its own name, so the test can say which field leaked.
std::string hostile(const std::string& field) {
    return field + ": " + kScript + " " + kQuotes + " " + kBytes + " " + kMarkup;
}

Run hostileRun(const std::string& mode) {
    Run run;
    run.setting.mode = mode;
    run.setting.autocast = hostile("autocast");
    run.status = RunStatus::Failed;
    run.exitCode = 3;
    run.error = ErrorInfo{hostile("error kind"), hostile("error message"), hostile("traceback")};
    run.probe.device = hostile("probe device");
    run.probe.torch = hostile("probe torch");
    run.sawHello = true;
    run.firstEventNs = 1000;
    run.phases.push_back({hostile("phase"), 1000, 5000000});
    for (int i = 0; i < 30; ++i)
        run.iterations.push_back({i, 1000000 + 1000 * (i % 7), 1000000, 2000 + i, i < 3, i == 0});
    run.harnessOverheadNs = 90;
    Graph g;
    g.index = 0;
    g.compileId = hostile("compile id");
    g.function = hostile("graph function");
    g.file = hostile("graph file");
    g.nodes.push_back({hostile("node name"),
                       "call_function",
                       hostile("node target"),
                       hostile("node shape"),
                       hostile("node dtype"),
                       hostile("node file"),
                       3,
                       hostile("node module"),
                       {hostile("node input")}});
    run.graphs.push_back(g);
    run.graphs.push_back(g);
    run.graphs.back().index = 1;
    GraphBreak b;
    b.reason = hostile("break reason");
    b.gbType = hostile("break type");
    b.frames.push_back(
        {hostile("frame file"), 12, hostile("frame function"), hostile("source line"), true});
    b.frames.push_back(
        {hostile("library file"), 99, hostile("library function"), hostile("library line"), false});
    b.userFrame = 0;
    b.graphBefore = 0;
    b.graphAfter = 1;
    run.graphBreaks.push_back(b);
    run.recompiles.push_back({hostile("recompile function"), hostile("guard"), 2,
                              hostile("input shapes"), true, 8, hostile("library frame"),
                              hostile("recompile phase")});
    run.compilePhases.push_back({hostile("compile phase"), 0.5});
    run.firstCallNs = 700000000;
    run.compilePhasesSource = hostile("phase source");
    run.memory.push_back(
        {hostile("memory kind"), {{1000, 100}, {2000, 300}}, {{hostile("peak phase"), 300}}});
    run.memoryStats.push_back({hostile("stats phase"), hostile("stats edge"), 1, 2, 3, 4});
    run.kernels.present = true;
    run.kernels.iterations = 10;
    run.kernels.top.push_back({hostile("kernel name"), 3, 300, 100});
    run.cuptiMessage = hostile("cupti message");
    // A profiled kernel window over the graph's code (docs/kernel-cost.md).
    GeneratedCode code;
    code.compileId = g.compileId;
    code.part = hostile("code part");
    code.kernels.push_back(
        {hostile("cost kernel"),
         hostile("cost kind"),
         1,
         0,
         0,
         {g.nodes[0].name},
         {{hostile("node file"), 3, hostile("cost function"), hostile("cost line code"), true}}});
    run.code.push_back(code);
    run.kernelProfile.present = true;
    run.kernelProfile.source = hostile("cost source");
    run.kernelProfile.calls = 10;
    run.kernelProfile.callNs = 20000;
    run.kernelProfile.kernels.push_back({g.compileId, hostile("cost kernel"), 10000, 10, false});
    run.kernelProfile.wrappers.push_back({g.compileId, "", 1000, 0, false});
    run.kernelProfile.eager.push_back(
        {{hostile("eager file"), 5, hostile("eager function"), hostile("eager code"), true}, 500});
    run.kernelProfile.eagerNs = 500;
    run.kernelProfile.note = hostile("cost note");
    run.logs.push_back({1, "warning", hostile("log warning")});
    run.logs.push_back({2, "error", hostile("log error")});
    // The console carries the 1 MB line: a model that prints a huge tensor.
    run.console =
        hostile("console") + "\n" + std::string(1 << 20, 'A') + hostile("console long line") + "\n";
    run.parseProblems.push_back({7, hostile("parse problem")});
    return run;
}

} // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: make_hostile_report OUT_DIR\n");
        return 1;
    }
    const std::filesystem::path out(argv[1]);
    std::filesystem::create_directories(out);
    Report report;
    report.generator = hostile("generator");
    report.created = hostile("created");
    report.model = {
        hostile("model spec"),
        hostile("model file"),
        hostile("model name"),
        1000,
        {hostile("input")},
        {{hostile("where"), "Module.compile", hostile("backend"), hostile("mode"), "auto", false,
          "torch.compile(" + hostile("call") + ")"}},
        {{hostile("hook module"), "forward", hostile("hook function"), hostile("hook file"), 7}}};
    report.environment = {
        hostile("python"),   hostile("torch"),  hostile("cuda"),
        hostile("device"),   hostile("cpu"),    hostile("host"),
        hostile("platform"), hostile("target"), {{hostile("env name"), hostile("env value")}}};
    report.runs.push_back(hostileRun("eager"));
    report.runs.push_back(hostileRun(hostile("mode")));
    report.runs[1].setting.environment = {{hostile("setting env"), hostile("setting env value")}};
    // A break reason that is itself a 1 MB line.
    report.runs[1].graphBreaks[0].reason =
        hostile("huge reason") + std::string(1 << 20, 'R') + kScript;
    // Runs the advice's regexes would follow for a whole line: a hint, and a
    // guard's value (each crashed the writer before the text was bounded).
    report.runs[1].graphBreaks[0].reason += "\n  Hint: " + std::string(1 << 20, 'h');
    Recompile guard;
    guard.function = "forward";
    guard.reason = "0/0: task == '" + std::string(1 << 20, 'g') + "' " + kScript;
    report.runs[1].recompiles.push_back(guard);
    std::string error;
    if (!saveTextFile((out / "hostile.html").string(), writeReportHtml(report), &error) ||
        !saveTextFile((out / "hostile.json").string(), writeReportJson(report), &error)) {
        std::fprintf(stderr, "%s\n", error.c_str());
        return 1;
    }
    std::printf("%s\n", (out / "hostile.html").string().c_str());
    return 0;
}
