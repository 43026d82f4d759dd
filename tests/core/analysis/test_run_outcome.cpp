#include <gtest/gtest.h>

#include <csignal>

#include "core/analysis/run_outcome.h"
#include "core/events/event_parser.h"

using namespace cs::core;

namespace {
Run withEvents(const std::string& stream) {
    return replayStream(stream);
}
const char* kHelloAndTwoIters =
    "{\"type\":\"hello\",\"t_ns\":1,\"protocol\":1}\n"
    "{\"type\":\"phase\",\"t_ns\":2,\"name\":\"measure\",\"edge\":\"begin\"}\n"
    "{\"type\":\"iteration\",\"t_ns\":3,\"index\":0,\"latency_ns\":10}\n"
    "{\"type\":\"iteration\",\"t_ns\":4,\"index\":1,\"latency_ns\":11}\n";
} // namespace

TEST(RunOutcome, DoneOkIsOk) {
    cs::core::Run run = withEvents(std::string(kHelloAndTwoIters) +
                                   "{\"type\":\"done\",\"t_ns\":5,\"status\":\"ok\"}\n");
    settleRun(run, ProcessEnd::Exited, 0);
    EXPECT_EQ(run.status, RunStatus::Ok);
    EXPECT_FALSE(run.error);
}

TEST(RunOutcome, NoDoneIsCrashWithProgress) {
    cs::core::Run run = withEvents(kHelloAndTwoIters);
    settleRun(run, ProcessEnd::Signalled, 9, "SIGKILL");
    EXPECT_EQ(run.status, RunStatus::Crashed);
    ASSERT_TRUE(run.error);
    EXPECT_NE(run.error->message.find("2 measured iterations"), std::string::npos);
    EXPECT_NE(run.error->message.find("measure phase"), std::string::npos);
    EXPECT_EQ(run.measuredLatencies().size(), 2u);
}

// The probe's compile phase is the first call: eager compiles nothing in it.
TEST(RunOutcome, AStopInTheFirstCallSaysSoByMode) {
    const std::string stream = "{\"type\":\"hello\",\"t_ns\":1,\"protocol\":1}\n"
                               "{\"type\":\"phase\",\"t_ns\":2,\"name\":\"compile\","
                               "\"edge\":\"begin\"}\n";
    cs::core::Run eager = withEvents(stream);
    eager.setting.mode = "eager";
    settleRun(eager, ProcessEnd::TimedOut, -1, "15");
    EXPECT_NE(eager.error->message.find("; it was in the model's first call"), std::string::npos)
        << eager.error->message;
    EXPECT_EQ(eager.error->message.find("compile"), std::string::npos) << eager.error->message;
    cs::core::Run compiled = withEvents(stream);
    compiled.setting.mode = "default";
    settleRun(compiled, ProcessEnd::TimedOut, -1, "15");
    EXPECT_NE(compiled.error->message.find("; it was in the first call, which compiles"),
              std::string::npos)
        << compiled.error->message;
}

// Where the time ran out decides the remedy: fewer iterations shorten the
// calls, not a compile, and a sweep's compiles come after the measured calls.
TEST(RunOutcome, ATimeoutSaysWhatToChangeWhereItHappened) {
    const std::string hello = "{\"type\":\"hello\",\"t_ns\":1,\"protocol\":1}\n";
    cs::core::Run sweeping = withEvents(
        hello + "{\"type\":\"phase\",\"t_ns\":2,\"name\":\"sweep\",\"edge\":\"begin\"}\n"
                "{\"type\":\"log\",\"t_ns\":3,\"level\":\"info\",\"message\":\"sweep 2/5: "
                "inputs [2, 3, 128, 128]\",\"code\":\"sweep_inputs\"}\n"
                "{\"type\":\"compile_progress\",\"t_ns\":4,\"stage\":\"AOT autograd\"}\n");
    sweeping.setting.mode = "default";
    settleRun(sweeping, ProcessEnd::TimedOut, -1, "900");
    const std::string& sweep = sweeping.error->message;
    EXPECT_NE(sweep.find("; it was in the input sweep, at 2/5: inputs [2, 3, 128, 128], while "
                         "torch compiled it (AOT autograd)."),
              std::string::npos)
        << sweep;
    EXPECT_NE(sweep.find("--no-sweep"), std::string::npos) << sweep;
    EXPECT_EQ(sweep.find("iteration count"), std::string::npos) << sweep;

    cs::core::Run compiling = withEvents(
        hello + "{\"type\":\"phase\",\"t_ns\":2,\"name\":\"compile\",\"edge\":\"begin\"}\n");
    compiling.setting.mode = "default";
    settleRun(compiling, ProcessEnd::TimedOut, -1, "900");
    EXPECT_NE(compiling.error->message.find("--backend aot_eager"), std::string::npos)
        << compiling.error->message;
    EXPECT_EQ(compiling.error->message.find("iteration count"), std::string::npos);
    EXPECT_EQ(compiling.error->message.find("dynamic=False"), std::string::npos);
    // Under dynamic=True, static shapes are the first lever.
    cs::core::Run symbolic = withEvents(
        hello + "{\"type\":\"phase\",\"t_ns\":2,\"name\":\"compile\",\"edge\":\"begin\"}\n");
    symbolic.setting.mode = "default";
    symbolic.setting.dynamic = "true";
    settleRun(symbolic, ProcessEnd::TimedOut, -1, "1500");
    EXPECT_NE(symbolic.error->message.find("Make the first compile shorter (compile with "
                                           "dynamic=False (or auto)"),
              std::string::npos)
        << symbolic.error->message;

    cs::core::Run measuring = withEvents(
        hello + "{\"type\":\"phase\",\"t_ns\":2,\"name\":\"measure\",\"edge\":\"begin\"}\n");
    settleRun(measuring, ProcessEnd::TimedOut, -1, "900");
    EXPECT_NE(measuring.error->message.find("Lower the iteration count"), std::string::npos)
        << measuring.error->message;
}

