// Rule 6: failures that say what to change.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <tuple>
#include <utility>

#include "core/analysis/run_outcome.h"
#include "core/events/event_parser.h"
#include "tests/core/advice_reports.h"

using namespace advice_test;

namespace {

bool hasEvidence(const Finding& f, const std::string& part) {
    return std::any_of(f.evidence.begin(), f.evidence.end(),
                       [&](const std::string& e) { return e.find(part) != std::string::npos; });
}

cs::core::Run failed(const std::string& mode, const std::string& kind, const std::string& message,
                     const std::string& traceback = "") {
    cs::core::Run run = timedRun(mode, {}, {});
    run.status = RunStatus::Failed;
    run.error = ErrorInfo{kind, message, traceback};
    run.probe.python = "3.11.2";
    run.model.file = "/m/model.py";
    return run;
}

struct FailureCase {
    const char* name;
    const char* mode;
    const char* kind;
    const char* message;
    const char* traceback;
    const char* rule;
    const char* remedyMentions;
};

const FailureCase kFailures[] = {
    {"oom max-autotune", "max-autotune", "out_of_memory",
     "Out of memory on cuda:0: CUDA out of memory.", "", "failure.oom",
     "max-autotune-no-cudagraphs"},
    {"oom reduce-overhead", "reduce-overhead", "out_of_memory", "Out of memory on cuda:0", "",
     "failure.oom", "mode default"},
    // The rest have no cause-specific rule: failure.run says what failed and
    // passes on the probe's own advice, else where to look.
    {"oom eager is not about compile", "eager", "out_of_memory", "Out of memory on cuda:0", "",
     "failure.run", "Compare tab"},
    {"no compiler", "default", "no_compiler",
     "Inductor compiles kernels to native code and needs a C++ compiler (install g++, e.g. `sudo "
     "apt-get "
     "install g++`, or set $CXX). Install them, or run this setting with --backend aot_eager or "
     "--mode eager.",
     "", "failure.toolchain", "g++"},
    {"no Python.h", "default", "no_compiler",
     "Inductor ... needs Python's headers (Python.h not in /usr/include)", "", "failure.toolchain",
     "python3.11-dev"},
    {"no compiler named", "default", "no_compiler", "something else", "", "failure.run",
     "Console tab"},
    {"triton missing", "default", "compile_failed",
     "torch.compile failed: RuntimeError: Cannot find a working triton installation.", "",
     "failure.toolchain", "triton"},
    {"symint at the user's line", "default", "compile_failed",
     "torch.compile failed (while compiling /m/model.py:17): TypeError: unsupported operand SymInt",
     "", "failure.symbolic_shapes", "mark_static"},
    {"symint with dynamic=True", "default", "compile_failed",
     "torch.compile failed: TypeError: unsupported operand SymInt", "", "failure.symbolic_shapes",
     "dynamic=False"},
    // No dynamic setting fixes a size that comes from data (torchvision's
    // SSD under fullgraph failed so).
    {"data-dependent size", "default", "compile_failed",
     "torch.compile failed: GuardOnDataDependentSymNode: Could not guard on data-dependent "
     "expression",
     "  File \"/m/model.py\", line 12, in forward\n    n = int(x.sum())\n",
     "failure.symbolic_shapes", "torch._check"},
    // The model calls what torch forbids inside compiled code: its line, and where to move it.
    {"set_stance in forward", "default", "compile_failed",
     "torch.compile failed (while compiling /m/model.py:12): AssertionError: Attempt to trace "
     "forbidden callable <function set_stance at 0x7f2bfac46200>.",
     "", "failure.forbidden_call", "around the call instead, outside forward"},
    {"another forbidden callable", "reduce-overhead", "compile_failed",
     "torch.compile failed: AssertionError: Attempt to trace forbidden callable <built-in "
     "function my_hook>",
     "", "failure.forbidden_call", "Call my_hook outside the compiled function"},
    // Of no known cause, from a probe that did not narrow it: the stages to try.
    {"unrelated compile failure", "default", "compile_failed",
     "torch.compile failed: KeyError: 'foo'", "", "failure.compile",
     "--backend eager (Dynamo alone)"},
    {"compile not set up", "default", "compile_failed",
     "torch.compile cannot be set up for mode default, backend inductor with torch 2.15 on Python "
     "3.14.0: RuntimeError: Python 3.14+ not yet supported. Use Python 3.13 or older.",
     "", "failure.run", "Use Python 3.13"},
    {"model raised", "default", "model_raised",
     "The model raised ValueError: bad. It fails without torch.compile too: fix the model.", "",
     "failure.run", "fix the model"},
};

class FailureTable : public ::testing::TestWithParam<FailureCase> {};

TEST_P(FailureTable, EveryFailureHasACriticalFinding) {
    const auto& c = GetParam();
    auto run = failed(c.mode, c.kind, c.message, c.traceback);
    if (std::string(c.name) == "symint with dynamic=True" ||
        std::string(c.name) == "data-dependent size")
        run.setting.dynamic = "true";
    const auto findings = advise(reportOf({run}), {});
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_EQ(findings[0].rule, c.rule);
    EXPECT_EQ(findings[0].severity, Severity::Critical);
    EXPECT_NE(findings[0].remedy.find(c.remedyMentions), std::string::npos) << findings[0].remedy;
    EXPECT_NE(findings[0].evidence[0].find(c.kind), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Advice, FailureTable, ::testing::ValuesIn(kFailures),
                         [](const auto& info) {
                             std::string name = info.param.name;
                             for (auto& ch : name)
                                 ch = std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
                             return name;
                         });

TEST(AdviceFailures, ADataDependentSizeUnderFullgraphSaysTheBreakWouldLetItRunOn) {
    auto run = failed("default", "compile_failed",
                      "torch.compile failed: UserError: Could not guard on data-dependent "
                      "expression 4*Min(300, u0) > 4000");
    run.setting.fullgraph = true;
    const auto f = advise(reportOf({run}), {});
    ASSERT_EQ(f.size(), 1u);
    EXPECT_NE(f[0].title.find("failed on a size that depends on tensor data"), std::string::npos)
        << f[0].title;
    EXPECT_NE(f[0].remedy.find("Without fullgraph=True"), std::string::npos) << f[0].remedy;
    EXPECT_EQ(f[0].remedy.find("compile with dynamic=False"), std::string::npos) << f[0].remedy;
}

TEST(AdviceFailures, ADataDependentSizeInALibrarysCodeIsNotTheUsersToAnnotate) {
    // torchvision's SSDlite under fullgraph: the probe names the library line.
    auto run = failed("default", "compile_failed",
                      "torch.compile failed (while compiling "
                      "/v/lib/python3.11/site-packages/torchvision/ops/boxes.py:86): UserError: "
                      "Could not guard on data-dependent expression 4*Min(300, u0) > 4000");
    run.setting.fullgraph = true;
    auto f = advise(reportOf({run}), {});
    ASSERT_EQ(f.size(), 1u);
    EXPECT_NE(f[0].title.find("at boxes.py:86"), std::string::npos) << f[0].title;
    EXPECT_EQ(f[0].line, 86);
    EXPECT_NE(f[0].remedy.find("in torchvision's code, not the model file"), std::string::npos)
        << f[0].remedy;
    EXPECT_NE(f[0].remedy.find("drop fullgraph=True"), std::string::npos) << f[0].remedy;
    EXPECT_NE(f[0].remedy.find("torch.compiler.disable"), std::string::npos) << f[0].remedy;
    EXPECT_EQ(f[0].remedy.find("torch._check"), std::string::npos) << f[0].remedy;
    run.setting.fullgraph = false;
    f = advise(reportOf({run}), {});
    ASSERT_EQ(f.size(), 1u);
    EXPECT_EQ(f[0].remedy.find("fullgraph"), std::string::npos) << f[0].remedy;
}

TEST(AdviceFailures, AForbiddenCallSaysWhichAndWhere) {
    auto run = failed("default", "compile_failed",
                      "torch.compile failed (while compiling /m/model.py:12): AssertionError: "
                      "Attempt to trace forbidden callable <function set_stance at 0x7f2b>.");
    const auto f = advise(reportOf({run}), {});
    ASSERT_EQ(f.size(), 1u);
    EXPECT_EQ(f[0].title, "default failed: torch refuses to trace set_stance inside compiled code "
                          "at model.py:12");
    EXPECT_EQ(f[0].file, "/m/model.py");
    EXPECT_EQ(f[0].line, 12);
}

TEST(AdviceFailures, SymbolicShapesShowTheFailingLine) {
    auto fromMessage =
        failed("default", "compile_failed",
               "torch.compile failed (while compiling /m/model.py:17): TypeError: SymInt");
    auto f = advise(reportOf({fromMessage}), {});
    ASSERT_EQ(f.size(), 1u);
    EXPECT_EQ(f[0].file, "/m/model.py");
    EXPECT_EQ(f[0].line, 17);
    auto fromTraceback =
        failed("default", "compile_failed", "torch.compile failed: SymInt trouble",
               "  File \"/lib/torch/x.py\", line 5, in f\n  File \"/m/model.py\", line 12, in "
               "forward\n  File \"/lib/torch/y.py\", line 9, in g\n");
    f = advise(reportOf({fromTraceback}), {});
    ASSERT_EQ(f.size(), 1u);
    EXPECT_EQ(f[0].line, 12);
}

// Recorded (torch 2.15): a numpy percentile in forward that Dynamo fails on
// under every backend, though it runs eagerly. The probe tried backend eager.
TEST(AdviceFailures, ACompileFailureDynamoMeetsEverywhereSaysCompilerDisable) {
    cs::core::Setting setting;
    const auto run = fixtureRun("advice_dynamo_fails.jsonl", setting);
    ASSERT_TRUE(run.error.has_value());
    EXPECT_EQ(run.error->stage, "dynamo");
    ASSERT_EQ(run.error->stageChecks.size(), 1u);
    const auto findings = withRule(advise(reportOf({run}), {}), "failure.compile");
    ASSERT_EQ(findings.size(), 1u);
    const auto& f = findings[0];
    EXPECT_EQ(f.severity, Severity::Critical);
    EXPECT_NE(f.title.find("default: Dynamo cannot trace the code at traced_numpy_fails.py:12, "
                           "under any backend"),
              std::string::npos)
        << f.title;
    EXPECT_EQ(f.line, 12);
    EXPECT_TRUE(hasEvidence(f, "compiled again under backend eager (Dynamo alone), it failed too: "
                               "TypeError: only 0-dimensional arrays"))
        << ::testing::PrintToString(f.evidence);
    EXPECT_NE(f.remedy.find("mark the function holding traced_numpy_fails.py:12 (forward) "
                            "@torch.compiler.disable"),
              std::string::npos)
        << f.remedy;
    EXPECT_EQ(f.remedy.find("--backend aot_eager"), std::string::npos) << f.remedy;
    EXPECT_EQ(f.remedy.find("TORCHDYNAMO_REPRO_AFTER"), std::string::npos) << f.remedy;
    // Its break left one graph (the ops before the percentile): not a split.
    const auto breaks = withRule(advise(reportOf({run}), {}), "graph_break.item");
    ASSERT_EQ(breaks.size(), 1u);
    EXPECT_TRUE(hasEvidence(breaks[0], "forward compiles to 1 graph beside the break (#0)"))
        << ::testing::PrintToString(breaks[0].evidence);
}

// Recorded: an Inductor pass of the model file's own raises. Backends eager
// and aot_eager ran the first call, so the fix meanwhile is aot_eager.
TEST(AdviceFailures, ACompileFailureOnlyInductorMeetsSaysAotEagerMeanwhile) {
    cs::core::Setting setting;
    const auto run = fixtureRun("advice_inductor_fails.jsonl", setting);
    ASSERT_TRUE(run.error.has_value());
    EXPECT_EQ(run.error->stage, "backend");
    const auto findings = withRule(advise(reportOf({run}), {}), "failure.compile");
    ASSERT_EQ(findings.size(), 1u);
    const auto& f = findings[0];
    EXPECT_NE(f.title.find("inductor fails to compile the graph of the code at "
                           "inductor_fails.py:11, which Dynamo traced"),
              std::string::npos)
        << f.title;
    EXPECT_TRUE(hasEvidence(f, "compiled again under backend eager (Dynamo alone), the first "
                               "call ran"));
    EXPECT_TRUE(hasEvidence(f, "compiled again under backend aot_eager (Dynamo and AOTAutograd), "
                               "the first call ran"));
    EXPECT_NE(f.remedy.find("run this setting with --backend aot_eager meanwhile"),
              std::string::npos)
        << f.remedy;
    EXPECT_NE(f.remedy.find("TORCHDYNAMO_REPRO_AFTER=\"dynamo\""), std::string::npos) << f.remedy;
}

// A real fullgraph failure (print_break with --fullgraph): the break rule
// stays quiet for that run; the failure points at the break.
TEST(AdviceFailures, RealFullgraphBreakStream) {
    cs::core::Setting setting;
    setting.backend = "aot_eager";
    setting.fullgraph = true;
    const auto run = fixtureRun("advice_print_fullgraph.jsonl", setting);
    ASSERT_TRUE(run.error.has_value());
    const auto findings = advise(reportOf({run}), {});
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_EQ(findings[0].rule, "failure.fullgraph");
    EXPECT_EQ(findings[0].severity, Severity::Critical);
    EXPECT_EQ(findings[0].line, 21);
    EXPECT_EQ(findings[0].tab, EvidenceTab::Breaks);
    EXPECT_EQ(findings[0].graphBreak, 0);
    EXPECT_NE(findings[0].remedy.find("reorderable_logging_functions"), std::string::npos);
    EXPECT_NE(findings[0].remedy.find("without fullgraph"), std::string::npos);
}

} // namespace

TEST(AdviceFailures, TheModelsOwnErrorInEverySettingIsOneFindingAtItsLine) {
    // A float tensor fed to nn.Embedding: eager and the compiled setting fail alike.
    const std::string message =
        "The model raised RuntimeError: Expected tensor for argument #1 'indices' to have one of "
        "the following scalar types: Long, Int; but got torch.FloatTensor instead (while "
        "checking arguments for embedding) at /m/model.py:8. It fails without torch.compile "
        "too: fix the model or its inputs (get_inputs()).";
    const std::string traceback = "Traceback (most recent call last):\n"
                                  "  File \"/p/main.py\", line 778, in call\n"
                                  "  File \"/m/model.py\", line 8, in forward\n"
                                  "    return self.fc(self.emb(ids)).mean(1)\n";
    const auto f = advise(reportOf({failed("eager", "model_raised", message, traceback),
                                    failed("default", "model_raised", message, traceback)}),
                          {});
    ASSERT_EQ(f.size(), 1u);
    EXPECT_EQ(f[0].rule, "failure.run");
    EXPECT_EQ(f[0].severity, Severity::Critical);
    EXPECT_EQ(f[0].run, -1);
    EXPECT_EQ(f[0].setting, "eager and default");
    EXPECT_EQ(f[0].title, "eager and default did not finish: the model raises RuntimeError at "
                          "model.py:8, with or without torch.compile");
    EXPECT_EQ(f[0].file, "/m/model.py");
    EXPECT_EQ(f[0].line, 8);
    EXPECT_TRUE(hasEvidence(f[0], "the same in 2 settings: eager and default"));
    EXPECT_TRUE(hasEvidence(f[0], "eager fails the same way"));
    EXPECT_EQ(f[0].remedy,
              "It fails without torch.compile too: fix the model or its inputs (get_inputs()).");
}

// The title says where the time ran out, from the runner's own message.
TEST(AdviceFailures, ATimeoutIsTitledByWhereTheTimeRanOut) {
    const std::pair<const char*, const char*> cases[] = {
        {"sweep", "default did not finish: it ran past its time limit in the input sweep"},
        {"compile", "default did not finish: it ran past its time limit while compiling the "
                    "first call"},
        {"measure", "default did not finish: it ran past its time limit"}};
    for (const auto& [phase, title] : cases) {
        auto run =
            cs::core::replayStream(std::string("{\"type\":\"hello\",\"t_ns\":1,\"protocol\":1}\n"
                                               "{\"type\":\"phase\",\"t_ns\":2,\"name\":\"") +
                                       phase + "\",\"edge\":\"begin\"}\n",
                                   timedRun("default", {}, {}).setting);
        cs::core::settleRun(run, cs::core::ProcessEnd::TimedOut, -1, "240");
        const auto f = withRule(advise(reportOf({run}), {}), "failure.run");
        ASSERT_EQ(f.size(), 1u) << phase;
        EXPECT_EQ(f[0].title, title);
    }
}

TEST(AdviceFailures, DifferentFailuresAreFindingsOfTheirOwn) {
    auto timedOut = timedRun("max-autotune", {}, {});
    timedOut.status = RunStatus::Timeout;
    auto crashed = timedRun("default", {}, {});
    crashed.status = RunStatus::Crashed;
    const auto f = advise(
        reportOf({timedRun("eager", {100, 90}, std::vector<int64_t>(20, 50)), timedOut, crashed}),
        {});
    std::vector<const Finding*> failures;
    for (const auto& finding : f)
        if (finding.rule == "failure.run")
            failures.push_back(&finding);
    ASSERT_EQ(failures.size(), 2u);
    EXPECT_EQ(failures[0]->title, "max-autotune did not finish: timeout");
    EXPECT_EQ(failures[0]->run, 1);
    EXPECT_NE(failures[0]->remedy.find("--timeout"), std::string::npos) << failures[0]->remedy;
    EXPECT_EQ(failures[1]->title, "default did not finish: crashed");
    EXPECT_EQ(failures[1]->tab, EvidenceTab::Console);
    EXPECT_NE(failures[1]->remedy.find("without compilescope"), std::string::npos);
}

// compilescope's own steps failing: the title says what, not the kind's code.
TEST(AdviceFailures, ItsOwnStepsFailingAreNamedInWords) {
    const std::tuple<const char*, const char*, const char*> cases[] = {
        {"no_batch_dimension",
         "The batch size cannot be scaled for the inputs [3, 16], [2, 3, 32, 32]: compilescope "
         "scales dimension 0 of every tensor input, and their dimension 0 differs. Define "
         "get_inputs(batch_size) in the model file, returning the inputs for that batch size.",
         "default did not finish: the batch size cannot be scaled for these inputs"},
        {"bad_arguments",
         "Mode as-written runs the model with its own torch.compile calls, and /m/model.py makes "
         "none (no compiled model from get_model()). Run mode eager instead.",
         "default did not finish: the model file makes no torch.compile call for as-written to "
         "keep"},
        {"package_failed",
         "AOTInductor could not package the exported model: CppCompileError: g++ failed.",
         "default did not finish: AOTInductor could not package the exported model"},
        {"aoti_runner_failed", "compilescope-aoti-runner exited with code 134. It said:\nabort",
         "default did not finish: the AOTInductor runner failed"},
    };
    for (const auto& [kind, message, title] : cases) {
        const auto f = advise(reportOf({failed("default", kind, message)}), {});
        ASSERT_EQ(f.size(), 1u) << kind;
        EXPECT_EQ(f[0].title, title);
        EXPECT_EQ(f[0].title.find(kind), std::string::npos) << f[0].title;
    }
}

TEST(AdviceFailures, AModelFilesFunctionsAreNamedByWhatIsWrongWithThem) {
    const std::pair<const char*, const char*> cases[] = {
        {"/m/model.py does not define get_model(). Add a function get_model() that returns the "
         "torch.nn.Module (or function) to compile.",
         "default did not finish: the model file defines no get_model()"},
        {"get_inputs() in /m/model.py returned ndarray; it must return a tensor, a tuple/list of "
         "the model's positional arguments, or a dict.",
         "default did not finish: get_inputs() returned ndarray"},
        {"get_inputs() in /m/model.py needs an argument, but a run that does not scale the batch "
         "calls it with none.",
         "default did not finish: get_inputs() needs an argument"},
    };
    for (const auto& [message, title] : cases) {
        const auto f = advise(reportOf({failed("default", "missing_get_inputs", message)}), {});
        ASSERT_EQ(f.size(), 1u);
        EXPECT_EQ(f[0].title, title);
    }
}

// A model whose error rises from a library's code, no line of the model file
// in the traceback (a transformers config that does not fit the inputs): the
// finding still says where, past torch's and the probe's own frames.
TEST(AdviceFailures, AnErrorRaisedInALibrarySaysWhere) {
    const std::string message =
        "The model raised RuntimeError: The size of tensor a (32) must match the size of tensor "
        "b (64) at non-singleton dimension 2. It fails without torch.compile too: fix the model "
        "or its inputs (get_inputs()).";
    const std::string lib = "/v/lib/python3.11/site-packages/transformers/models/perceiver/";
    const std::string traceback =
        "Traceback (most recent call last):\n"
        "  File \"/p/compilescope_probe/main.py\", line 811, in call\n"
        "    latency, wall = self.timer(fn, inputs)\n"
        "  File \"/v/lib/python3.11/site-packages/torch/nn/modules/module.py\", line 1798, in "
        "_call_impl\n"
        "    return forward_call(*args, **kwargs)\n"
        "  File \"" +
        lib +
        "modeling_perceiver.py\", line 742, in forward\n"
        "    encoder_outputs = self.encoder(\n"
        "                      ^^^^^^^^^^^^^\n"
        "  File \"" +
        lib +
        "modeling_perceiver.py\", line 329, in forward\n"
        "    attention_output = attention_output + hidden_states\n"
        "                       ~~~~~~~~~~~~~~~~~^~~~~~~~~~~~~~~\n"
        "  File \"/v/lib/python3.11/site-packages/torch/_tensor.py\", line 40, in wrapped\n"
        "    return f(*args, **kwargs)\n"
        "RuntimeError: The size of tensor a (32) must match the size of tensor b (64)\n";
    const auto f = advise(reportOf({failed("eager", "model_raised", message, traceback)}), {});
    ASSERT_EQ(f.size(), 1u);
    EXPECT_EQ(f[0].rule, "failure.run");
    EXPECT_TRUE(hasEvidence(f[0], "it raised in transformers's code at modeling_perceiver.py:329 "
                                  "in forward: attention_output = attention_output + "
                                  "hidden_states"))
        << f[0].evidence.back();
    EXPECT_EQ(f[0].file, ""); // not the model file's line: no jump to it
    // With a line of the model file, that line is the finding's and no other is added.
    const std::string withModel = "Traceback (most recent call last):\n"
                                  "  File \"/m/model.py\", line 8, in forward\n"
                                  "    return self.net(x)\n"
                                  "  File \"" +
                                  lib + "modeling_perceiver.py\", line 329, in forward\n";
    const auto g = advise(reportOf({failed("eager", "model_raised", message, withModel)}), {});
    ASSERT_EQ(g.size(), 1u);
    EXPECT_EQ(g[0].line, 8);
    EXPECT_FALSE(hasEvidence(g[0], "it raised"));
}
