#include <gtest/gtest.h>

#include "core/html/report_html.h"
#include "tests/core/rank_reports.h"
#include "tests/core/sample_reports.h"

using namespace cs::core;
using namespace rank_test;

namespace {

size_t count(const std::string& text, const std::string& part) {
    size_t n = 0;
    for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1))
        ++n;
    return n;
}

// The text of one section, from its opening tag to its end.
std::string section(const std::string& html, const std::string& id) {
    const size_t begin = html.find("<section id=\"" + id + "\">");
    if (begin == std::string::npos)
        return {};
    return html.substr(begin, html.find("</section>", begin) - begin);
}

} // namespace

TEST(ReportHtmlRanks, RankTableMarksTheDivergentCells) {
    const std::string html = writeReportHtml(divergentTwoRanks());
    EXPECT_NE(html.find("<a href=\"#ranks\">Ranks</a>"), std::string::npos);
    const std::string ranks = section(html, "ranks");
    ASSERT_FALSE(ranks.empty());
    EXPECT_NE(ranks.find("rank 0"), std::string::npos);
    // Rank 1's graphs, recompiles, compile time and cache cells: marked, with why on hover.
    EXPECT_EQ(count(ranks, "class=\"bad\" title=\""), 4u) << ranks;
    EXPECT_NE(ranks.find("title=\"rank 1 captured 3 graphs against 2 on rank 0."),
              std::string::npos);
    EXPECT_NE(ranks.find("<li>rank 1 compiled for 23.0 s, 4.6×"), std::string::npos);
    EXPECT_NE(html.find("2 ranks</p>"), std::string::npos);
}

TEST(ReportHtmlRanks, CompilesPerRankFoldBeyondTwenty) {
    Report report = divergentTwoRanks();
    for (int i = 2; i < 45; ++i)
        report.runs[0].compiles.push_back(compileOf(std::to_string(i) + "/0", "layer", 0.1));
    report.runs[1].compiles[0].failType = "BackendCompilerFailed";
    report.runs[1].compiles[0].failReason = "<triton> missing";
    const std::string compiles = section(writeReportHtml(report), "compiles");
    ASSERT_FALSE(compiles.empty());
    EXPECT_NE(compiles.find("45 compiles"), std::string::npos);
    EXPECT_NE(compiles.find("<details><summary>25 more compiles of rank 0</summary>"),
              std::string::npos);
    EXPECT_EQ(count(compiles, "<details>"), 1u); // rank 1's three fit
    EXPECT_NE(compiles.find("fx_graph miss"), std::string::npos);
    EXPECT_NE(compiles.find("BackendCompilerFailed: &lt;triton&gt; missing; restart: restart: "
                            "graph break in forward"),
              std::string::npos);
    EXPECT_NE(compiles.find("dynamo_tracing 4.00 s"), std::string::npos) << compiles;
}

TEST(ReportHtmlRanks, LatencyMemorySettingsAndComparisonSayTheLogHasNone) {
    const std::string html = writeReportHtml(divergentTwoRanks());
    for (const char* id : {"latency", "memory", "settings", "comparison"}) {
        const std::string s = section(html, id);
        EXPECT_NE(s.find("imported from a TORCH_TRACE log, which holds no"), std::string::npos)
            << id;
        EXPECT_EQ(s.find("<svg"), std::string::npos) << id;
        EXPECT_EQ(s.find("<table"), std::string::npos) << id;
    }
}

TEST(ReportHtmlRanks, ProbeReportsHaveNoRankSections) {
    const std::string html = writeReportHtml(cs::test::sampleReport());
    EXPECT_EQ(html.find("id=\"ranks\""), std::string::npos);
    EXPECT_EQ(html.find("id=\"compiles\""), std::string::npos);
    EXPECT_EQ(html.find("TORCH_TRACE"), std::string::npos);
    // One rank: its compiles, but nothing to compare.
    const std::string one = writeReportHtml(ranksReport({rankRun(3)}));
    EXPECT_EQ(one.find("id=\"ranks\""), std::string::npos);
    EXPECT_NE(one.find("id=\"compiles\""), std::string::npos);
}
