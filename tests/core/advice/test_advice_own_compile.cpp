// compile.own_calls: a model file that calls torch.compile itself, whose calls
// the probe undid on load (probe/compilescope_probe/own_compiles.py), and the
// as-written setting that keeps them.
#include <gtest/gtest.h>

#include "core/analysis/python_names.h"
#include "core/runner/probe_command.h"
#include "tests/core/advice_reports.h"

using namespace advice_test;

namespace {

constexpr int64_t kUs = 1000;

Setting settingOf(const std::string& mode) {
    Setting s;
    s.mode = mode;
    return s;
}

// The recorded eager run of tests/probe/models/compiles_itself.py, with its
// model event, beside compiled runs at the given medians.
Report withCompiled(const std::vector<std::pair<std::string, int64_t>>& compiled) {
    // Timed by hand: the recorded run's few calls would make a loose baseline.
    std::vector<cs::core::Run> runs{timedRun("eager", {200 * kUs}, constant(30, 200 * kUs))};
    runs[0].model = fixtureRun("compiles_itself_eager_cpu.jsonl", settingOf("eager")).model;
    for (const auto& [mode, medianNs] : compiled)
        runs.push_back(timedRun(mode, {medianNs}, constant(30, medianNs)));
    Report report = reportOf(std::move(runs));
    report.deriveFromRuns();
    return report;
}

} // namespace

TEST(AdviceOwnCompile, TheRecordedModelEventListsEachCallAsTheFileWroteIt) {
    const auto run = fixtureRun("compiles_itself_eager_cpu.jsonl", settingOf("eager"));
    ASSERT_EQ(run.status, RunStatus::Ok);
    ASSERT_EQ(run.model.ownCompiles.size(), 3u);
    const auto& top = run.model.ownCompiles[0];
    EXPECT_EQ(top.where, "get_model()");
    EXPECT_EQ(top.mode, "max-autotune-no-cudagraphs");
    EXPECT_EQ(ownCompileText(top),
              "get_model() returns torch.compile(model, mode=\"max-autotune-no-cudagraphs\")");
    EXPECT_EQ(ownCompileText(run.model.ownCompiles[1]),
              "model[1].compile(mode=\"reduce-overhead\")");
    EXPECT_EQ(ownCompileText(run.model.ownCompiles[2]),
              "@torch.compile(dynamic=False) on scaled_gelu");
    EXPECT_EQ(run.model.ownCompiles[2].dynamic, "false");
}

TEST(AdviceOwnCompile, NamesTheCallsAndTheSettingToAddForTheUsersOwn) {
    const Report report = withCompiled({{"default", 150 * kUs}});
    const auto found = withRule(advise(report), "compile.own_calls");
    ASSERT_EQ(found.size(), 1u);
    const Finding& f = found[0];
    EXPECT_EQ(f.severity, Severity::Warning);
    EXPECT_EQ(f.tab, EvidenceTab::Environment);
    EXPECT_NE(f.title.find("3 places"), std::string::npos) << f.title;
    ASSERT_EQ(f.evidence.size(), 4u);
    EXPECT_EQ(f.evidence[1], "model[1].compile(mode=\"reduce-overhead\")");
    EXPECT_NE(f.evidence[3].find("eager ran them uncompiled, and default compiled the whole model "
                                 "under its own mode alone"),
              std::string::npos)
        << f.evidence[3];
    EXPECT_NE(f.remedy.find("--settings eager,max-autotune-no-cudagraphs "), std::string::npos)
        << f.remedy;
    EXPECT_NE(f.remedy.find("Your code also compiles parts of the model on their own (model[1] "
                            "and scaled_gelu)"),
              std::string::npos)
        << f.remedy;
}

TEST(AdviceOwnCompile, PointsAtTheMeasuredSettingThatCompilesAsTheUsersCallDoes) {
    const Report report =
        withCompiled({{"default", 150 * kUs}, {"max-autotune-no-cudagraphs", 100 * kUs}});
    const auto found = withRule(advise(report), "compile.own_calls");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_NE(found[0].remedy.find("Setting max-autotune-no-cudagraphs compiles as your own call "
                                   "does"),
              std::string::npos)
        << found[0].remedy;
    EXPECT_NE(found[0].remedy.find("(2.00× eager's speed)"), std::string::npos) << found[0].remedy;
    EXPECT_EQ(found[0].remedy.find("--settings eager,max-autotune"), std::string::npos);
    EXPECT_NE(found[0].remedy.find("--settings eager,as-written"), std::string::npos)
        << "the parts only as-written measures";
}

