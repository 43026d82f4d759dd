// Rule 2: recompiles from changing shapes and the recompile limit.
#include <gtest/gtest.h>

#include "core/advice/shape_guard.h"
#include "tests/core/advice_reports.h"

using namespace advice_test;
using cs::core::advice::parseShapeGuard;

namespace {

struct GuardCase {
    const char* reason;
    bool parsed;
    const char* tensor;
    const char* what;
    int dim;
    int64_t expected;
    int64_t actual;
};

const GuardCase kGuards[] = {
    {"0/0: tensor 'tokens' size mismatch at index 1. expected 32, actual 16", true, "tokens",
     "size", 1, 32, 16},
    {"0/3: tensor 'x' stride mismatch at index 0. expected 8, actual 16", true, "x", "stride", 0, 8,
     16},
    {"L['x'].size()[2] == 7", true, "L['x']", "size", 2, 7, -1},
    {"0/0: tensor 'x' dtype mismatch. expected Float, actual Half", false, "", "", 0, 0, 0},
    {"0/0: len(L['xs']) == 3", false, "", "", 0, 0, 0},
    {"", false, "", "", 0, 0, 0},
};

class ShapeGuardTable : public ::testing::TestWithParam<GuardCase> {};

TEST_P(ShapeGuardTable, ReadsTheChangedDimension) {
    const auto& c = GetParam();
    const auto g = parseShapeGuard(c.reason);
    ASSERT_EQ(g.has_value(), c.parsed) << c.reason;
    if (!g)
        return;
    EXPECT_EQ(g->tensor, c.tensor);
    EXPECT_EQ(g->what, c.what);
    EXPECT_EQ(g->dim, c.dim);
    EXPECT_EQ(g->expected, c.expected);
    EXPECT_EQ(g->actual, c.actual);
}

INSTANTIATE_TEST_SUITE_P(Advice, ShapeGuardTable, ::testing::ValuesIn(kGuards));

cs::core::Run sweptRun(const std::string& dynamic,
                       const std::vector<std::pair<int, int>>& changes) {
    cs::core::Run run = timedRun("default", {}, {});
    run.setting.dynamic = dynamic;
    cs::core::Graph g;
    g.function = "forward";
    g.file = "/m/variable_length.py";
    g.line = 30;
    run.graphs.push_back(g);
    for (auto [from, to] : changes) {
        cs::core::Recompile r;
        r.function = "forward";
        r.reason = "0/0: tensor 'tokens' size mismatch at index 1. expected " +
                   std::to_string(from) + ", actual " + std::to_string(to);
        run.recompiles.push_back(r);
    }
    return run;
}

TEST(AdviceRecompiles, StaticSweepNamesTheDimensionCountAndChoices) {
    const auto findings = advise(reportOf({sweptRun("false", {{32, 16}, {16, 48}, {48, 64}})}), {});
    ASSERT_EQ(findings.size(), 1u);
    const auto& f = findings[0];
    EXPECT_EQ(f.rule, "recompile.shape");
    EXPECT_EQ(f.severity, Severity::Warning);
    EXPECT_NE(f.title.find("3 times"), std::string::npos) << f.title;
    EXPECT_NE(f.title.find("dimension 1 of tokens"), std::string::npos) << f.title;
    EXPECT_EQ(f.file, "/m/variable_length.py");
    EXPECT_EQ(f.line, 30);
    EXPECT_NE(f.evidence[1].find("4 sizes: 16, 32, 48 and 64"), std::string::npos) << f.evidence[1];
    EXPECT_NE(f.remedy.find("mark_dynamic(tokens, 1, min=16, max=64)"), std::string::npos)
        << f.remedy;
    EXPECT_NE(f.remedy.find("dynamic=True"), std::string::npos);
    EXPECT_NE(f.remedy.find("16, 32 and 64 would compile 3 graphs instead of 4"), std::string::npos)
        << f.remedy;
}

// dynamic=auto: one recompile makes the dimension dynamic; that is only worth an Info.
TEST(AdviceRecompiles, AutomaticDynamicOnceIsInfoTwiceIsWarning) {
    auto once = advise(reportOf({sweptRun("auto", {{32, 16}})}), {});
    ASSERT_EQ(once.size(), 1u);
    EXPECT_EQ(once[0].severity, Severity::Info);
    auto twice = advise(reportOf({sweptRun("auto", {{32, 16}, {16, 48}})}), {});
    ASSERT_EQ(twice.size(), 1u);
    EXPECT_EQ(twice[0].severity, Severity::Warning);
    auto staticOnce = advise(reportOf({sweptRun("false", {{32, 16}})}), {});
    ASSERT_EQ(staticOnce.size(), 1u);
    EXPECT_EQ(staticOnce[0].severity, Severity::Warning);
}

TEST(AdviceRecompiles, SilentWithoutRecompilesOrOnGuardsItCannotRead) {
    EXPECT_TRUE(advise(reportOf({sweptRun("false", {})}), {}).empty());
    auto run = sweptRun("false", {});
    cs::core::Recompile r;
    r.function = "forward";
    r.reason = "0/0: tensor 'x' dtype mismatch. expected Float, actual Half";
    run.recompiles.push_back(r);
    EXPECT_TRUE(advise(reportOf({run}), {}).empty());
}

TEST(AdviceRecompiles, LimitHitWarnsThatTorchFellBackToEager) {
    auto run = sweptRun("false", {{3, 4}, {4, 5}});
    cs::core::Recompile limit;
    limit.function = "forward";
    limit.limitHit = true;
    limit.limit = 8;
    limit.reason = "0/7: tensor 'tokens' size mismatch at index 1. expected 5, actual 6";
    cs::core::Recompile attempt; // the probe also reports the refused recompile, without a function
    attempt.reason = limit.reason;
    run.recompiles.push_back(attempt);
    run.recompiles.push_back(limit);
    const auto findings = advise(reportOf({run}), {});
    ASSERT_EQ(findings.size(), 2u);
    EXPECT_EQ(findings[0].rule, "recompile.shape");
    EXPECT_NE(findings[0].title.find("2 times"), std::string::npos) << findings[0].title;
    EXPECT_EQ(findings[1].rule, "recompile.limit");
    EXPECT_NE(findings[1].title.find("limit (8)"), std::string::npos);
    EXPECT_NE(findings[1].title.find("eagerly"), std::string::npos);
    EXPECT_GE(findings[1].confidence, 0.9);
}

TEST(AdviceRecompiles, RealStaticSweepStream) {
    cs::core::Setting setting;
    setting.backend = "aot_eager";
    setting.dynamic = "false";
    setting.sweep = true;
    const auto findings = withRule(
        advise(reportOf({fixtureRun("advice_variable_length_static_sweep.jsonl", setting)}), {}),
        "recompile.shape");
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_NE(findings[0].title.find("5 times"), std::string::npos) << findings[0].title;
    EXPECT_EQ(findings[0].line, 30);
    EXPECT_NE(findings[0].evidence[1].find("6 sizes: 16, 32, 48, 64, 96 and 128"),
              std::string::npos);
}

TEST(AdviceRecompiles, RealRecompileLimitStream) {
    cs::core::Setting setting;
    setting.backend = "eager";
    setting.dynamic = "false";
    const auto findings =
        advise(reportOf({fixtureRun("advice_recompile_limit.jsonl", setting)}), {});
    ASSERT_EQ(findings.size(), 2u);
    EXPECT_NE(findings[0].title.find("7 times"), std::string::npos) << findings[0].title;
    EXPECT_EQ(findings[1].rule, "recompile.limit");
}

TEST(AdviceRecompiles, LibraryWrapperIsNamedAsTheModelsForward) {
    // forward under a decorator from site-packages (as transformers wraps a
    // model's forward): torch compiled the wrapper and guarded its args[0].
    cs::core::Setting setting;
    setting.backend = "eager";
    setting.dynamic = "false";
    const cs::core::Run run = fixtureRun("advice_library_wrapper.jsonl", setting);
    ASSERT_EQ(run.recompiles.size(), 2u);
    EXPECT_EQ(run.recompiles[0].limit, 8);
    const auto findings = withRule(advise(reportOf({run}), {}), "recompile.shape");
    ASSERT_EQ(findings.size(), 1u);
    const Finding& f = findings.front();
    EXPECT_NE(f.title.find("TinyLM.forward"), std::string::npos) << f.title;
    EXPECT_NE(f.title.find("dimension 1 of input_ids"), std::string::npos) << f.title;
    EXPECT_EQ(f.title.find("wrapper"), std::string::npos) << f.title;
    bool saysLibrary = false;
    for (const auto& e : f.evidence)
        saysLibrary = saysLibrary ||
                      e.find("wrapper at fakelib/generic.py:9 (library code)") != std::string::npos;
    EXPECT_TRUE(saysLibrary);
    EXPECT_NE(f.remedy.find("torch._dynamo.mark_dynamic(input_ids, 1"), std::string::npos)
        << f.remedy;
    EXPECT_EQ(f.remedy.find("args["), std::string::npos) << f.remedy;
}

} // namespace
