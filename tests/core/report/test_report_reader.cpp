// Reading reports: older versions, missing fields, bad input of every kind,
// and a 100 MB report read streamed with progress and cancel.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include <sys/resource.h>
#include <unistd.h>

#include "core/report/report_json.h"
#include "tests/core/report_capture.h"
#include "tests/core/sample_reports.h"

using namespace cs::core;
namespace fs = std::filesystem;

namespace {

std::string fixture(const std::string& name) {
    return std::string(COMPILESCOPE_FIXTURES) + "/reports/" + name;
}

bool anyContains(const std::vector<std::string>& texts, const std::string& part) {
    for (const auto& t : texts) {
        if (t.find(part) != std::string::npos)
            return true;
    }
    return false;
}

std::string joined(const std::vector<std::string>& texts) {
    std::string out;
    for (const auto& t : texts)
        out += t + "\n";
    return out;
}

} // namespace

TEST(ReportReader, OpensVersion1WrittenByTheFirstRelease) {
    // Written by compilescope 0.1.0 (format version 1) from a real run of the print_break gallery
    // model.
    auto read = readReportFile(fixture("v1_print_break.json"));
    ASSERT_TRUE(read.ok) << read.error;
    EXPECT_EQ(read.report.version, 1);
    EXPECT_TRUE(read.warnings.empty())
        << joined(read.warnings); // version 1 had every field version 2 has
    ASSERT_EQ(read.report.runs.size(), 2u);
    const cs::core::Run& compiled = read.report.runs[1];
    EXPECT_EQ(compiled.setting.mode, "default");
    EXPECT_FALSE(compiled.graphBreaks.empty());
    EXPECT_FALSE(compiled.measuredLatencies().empty());
    // Version 1 wrote compile phases in float seconds; version 2 writes integer ns.
    auto v1 = nlohmann::json::parse(std::ifstream(fixture("v1_print_break.json")));
    const auto& phases = v1["runs"][1]["compile_phases"]["phases"];
    ASSERT_FALSE(phases.empty());
    ASSERT_EQ(compiled.compilePhases.size(), phases.size());
    EXPECT_DOUBLE_EQ(compiled.compilePhases[0].seconds, phases[0]["seconds"].get<double>());
    auto v2 = nlohmann::json::parse(cs::test::writeAndKeepReport(read.report, "from_v1"));
    EXPECT_EQ(v2["version"], kReportVersion);
    const auto& written = v2["runs"][1]["compile_phases"]["phases"][0];
    EXPECT_FALSE(written.contains("seconds"));
    EXPECT_TRUE(written["ns"].is_number_integer());
    EXPECT_EQ(written["ns"].get<int64_t>(), std::llround(phases[0]["seconds"].get<double>() * 1e9));
}

TEST(ReportReader, NamesTheFieldsAnOlderReportLacks) {
    auto doc = nlohmann::json::parse(writeReportJson(cs::test::sampleReport()));
    doc["version"] = 1;
    doc.erase("environment");
    doc["runs"][0].erase("kernels");
    doc["runs"][1].erase("kernels");
    doc["runs"][1].erase("memory");
    auto read = readReportJson(doc.dump(), "old.json");
    ASSERT_TRUE(read.ok) << read.error;
    const std::string all = joined(read.warnings);
    EXPECT_TRUE(anyContains(read.warnings, "report version 1")) << all;
    EXPECT_TRUE(anyContains(read.warnings, "\"environment\"")) << all;
    EXPECT_TRUE(anyContains(read.warnings, "\"kernels\" is missing in every run")) << all;
    EXPECT_TRUE(anyContains(read.warnings, "\"memory\" is missing in run 2")) << all;
    EXPECT_FALSE(read.report.runs[0].kernels.present);
}

TEST(ReportReader, WrongTypesFallBackInsteadOfThrowing) {
    auto doc = nlohmann::json::parse(writeReportJson(cs::test::sampleReport()));
    auto& run = doc["runs"][0];
    run["graphs"] = {1, "two", nullptr, {{"nodes", "not a list"}}};
    run["graph_breaks"] = "nope";
    run["latency"]["iterations"] = {{{"latency_ns", "fast"}}, 7};
    run["memory"]["series"] = {{{"samples", {{1}, {"a", 2}, {3, 4}}}}};
    run["setting"] = 12;
    auto read = readReportJson(doc.dump(), "odd.json");
    ASSERT_TRUE(read.ok) << read.error;
    const cs::core::Run& r = read.report.runs[0];
    EXPECT_EQ(r.graphs.size(), 1u); // only the object element
    EXPECT_TRUE(r.graphBreaks.empty());
    ASSERT_EQ(r.iterations.size(), 1u);
    EXPECT_EQ(r.iterations[0].latencyNs, 0);
    ASSERT_EQ(r.memory.size(), 1u);
    EXPECT_EQ(r.memory[0].samples.size(), 1u);
}

