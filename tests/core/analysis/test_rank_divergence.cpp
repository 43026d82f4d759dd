#include <gtest/gtest.h>

#include "core/analysis/rank_divergence.h"
#include "tests/core/rank_reports.h"

using namespace cs::core;
using namespace rank_test;

namespace {

std::vector<Divergence> ofKind(const RankComparison& c, DivergenceKind kind) {
    std::vector<Divergence> out;
    for (const auto& d : c.divergences) {
        if (d.kind == kind)
            out.push_back(d);
    }
    return out;
}

} // namespace

TEST(RankDivergence, RowsSumEachRank) {
    const Report report = divergentTwoRanks();
    const auto c = compareRanks(report);
    ASSERT_EQ(c.rows.size(), 2u);
    const RankRow& one = c.rows[1];
    EXPECT_EQ(one.run, 1);
    EXPECT_EQ(one.rank, 1);
    EXPECT_EQ(one.label, "rank 1");
    EXPECT_EQ(one.compiles, 3);
    EXPECT_EQ(one.graphs, 3);
    EXPECT_EQ(one.recompiles, 1);
    EXPECT_DOUBLE_EQ(one.compileSeconds, 23.0);
    EXPECT_EQ(one.cacheHits, 1);
    EXPECT_EQ(one.cacheMisses, 1);
    EXPECT_EQ(one.cacheBypasses, 1);
    EXPECT_EQ(one.restarts, 1);
    EXPECT_EQ(one.failures, 0);
    EXPECT_DOUBLE_EQ(c.rows[0].compileSeconds, 5.0);
}

TEST(RankDivergence, IdenticalRanksDoNotDiverge) {
    const auto c = compareRanks(ranksReport({rankRun(0), rankRun(1), rankRun(2)}));
    EXPECT_TRUE(c.comparable());
    EXPECT_TRUE(c.divergences.empty());
}

TEST(RankDivergence, OneRankOrProbeRunsAreNotCompared) {
    EXPECT_FALSE(compareRanks(ranksReport({rankRun(0)})).comparable());
    cs::core::Run probeRun = rankRun(1);
    probeRun.status = RunStatus::Ok;
    const auto c = compareRanks(ranksReport({rankRun(0), probeRun}));
    EXPECT_EQ(c.rows.size(), 1u);
    EXPECT_TRUE(c.divergences.empty());
}

TEST(RankDivergence, EveryKindOnTwoRanks) {
    const auto c = compareRanks(divergentTwoRanks());
    const auto graphs = ofKind(c, DivergenceKind::Graphs);
    ASSERT_EQ(graphs.size(), 2u); // the count, and 0/0's node count
    EXPECT_EQ(graphs[0].text, "rank 1 captured 3 graphs against 2 on rank 0.");
    EXPECT_EQ(graphs[0].ranks, std::vector<int>{1});
    EXPECT_EQ(graphs[1].text, "rank 1 compiled a different graph: compile 0/0 (forward) has 14 "
                              "nodes against 12 on rank 0.");
    EXPECT_EQ(graphs[1].compileId, "0/0");
    // With two ranks and a tie, the earlier rank is the reference: only rank 1 diverges.
    EXPECT_TRUE(c.of(0, DivergenceKind::Graphs).empty());
    EXPECT_EQ(c.of(1, DivergenceKind::Graphs).size(), 2u);

    const auto recompiles = ofKind(c, DivergenceKind::Recompiles);
    ASSERT_EQ(recompiles.size(), 1u);
    EXPECT_EQ(recompiles[0].text,
              "rank 1 recompiled once against 0 on rank 0; the first guard that failed: tensor "
              "'x' size mismatch at index 0. expected 32, actual 24.");

    const auto cache = ofKind(c, DivergenceKind::Cache);
    ASSERT_EQ(cache.size(), 1u);
    // 0/1's bypass is not counted: rank 0 never looked 0/1 up.
    EXPECT_EQ(cache[0].text,
              "rank 1 missed 1 cache lookup that rank 0 hit (first: fx_graph cache, compile 0/0).");
    EXPECT_EQ(cache[0].compileId, "0/0");

    const auto slow = ofKind(c, DivergenceKind::CompileTime);
    ASSERT_EQ(slow.size(), 1u);
    EXPECT_EQ(slow[0].text, "rank 1 compiled for 23.0 s, 4.6× the 5.00 s of rank 0; most of the "
                            "difference is inductor_codegen (+11.2 s).");
}

