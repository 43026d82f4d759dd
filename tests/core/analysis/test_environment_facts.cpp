// The facts the HTML's Environment section and the GUI's Environment tab share.
#include <gtest/gtest.h>

#include "core/analysis/environment_facts.h"
#include "core/analysis/units.h"

using namespace cs::core;

namespace {

std::string valueOf(const std::vector<EnvironmentFact>& facts, const std::string& name) {
    for (const auto& f : facts) {
        if (f.name == name)
            return f.value;
    }
    return "<missing>";
}

} // namespace

TEST(EnvironmentFacts, SayWhatRanWhereAndLeaveUnknownsEmpty) {
    Report report;
    report.model.spec = "gallery/convnet.py";
    report.model.inputs = {"float32[8, 3, 32, 32]", "int64[8]"};
    report.environment.torch = "2.5.1";
    report.environment.probeEnvironment = {{"OMP_NUM_THREADS", "2"}};
    const auto facts = environmentFacts(report);
    EXPECT_EQ(facts.front().name, "model");
    EXPECT_EQ(valueOf(facts, "model"), "gallery/convnet.py");
    EXPECT_EQ(valueOf(facts, "inputs"), "float32[8, 3, 32, 32], int64[8]");
    EXPECT_EQ(valueOf(facts, "torch"), "2.5.1");
    EXPECT_EQ(valueOf(facts, "parameters"), ""); // not known: the views write a dash
    EXPECT_EQ(valueOf(facts, "remote target"), "none: this computer");
    EXPECT_EQ(valueOf(facts, "probe environment (--env)"), "OMP_NUM_THREADS=2");

    report.environment.target = "ssh://gpu-box";
    EXPECT_EQ(valueOf(environmentFacts(report), "remote target"), "ssh://gpu-box");
    EXPECT_EQ(valueOf(facts, "own torch.compile calls"), "");
}

// What the model file compiled itself is named as its code wrote it.
TEST(EnvironmentFacts, TheModelsOwnCompileCallsAreNamedAsWritten) {
    Report report;
    report.model.ownCompiles = {
        {"get_model()", "torch.compile", "inductor", "max-autotune", "auto", false,
         "torch.compile(mode=\"max-autotune\")"},
        {"blocks.1", "Module.compile", "inductor", "default", "true", false,
         "torch.compile(dynamic=True)"},
        {"", "Module.compile", "inductor", "default", "auto", false, "torch.compile()"},
        {"encoder.forward", "attribute", "inductor", "default", "auto", false, "torch.compile()"},
        {"scaled_gelu", "decorator", "aot_eager", "", "auto", true,
         "torch.compile(backend=\"aot_eager\", fullgraph=True)"}};
    // The first three, then how many more.
    EXPECT_EQ(valueOf(environmentFacts(report), "own torch.compile calls"),
              "get_model() returns torch.compile(model, mode=\"max-autotune\"); "
              "model.blocks[1].compile(dynamic=True); model.compile(); and 2 more "
              "(every setting but as-written undoes them)");
    report.model.ownCompiles.resize(4);
    report.model.ownCompiles.erase(report.model.ownCompiles.begin(),
                                   report.model.ownCompiles.begin() + 2);
    EXPECT_EQ(valueOf(environmentFacts(report), "own torch.compile calls"),
              "model.compile(); model.encoder.forward = torch.compile(model.encoder.forward) "
              "(every setting but as-written undoes them)");
}

// A CPU run's device is not the CPU's name twice over (device and CPU rows).
TEST(EnvironmentFacts, TheDeviceSaysWhatWasUsedAndItsName) {
    Report report;
    report.environment.device = "AMD EPYC 7B13";
    report.environment.cpu = "AMD EPYC 7B13";
    EXPECT_EQ(valueOf(environmentFacts(report), "device"), "AMD EPYC 7B13"); // no run says more
    report.runs.resize(2);
    report.runs[1].sawHello = true;
    report.runs[1].probe.device = "cpu";
    report.runs[1].probe.deviceName = "AMD EPYC 7B13";
    EXPECT_EQ(valueOf(environmentFacts(report), "device"), "cpu (AMD EPYC 7B13)");
    report.runs[0].sawHello = true;
    report.runs[0].probe.device = "cuda:0";
    report.runs[0].probe.deviceName = "NVIDIA H200";
    EXPECT_EQ(valueOf(environmentFacts(report), "device"), "cuda:0 (NVIDIA H200)");
    EXPECT_EQ(probeFacts(report).at(1).device, "cpu (AMD EPYC 7B13)");
}

TEST(EnvironmentFacts, DifferentTorchVersionsAreNamedOnlyWhenTheyDiffer) {
    Report report;
    report.runs.resize(3);
    report.runs[0].probe.torch = "2.5.1";
    report.runs[1].probe.torch = "2.5.1";
    EXPECT_TRUE(differingTorchVersions(report).empty());
    report.runs[2].probe.torch = "2.4.0";
    EXPECT_EQ(differingTorchVersions(report), (std::vector<std::string>{"2.4.0", "2.5.1"}));
}

TEST(Units, JoinListSeparatesWithCommas) {
    EXPECT_EQ(joinList({}), "");
    EXPECT_EQ(joinList({"a"}), "a");
    EXPECT_EQ(joinList({"a", "b", "c"}), "a, b, c");
}

TEST(EnvironmentFacts, CpuListsReadAsRanges) {
    EXPECT_EQ(cpuListText({}), "");
    EXPECT_EQ(cpuListText({3}), "3");
    EXPECT_EQ(cpuListText({0, 1, 2, 3}), "0-3");
    EXPECT_EQ(cpuListText({9, 8, 0, 2, 3, 6, 3}), "0, 2-3, 6, 8-9");
}

// Each probe's own account: a row per measured run that said hello, in run
// order; a rank of an imported log and a probe that never started have none.
TEST(EnvironmentFacts, EachProbeSaysWhereItRan) {
    Report report;
    report.runs.resize(4);
    cs::core::Run& eager = report.runs[0];
    eager.setting.mode = "eager";
    eager.sawHello = true;
    eager.probe.pythonExecutable = "/home/me/venv/bin/python";
    eager.probe.device = "cpu";
    eager.probe.deviceName = "AMD EPYC";
    eager.probe.threads = 2;
    eager.probe.cpuAffinity = {0, 1};
    cs::core::Run& gpu = report.runs[1];
    gpu.setting.mode = "default";
    gpu.sawHello = true;
    gpu.probe.device = "cuda:0";
    gpu.probe.deviceName = "NVIDIA H200";
    gpu.probe.threads = 1;
    gpu.probe.cpuAffinity = {5};
    report.runs[2].setting.mode = "max-autotune"; // never said hello
    report.runs[3].status = RunStatus::Imported;
    report.runs[3].sawHello = true;

    const auto rows = probeFacts(report);
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[0].run, 0);
    EXPECT_EQ(rows[0].setting, "eager");
    EXPECT_EQ(rows[0].interpreter, "/home/me/venv/bin/python");
    EXPECT_EQ(rows[0].device, "cpu (AMD EPYC)");
    EXPECT_EQ(rows[0].threads, "2 intra-op threads on CPUs 0-1");
    EXPECT_EQ(rows[1].run, 1);
    EXPECT_EQ(rows[1].device, "cuda:0 (NVIDIA H200)");
    EXPECT_EQ(rows[1].threads, "1 intra-op thread on CPU 5");
    EXPECT_EQ(rows[1].interpreter, ""); // not said: the views write a dash
}
