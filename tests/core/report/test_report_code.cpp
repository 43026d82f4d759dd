// Inductor's generated code and the profiled kernel window: from the probe's
// events into a run, through the report (deflated code) and back.
#include <gtest/gtest.h>

#include "core/events/event_parser.h"
#include "core/report/report_code_fields.h"
#include "core/report/report_from_json.h"
#include "core/report/report_json.h"
#include "tests/core/report_capture.h"
#include "tests/core/sample_reports.h"

using namespace cs::core;
using nlohmann::json;

namespace {

const char* kWrapper = "# AOT ID: ['0_inference']\n"
                       "cpp_fused_relu_0 = async_compile.cpp_pybinding(['float*'], r'''\n"
                       "extern \"C\" void kernel(float* out_ptr0) { /* <relu> & \"x\" */ }\n"
                       "''')\n"
                       "def call(args):\n"
                       "    extern_kernels.addmm(a, b, c, out=buf0)\n"
                       "    cpp_fused_relu_0(buf0)\n";

json codeEvent() {
    return {{"type", "inductor_code"},
            {"t_ns", 10},
            {"compile_id", "0/0"},
            {"part", "inference"},
            {"wrapper", kWrapper},
            {"wrapper_bytes", std::string(kWrapper).size()},
            {"truncated", false},
            {"fusion_source", "provenance"},
            {"kernels",
             {{{"name", "extern_kernels.addmm"},
               {"kind", "extern"},
               {"handle", 1},
               {"first_line", 0},
               {"last_line", 0},
               {"nodes", {"y"}},
               {"lines",
                {{{"file", "/m/model.py"},
                  {"line", 21},
                  {"function", "forward"},
                  {"code", "y = self.l(x)"}}}}},
              {{"name", "cpp_fused_relu_0"},
               {"kind", "cpp"},
               {"handle", 2},
               {"first_line", 2},
               {"last_line", 4},
               {"nodes", {"relu", "y_1"}},
               {"lines",
                {{{"file", "/m/model.py"},
                  {"line", 22},
                  {"function", "forward"},
                  {"code", "y = torch.relu(y) * 2"}}}}}}}};
}

json profileEvent() {
    return {
        {"type", "kernel_profile"},
        {"t_ns", 20},
        {"source", "torch_profiler"},
        {"calls", 50},
        {"window_ns", 90'000'000},
        {"call_ns", 80'000'000},
        {"kernels",
         {{{"compile_id", "0/0"}, {"name", "cpp_fused_relu_0"}, {"ns", 4'000'000}, {"count", 50}},
          {{"compile_id", ""},
           {"name", "extern_kernels.addmm"},
           {"ns", 6'000'000},
           {"count", 50},
           {"ambiguous", true}}}},
        {"wrappers", {{{"compile_id", "0/0"}, {"ns", 1'500'000}}}},
        {"eager",
         {{{"file", "/m/model.py"},
           {"line", 30},
           {"function", "forward"},
           {"code", "z = y.tolist()"},
           {"ns", 900'000}}}},
        {"eager_modules", {{{"module", "blocks.0"}, {"ns", 600'000}}, {{"module", ""}, {"ns", 1}}}},
        {"eager_ns", 950'000},
        {"note", ""}};
}

cs::core::Run runFromEvents() {
    cs::core::Run run;
    applyEvent(run, codeEvent());
    applyEvent(run, profileEvent());
    return run;
}

} // namespace

TEST(CodeEvents, InductorCodeAndKernelProfileFillTheRun) {
    const cs::core::Run run = runFromEvents();
    ASSERT_EQ(run.code.size(), 1u);
    const GeneratedCode& code = run.code[0];
    EXPECT_EQ(code.compileId, "0/0");
    EXPECT_EQ(code.part, "inference");
    EXPECT_EQ(code.wrapper, kWrapper);
    EXPECT_EQ(code.fusionSource, "provenance");
    ASSERT_EQ(code.kernels.size(), 2u);
    EXPECT_EQ(code.kernels[1].name, "cpp_fused_relu_0");
    EXPECT_EQ(code.kernels[1].firstLine, 2);
    EXPECT_EQ(code.kernels[1].lastLine, 4);
    EXPECT_EQ(code.kernels[1].nodes, (std::vector<std::string>{"relu", "y_1"}));
    ASSERT_EQ(code.kernels[0].lines.size(), 1u);
    EXPECT_EQ(code.kernels[0].lines[0].line, 21);
    EXPECT_TRUE(run.unknownEvents.empty());

    const KernelProfile& p = run.kernelProfile;
    EXPECT_TRUE(p.present);
    EXPECT_EQ(p.calls, 50);
    EXPECT_EQ(p.callNs, 80'000'000);
    ASSERT_EQ(p.kernels.size(), 2u);
    EXPECT_TRUE(p.kernels[1].ambiguous);
    EXPECT_EQ(p.kernels[1].compileId, "");
    ASSERT_EQ(p.wrappers.size(), 1u);
    EXPECT_EQ(p.wrappers[0].ns, 1'500'000);
    ASSERT_EQ(p.eager.size(), 1u);
    EXPECT_EQ(p.eager[0].where.code, "z = y.tolist()");
    EXPECT_EQ(p.eagerNs, 950'000);
    EXPECT_EQ(p.eagerModules, (std::vector<EagerModuleCost>{{"blocks.0", 600'000}, {"", 1}}));
}

TEST(CodeEvents, WrongTypesAndMissingFieldsDoNotThrow) {
    cs::core::Run run;
    applyEvent(run, json::parse(R"({"type":"inductor_code","t_ns":1,"kernels":[3,{"nodes":"x",)"
                                R"("first_line":1e300,"lines":[null]}],"wrapper":7})"));
    applyEvent(run, json::parse(R"({"type":"kernel_profile","t_ns":2,"kernels":{"a":1},)"
                                R"("eager":[{"ns":"many"}],"calls":-3})"));
    ASSERT_EQ(run.code.size(), 1u);
    ASSERT_EQ(run.code[0].kernels.size(), 1u);
    EXPECT_EQ(run.code[0].kernels[0].firstLine, 0);
    EXPECT_TRUE(run.code[0].kernels[0].nodes.empty());
    EXPECT_TRUE(run.code[0].wrapper.empty());
    EXPECT_TRUE(run.kernelProfile.present);
    EXPECT_TRUE(run.kernelProfile.kernels.empty());
    ASSERT_EQ(run.kernelProfile.eager.size(), 1u);
    EXPECT_EQ(run.kernelProfile.eager[0].ns, 0);
    EXPECT_EQ(run.kernelProfile.calls, 0); // never negative
}

TEST(ReportCode, RoundTripsThroughTheWriterAndBothReadersWithTheCodeDeflated) {
    Report report = cs::test::sampleReport();
    cs::core::Run& run = report.runs[0];
    const cs::core::Run events = runFromEvents();
    run.code = events.code;
    run.kernelProfile = events.kernelProfile;
    const std::string text = cs::test::writeAndKeepReport(report, "core_code");

    const json doc = json::parse(text);
    const json& code = doc["runs"][0]["code"][0];
    EXPECT_FALSE(code.contains("wrapper"));
    ASSERT_TRUE(code["wrapper_zlib"].is_string());
    EXPECT_EQ(text.find("cpp_pybinding"), std::string::npos); // the code travels only deflated
    EXPECT_EQ(code["kernels"][1]["nodes"][1], "y_1");
    EXPECT_EQ(doc["runs"][0]["kernel_profile"]["eager"][0]["line"], 30);
    EXPECT_EQ(doc["runs"][0]["kernel_profile"]["eager_modules"][0]["module"], "blocks.0");
    EXPECT_FALSE(doc["runs"][1].contains("code"));
    EXPECT_FALSE(doc["runs"][1].contains("kernel_profile"));

    std::vector<std::string> warnings;
    const cs::core::Run dom = runFromJson(doc["runs"][0], {}, warnings, 1);
    EXPECT_TRUE(warnings.empty());
    EXPECT_EQ(dom.code, run.code);
    EXPECT_EQ(dom.kernelProfile, run.kernelProfile);

    auto read = readReportJson(text, "memory");
    ASSERT_TRUE(read.ok) << read.error;
    EXPECT_TRUE(read.warnings.empty()) << read.warnings.front();
    EXPECT_EQ(read.report.runs[0].code, run.code);
    EXPECT_EQ(read.report.runs[0].kernelProfile, run.kernelProfile);
    EXPECT_EQ(writeReportJson(read.report), text);
}

TEST(ReportCode, ReportsFromBeforeTheCodeOpenWithoutWarnings) {
    const std::string text = writeReportJson(cs::test::sampleReport());
    auto read = readReportJson(text, "memory");
    ASSERT_TRUE(read.ok);
    EXPECT_TRUE(read.warnings.empty());
    EXPECT_TRUE(read.report.runs[0].code.empty());
    EXPECT_FALSE(read.report.runs[0].kernelProfile.present);
}

TEST(ReportCode, CodeThatDoesNotInflateIsAWarningAndTheKernelsStay) {
    Report report = cs::test::sampleReport();
    report.runs[0].code = runFromEvents().code;
    json doc = json::parse(writeReportJson(report));
    doc["runs"][0]["code"][0]["wrapper_zlib"] = "AAAA"; // base64, but not zlib
    auto read = readReportJson(doc.dump(), "memory");
    ASSERT_TRUE(read.ok) << read.error;
    ASSERT_EQ(read.warnings.size(), 1u);
    EXPECT_NE(read.warnings[0].find("compile 0/0"), std::string::npos) << read.warnings[0];
    ASSERT_EQ(read.report.runs[0].code.size(), 1u);
    EXPECT_TRUE(read.report.runs[0].code[0].wrapper.empty());
    EXPECT_EQ(read.report.runs[0].code[0].kernels.size(), 2u);
}

TEST(ReportCode, NoCodeKeepsNamesNodesAndLinesAndSaysWhy) {
    Report report = cs::test::sampleReport();
    report.runs[0].code = runFromEvents().code;
    omitCode(report.runs[0], "left out with --no-code");
    const std::string text = writeReportJson(report);
    EXPECT_EQ(text.find("wrapper_zlib"), std::string::npos);
    auto read = readReportJson(text, "memory");
    ASSERT_TRUE(read.ok);
    const cs::core::Run& run = read.report.runs[0];
    EXPECT_EQ(run.codeOmitted, "left out with --no-code");
    ASSERT_EQ(run.code.size(), 1u);
    EXPECT_TRUE(run.code[0].wrapper.empty());
    EXPECT_EQ(run.code[0].wrapperBytes, static_cast<int64_t>(std::string(kWrapper).size()));
    EXPECT_EQ(run.code[0].kernels[1].nodes.size(), 2u);
    EXPECT_EQ(run.code[0].kernels[0].lines[0].code, "y = self.l(x)");
}

TEST(ReportCode, DeflateRoundTripAndItsBounds) {
    for (const std::string& text : {std::string("x"), std::string(kWrapper),
                                    std::string(100'000, 'a'), std::string("\0\xff\x01", 3)}) {
        const std::string packed = deflateBase64(text);
        ASSERT_FALSE(packed.empty());
        EXPECT_EQ(inflateBase64(packed, 1 << 20), text);
    }
    EXPECT_LT(deflateBase64(std::string(100'000, 'a')).size(), 1'000u);
    // A small payload that inflates past the bound is refused, not inflated.
    EXPECT_FALSE(inflateBase64(deflateBase64(std::string(100'000, 'a')), 50'000));
    EXPECT_FALSE(inflateBase64("", 100));
    EXPECT_FALSE(inflateBase64("not base64!", 100));
    EXPECT_FALSE(inflateBase64(deflateBase64(kWrapper).substr(0, 8), 1 << 20)); // cut short
}