TEST(RankDivergence, TheMajorityIsTheReference) {
    cs::core::Run odd = rankRun(2);
    odd.graphs[1] = graphOf("1/0", "loss", 6, "torch.mean");
    const auto c = compareRanks(ranksReport({rankRun(0), rankRun(1), odd, rankRun(3)}));
    ASSERT_EQ(c.divergences.size(), 1u);
    EXPECT_EQ(c.divergences[0].ranks, std::vector<int>{2});
    EXPECT_EQ(c.divergences[0].text,
              "rank 2 compiled a different graph: compile 1/0 (loss) calls torch.mean where it "
              "calls torch.sum on the other 3 ranks.");
}

TEST(RankDivergence, GraphsWithoutCompileIdsMatchByFunction) {
    cs::core::Run zero = rankRun(0), one = rankRun(1);
    for (cs::core::Run* run : {&zero, &one}) {
        for (auto& g : run->graphs)
            g.compileId.clear();
    }
    one.graphs[1].nodes.pop_back();
    const auto c = compareRanks(ranksReport({zero, one}));
    const auto graphs = ofKind(c, DivergenceKind::Graphs);
    ASSERT_EQ(graphs.size(), 1u);
    EXPECT_EQ(graphs[0].text, "rank 1 compiled a different graph: the graph of loss has 5 nodes "
                              "against 6 on rank 0.");
    EXPECT_TRUE(graphs[0].compileId.empty());
}

TEST(RankDivergence, CompileTimeNeedsBothRatioAndSeconds) {
    // 3x but only 1.25 s more: not far longer.
    auto c = compareRanks(ranksReport({rankRun(0, 0.5), rankRun(1, 0.5), rankRun(2, 1.5)}));
    EXPECT_TRUE(ofKind(c, DivergenceKind::CompileTime).empty());
    // 3 s more but only 1.1x: not far longer either.
    c = compareRanks(ranksReport({rankRun(0, 24), rankRun(1, 24), rankRun(2, 26.4)}));
    EXPECT_TRUE(ofKind(c, DivergenceKind::CompileTime).empty());
    // 2x and 5 s more against the median of the others.
    c = compareRanks(ranksReport({rankRun(0, 4), rankRun(1, 4), rankRun(2, 8), rankRun(3, 4.4)}));
    const auto slow = ofKind(c, DivergenceKind::CompileTime);
    ASSERT_EQ(slow.size(), 1u);
    EXPECT_EQ(slow[0].ranks, std::vector<int>{2});
    EXPECT_NE(slow[0].text.find("median of the other 3 ranks"), std::string::npos) << slow[0].text;
}

TEST(RankDivergence, RecompilesAboveTheOthersMedian) {
    cs::core::Run a = rankRun(0), b = rankRun(1), d = rankRun(2);
    a.recompiles.resize(1);
    b.recompiles.resize(1);
    d.recompiles.resize(3);
    const auto c = compareRanks(ranksReport({a, b, d}));
    const auto r = ofKind(c, DivergenceKind::Recompiles);
    ASSERT_EQ(r.size(), 1u);
    EXPECT_EQ(r[0].text, "rank 2 recompiled 3 times against a median of 1 on the other 2 ranks.");
}

TEST(RankDivergence, RunsWithoutRankAreNamedByPosition) {
    cs::core::Run run = rankRun(0);
    run.trace->rank = -1;
    EXPECT_EQ(rankLabel(run, 2), "run 3");
    EXPECT_TRUE(allRunsImported(ranksReport({run})));
    EXPECT_FALSE(allRunsImported(Report{}));
    EXPECT_EQ(importedRunCount(ranksReport({run, rankRun(1)})), 2);
}