// Found by fuzzing: a float out of an integer field's range was cast to it
// (undefined behaviour); now it is a wrong type and gets the fallback.
TEST(ReportReader, FloatsOutOfIntegerRangeFallBack) {
    auto doc = nlohmann::json::parse(writeReportJson(cs::test::sampleReport()));
    auto& run = doc["runs"][0];
    run["latency"]["iterations"] = {{{"index", 1e300}, {"latency_ns", 3.0e124}, {"wall_ns", 5}}};
    run["memory"]["series"] = {
        {{"kind", "host_rss"}, {"samples", {{1, 2e19}, {3, 4}}}, {"phase_peaks", {{"a", -1e300}}}}};
    auto read = readReportJson(doc.dump(), "big.json");
    ASSERT_TRUE(read.ok) << read.error;
    const cs::core::Run& r = read.report.runs[0];
    ASSERT_EQ(r.iterations.size(), 1u);
    EXPECT_EQ(r.iterations[0].index, 0);
    EXPECT_EQ(r.iterations[0].latencyNs, 0);
    EXPECT_EQ(r.iterations[0].wallNs, 5);
    ASSERT_EQ(r.memory.size(), 1u);
    EXPECT_EQ(r.memory[0].samples, (std::vector<std::pair<int64_t, int64_t>>{{3, 4}}));
    EXPECT_TRUE(r.memory[0].phasePeaks.empty());
}

TEST(ReportReader, BadInputEachGetsItsOwnMessage) {
    const std::string good = writeReportJson(cs::test::sampleReport());
    struct Case {
        std::string text, expected;
    };
    for (const auto& [text, expected] : std::vector<Case>{
             {"", "is empty"},
             {good.substr(0, good.size() / 2), "ends early"},
             {"{\"format\": \"compilescope.report\", \"version\": 2, \"runs\": [", "ends early"},
             {"<html><body>not json</body></html>", "not valid JSON"},
             {"{\"format\": \"compilescope.report\",, }", "not valid JSON"},
             {"[1, 2, 3]", "valid JSON but not a compilescope report"},
             {"\"a string\"", "valid JSON but not a compilescope report"},
             {"{\"name\": \"package\", \"version\": \"1.0\"}",
              "valid JSON but not a compilescope report"},
             {"{\"format\": \"other.tool\", \"runs\": []}",
              "valid JSON but not a compilescope report"},
             {"{\"format\": \"compilescope.report\", \"version\": \"2\", \"runs\": []}",
              "no valid report \"version\""},
             {"{\"format\": \"compilescope.report\", \"version\": 2}", "without a \"runs\" list"},
             {"{\"format\": \"compilescope.report\", \"x\": " + std::string(100000, '[') +
                  std::string(100000, ']') + "}",
              "nested far deeper"},
         }) {
        auto read = readReportJson(text, "input.json");
        EXPECT_FALSE(read.ok) << expected;
        EXPECT_NE(read.error.find("input.json"), std::string::npos) << read.error;
        EXPECT_NE(read.error.find(expected), std::string::npos)
            << "expected \"" << expected << "\" in: " << read.error;
    }
}

TEST(ReportReader, NotARunInTheRunsListIsSkippedAndSaid) {
    auto doc = nlohmann::json::parse(writeReportJson(cs::test::sampleReport()));
    doc["runs"].push_back(42);
    doc["runs"].push_back({1, 2});
    auto read = readReportJson(doc.dump(), "r.json");
    ASSERT_TRUE(read.ok) << read.error;
    EXPECT_EQ(read.report.runs.size(), 2u);
    EXPECT_TRUE(anyContains(read.warnings, "run 3 is not an object")) << joined(read.warnings);
    EXPECT_TRUE(anyContains(read.warnings, "run 4 is not an object")) << joined(read.warnings);
}

TEST(ReportReader, FilesThatCannotBeRead) {
    EXPECT_NE(readReportFile("/nonexistent/r.json").error.find("does not exist"),
              std::string::npos);
    const auto dir = fs::temp_directory_path() / "cs_reader_dir.json";
    fs::create_directories(dir);
    auto read = readReportFile(dir.string());
    EXPECT_FALSE(read.ok);
    EXPECT_NE(read.error.find(dir.string()), std::string::npos) << read.error;
    fs::remove_all(dir);
}

// A 100 MB report, written the way the writer lays it out, read streamed.
class HugeReport : public ::testing::Test {
  protected:
    static constexpr int kIterations = 900000;

