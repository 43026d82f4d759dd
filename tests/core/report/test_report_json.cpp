#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/events/event_parser.h"
#include "core/report/report_from_json.h"
#include "core/report/report_json.h"
#include "tests/core/rank_reports.h"
#include "tests/core/report_capture.h"
#include "tests/core/sample_reports.h"

using namespace cs::core;

TEST(ReportJson, WriteReadWriteIsIdentical) {
    Report report = cs::test::sampleReport();
    const std::string first = cs::test::writeAndKeepReport(report, "core_sample");
    auto read = readReportJson(first, "memory");
    ASSERT_TRUE(read.ok) << read.error;
    EXPECT_TRUE(read.warnings.empty());
    EXPECT_EQ(writeReportJson(read.report), first);
}

TEST(ReportJson, ReadBackEqualsOriginalExceptInvalidUtf8) {
    Report report = cs::test::sampleReport();
    report.runs[0].console = "printed bytes\n";
    auto read = readReportJson(cs::test::writeAndKeepReport(report, "core_sample_utf8"), "memory");
    ASSERT_TRUE(read.ok);
    EXPECT_EQ(read.report, report);
}

TEST(ReportJson, NumbersAreNumbers) {
    auto doc = nlohmann::json::parse(writeReportJson(cs::test::sampleReport()));
    EXPECT_EQ(doc["format"], kReportFormat);
    EXPECT_EQ(doc["version"], kReportVersion);
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
    auto truncated =
        readReportJson(writeReportJson(cs::test::sampleReport()).substr(0, 200), "/tmp/r.json");
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
    auto doc = nlohmann::json::parse(writeReportJson(cs::test::sampleReport()));
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

TEST(ReportJson, CaptureWarningsRoundTripThroughBothReaders) {
    Report report = cs::test::sampleReport();
    ASSERT_GE(report.runs.size(), 2u);
    report.runs[0].captureWarnings = {
        {"torch._dynamo.utils.compile_times", "AttributeError: no compile_times", "2.11.0"},
        {"torch._inductor.metrics", "ImportError: cannot import name 'metrics'", "2.11.0"}};
    const std::string text = cs::test::writeAndKeepReport(report, "core_capture_warnings");

    // Written per run, and only where there are some.
    const auto doc = nlohmann::json::parse(text);
    ASSERT_TRUE(doc["runs"][0].contains("capture_warnings"));
    EXPECT_EQ(doc["runs"][0]["capture_warnings"][1]["what"], "torch._inductor.metrics");
    EXPECT_FALSE(doc["runs"][1].contains("capture_warnings"));

    // The DOM reader: one run's JSON value.
    std::vector<std::string> warnings;
    const cs::core::Run dom = runFromJson(doc["runs"][0], {}, warnings, 1);
    EXPECT_EQ(dom.captureWarnings, report.runs[0].captureWarnings);
    EXPECT_TRUE(warnings.empty());

    // The streaming reader, from memory and from a file.
    auto read = readReportJson(text, "memory");
    ASSERT_TRUE(read.ok) << read.error;
    EXPECT_TRUE(read.warnings.empty());
    EXPECT_EQ(read.report.runs[0].captureWarnings, report.runs[0].captureWarnings);
    EXPECT_TRUE(read.report.runs[1].captureWarnings.empty());
    const auto path = std::filesystem::temp_directory_path() / "cs_capture_warnings.json";
    std::ofstream(path, std::ios::binary) << text;
    auto file = readReportFile(path.string());
    std::filesystem::remove(path);
    ASSERT_TRUE(file.ok) << file.error;
    EXPECT_EQ(file.report.runs[0].captureWarnings, report.runs[0].captureWarnings);
    EXPECT_TRUE(file.report.runs[1].captureWarnings.empty());
}

TEST(ReportJson, ACompileFailuresStageRoundTrips) {
    Report report = cs::test::sampleReport();
    ASSERT_GE(report.runs.size(), 2u);
    report.runs[1].error->kind = "compile_failed";
    report.runs[1].error->stage = "backend";
    report.runs[1].error->stageChecks = {{"eager", true, ""}, {"aot_eager", true, ""}};
    const std::string text = cs::test::writeAndKeepReport(report, "core_compile_stage");
    const auto doc = nlohmann::json::parse(text);
    EXPECT_EQ(doc["runs"][1]["error"]["stage"], "backend");
    EXPECT_EQ(doc["runs"][1]["error"]["stage_checks"][1]["backend"], "aot_eager");
    // Only where the probe narrowed a failure down.
    EXPECT_FALSE(doc["runs"][0]["error"].is_object() && doc["runs"][0]["error"].contains("stage"));
    auto read = readReportJson(text, "memory");
    ASSERT_TRUE(read.ok) << read.error;
    EXPECT_TRUE(read.warnings.empty());
    EXPECT_EQ(read.report.runs[1].error, report.runs[1].error);
}

TEST(ReportJson, MeasurementChecksRoundTripThroughBothReaders) {
    Report report = cs::test::sampleReport();
    ASSERT_GE(report.runs.size(), 2u);
    cs::core::Run& run = report.runs[0];
    run.setting.threads = 2;
    run.probe.threads = 2;
    run.probe.cpuAffinity = {0, 1};
    run.probe.torchEnvironment = {{"TORCH_LOGS", "+dynamo"}};
    run.probe.torchEnvironmentKnown = true;
    run.dynamoOff = "torch._dynamo.config.disable = True";
    run.crosscheckBlockCalls = 50;
    run.crosscheckBlockMeansNs = {1000.0, 1010.0, 990.0};
    run.appCpuMeasureNs = 12345;
    run.droppedUnsettled = 1;
    run.measureMachineCpu = {2,           1'000'000'000, 1'300'000'000, 20'000'000,
                             950'000'000, 10'000'000,    400'000'000};
    run.hostReference = {1'010'000, 1'990'000};
    run.measureHostFaults = {20,          94'700, 1,       238'000'000,
                             802'000'000, 4096,   "glibc", {{"MALLOC_ARENA_MAX", "2"}}};
    run.measureHostHeld = {"malloc", 20, 150'000'000, 151'310'720};
    run.crosscheckHostHeld = {"malloc", 240, 151'314'816, 167'043'456};
    run.console = "printed bytes\n"; // the sample's invalid UTF-8 would not read back equal
    const std::string text = cs::test::writeAndKeepReport(report, "core_measurement_checks");

    const auto doc = nlohmann::json::parse(text);
    const auto& latency = doc["runs"][0]["latency"];
    EXPECT_EQ(doc["runs"][0]["probe"]["torch_env"]["TORCH_LOGS"], "+dynamo");
    EXPECT_EQ(doc["runs"][0]["compile_phases"]["dynamo_off"],
              "torch._dynamo.config.disable = True");
    EXPECT_FALSE(doc["runs"][1]["compile_phases"].contains("dynamo_off"));
    EXPECT_EQ(latency["crosscheck"]["block_estimate_ns"], 1000);
    EXPECT_TRUE(latency["crosscheck"]["block_estimate_ns"].is_number_integer());
    EXPECT_TRUE(latency["crosscheck"]["block_means_ns"][0].is_number_integer());
    EXPECT_EQ(latency["dropped_unsettled"], 1);
    // the statistics' samples leave the dropped call out; the iterations keep it
    size_t measured = 0;
    for (const auto& it : run.iterations)
        measured += it.warmup ? 0 : 1;
    ASSERT_GE(measured, 2u);
    EXPECT_EQ(latency["samples_ns"].size() + 1, measured);
    EXPECT_FALSE(doc["runs"][1]["latency"].contains("crosscheck"));
    EXPECT_EQ(latency["machine_cpu"]["busy_ns"], 1'300'000'000);
    EXPECT_EQ(latency["machine_cpu"]["children_cpu_ns"], 400'000'000);
    EXPECT_FALSE(doc["runs"][1]["latency"].contains("machine_cpu"));
    EXPECT_EQ(latency["host_reference"]["after_ns"], 1'990'000);
    EXPECT_FALSE(doc["runs"][1]["latency"].contains("host_reference"));
    EXPECT_EQ(latency["host_faults"]["minor"], 94'700);
    EXPECT_EQ(latency["host_faults"]["malloc_env"]["MALLOC_ARENA_MAX"], "2");
    EXPECT_FALSE(doc["runs"][1]["latency"].contains("host_faults"));
    EXPECT_EQ(latency["host_held"]["measure"]["end_bytes"], 151'310'720);
    EXPECT_EQ(latency["host_held"]["crosscheck"]["calls"], 240);
    EXPECT_FALSE(doc["runs"][1]["latency"].contains("host_held"));

    std::vector<std::string> warnings;
    const cs::core::Run dom = runFromJson(doc["runs"][0], {}, warnings, 1);
    EXPECT_EQ(dom.setting, run.setting);
    EXPECT_EQ(dom.probe, run.probe);
    EXPECT_EQ(dom.crosscheckBlockCalls, 50);
    EXPECT_EQ(dom.crosscheckBlockMeansNs, run.crosscheckBlockMeansNs);
    EXPECT_EQ(dom.appCpuMeasureNs, 12345);
    EXPECT_EQ(dom.droppedUnsettled, 1);
    EXPECT_EQ(dom.measureMachineCpu, run.measureMachineCpu);
    EXPECT_EQ(dom.hostReference, run.hostReference);
    EXPECT_EQ(dom.measureHostFaults, run.measureHostFaults);
    EXPECT_EQ(dom.measureHostHeld, run.measureHostHeld);
    EXPECT_EQ(dom.crosscheckHostHeld, run.crosscheckHostHeld);
    EXPECT_EQ(dom.iterations, run.iterations);
    EXPECT_EQ(dom, run);
    auto read = readReportJson(text, "memory");
    ASSERT_TRUE(read.ok) << read.error;
    EXPECT_EQ(read.report.runs[0], run);
    EXPECT_EQ(read.report.runs[1], report.runs[1]);
}

// The writer turns runs into JSON one at a time; the text must be the very
// text of the whole document dumped at once, indented or compact.
TEST(ReportJson, RunByRunWriterMatchesTheWholeDocument) {
    const Report report = cs::test::sampleReport();
    ASSERT_GE(report.runs.size(), 2U);
    const auto whole = [&](int indent) {
        return reportToJson(report).dump(indent, ' ', false,
                                         nlohmann::json::error_handler_t::replace);
    };
    EXPECT_EQ(writeReportJson(report), whole(1));
    EXPECT_EQ(writeReportJson(report, 2), whole(2));
    EXPECT_EQ(writeReportJson(report, -1), whole(-1));
    Report none = report;
    none.runs.clear();
    EXPECT_EQ(writeReportJson(none), reportToJson(none).dump(1));
}

TEST(ReportJson, ImportedRanksRoundTripThroughBothReaders) {
    Report report = rank_test::divergentTwoRanks();
    auto& one = report.runs[1];
    one.trace->kinds = {{"dynamo_start", 3}, {"artifact", 9}, {"mystery", 1}};
    one.trace->unknownKinds = {{"mystery", 1}};
    one.trace->artifacts = {{"fx_graph_cache_miss", 1}};
    one.trace->badPayloads = 2;
    one.trace->truncated = true;
    one.compiles[0].failType = "BackendCompilerFailed";
    one.compiles[0].failReason = "boom";
    one.compiles[0].cudagraphSkipReason = "mutated inputs";
    one.compiles[0].cacheSize = 1;
    one.compiles[0].graphBreaks = 2;
    one.compiles[0].outputCodeOffset = 12345;
    one.compiles[0].outputCodeBytes = 678;
    const std::string text = cs::test::writeAndKeepReport(report, "core_imported_ranks");

    const auto doc = nlohmann::json::parse(text);
    EXPECT_EQ(doc["runs"][1]["status"], "imported");
    EXPECT_EQ(doc["runs"][1]["trace"]["rank"], 1);
    EXPECT_EQ(doc["runs"][1]["compiles"][0]["compile_ns"], 16000000000LL);
    EXPECT_EQ(doc["runs"][1]["cache_lookups"][2]["outcome"], "bypass");
    // A probe's run has none of them.
    const std::string probe = writeReportJson(cs::test::sampleReport());
    EXPECT_EQ(probe.find("\"cache_lookups\""), std::string::npos);
    EXPECT_EQ(probe.find("\"trace\""), std::string::npos);

    auto read = readReportJson(text, "memory");
    ASSERT_TRUE(read.ok) << read.error;
    EXPECT_TRUE(read.warnings.empty());
    EXPECT_EQ(read.report.runs, report.runs);
    EXPECT_EQ(writeReportJson(read.report), text);
}

TEST(ReportJson, StartAndCacheArtifactsRoundTripThroughBothReaders) {
    Report report = cs::test::sampleReport();
    ASSERT_GE(report.runs.size(), 2u);
    report.runs[0].setting.start = cs::core::kStartCacheArtifacts;
    report.runs[0].cacheArtifacts =
        cs::core::CacheArtifacts{"load",      "/tmp/cs/cache_artifacts.bin",          179'969,
                                 250'000'000, {{"aot_autograd", 1}, {"inductor", 1}}, ""};
    report.runs[1].setting.start = cs::core::kStartWarmCache;
    const std::string text = cs::test::writeAndKeepReport(report, "core_cache_artifacts");

    const auto doc = nlohmann::json::parse(text);
    EXPECT_EQ(doc["runs"][0]["setting"]["start"], "cache_artifacts");
    EXPECT_EQ(doc["runs"][0]["setting"]["warm_cache"], false);
    EXPECT_EQ(doc["runs"][1]["setting"]["warm_cache"], true); // what older readers look at
    EXPECT_EQ(doc["runs"][0]["cache_artifacts"]["entries"][1]["kind"], "inductor");
    EXPECT_FALSE(doc["runs"][1].contains("cache_artifacts"));

    std::vector<std::string> warnings;
    const cs::core::Run dom = runFromJson(doc["runs"][0], {}, warnings, 1);
    EXPECT_EQ(dom.cacheArtifacts, report.runs[0].cacheArtifacts);
    EXPECT_EQ(dom.setting, report.runs[0].setting);
    auto read = readReportJson(text, "memory");
    ASSERT_TRUE(read.ok) << read.error;
    EXPECT_EQ(read.report.runs[0].cacheArtifacts, report.runs[0].cacheArtifacts);
    EXPECT_EQ(read.report.runs[1].setting.start, cs::core::kStartWarmCache);
    EXPECT_FALSE(read.report.runs[1].cacheArtifacts);

    // A report from before "start": warm_cache alone says how it started.
    nlohmann::json old = doc["runs"][1]["setting"];
    old.erase("start");
    EXPECT_EQ(settingFromJson(old).start, cs::core::kStartWarmCache);
    old["warm_cache"] = false;
    EXPECT_EQ(settingFromJson(old).start, cs::core::kStartFresh);
}

// The variables the probes ran with: the session's and a setting's own.
TEST(ReportJson, ProbeEnvironmentRoundTripsAndOlderReportsHaveNone) {
    Report report = cs::test::sampleReport();
    report.environment.probeEnvironment = {{"OMP_PROC_BIND", "close"}};
    report.runs[0].probe.torchEnvironmentKnown = true;
    report.runs[1].probe.torchEnvironmentKnown = false;
    report.runs[0].setting.environment = {{"MALLOC_MMAP_THRESHOLD_", "33554432"},
                                          {"MALLOC_TRIM_THRESHOLD_", "1073741824"}};
    const std::string text = cs::test::writeAndKeepReport(report, "core_probe_environment");
    const auto doc = nlohmann::json::parse(text);
    EXPECT_EQ(doc["environment"]["probe_environment"]["OMP_PROC_BIND"], "close");
    EXPECT_EQ(doc["runs"][0]["setting"]["environment"]["MALLOC_TRIM_THRESHOLD_"], "1073741824");
    EXPECT_EQ(doc["runs"][0]["label"], report.runs[0].setting.label());
    // A probe that said it started with no torch variable: written, and read back so.
    EXPECT_TRUE(doc["runs"][0]["probe"]["torch_env"].empty());
    EXPECT_TRUE(doc["runs"][0]["probe"]["torch_env"].is_object());
    EXPECT_FALSE(doc["runs"][1]["probe"].contains("torch_env")) << "one that did not say";
    auto read = readReportJson(text, "memory");
    ASSERT_TRUE(read.ok) << read.error;
    EXPECT_EQ(read.report.environment.probeEnvironment, report.environment.probeEnvironment);
    EXPECT_EQ(read.report.runs[0].setting, report.runs[0].setting);
    EXPECT_TRUE(read.report.runs[0].probe.torchEnvironmentKnown);
    EXPECT_FALSE(read.report.runs[1].probe.torchEnvironmentKnown);

    // Older reports have neither; a hand-edited one with a number is read without it.
    auto old = doc;
    old["environment"].erase("probe_environment");
    old["runs"][0]["setting"]["environment"] = {{"A", 1}, {"B", "2"}};
    read = readReportJson(old.dump(), "memory");
    ASSERT_TRUE(read.ok) << read.error;
    EXPECT_TRUE(read.report.environment.probeEnvironment.empty());
    EXPECT_EQ(read.report.runs[0].setting.environment,
              (std::map<std::string, std::string>{{"B", "2"}}));
}

TEST(ReportJson, ModuleHooksRoundTripAndOlderReportsHaveNone) {
    Report report = cs::test::sampleReport();
    const std::vector<ModuleHook> hooks = {
        {"blocks.0", "forward", "log_activation", "/m/model.py", 12},
        {"", "global_forward_pre", "Tracer.before", "", 0}};
    report.model.hooks = hooks;
    const std::string text = cs::test::writeAndKeepReport(report, "core_module_hooks");
    const auto doc = nlohmann::json::parse(text);
    EXPECT_EQ(doc["model"]["hooks"][0]["function"], "log_activation");
    EXPECT_FALSE(doc["runs"][0]["model"].contains("hooks")) << "written only where found";
    auto read = readReportJson(text, "memory");
    ASSERT_TRUE(read.ok) << read.error;
    EXPECT_EQ(read.report.model.hooks, hooks);
    // An entry without a function is left out; the report still opens.
    auto edited = doc;
    edited["model"]["hooks"][0].erase("function");
    edited["model"]["hooks"][1]["line"] = "seven";
    read = readReportJson(edited.dump(), "memory");
    ASSERT_TRUE(read.ok) << read.error;
    ASSERT_EQ(read.report.model.hooks.size(), 1u);
    EXPECT_EQ(read.report.model.hooks[0].line, 0);
}

TEST(ReportJson, OwnCompileCallsRoundTripAndOlderReportsHaveNone) {
    Report report = cs::test::sampleReport();
    const std::vector<OwnCompile> calls = {
        {"get_model()", "torch.compile", "inductor", "max-autotune", "true", false,
         "torch.compile(mode=\"max-autotune\", dynamic=True)"},
        {"blocks.1", "Module.compile", "aot_eager", "", "auto", true,
         "torch.compile(backend=\"aot_eager\", fullgraph=True)"}};
    report.model.ownCompiles = calls;
    report.runs[0].model.ownCompiles = calls;
    const std::string text = cs::test::writeAndKeepReport(report, "core_own_compiles");
    const auto doc = nlohmann::json::parse(text);
    EXPECT_EQ(doc["model"]["own_compiles"][0]["dynamic"], true);
    EXPECT_TRUE(doc["model"]["own_compiles"][1]["mode"].is_null());
    EXPECT_FALSE(doc["runs"][1]["model"].contains("own_compiles")) << "written only where found";
    auto read = readReportJson(text, "memory");
    ASSERT_TRUE(read.ok) << read.error;
    EXPECT_EQ(read.report.model.ownCompiles, calls);
    EXPECT_EQ(read.report.runs[0].model.ownCompiles, calls);
    EXPECT_TRUE(read.report.runs[1].model.ownCompiles.empty());

    // An entry a hand edit broke is left out; the report still opens.
    auto edited = doc;
    edited["model"]["own_compiles"][0].erase("how");
    edited["model"]["own_compiles"][1]["fullgraph"] = "yes";
    read = readReportJson(edited.dump(), "memory");
    ASSERT_TRUE(read.ok) << read.error;
    ASSERT_EQ(read.report.model.ownCompiles.size(), 1u);
    EXPECT_FALSE(read.report.model.ownCompiles[0].fullgraph);
}
