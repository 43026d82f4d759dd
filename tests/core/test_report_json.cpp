#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "event_parser.h"
#include "report_json.h"

using namespace cs::core;

namespace {

Report sampleReport() {
    Report report;
    report.generator = "compilescope test";
    report.created = "2026-11-30T00:00:00Z";
    cs::core::Run run = replayStream(
        R"J({"type":"hello","t_ns":1,"protocol":1,"python":"3.11.2","torch":"2.15.0","device":"cpu","cpu":"x86","host":"h"})J" "\n"
        R"J({"type":"model","t_ns":2,"spec":"/m/mlp.py","file":"/m/mlp.py","name":"MLP","parameters":1000,"inputs":[{"shape":[32,512],"dtype":"float32"}]})J" "\n"
        R"J({"type":"phase","t_ns":3,"name":"compile","edge":"begin"})J" "\n"
        R"J({"type":"iteration","t_ns":4,"index":0,"latency_ns":900000000,"wall_ns":900000001,"warmup":true,"first_call":true})J" "\n"
        R"J({"type":"phase","t_ns":5,"name":"compile","edge":"end"})J" "\n"
        R"J({"type":"iteration","t_ns":6,"index":1,"latency_ns":1000,"wall_ns":1001})J" "\n"
        R"J({"type":"iteration","t_ns":7,"index":2,"latency_ns":1100,"wall_ns":1101})J" "\n"
        R"J({"type":"graph","t_ns":8,"index":0,"compile_id":"0/0","function":"forward","nodes":[{"name":"x","op":"placeholder","target":"x","shape":["s0",512],"dtype":"float32","inputs":[]},{"name":"relu","op":"call_function","target":"torch.relu","shape":"[s0, 512]","dtype":"float32","file":"/m/mlp.py","line":9,"module":"act","inputs":["x"]}]})J" "\n"
        R"J({"type":"graph_break","t_ns":9,"index":0,"reason":"print","frames":[{"file":"/m/mlp.py","line":12,"function":"forward","code":"print(x)"}],"user_frame":0,"graph_before":0,"graph_after":1})J" "\n"
        R"J({"type":"recompile","t_ns":10,"function":"forward","reason":"size mismatch","cache_size":2,"input_shapes":"[8, 16]"})J" "\n"
        R"J({"type":"recompile_limit","t_ns":11,"function":"forward","limit":8,"reason":"limit"})J" "\n"
        R"J({"type":"compile_time","t_ns":12,"phases":[{"name":"dynamo_tracing","seconds":0.25},{"name":"other","seconds":0.65}],"first_call_ns":900000000,"source":"metrics"})J" "\n"
        R"J({"type":"memory","t_ns":13,"kind":"host_rss","samples":[[1,100],[2,200]],"phase_peaks":{"compile":200}})J" "\n"
        R"J({"type":"memory_stats","t_ns":14,"phase":"measure","edge":"end","allocated":1,"reserved":2,"peak_allocated":3,"peak_reserved":4})J" "\n"
        R"J({"type":"kernel_summary","t_ns":15,"iterations":2,"launches_per_iter":3.5,"gpu_ns_per_iter":100.5,"busy_fraction":0.25,"top":[{"name":"k<1>","count":4,"total_ns":40,"mean_ns":10}],"memcpy":{"count":1,"bytes":64,"total_ns":5},"dropped":0})J" "\n"
        R"J({"type":"log","t_ns":16,"level":"warning","message":"w"})J" "\n"
        R"J({"type":"mystery","t_ns":17,"data":{"a":[1,2]}})J" "\n"
        "garbage\n"
        R"J({"type":"done","t_ns":18,"status":"ok"})J" "\n");
    run.status = RunStatus::Ok;
    run.exitCode = 0;
    run.console = "printed \xff bytes\n";
    report.runs.push_back(run);
    cs::core::Run failed;
    failed.setting.mode = "max-autotune";
    failed.status = RunStatus::Crashed;
    failed.error = ErrorInfo{"crashed", "died", "tb"};
    report.runs.push_back(failed);
    report.deriveFromRuns();
    return report;
}

} // namespace

