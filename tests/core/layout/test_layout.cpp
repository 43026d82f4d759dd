// Both layout engines on their own, with no Qt: layer order, no overlapping
// boxes, edges that start and end on their boxes, cycles and self-loops,
// empty and invalid problems, cancel, and a graph of a few thousand nodes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <ostream>
#include <string>

#include "core/layout/dot_layout.h"
#include "core/layout/layered_layout.h"
#include "tests/support/synthetic_fx_graph.h"

namespace cs::layout {
namespace {

enum class Engine { Dot, Layered };

LayoutSolution solve(Engine engine, const LayoutProblem& problem) {
    return engine == Engine::Dot ? DotLayout::run(problem) : LayeredLayout::run(problem);
}

std::string engineName(const testing::TestParamInfo<Engine>& info) {
    return info.param == Engine::Dot ? "Dot" : "Layered";
}

void PrintTo(Engine engine, std::ostream* os) {
    *os << (engine == Engine::Dot ? "dot" : "layered");
}

LayoutProblem boxes(int count, std::vector<std::pair<int, int>> edges) {
    LayoutProblem problem;
    for (int i = 0; i < count; ++i)
        problem.sizes.push_back({80.0 + 20 * (i % 3), 40.0 + 4 * (i % 2)});
    problem.edges = std::move(edges);
    return problem;
}

LayoutProblem chain(int count) {
    std::vector<std::pair<int, int>> edges;
    for (int i = 0; i + 1 < count; ++i)
        edges.emplace_back(i, i + 1);
    return boxes(count, edges);
}

LayoutProblem diamond() {
    return boxes(4, {{0, 1}, {0, 2}, {1, 3}, {2, 3}});
}

// A synthetic FX graph as the graph view would hand it over: one box per node,
// an edge from each input to its user, widths from the name.
LayoutProblem fxProblem(int nodes, test::GraphShape shape) {
    const core::Graph graph = test::syntheticFxGraph(nodes, shape);
    std::map<std::string, int> index;
    LayoutProblem problem;
    for (const auto& node : graph.nodes) {
        index[node.name] = static_cast<int>(problem.sizes.size());
        problem.sizes.push_back(
            {std::clamp(7.0 * static_cast<double>(node.name.size()), 80.0, 260.0), 50});
    }
    for (size_t to = 0; to < graph.nodes.size(); ++to) {
        for (const auto& input : graph.nodes[to].inputs)
            problem.edges.emplace_back(index.at(input), static_cast<int>(to));
    }
    return problem;
}

Rect box(const LayoutProblem& problem, const LayoutSolution& solution, size_t i) {
    const Size s = problem.sizes[i];
    const Point c = solution.centres[i];
    return {c.x - s.width / 2, c.y - s.height / 2, s.width, s.height};
}

bool isFinite(Point p) {
    return std::isfinite(p.x) && std::isfinite(p.y);
}

// How far p is from the outline of r (0 on it), inside or out.
double distanceToOutline(Point p, const Rect& r) {
    const double dx = std::max({r.x - p.x, 0.0, p.x - r.right()});
    const double dy = std::max({r.y - p.y, 0.0, p.y - r.bottom()});
    if (dx > 0 || dy > 0)
        return std::hypot(dx, dy);
    return std::min({p.x - r.x, r.right() - p.x, p.y - r.y, r.bottom() - p.y});
}

// Pairs of boxes that overlap, sorted by left edge so big graphs stay cheap.
int overlaps(const LayoutProblem& problem, const LayoutSolution& solution) {
    std::vector<Rect> rects;
    for (size_t i = 0; i < problem.sizes.size(); ++i)
        rects.push_back(box(problem, solution, i));
    std::sort(rects.begin(), rects.end(), [](const Rect& a, const Rect& b) { return a.x < b.x; });
    int count = 0;
    for (size_t i = 0; i < rects.size(); ++i) {
        for (size_t j = i + 1; j < rects.size() && rects[j].x < rects[i].right(); ++j) {
            if (rects[j].y < rects[i].bottom() && rects[i].y < rects[j].bottom())
                ++count;
        }
    }
    return count;
}

// What holds for any solution: one centre per box, one curve per edge made of cubic
// pieces that starts on its source box and ends on its target box, boxes inside the bounds.
void expectWellFormed(const LayoutProblem& problem, const LayoutSolution& solution) {
    constexpr double kOnOutline = 2; // points: dot clips to the box's outline
    ASSERT_TRUE(solution.ok) << solution.error;
    ASSERT_EQ(solution.centres.size(), problem.sizes.size());
    ASSERT_EQ(solution.curves.size(), problem.edges.size());
    const Rect& bounds = solution.bounds;
    for (size_t i = 0; i < problem.sizes.size(); ++i) {
        ASSERT_TRUE(isFinite(solution.centres[i])) << "box " << i;
        const Rect r = box(problem, solution, i);
        EXPECT_GE(r.x, bounds.x - kOnOutline) << "box " << i;
        EXPECT_GE(r.y, bounds.y - kOnOutline) << "box " << i;
        EXPECT_LE(r.right(), bounds.right() + kOnOutline) << "box " << i;
        EXPECT_LE(r.bottom(), bounds.bottom() + kOnOutline) << "box " << i;
    }
    for (size_t e = 0; e < problem.edges.size(); ++e) {
        const Curve& curve = solution.curves[e];
        ASSERT_GE(curve.size(), 4u) << "edge " << e;
        EXPECT_EQ(curve.size() % 3, 1u) << "edge " << e;
        EXPECT_TRUE(std::all_of(curve.begin(), curve.end(), isFinite)) << "edge " << e;
        const auto [from, to] = problem.edges[e];
        EXPECT_LE(distanceToOutline(curve.front(), box(problem, solution, size_t(from))),
                  kOnOutline)
            << "edge " << e << " does not start on box " << from;
        EXPECT_LE(distanceToOutline(curve.back(), box(problem, solution, size_t(to))), kOnOutline)
            << "edge " << e << " does not end on box " << to;
    }
}

class EngineTest : public testing::TestWithParam<Engine> {};

TEST_P(EngineTest, ChainGoesDownOneRowPerBox) {
    const LayoutProblem problem = chain(6);
    const LayoutSolution solution = solve(GetParam(), problem);
    expectWellFormed(problem, solution);
    for (size_t i = 0; i + 1 < problem.sizes.size(); ++i) {
        EXPECT_LT(box(problem, solution, i).bottom(), box(problem, solution, i + 1).y)
            << "box " << i << " is not above box " << i + 1;
        EXPECT_NEAR(solution.centres[i].x, solution.centres[i + 1].x, 1) << "a chain is straight";
    }
    EXPECT_EQ(overlaps(problem, solution), 0);
}

TEST_P(EngineTest, DiamondHasItsMiddleSideBySide) {
    const LayoutProblem problem = diamond();
    const LayoutSolution solution = solve(GetParam(), problem);
    expectWellFormed(problem, solution);
    const auto& c = solution.centres;
    EXPECT_DOUBLE_EQ(c[1].y, c[2].y);
    EXPECT_LT(box(problem, solution, 0).bottom(), box(problem, solution, 1).y);
    EXPECT_LT(box(problem, solution, 2).bottom(), box(problem, solution, 3).y);
    EXPECT_NE(c[1].x, c[2].x);
    EXPECT_EQ(overlaps(problem, solution), 0);
}

TEST_P(EngineTest, EmptyGraphIsAnEmptyLayout) {
    const LayoutSolution solution = solve(GetParam(), {});
    EXPECT_TRUE(solution.ok);
    EXPECT_TRUE(solution.error.empty());
    EXPECT_TRUE(solution.centres.empty());
    EXPECT_TRUE(solution.curves.empty());
    EXPECT_TRUE(solution.clusterRects.empty());
    EXPECT_EQ(solution.bounds.width, 0);
    EXPECT_EQ(solution.bounds.height, 0);
}

TEST_P(EngineTest, OneBoxWithoutEdges) {
    const LayoutProblem problem = boxes(1, {});
    const LayoutSolution solution = solve(GetParam(), problem);
    expectWellFormed(problem, solution);
    EXPECT_GE(solution.bounds.width, problem.sizes[0].width);
    EXPECT_GE(solution.bounds.height, problem.sizes[0].height);
}

TEST_P(EngineTest, CycleAndSelfLoopAreLaidOut) {
    // 0 → 1 → 2 → 0, a self-loop on 1 and the same edge twice.
    const LayoutProblem problem = boxes(3, {{0, 1}, {1, 2}, {2, 0}, {1, 1}, {0, 1}});
    const LayoutSolution solution = solve(GetParam(), problem);
    expectWellFormed(problem, solution);
    EXPECT_EQ(overlaps(problem, solution), 0);
}

TEST_P(EngineTest, LoneSelfLoop) {
    const LayoutProblem problem = boxes(1, {{0, 0}});
    expectWellFormed(problem, solve(GetParam(), problem));
}

TEST_P(EngineTest, DisconnectedPartsDoNotOverlap) {
    const LayoutProblem problem = boxes(7, {{0, 1}, {1, 2}, {3, 4}, {5, 4}});
    const LayoutSolution solution = solve(GetParam(), problem);
    expectWellFormed(problem, solution);
    EXPECT_EQ(overlaps(problem, solution), 0);
}

TEST_P(EngineTest, EveryEdgeOfAnFxGraphPointsDown) {
    const LayoutProblem problem = fxProblem(120, test::GraphShape::Modules);
    const LayoutSolution solution = solve(GetParam(), problem);
    expectWellFormed(problem, solution);
    EXPECT_EQ(overlaps(problem, solution), 0);
    for (const auto& [from, to] : problem.edges) {
        EXPECT_LT(solution.centres[size_t(from)].y, solution.centres[size_t(to)].y)
            << from << " → " << to;
    }
}

TEST_P(EngineTest, InvalidProblemIsAnErrorNotACrash) {
    LayoutProblem problem = chain(3);
    problem.edges.emplace_back(1, 3); // there is no box 3
    LayoutSolution solution = solve(GetParam(), problem);
    EXPECT_FALSE(solution.ok);
    EXPECT_NE(solution.error.find("edge 2"), std::string::npos) << solution.error;

    problem = chain(3);
    problem.clusters.push_back({-1, 1, 5, "too far"});
    solution = solve(GetParam(), problem);
    EXPECT_FALSE(solution.ok);
    EXPECT_NE(solution.error.find("cluster 0"), std::string::npos) << solution.error;

    problem = chain(3);
    problem.clusters.push_back({-1, 0, 2, "outer"});
    problem.clusters.push_back({2, 0, 1, "its parent comes later"});
    problem.clusters.push_back({1, 0, 1, "inner"});
    solution = solve(GetParam(), problem);
    EXPECT_FALSE(solution.ok);
    EXPECT_NE(solution.error.find("cluster 1"), std::string::npos) << solution.error;
}

INSTANTIATE_TEST_SUITE_P(Layout, EngineTest, testing::Values(Engine::Dot, Engine::Layered),
                         engineName);

TEST(DotLayout, ClusterFramesHoldTheirBoxes) {
    // Boxes 1–4 in a group, 2–3 in a group inside it.
    LayoutProblem problem = chain(6);
    problem.clusters.push_back({-1, 1, 5, "layers.0 (4 nodes)"});
    problem.clusters.push_back({0, 2, 4, "layers.0.attn (2 nodes) — ünïcode"});
    const LayoutSolution solution = DotLayout::run(problem);
    expectWellFormed(problem, solution);
    ASSERT_EQ(solution.clusterRects.size(), 2u);
    auto inside = [](const Rect& inner, const Rect& outer) {
        return inner.x >= outer.x && inner.y >= outer.y && inner.right() <= outer.right() &&
               inner.bottom() <= outer.bottom();
    };
    for (size_t c = 0; c < problem.clusters.size(); ++c) {
        const Rect& frame = solution.clusterRects[c];
        EXPECT_GT(frame.width, 0);
        EXPECT_GT(frame.height, 0);
        for (int i = 0; i < 6; ++i) {
            const bool member =
                i >= problem.clusters[c].firstItem && i < problem.clusters[c].endItem;
            EXPECT_EQ(inside(box(problem, solution, size_t(i)), frame), member)
                << "box " << i << ", cluster " << c;
        }
    }
    EXPECT_TRUE(inside(solution.clusterRects[1], solution.clusterRects[0]));
}

TEST(DotLayout, BigGraphsGetTheFastSettingsAndStillLayOut) {
    const LayoutProblem problem =
        fxProblem(DotLayout::kFastSettingsAbove + 50, test::GraphShape::Flat);
    const LayoutSolution solution = DotLayout::run(problem);
    expectWellFormed(problem, solution);
    EXPECT_EQ(overlaps(problem, solution), 0);
    // Straight edges: every curve is one cubic piece, plus the stretch to the arrow tip.
    for (const Curve& curve : solution.curves)
        EXPECT_LE(curve.size(), 7u);
}

TEST(LayeredLayout, LeavesClusterFramesToTheCaller) {
    LayoutProblem problem = chain(4);
    problem.clusters.push_back({-1, 1, 3, "group"});
    const LayoutSolution solution = LayeredLayout::run(problem);
    expectWellFormed(problem, solution);
    EXPECT_TRUE(solution.clusterRects.empty());
}

TEST(LayeredLayout, RowsAreSeparatedByTheRankGap) {
    const LayoutProblem problem = chain(3);
    const LayoutSolution solution = LayeredLayout::run(problem);
    expectWellFormed(problem, solution);
    EXPECT_DOUBLE_EQ(box(problem, solution, 1).y - box(problem, solution, 0).bottom(),
                     LayeredLayout::kRankGap);
    double heights = 0;
    for (const Size& size : problem.sizes)
        heights += size.height;
    EXPECT_DOUBLE_EQ(solution.bounds.height, heights + 2 * LayeredLayout::kRankGap);
}

TEST(LayeredLayout, CancelledGivesNoSolution) {
    const LayoutProblem problem = chain(10);
    int asked = 0;
    const LayoutSolution solution = LayeredLayout::run(problem, [&asked] {
        ++asked;
        return true;
    });
    EXPECT_FALSE(solution.ok);
    EXPECT_GE(asked, 1);
    EXPECT_TRUE(LayeredLayout::run(problem, [] { return false; }).ok);
}

TEST(LayeredLayout, AFewThousandNodes) {
    for (const auto shape : {test::GraphShape::Modules, test::GraphShape::Flat}) {
        const LayoutProblem problem = fxProblem(4000, shape);
        ASSERT_EQ(problem.sizes.size(), 4000u);
        const LayoutSolution solution = LayeredLayout::run(problem);
        expectWellFormed(problem, solution);
        EXPECT_EQ(overlaps(problem, solution), 0);
        for (const auto& [from, to] : problem.edges) {
            ASSERT_LT(solution.centres[size_t(from)].y, solution.centres[size_t(to)].y)
                << from << " → " << to;
        }
    }
}

} // namespace
} // namespace cs::layout
