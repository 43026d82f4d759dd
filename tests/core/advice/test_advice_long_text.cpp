// Report text of any length reaches the advice's regexes bounded: a run of
// 300,000 characters in a break reason and a guard crashed the app (std::regex
// recursed once per character and overflowed the stack). The guard's own
// parts, at the text's head, are still read.
#include <gtest/gtest.h>

#include "core/advice/break_cause.h"
#include "core/advice/shape_guard.h"
#include "core/report/text_lines.h"
#include "tests/core/advice_reports.h"

using namespace advice_test;

namespace {

const std::string kRun(300'000, 'a');

} // namespace

TEST(AdviceLongText, EveryTextFieldOfALongRunIsAdvisedWithoutACrash) {
    cs::core::Run run = timedRun("default", {}, {});
    run.graphs.resize(2);
    run.graphBreaks.push_back(makeBreak("Some new break", "Some new break\n  Hint: " + kRun,
                                        "/m/model.py", 9, "x = f(" + kRun + ")"));
    run.graphBreaks.push_back(
        makeBreak("", "graph break in loop\nframe skipped: forward (" + kRun + " line 3)",
                  "/m/model.py", 11, "y = g(x)"));
    for (int i = 0; i < 3; ++i)
        run.recompiles.push_back(
            {"forward", "0/" + std::to_string(i) + ": task == '" + kRun + "'\nFile \"" + kRun,
             i + 2, "", i == 2, 8, "", "measure", i + 1});
    cs::core::Run failed = timedRun("default", {}, {});
    failed.status = cs::core::RunStatus::Failed;
    failed.error = cs::core::ErrorInfo{"compile_failed", "while compiling " + kRun,
                                       "File \"" + kRun + "\", line 3, in " + kRun};
    const auto findings = advise(reportOf({run, failed}), {});
    EXPECT_FALSE(findings.empty());
}

TEST(AdviceLongText, AGuardFollowedByALongStackIsStillRead) {
    const auto value = cs::core::advice::parseValueGuard(
        "0/3: self.calls == 3  # self.calls += 1  # m.py:10 in forward\n" + kRun);
    ASSERT_TRUE(value.has_value());
    EXPECT_EQ(value->name, "self.calls");
    EXPECT_EQ(value->code, "self.calls += 1");
    EXPECT_FALSE(cs::core::advice::parseValueGuard("0/3: x == '" + kRun + "'").has_value())
        << "a value cut off in the middle is not a value";
    EXPECT_EQ(cs::core::advice::torchHints("Some break\n  Hint: Do A.\n" + kRun),
              std::vector<std::string>{"Do A."});
}

TEST(RegexInput, KeepsTheHeadAndTheTailOfLongTextAndCutsLongLines) {
    EXPECT_EQ(cs::core::regexInput("short"), "short");
    const std::string cut = cs::core::regexInput("HEAD" + kRun + "TAIL");
    EXPECT_EQ(cut.size(), cs::core::kRegexHead + 1 + cs::core::kRegexTail);
    EXPECT_EQ(cut.substr(0, 4), "HEAD");
    EXPECT_EQ(cut.substr(cut.size() - 4), "TAIL");
    std::vector<std::string> lines;
    cs::core::forEachRegexLine("one\n" + kRun + "\nthree",
                               [&](const std::string& l) { lines.push_back(l); });
    ASSERT_EQ(lines.size(), 3u);
    EXPECT_EQ(lines[0], "one");
    EXPECT_EQ(lines[1].size(), cs::core::kRegexLine);
    EXPECT_EQ(lines[2], "three");
}