TEST(RunOutcome, ProbeErrorIsKeptOnCrash) {
    cs::core::Run run = withEvents(
        std::string(kHelloAndTwoIters) +
        "{\"type\":\"error\",\"t_ns\":5,\"kind\":\"out_of_memory\",\"message\":\"OOM\"}\n");
    settleRun(run, ProcessEnd::Exited, 1);
    EXPECT_EQ(run.status, RunStatus::Crashed);
    EXPECT_EQ(run.error->kind, "out_of_memory");
    EXPECT_EQ(run.error->message.rfind("OOM", 0), 0u);
}

TEST(RunOutcome, DoneFailedIsFailed) {
    cs::core::Run run = withEvents("{\"type\":\"done\",\"t_ns\":5,\"status\":\"failed\"}\n");
    settleRun(run, ProcessEnd::Exited, 3);
    EXPECT_EQ(run.status, RunStatus::Failed);
    ASSERT_TRUE(run.error);
}

TEST(RunOutcome, TimeoutAndCancel) {
    cs::core::Run run = withEvents(kHelloAndTwoIters);
    settleRun(run, ProcessEnd::TimedOut, -1, "30");
    EXPECT_EQ(run.status, RunStatus::Timeout);
    EXPECT_NE(run.error->message.find("30 s"), std::string::npos);
    cs::core::Run other = withEvents(kHelloAndTwoIters);
    settleRun(other, ProcessEnd::Cancelled, -1);
    EXPECT_EQ(other.status, RunStatus::Cancelled);
    EXPECT_EQ(other.measuredLatencies().size(), 2u);
}

TEST(RunOutcome, FailedToStartNamesInterpreter) {
    cs::core::Run run;
    settleRun(run, ProcessEnd::FailedToStart, -1, "/opt/py/bin/python");
    EXPECT_EQ(run.status, RunStatus::Failed);
    EXPECT_NE(run.error->message.find("/opt/py/bin/python"), std::string::npos);
}

// Between hello and the load phase the probe imports torch: a crash there is
// torch's import crashing, said with how to check it.
TEST(RunOutcome, ACrashBeforeTheLoadIsTorchsImport) {
    cs::core::Run run = withEvents("{\"type\":\"hello\",\"t_ns\":1,\"protocol\":1,"
                                   "\"python_executable\":\"/opt/env/bin/python\"}\n");
    settleRun(run, ProcessEnd::Signalled, SIGSEGV, "signal or crash");
    EXPECT_EQ(run.status, RunStatus::Crashed);
    ASSERT_TRUE(run.error);
    EXPECT_NE(run.error->message.find("torch's import crashed (SIGSEGV"), std::string::npos)
        << run.error->message;
    EXPECT_NE(run.error->message.find("\"/opt/env/bin/python\" -c \"import torch\""),
              std::string::npos)
        << run.error->message;
    // A kill is not a crash of torch's: the general words, saying where it landed.
    cs::core::Run killed = withEvents("{\"type\":\"hello\",\"t_ns\":1,\"protocol\":1}\n");
    settleRun(killed, ProcessEnd::Signalled, SIGKILL, "signal or crash");
    EXPECT_EQ(killed.error->message.find("import crashed"), std::string::npos);
    EXPECT_NE(killed.error->message.find("still importing torch"), std::string::npos);
    // A remote ssh's 255 is no signal: the general words.
    cs::core::Run remote = withEvents("{\"type\":\"hello\",\"t_ns\":1,\"protocol\":1}\n");
    settleRun(remote, ProcessEnd::Signalled, 255, "on gpu-box");
    EXPECT_EQ(remote.error->message.find("import crashed"), std::string::npos);
}

TEST(RunOutcome, ATimeoutWhileImportingTorchSaysSo) {
    cs::core::Run run = withEvents("{\"type\":\"hello\",\"t_ns\":1,\"protocol\":1}\n");
    settleRun(run, ProcessEnd::TimedOut, -1, "20");
    EXPECT_EQ(run.status, RunStatus::Timeout);
    EXPECT_NE(run.error->message.find("still importing torch"), std::string::npos)
        << run.error->message;
}

// os._exit(7) in get_inputs(): the probe ends in the load phase with no word;
// the message says whose code runs there.
TEST(RunOutcome, AnExitInTheLoadPhaseIsTheModelFilesCode) {
    cs::core::Run run =
        withEvents("{\"type\":\"hello\",\"t_ns\":1,\"protocol\":1}\n"
                   "{\"type\":\"phase\",\"t_ns\":2,\"name\":\"load\",\"edge\":\"begin\"}\n");
    settleRun(run, ProcessEnd::Exited, 7);
    EXPECT_EQ(run.status, RunStatus::Crashed);
    ASSERT_TRUE(run.error);
    EXPECT_NE(run.error->message.find("exited with code 7"), std::string::npos);
    EXPECT_NE(run.error->message.find("the model file's own code (its imports, get_model(), "
                                      "get_inputs())"),
              std::string::npos)
        << run.error->message;
    // In the measure phase it is no load: the general words only.
    cs::core::Run measuring = withEvents(kHelloAndTwoIters);
    settleRun(measuring, ProcessEnd::Exited, 7);
    EXPECT_EQ(measuring.error->message.find("model file's own code"), std::string::npos);
}
