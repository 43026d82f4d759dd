// The export rule: torch.export's refusal of an aoti setting, as a finding
// with the user's line, beside what torch.compile did at that line.
#include <gtest/gtest.h>

#include "core/report/report_json.h"
#include "tests/core/advice_reports.h"

using namespace advice_test;

namespace {

cs::core::Run refusedExport(const std::string& category, const std::string& file, int line) {
    cs::core::Run run = timedRun("aoti", {}, {});
    run.status = RunStatus::Failed;
    run.error = ErrorInfo{"export_failed", "torch.export (non-strict) cannot export the model",
                          "GuardOnDataDependentSymNode: data-dependent expression"};
    run.exportFailure = ExportFailure{category,
                                      "GuardOnDataDependentSymNode",
                                      "GuardOnDataDependentSymNode: Could not guard on "
                                      "data-dependent expression Eq(u0, 1)",
                                      file,
                                      line,
                                      "if h.sum() > 0:",
                                      "Use torch.cond(pred, true_fn, false_fn, (args,)).",
                                      false};
    return run;
}

} // namespace

TEST(ExportRule, NamesTheLineAndTheRemedyAndNothingElseFires) {
    const auto report = reportOf({timedRun("eager", {10}, constant(20, 100)),
                                  refusedExport("data_dependent", "/m/gate.py", 21)});
    const auto findings = advise(report);
    const auto found = withRule(findings, "export.data_dependent");
    ASSERT_EQ(found.size(), 1U);
    const Finding& f = found.front();
    EXPECT_EQ(f.file, "/m/gate.py");
    EXPECT_EQ(f.line, 21);
    EXPECT_EQ(f.code, "if h.sum() > 0:");
    EXPECT_EQ(f.setting, "aoti");
    EXPECT_NE(f.title.find("control flow on a tensor's values"), std::string::npos) << f.title;
    EXPECT_NE(f.remedy.find("torch.cond"), std::string::npos);
    // The generic symbolic-shapes failure finding does not repeat it.
    EXPECT_TRUE(withRule(findings, "failure.symbolic_shapes").empty());
}

TEST(ExportRule, SaysTorchCompileBreaksAtTheSameLine) {
    auto compiled = timedRun("default", {1000}, constant(20, 90));
    compiled.graphBreaks.push_back(
        makeBreak("Data-dependent branching", "generic_jump", "/m/gate.py", 21, "if h.sum() > 0:"));
    const auto report = reportOf({timedRun("eager", {10}, constant(20, 100)), compiled,
                                  refusedExport("data_dependent", "/m/gate.py", 21)});
    const auto found = withRule(advise(report), "export.data_dependent");
    ASSERT_EQ(found.size(), 1U);
    bool sideBySide = false;
    for (const auto& e : found.front().evidence)
        sideBySide |= e.find("default breaks the graph at the same line") != std::string::npos;
    EXPECT_TRUE(sideBySide);
}

TEST(ExportRule, ABreakElsewhereIsNotClaimedForThisLine) {
    auto compiled = timedRun("default", {1000}, constant(20, 90));
    compiled.graphBreaks.push_back(makeBreak("print", "print()", "/m/gate.py", 30, "print(h)"));
    const auto report = reportOf({compiled, refusedExport("data_dependent", "/m/gate.py", 21)});
    const auto found = withRule(advise(report), "export.data_dependent");
    ASSERT_EQ(found.size(), 1U);
    for (const auto& e : found.front().evidence)
        EXPECT_EQ(e.find("same line"), std::string::npos) << e;
}

// A detector that is torchvision's code: the refusal is placed in the
// library, and the title says whose code the line is.
TEST(ExportRule, ALineInAnInstalledPackageIsNamedAsThatPackagesCode) {
    const std::string boxes = "/v/lib/python3.11/site-packages/torchvision/ops/boxes.py";
    const auto found = withRule(advise(reportOf({refusedExport("data_dependent", boxes, 86)})),
                                "export.data_dependent");
    ASSERT_EQ(found.size(), 1U);
    EXPECT_NE(found.front().title.find("at boxes.py:86 in torchvision's code"), std::string::npos)
        << found.front().title;
    const auto own = withRule(advise(reportOf({refusedExport("data_dependent", "/m/gate.py", 21)})),
                              "export.data_dependent");
    ASSERT_EQ(own.size(), 1U);
    EXPECT_EQ(own.front().title.find("'s code"), std::string::npos) << own.front().title;
}

// torch.export named no line: the compiled setting's breaks are counted, not
// said to miss a line nobody named.
TEST(ExportRule, WithNoLineTheBreaksAreNotSaidToMissIt) {
    auto compiled = timedRun("default", {1000}, constant(20, 90));
    compiled.graphBreaks.push_back(makeBreak("print", "print()", "/m/gate.py", 30, "print(h)"));
    const auto found =
        withRule(advise(reportOf({compiled, refusedExport("data_dependent", "", 0)})),
                 "export.data_dependent");
    ASSERT_EQ(found.size(), 1U);
    EXPECT_EQ(found.front().title.find(" at "), std::string::npos) << found.front().title;
    bool counted = false;
    for (const auto& e : found.front().evidence) {
        EXPECT_EQ(e.find("this line"), std::string::npos) << e;
        counted |=
            e.find("default compiles with 1 graph break(s) (Breaks tab)") != std::string::npos;
    }
    EXPECT_TRUE(counted);
}

TEST(ExportRule, AnOutputThatIsNotTensorsIsNamed) {
    const auto found =
        withRule(advise(reportOf({refusedExport("pytree_type", "", 0)})), "export.pytree_type");
    ASSERT_EQ(found.size(), 1U);
    EXPECT_EQ(found.front().title,
              "torch.export cannot export the model: a value that is not tensors");
}

TEST(ExportRule, TheRefusalSurvivesTheReportRoundTrip) {
    auto run = refusedExport("item", "/m/item.py", 7);
    run.setting.strictExport = true;
    const auto report = reportOf({run});
    const auto read = readReportJson(writeReportJson(report), "round trip");
    ASSERT_TRUE(read.ok) << read.error;
    const auto& back = read.report;
    ASSERT_EQ(back.runs.size(), 1U);
    ASSERT_TRUE(back.runs[0].exportFailure.has_value());
    EXPECT_EQ(*back.runs[0].exportFailure, *run.exportFailure);
    EXPECT_TRUE(back.runs[0].setting.strictExport);
    EXPECT_EQ(back.runs[0].setting.label(), "aoti strict");
}
