// Reports built from real probe streams (tests/fixtures/streams): written,
// kept for the schema check, read back identical, and shown in the HTML.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/events/event_parser.h"
#include "core/html/report_html.h"
#include "core/report/report_json.h"
#include "tests/core/report_capture.h"

using namespace cs::core;

namespace {

cs::core::Run replayFixture(const std::string& name, const std::string& mode) {
    std::ifstream in(std::string(COMPILESCOPE_FIXTURES) + "/streams/" + name);
    std::stringstream text;
    text << in.rdbuf();
    Setting setting;
    setting.mode = mode;
    cs::core::Run run = replayStream(text.str(), setting);
    run.status = run.doneStatus == "ok" ? RunStatus::Ok : RunStatus::Failed;
    run.exitCode = run.doneStatus == "ok" ? 0 : 3;
    return run;
}

Report streamsReport() {
    Report report;
    report.generator = "compilescope tests";
    report.created = "2026-11-30T03:00:00Z";
    report.runs.push_back(replayFixture("mlp_eager_cpu.jsonl", "eager"));
    report.runs.push_back(replayFixture("mlp_default_cpu.jsonl", "default"));
    report.runs.push_back(replayFixture("print_break_aot_eager_cpu.jsonl", "max-autotune"));
    report.runs.push_back(replayFixture("variable_length_sweep.jsonl", "reduce-overhead"));
    report.runs.push_back(replayFixture("model_raised_cpu.jsonl", "max-autotune-no-cudagraphs"));
    report.deriveFromRuns();
    return report;
}

} // namespace

TEST(ReportFromStreams, RoundTripsAndShowsWhatTheProbeFound) {
    if (!std::filesystem::exists(std::string(COMPILESCOPE_FIXTURES) +
                                 "/streams/mlp_eager_cpu.jsonl"))
        GTEST_SKIP() << "no saved probe streams";
    const Report report = streamsReport();
    const std::string json = cs::test::writeAndKeepReport(report, "from_streams");
    auto read = readReportJson(json, "from_streams.json");
    ASSERT_TRUE(read.ok) << read.error;
    EXPECT_TRUE(read.warnings.empty());
    EXPECT_EQ(writeReportJson(read.report), json);

    const std::string html = writeReportHtml(read.report);
    const cs::core::Run& printBreak = read.report.runs[2];
    ASSERT_FALSE(printBreak.graphBreaks.empty());
    const SourceFrame* where = printBreak.graphBreaks[0].location();
    ASSERT_NE(where, nullptr);
    EXPECT_NE(html.find(htmlEscape(where->code)), std::string::npos) << where->code;
    ASSERT_FALSE(read.report.runs[3].recompiles.empty());
    EXPECT_EQ(read.report.runs[3].recompiles[0].phase, "sweep"); // kept through the report
    EXPECT_NE(html.find(htmlEscape(read.report.runs[3].recompiles[0].reason)), std::string::npos);
    ASSERT_TRUE(read.report.runs[4].error.has_value());
    EXPECT_NE(html.find(htmlEscape(read.report.runs[4].error->message)), std::string::npos);
}

// A CPU run with the collector's CUPTI-shaped events appended (tests/fixtures/cupti,
// made without a GPU): the memory and kernel sections show device data.
TEST(ReportFromStreams, DeviceMemoryAndKernelsAreShown) {
    const std::string cupti = std::string(COMPILESCOPE_FIXTURES) + "/cupti/events.jsonl";
    if (!std::filesystem::exists(cupti))
        GTEST_SKIP() << "no CUPTI fixture";
    std::ifstream mlp(std::string(COMPILESCOPE_FIXTURES) + "/streams/mlp_default_cpu.jsonl");
    std::ifstream records(cupti);
    std::stringstream text;
    text << mlp.rdbuf() << records.rdbuf();
    Setting setting;
    setting.mode = "reduce-overhead";
    Report report;
    report.runs.push_back(replayStream(text.str(), setting));
    report.runs[0].status = RunStatus::Ok;
    report.deriveFromRuns();
    const std::string json = cs::test::writeAndKeepReport(report, "device_shaped");
    auto read = readReportJson(json, "device_shaped.json");
    ASSERT_TRUE(read.ok) << read.error;
    const std::string html = writeReportHtml(read.report);
    EXPECT_NE(html.find("device memory held (CUPTI allocation records)"), std::string::npos);
    EXPECT_NE(html.find("triton_per_fused_native_layer_norm_0"), std::string::npos);
    EXPECT_NE(html.find("launches per iteration"), std::string::npos);
    EXPECT_EQ(html.find("No GPU memory measured"), std::string::npos);
    EXPECT_NE(html.find("86.0 MiB"), std::string::npos); // the compile-phase peak, 90177536 bytes
}
