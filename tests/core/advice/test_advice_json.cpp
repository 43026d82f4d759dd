// The report's "advice" section: written from the runs, recomputed on read,
// the user's options kept; write → read → write is identical.
#include <gtest/gtest.h>

#include "core/report/report_json.h"
#include "tests/core/advice_reports.h"

using namespace advice_test;

namespace {

Report reportWithAdvice() {
    Setting setting;
    setting.backend = "aot_eager";
    Report report = reportOf({fixtureRun("advice_print_break.jsonl", setting),
                              fixtureRun("advice_item_break.jsonl", setting)});
    report.adviceOptions.expectedCalls = 250;
    report.adviceOptions.memoryFraction = 0.4;
    report.adviceOptions.longCompileSeconds = 90;
    return report;
}

TEST(AdviceJson, FindingsAreWrittenAndOptionsReadBack) {
    const Report report = reportWithAdvice();
    const auto j = nlohmann::json::parse(writeReportJson(report));
    ASSERT_TRUE(j.contains("advice"));
    EXPECT_EQ(j["advice"]["options"]["expected_calls"], 250);
    EXPECT_DOUBLE_EQ(j["advice"]["options"]["memory_fraction"].get<double>(), 0.4);
    EXPECT_DOUBLE_EQ(j["advice"]["options"]["long_compile_s"].get<double>(), 90);
    const auto& findings = j["advice"]["findings"];
    // the two breaks; print_break's 3 measured calls are too few to call one of them unsettled
    ASSERT_EQ(findings.size(), 2u);
    EXPECT_EQ(findings[0]["rule"], "graph_break.print");
    EXPECT_EQ(findings[0]["severity"], "warning");
    EXPECT_EQ(findings[0]["line"], 21);
    EXPECT_EQ(findings[0]["graphs_split"], 2);
    EXPECT_EQ(findings[1]["rule"], "graph_break.item");

    const auto read = readReportJson(writeReportJson(report), "mem.json");
    ASSERT_TRUE(read.ok) << read.error;
    EXPECT_EQ(read.report.adviceOptions, report.adviceOptions);
    EXPECT_EQ(advise(read.report), advise(report));
}

TEST(AdviceJson, WriteReadWriteIsIdentical) {
    const std::string first = writeReportJson(reportWithAdvice());
    const auto read = readReportJson(first, "mem.json");
    ASSERT_TRUE(read.ok) << read.error;
    EXPECT_EQ(writeReportJson(read.report), first);
}

// Findings in the file are not trusted on read: edited or stale ones are recomputed.
TEST(AdviceJson, FindingsInTheFileAreRecomputed) {
    auto j = nlohmann::json::parse(writeReportJson(reportWithAdvice()));
    j["advice"]["findings"] = nlohmann::json::array({{{"rule", "made.up"}}});
    const auto read = readReportJson(j.dump(), "edited.json");
    ASSERT_TRUE(read.ok);
    const auto again = nlohmann::json::parse(writeReportJson(read.report));
    EXPECT_EQ(again["advice"]["findings"].size(), 2u);
    EXPECT_EQ(again["advice"]["findings"][0]["rule"], "graph_break.print");
}

TEST(AdviceJson, MissingOrBadOptionsFallBackToDefaults) {
    auto j = nlohmann::json::parse(writeReportJson(reportWithAdvice()));
    j["advice"]["options"] = {{"expected_calls", -5}, {"memory_fraction", "lots"}};
    auto read = readReportJson(j.dump(), "bad.json");
    ASSERT_TRUE(read.ok);
    EXPECT_EQ(read.report.adviceOptions, AdviceOptions{});
    j.erase("advice"); // a report written before advice existed
    read = readReportJson(j.dump(), "old.json");
    ASSERT_TRUE(read.ok);
    EXPECT_EQ(read.report.adviceOptions, AdviceOptions{});
}

} // namespace
