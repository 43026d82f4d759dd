#include <gtest/gtest.h>

#include "core/advice/advice.h"
#include "tests/core/advice_reports.h"
#include "tests/core/rank_reports.h"

using namespace cs::core;
using advice_test::withRule;
using namespace rank_test;

TEST(AdviceRanks, OneFindingPerKindOfDivergence) {
    const auto findings = advise(divergentTwoRanks());
    const auto graphs = withRule(findings, "ranks.divergent_graphs");
    ASSERT_EQ(graphs.size(), 1u);
    const Finding& f = graphs[0];
    EXPECT_EQ(f.severity, Severity::Critical);
    EXPECT_EQ(f.title, "rank 1 compiled different graphs from the other ranks (of 2 ranks)");
    EXPECT_EQ(f.tab, EvidenceTab::Ranks);
    EXPECT_EQ(f.run, 1);
    EXPECT_EQ(f.setting, "rank 1");
    ASSERT_EQ(f.evidence.size(), 2u);
    EXPECT_EQ(f.evidence[0], "rank 1 captured 3 graphs against 2 on rank 0 (Ranks tab)");
    EXPECT_NE(f.remedy.find("mark_dynamic"), std::string::npos);
    EXPECT_NE(f.remedy.find("hang"), std::string::npos);

    EXPECT_EQ(withRule(findings, "ranks.recompile").size(), 1u);
    EXPECT_EQ(withRule(findings, "ranks.cache").size(), 1u);
    const auto slow = withRule(findings, "ranks.compile_time");
    ASSERT_EQ(slow.size(), 1u);
    EXPECT_NE(slow[0].evidence[0].find("4.6×"), std::string::npos) << slow[0].evidence[0];
    EXPECT_EQ(toString(slow[0].tab), std::string("Ranks"));
}

TEST(AdviceRanks, QuietForAgreeingRanksAndSingleRuns) {
    for (const auto& f : advise(ranksReport({rankRun(0), rankRun(1)})))
        EXPECT_NE(f.rule.rfind("ranks.", 0), 0u) << f.rule;
    // One rank, however slow, has nothing to be compared with.
    for (const auto& f : advise(ranksReport({rankRun(0, 90)})))
        EXPECT_NE(f.rule.rfind("ranks.", 0), 0u) << f.rule;
}

TEST(AdviceRanks, ManyRanksAreCountedInTheTitle) {
    std::vector<cs::core::Run> runs;
    for (int r = 0; r < 8; ++r) {
        cs::core::Run run = rankRun(r);
        if (r >= 2) // six ranks against two: the two are the odd ones
            run.graphs.push_back(graphOf("2/0", "extra", 4));
        runs.push_back(run);
    }
    const auto graphs = withRule(advise(ranksReport(runs)), "ranks.divergent_graphs");
    ASSERT_EQ(graphs.size(), 1u);
    EXPECT_EQ(graphs[0].title, "rank 0 and rank 1 compiled different graphs from the other ranks "
                               "(of 8 ranks)");
    EXPECT_EQ(graphs[0].run, -1);
}

// Imported runs have no calls, latency or memory: the rules that judge those stay quiet.
TEST(AdviceRanks, MeasurementRulesStayQuietOnImportedRuns) {
    Report report = divergentTwoRanks();
    for (auto& run : report.runs) {
        run.firstCallNs = static_cast<int64_t>(300e9); // as if an importer filled it
        run.setting.mode = "default";
    }
    report.adviceOptions.longCompileSeconds = 1;
    cs::core::Run eagerRank = rankRun(2);
    eagerRank.setting.mode = "eager";
    report.runs.push_back(eagerRank);
    for (const auto& f : advise(report)) {
        EXPECT_TRUE(f.rule.rfind("ranks.", 0) == 0 || f.rule.rfind("recompile.", 0) == 0 ||
                    f.rule.rfind("graph_break.", 0) == 0)
            << f.rule << ": " << f.title;
    }
}

// Every rank of a job hits the same break and recompiles alike: one finding each, naming the ranks.
TEST(AdviceRanks, RepeatedFindingsOfRanksNameTheRanks) {
    std::vector<cs::core::Run> runs;
    for (int r = 0; r < 3; ++r) {
        cs::core::Run run = rankRun(r);
        run.graphBreaks.push_back(advice_test::makeBreak(
            "Unsupported Tensor.item() call with capture_scalar_outputs=False", "", "/job/train.py",
            41, "n = x.sum().item()"));
        for (int actual : {24, 16})
            run.recompiles.push_back({"forward",
                                      "tensor 'x' size mismatch at index 0. expected 32, actual " +
                                          std::to_string(actual),
                                      2, "", false, 8, "", ""});
        runs.push_back(run);
    }
    const auto findings = advise(ranksReport(runs));
    std::vector<Finding> breaks, recompiles;
    for (const auto& f : findings) {
        if (f.rule.rfind("graph_break.", 0) == 0)
            breaks.push_back(f);
        if (f.rule.rfind("recompile.", 0) == 0)
            recompiles.push_back(f);
    }
    ASSERT_EQ(breaks.size(), 1u);
    EXPECT_EQ(breaks[0].setting, "rank 0");
    EXPECT_EQ(breaks[0].evidence.back(), "also in 2 other rank(s): rank 1 and rank 2");
    ASSERT_EQ(recompiles.size(), 1u) << recompiles[1].title;
    EXPECT_EQ(recompiles[0].run, -1);
    EXPECT_EQ(recompiles[0].setting, "rank 0");
    EXPECT_EQ(recompiles[0].evidence.back(), "the same on 3 ranks: rank 0, rank 1 and rank 2");
    // An imported log has no comparison table: the recompiles are under Breaks.
    EXPECT_EQ(recompiles[0].tab, cs::core::EvidenceTab::Breaks);
    EXPECT_EQ(recompiles[0].evidence.front(), "2 recompiles of forward in rank 0 (Breaks tab)");
}