TEST(ReportJson, WriteReadWriteIsIdentical) {
    Report report = sampleReport();
    const std::string first = writeReportJson(report);
    auto read = readReportJson(first, "memory");
    ASSERT_TRUE(read.ok) << read.error;
    EXPECT_TRUE(read.warnings.empty());
    EXPECT_EQ(writeReportJson(read.report), first);
}

TEST(ReportJson, ReadBackEqualsOriginalExceptInvalidUtf8) {
    Report report = sampleReport();
    report.runs[0].console = "printed bytes\n";
    auto read = readReportJson(writeReportJson(report), "memory");
    ASSERT_TRUE(read.ok);
    EXPECT_EQ(read.report, report);
}

TEST(ReportJson, NumbersAreNumbers) {
    auto doc = nlohmann::json::parse(writeReportJson(sampleReport()));
    EXPECT_EQ(doc["format"], kReportFormat);
    EXPECT_EQ(doc["version"], 1);
    const auto& latency = doc["runs"][0]["latency"];
    EXPECT_TRUE(latency["samples_ns"][0].is_number_integer());
    EXPECT_EQ(latency["samples_ns"][0], 1000);
    EXPECT_EQ(latency["warmup_ns"][0], 900000000);
    EXPECT_DOUBLE_EQ(latency["stats"]["median_ns"].get<double>(), 1050.0);
    EXPECT_EQ(doc["runs"][1]["status"], "crashed");
    EXPECT_EQ(doc["runs"][1]["error"]["message"], "died");
    EXPECT_EQ(doc["environment"]["torch"], "2.15.0");
}

TEST(ReportJson, BadInputsGiveClearErrors) {
    auto truncated = readReportJson(writeReportJson(sampleReport()).substr(0, 200), "/tmp/r.json");
    EXPECT_FALSE(truncated.ok);
    EXPECT_NE(truncated.error.find("/tmp/r.json"), std::string::npos);
    EXPECT_NE(truncated.error.find("truncated"), std::string::npos);

    auto notJson = readReportJson("hello world", "x.json");
    EXPECT_FALSE(notJson.ok);
    EXPECT_NE(notJson.error.find("not valid JSON"), std::string::npos);

    auto notReport = readReportJson(R"J({"name": "package.json"})J", "p.json");
    EXPECT_FALSE(notReport.ok);
    EXPECT_NE(notReport.error.find("not a compilescope report"), std::string::npos);

    auto noRuns = readReportJson(R"J({"format":"compilescope.report","version":1})J", "n.json");
    EXPECT_FALSE(noRuns.ok);

    auto missing = readReportFile("/nonexistent/report.json");
    EXPECT_FALSE(missing.ok);
    EXPECT_NE(missing.error.find("/nonexistent/report.json"), std::string::npos);
}

TEST(ReportJson, NewerVersionOpensWithWarning) {
    auto doc = nlohmann::json::parse(writeReportJson(sampleReport()));
    doc["version"] = 99;
    doc["runs"][0]["field_from_the_future"] = true;
    auto read = readReportJson(doc.dump(), "future.json");
    ASSERT_TRUE(read.ok);
    ASSERT_EQ(read.warnings.size(), 1u);
    EXPECT_NE(read.warnings[0].find("version 99"), std::string::npos);
    EXPECT_EQ(read.report.runs.size(), 2u);
}

TEST(ReportJson, SaveIsAtomic) {
    const auto dir = std::filesystem::temp_directory_path() / "cs_save_test";
    std::filesystem::create_directories(dir);
    const std::string path = (dir / "r.json").string();
    std::string error;
    ASSERT_TRUE(saveTextFile(path, "first", &error));
    EXPECT_FALSE(saveTextFile((dir / "missing/r.json").string(), "x", &error));
    EXPECT_NE(error.find("missing"), std::string::npos);
    std::ifstream in(path);
    std::string text;
    in >> text;
    EXPECT_EQ(text, "first");
    std::filesystem::remove_all(dir);
}