    static void SetUpTestSuite() {
        path_ =
            (fs::temp_directory_path() / ("cs_huge_report_" + std::to_string(::getpid()) + ".json"))
                .string();
        // Written as text: building a 100 MB DOM only to test the reader would double the test's
        // time.
        std::FILE* f = std::fopen(path_.c_str(), "wb");
        ASSERT_NE(f, nullptr);
        auto base = nlohmann::json::parse(writeReportJson(cs::test::sampleReport()));
        auto run = base["runs"][0];
        run["latency"]["iterations"] = nlohmann::json::array();
        run["latency"]["samples_ns"] = nlohmann::json::array();
        base["runs"] = nlohmann::json::array();
        const std::string whole = base.dump();
        const size_t runsAt = whole.find("\"runs\":[]");
        ASSERT_NE(runsAt, std::string::npos);
        const std::string head = whole.substr(0, runsAt + 8); // up to and with "runs":[
        const std::string tail = whole.substr(runsAt + 8);    // "]" and the keys after runs
        std::string runText = run.dump();
        const std::string marker = "\"iterations\":[]";
        const size_t at = runText.find(marker);
        ASSERT_NE(at, std::string::npos);
        std::fputs(head.c_str(), f);
        std::fputs(runText.substr(0, at + marker.size() - 1).c_str(), f);
        for (int i = 0; i < kIterations; ++i) {
            std::fprintf(f,
                         "%s{\"first_call\":false,\"index\":%d,\"latency_ns\":%d,\"t_ns\":%lld,"
                         "\"wall_ns\":%d,"
                         "\"warmup\":false}",
                         i ? "," : "", i, 1000000 + i % 977, 1700000000000000LL + 1000LL * i,
                         1000100 + i % 977);
        }
        std::fputs(runText.substr(at + marker.size() - 1).c_str(), f);
        std::fputs(tail.c_str(), f);
        std::fclose(f);
    }
    static void TearDownTestSuite() { fs::remove(path_); }
    static std::string path_;
};
std::string HugeReport::path_;

TEST_F(HugeReport, ReadsStreamedWithProgress) {
    const auto size = static_cast<int64_t>(fs::file_size(path_));
    ASSERT_GT(size, 100ll * 1000 * 1000);
    std::vector<std::pair<int64_t, int64_t>> progress;
    ReadControl control;
    control.progress = [&progress](int64_t done, int64_t total) {
        progress.emplace_back(done, total);
    };
    rusage before{};
    getrusage(RUSAGE_SELF, &before);
    const auto start = std::chrono::steady_clock::now();
    auto read = readReportFile(path_, control);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    rusage after{};
    getrusage(RUSAGE_SELF, &after);
    ASSERT_TRUE(read.ok) << read.error;
    ASSERT_EQ(read.report.runs.size(), 1u);
    EXPECT_EQ(read.report.runs[0].iterations.size(), static_cast<size_t>(kIterations));
    EXPECT_EQ(read.report.runs[0].iterations.back().index, kIterations - 1);
    ASSERT_GT(progress.size(), 50u); // one report per MiB read
    for (size_t i = 1; i < progress.size(); ++i)
        EXPECT_GT(progress[i].first, progress[i - 1].first);
    EXPECT_EQ(progress.back().first, size);
    EXPECT_EQ(progress.back().second, size);
    // Streamed: the iterations never exist as JSON all at once (a DOM of them is several times the
    // file).
    const long grownMiB = (after.ru_maxrss - before.ru_maxrss) / 1024;
#ifndef __SANITIZE_ADDRESS__ // AddressSanitizer keeps freed memory in quarantine: RSS says nothing
                             // there
    EXPECT_LT(grownMiB, 400) << "peak memory grew by " << grownMiB << " MiB";
#endif
    std::printf("read %lld bytes in %.2f s; peak RSS grew %ld MiB\n", static_cast<long long>(size),
                seconds, grownMiB);
}

TEST_F(HugeReport, CancelStopsEarly) {
    std::atomic<bool> cancel{false};
    int64_t lastDone = 0, total = 0;
    ReadControl control;
    control.cancel = &cancel;
    control.progress = [&](int64_t done, int64_t all) {
        lastDone = done;
        total = all;
        if (done > all / 10)
            cancel = true;
    };
    auto read = readReportFile(path_, control);
    EXPECT_FALSE(read.ok);
    EXPECT_TRUE(read.cancelled);
    EXPECT_NE(read.error.find("cancelled"), std::string::npos) << read.error;
    EXPECT_LT(lastDone, total / 5);
}

TEST_F(HugeReport, TruncatedHugeFileSaysSo) {
    const std::string cut = path_ + ".cut";
    fs::copy_file(path_, cut, fs::copy_options::overwrite_existing);
    fs::resize_file(cut, fs::file_size(path_) / 2);
    auto read = readReportFile(cut);
    fs::remove(cut);
    EXPECT_FALSE(read.ok);
    EXPECT_NE(read.error.find("ends early"), std::string::npos) << read.error;
}