TEST(AdviceOwnCompile, ADifferentDynamicIsNotTheUsersSetting) {
    Report report = withCompiled({{"max-autotune-no-cudagraphs", 100 * kUs}});
    report.model.ownCompiles[0].dynamic = "true";
    const auto found = withRule(advise(report), "compile.own_calls");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_NE(found[0].remedy.find("--settings eager,max-autotune-no-cudagraphs:dynamic=true"),
              std::string::npos)
        << found[0].remedy;
}

TEST(AdviceOwnCompile, AModelThatCompilesNothingItselfHasNoFinding) {
    Report report = withCompiled({{"default", 150 * kUs}});
    report.model.ownCompiles.clear();
    EXPECT_TRUE(withRule(advise(report), "compile.own_calls").empty());
}

TEST(AdviceOwnCompile, AnAsWrittenRunIsTheUsersProgramAndTheOthersItsAlternatives) {
    const Report report = withCompiled({{"default", 150 * kUs}, {"as-written", 250 * kUs}});
    const auto found = withRule(advise(report), "compile.own_calls");
    ASSERT_EQ(found.size(), 1u);
    const Finding& f = found[0];
    EXPECT_NE(f.title.find("only setting as-written ran those calls"), std::string::npos)
        << f.title;
    EXPECT_NE(f.evidence.back().find("every setting but as-written undid them on load: eager ran "
                                     "them uncompiled, and default compiled"),
              std::string::npos)
        << f.evidence.back();
    EXPECT_NE(f.remedy.find("Setting as-written ran them as your file makes them (0.80× eager's "
                            "speed): it is your program as it compiles today"),
              std::string::npos)
        << f.remedy;
}

TEST(AsWrittenSetting, TakesNoCompileOptionsAndKeepsItsLabel) {
    Setting base;
    std::vector<Setting> settings;
    EXPECT_FALSE(parseSettingsList("eager,as-written", base, settings).has_value());
    ASSERT_EQ(settings.size(), 2u);
    EXPECT_EQ(settings[1].mode, kAsWritten);
    EXPECT_EQ(settings[1].label(), "as-written");
    settings[1].backend = "aot_eager";
    settings[1].dynamic = "true";
    EXPECT_EQ(settings[1].label(), "as-written") << "the file's own backend and dynamic= apply";
    const auto problem = parseSettingsList("as-written:dynamic=true", base, settings);
    ASSERT_TRUE(problem.has_value());
    EXPECT_NE(problem->find("as-written takes only autocast= and env=NAME=VALUE"),
              std::string::npos);
    const Setting compiled; // mode default: auto, true and false
    EXPECT_EQ(dynamicVariants({compiled}).size(), 3u);
    Setting asWritten;
    asWritten.mode = kAsWritten;
    EXPECT_EQ(dynamicVariants({asWritten}).size(), 1u);
}

TEST(AdviceOwnCompile, ModulesCompiledAlikeAreOneLine) {
    Report report = withCompiled({{"default", 150 * kUs}});
    auto& calls = report.model.ownCompiles;
    const OwnCompile block = calls[1]; // model[1].compile(mode="reduce-overhead")
    calls.erase(calls.begin());        // no get_model() call
    for (const char* where : {"2", "3", "4", "5", "6"}) {
        OwnCompile more = block;
        more.where = where;
        calls.push_back(more);
    }
    OwnCompile other = block;
    other.where = "7";
    other.call = "torch.compile()";
    calls.push_back(other);
    const auto found = withRule(advise(report), "compile.own_calls");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].evidence[0], "model[1], model[2], model[3], model[4] and 2 more call "
                                    ".compile(mode=\"reduce-overhead\")");
    EXPECT_EQ(found[0].evidence[1], "@torch.compile(dynamic=False) on scaled_gelu");
    EXPECT_EQ(found[0].evidence[2], "model[7].compile()");
    EXPECT_NE(found[0].title.find("(8 places)"), std::string::npos) << found[0].title;
}
