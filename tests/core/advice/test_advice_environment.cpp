// The env.* and compile.no_graph findings: a setting that compiled nothing,
// and the torch variables the probes inherited from the user's environment.
#include <gtest/gtest.h>

#include "core/analysis/torch_environment.h"
#include "tests/core/advice_reports.h"

using namespace advice_test;

namespace {

constexpr int64_t kUs = 1000;

Run measured(const std::string& mode, int64_t medianNs = 100 * kUs) {
    Run run = timedRun(mode, {medianNs}, constant(30, medianNs));
    run.sawHello = true;
    return run;
}

// What the probe reports for a compiled setting under TORCH_COMPILE_DISABLE=1:
// no graph, no break, no compile metrics.
Run uncompiled(const std::string& mode = "default") {
    Run run = measured(mode);
    run.compilePhasesSource = "none";
    return run;
}

Run withVariables(Run run, std::map<std::string, std::string> variables) {
    run.probe.torchEnvironment = std::move(variables);
    return run;
}

Report pair(Run compiled, const std::map<std::string, std::string>& variables = {}) {
    return reportOf({withVariables(measured("eager"), variables),
                     withVariables(std::move(compiled), variables)});
}

} // namespace

TEST(TorchEnvironment, EffectsFollowTorchsOwnReading) {
    EXPECT_EQ(variableEffect("TORCH_COMPILE_DISABLE", "1"), VariableEffect::DisablesCompile);
    EXPECT_EQ(variableEffect("TORCHDYNAMO_DISABLE", "1"), VariableEffect::DisablesCompile);
    // torch reads "1" as on and anything else as not: "true" does not disable.
    EXPECT_EQ(variableEffect("TORCH_COMPILE_DISABLE", "true"), VariableEffect::CompileOption);
    EXPECT_EQ(variableEffect("TORCH_COMPILE_DISABLE", "0"), VariableEffect::CompileOption);
    EXPECT_EQ(variableEffect("CUDA_LAUNCH_BLOCKING", "1"), VariableEffect::LaunchBlocking);
    EXPECT_EQ(variableEffect("CUDA_LAUNCH_BLOCKING", "0"), VariableEffect::Other);
    EXPECT_EQ(variableEffect("TORCHINDUCTOR_FORCE_DISABLE_CACHES", "1"),
              VariableEffect::DisablesCaches);
    EXPECT_EQ(variableEffect("TORCH_LOGS", "+dynamo"), VariableEffect::CompileOption);
    EXPECT_EQ(variableEffect("PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True"),
              VariableEffect::CompileOption);
    // compilescope replaces the cache folders with its own; thread pools are shown, not judged
    EXPECT_EQ(variableEffect("TORCHINDUCTOR_CACHE_DIR", "/tmp/c"), VariableEffect::Other);
    EXPECT_EQ(variableEffect("OMP_NUM_THREADS", "4"), VariableEffect::Other);
    EXPECT_EQ(variableEffectText("TORCH_LOGS", "+dynamo"), "turns torch's compile logging on");
    EXPECT_EQ(variableEffectText("TORCHINDUCTOR_FREEZING", "1"), "sets an Inductor option");
}

TEST(TorchEnvironment, WhatCompilescopeSetIsNotInherited) {
    cs::core::Run run = withVariables(
        measured("default"),
        {{"TORCH_LOGS", "+dynamo"}, {"TORCHINDUCTOR_FREEZING", "1"}, {"OMP_NUM_THREADS", "2"}});
    run.setting.environment = {{"TORCHINDUCTOR_FREEZING", "1"}};
    Environment environment;
    environment.probeEnvironment = {{"OMP_NUM_THREADS", "2"}};
    const auto inherited = inheritedVariables(run, environment);
    ASSERT_EQ(inherited.size(), 1u);
    EXPECT_EQ(inherited[0].name, "TORCH_LOGS");
    EXPECT_EQ(torchVariables(run, environment).size(), 3u);
}

// Across runs each variable is one entry per value and origin, with the
// settings that had it; an imported rank is no probe and is left out.
TEST(TorchEnvironment, VariablesAcrossRunsSayWhereEachCameFromAndWho) {
    Report report =
        pair(measured("default"), {{"TORCH_LOGS", "+dynamo"}, {"OMP_NUM_THREADS", "2"}});
    report.environment.probeEnvironment = {{"OMP_NUM_THREADS", "2"}};
    report.runs[1].setting.environment = {{"TORCHINDUCTOR_FREEZING", "1"}};
    report.runs[1].probe.torchEnvironment["TORCHINDUCTOR_FREEZING"] = "1";
    cs::core::Run rank = withVariables(measured("default"), {{"TORCH_LOGS", "+inductor"}});
    rank.status = RunStatus::Imported;
    report.runs.push_back(rank);
    EXPECT_EQ(runsWithEnvironment(report), 2u);

    const auto all = variablesAcrossRuns(report);
    ASSERT_EQ(all.size(), 3u);
    EXPECT_EQ(all[0].variable.name, "OMP_NUM_THREADS");
    EXPECT_EQ(all[0].origin, VariableOrigin::SessionEnv);
    EXPECT_TRUE(all[0].everyRun);
    EXPECT_EQ(all[1].variable.name, "TORCHINDUCTOR_FREEZING");
    EXPECT_EQ(all[1].origin, VariableOrigin::SettingEnv);
    EXPECT_FALSE(all[1].everyRun);
    EXPECT_EQ(all[1].settings, std::vector<std::string>{report.runs[1].setting.label()});
    EXPECT_EQ(all[2].variable.value, "+dynamo"); // not the imported rank's +inductor
    EXPECT_EQ(all[2].origin, VariableOrigin::Inherited);
    EXPECT_EQ(all[2].settings.size(), 2u);
    EXPECT_STREQ(toString(VariableOrigin::Inherited), "inherited from the shell");
}

TEST(AdviceEnvironment, AnInheritedDisableIsNamedAndReplacesNoGain) {
    const auto findings = advise(pair(uncompiled(), {{"TORCH_COMPILE_DISABLE", "1"}}), {});
    const auto f = withRule(findings, "env.compile_disabled");
    ASSERT_EQ(f.size(), 1u);
    EXPECT_EQ(f[0].severity, Severity::Critical);
    EXPECT_EQ(f[0].run, 1);
    EXPECT_EQ(f[0].title, "default compiled nothing: TORCH_COMPILE_DISABLE=1 turned torch.compile "
                          "off, so it measured eager");
    EXPECT_NE(f[0].evidence[0].find("0 graphs and 0 graph breaks over 30 measured calls"),
              std::string::npos)
        << f[0].evidence[0];
    EXPECT_NE(f[0].evidence[1].find("inherited from the environment"), std::string::npos);
    EXPECT_NE(f[0].remedy.find("env -u TORCH_COMPILE_DISABLE"), std::string::npos) << f[0].remedy;
    // Its speed is eager's: "no faster than eager" would send the user to the batch size.
    EXPECT_TRUE(withRule(findings, "perf.no_gain").empty());
    // A disable is not also listed as an inherited option.
    EXPECT_TRUE(withRule(findings, "env.inherited").empty());
}

TEST(AdviceEnvironment, ADisableCompilescopeSetSaysWhere) {
    Report report = pair(uncompiled(), {{"TORCHDYNAMO_DISABLE", "1"}});
    report.environment.probeEnvironment = {{"TORCHDYNAMO_DISABLE", "1"}};
    auto f = withRule(advise(report, {}), "env.compile_disabled");
    ASSERT_EQ(f.size(), 1u);
    EXPECT_NE(f[0].evidence[1].find("set by --env"), std::string::npos) << f[0].evidence[1];
    EXPECT_EQ(f[0].remedy, "Drop TORCHDYNAMO_DISABLE=1 from --env to measure the compiled model.");

    report = pair(uncompiled(), {{"TORCHDYNAMO_DISABLE", "1"}});
    report.runs[1].setting.environment = {{"TORCHDYNAMO_DISABLE", "1"}};
    report.runs[0].probe.torchEnvironment.clear(); // eager ran without it
    f = withRule(advise(report, {}), "env.compile_disabled");
    ASSERT_EQ(f.size(), 1u);
    EXPECT_NE(f[0].remedy.find("from the setting's env="), std::string::npos) << f[0].remedy;
}

TEST(AdviceEnvironment, NoGraphWithoutAVariableStillSaysNothingCompiled) {
    const auto findings = advise(pair(uncompiled()), {});
    const auto f = withRule(findings, "compile.no_graph");
    ASSERT_EQ(f.size(), 1u);
    EXPECT_EQ(f[0].title, "default compiled nothing: no graph, no graph break, no compile");
    EXPECT_NE(f[0].remedy.find("set_stance"), std::string::npos);
    EXPECT_TRUE(withRule(findings, "perf.no_gain").empty());
}

TEST(AdviceEnvironment, SilentWhereSomethingCompiledOrNothingWasMeantTo) {
    // graphs: it compiled
    cs::core::Run compiled = uncompiled();
    compiled.graphs.emplace_back();
    EXPECT_TRUE(withRule(advise(pair(compiled), {}), "compile.no_graph").empty());
    // breaks and no graph: every frame skipped for a break (perf.no_gain's story)
    cs::core::Run skipped = uncompiled();
    skipped.graphBreaks.push_back(
        makeBreak("graph break in loop", "graph break in loop", "/m/model.py", 9, "", -1, -1));
    auto findings = advise(pair(skipped), {});
    EXPECT_TRUE(withRule(findings, "compile.no_graph").empty());
    EXPECT_EQ(withRule(findings, "perf.no_gain").size(), 1u);
    // an older report: no compile source, no torch_env
    EXPECT_TRUE(withRule(advise(pair(measured("default")), {}), "compile.no_graph").empty());
    // eager and aoti compile nothing by design
    EXPECT_TRUE(withRule(advise(pair(uncompiled("aoti")), {}), "compile.no_graph").empty());
    // a failed setting is failureRule's
    cs::core::Run failed = uncompiled();
    failed.status = RunStatus::Failed;
    EXPECT_TRUE(withRule(advise(pair(failed), {}), "compile.no_graph").empty());
}

TEST(AdviceEnvironment, BlockingLaunchesWarnOnlyOnTheGpu) {
    const std::map<std::string, std::string> blocking{{"CUDA_LAUNCH_BLOCKING", "1"}};
    Report report = pair(measured("default", 50 * kUs), blocking);
    for (auto& run : report.runs)
        run.probe.device = "cuda:0";
    auto findings = advise(report, {});
    auto f = withRule(findings, "env.launch_blocking");
    ASSERT_EQ(f.size(), 1u);
    EXPECT_EQ(f[0].severity, Severity::Warning);
    EXPECT_EQ(f[0].evidence[0], "CUDA_LAUNCH_BLOCKING=1: makes every CUDA launch wait until its "
                                "kernel has finished; inherited from the environment compilescope "
                                "started the probe in");
    EXPECT_EQ(f[0].evidence[1], "on the GPU: eager and default");
    EXPECT_TRUE(withRule(findings, "env.inherited").empty());
    // On the CPU it changes nothing measured: listed, not a warning.
    findings = advise(pair(measured("default", 50 * kUs), blocking), {});
    EXPECT_TRUE(withRule(findings, "env.launch_blocking").empty());
    EXPECT_EQ(withRule(findings, "env.inherited").size(), 1u);
    // Set on purpose with --env: the user knows.
    report.environment.probeEnvironment = blocking;
    findings = advise(report, {});
    EXPECT_TRUE(withRule(findings, "env.launch_blocking").empty());
    EXPECT_TRUE(withRule(findings, "env.inherited").empty());
}

TEST(AdviceEnvironment, CachesOffWarnUnderAWarmStart) {
    const std::map<std::string, std::string> off{{"TORCHINDUCTOR_FORCE_DISABLE_CACHES", "1"}};
    cs::core::Run warm = measured("default", 50 * kUs);
    warm.setting.start = kStartWarmCache;
    warm.firstCallNs = 9'000'000'000;
    auto f = withRule(advise(pair(warm, off), {}), "env.caches_disabled");
    ASSERT_EQ(f.size(), 1u);
    EXPECT_EQ(f[0].tab, EvidenceTab::Warmup);
    EXPECT_NE(f[0].evidence[1].find("(first call 9.00 s)"), std::string::npos) << f[0].evidence[1];
    EXPECT_NE(f[0].remedy.find("Unset TORCHINDUCTOR_FORCE_DISABLE_CACHES"), std::string::npos)
        << f[0].remedy;
    // A fresh start compiles from scratch anyway: listed only.
    const auto findings = advise(pair(measured("default", 50 * kUs), off), {});
    EXPECT_TRUE(withRule(findings, "env.caches_disabled").empty());
    const auto listed = withRule(findings, "env.inherited");
    ASSERT_EQ(listed.size(), 1u);
    EXPECT_EQ(listed[0].evidence[0],
              "TORCHINDUCTOR_FORCE_DISABLE_CACHES=1: turns every compile cache off");
}

TEST(AdviceEnvironment, InheritedOptionsAreListedWithTheSettingsThatHadThem) {
    Report report =
        pair(measured("default", 50 * kUs), {{"TORCH_LOGS", "+dynamo"}, {"OMP_NUM_THREADS", "2"}});
    report.runs.push_back(
        withVariables(measured("max-autotune", 50 * kUs),
                      {{"TORCH_LOGS", "+dynamo"}, {"TORCHINDUCTOR_FREEZING", "1"}}));
    report.runs[2].setting.environment = {{"TORCHINDUCTOR_FREEZING", "1"}};
    report.runs[0].probe.torchEnvironment = {{"TRITON_PRINT_AUTOTUNING", "1"}};
    const auto f = withRule(advise(report, {}), "env.inherited");
    ASSERT_EQ(f.size(), 1u);
    EXPECT_EQ(f[0].severity, Severity::Info);
    EXPECT_EQ(f[0].tab, EvidenceTab::Environment);
    EXPECT_EQ(f[0].title, "The probes inherited torch variables no setting shows (TORCH_LOGS and "
                          "TRITON_PRINT_AUTOTUNING): the figures hold where they are set too");
    ASSERT_EQ(f[0].evidence.size(), 3u);
    EXPECT_EQ(f[0].evidence[0],
              "TORCH_LOGS=+dynamo: turns torch's compile logging on (default and max-autotune "
              "TORCHINDUCTOR_FREEZING=1 only)");
    EXPECT_EQ(f[0].evidence[1], "TRITON_PRINT_AUTOTUNING=1: sets a Triton option (eager only)");
    EXPECT_NE(f[0].evidence[2].find("(Environment tab)"), std::string::npos) << f[0].evidence[2];
    EXPECT_NE(f[0].remedy.find("unset TORCH_LOGS and TRITON_PRINT_AUTOTUNING"), std::string::npos)
        << f[0].remedy;
}

// One variable in the shell turns every setting off alike: one finding names
// them all. A setting that turned itself off with env= is its own finding.
TEST(AdviceEnvironment, SettingsOffForOneCauseAreOneFinding) {
    const std::map<std::string, std::string> off{{"TORCH_COMPILE_DISABLE", "1"}};
    Report report = pair(uncompiled(), off);
    report.runs.push_back(withVariables(uncompiled("max-autotune"), off));
    cs::core::Run own =
        withVariables(uncompiled("reduce-overhead"), {{"TORCHDYNAMO_DISABLE", "1"}});
    own.setting.environment = {{"TORCHDYNAMO_DISABLE", "1"}};
    report.runs.push_back(own);
    const auto f = withRule(advise(report, {}), "env.compile_disabled");
    ASSERT_EQ(f.size(), 2u);
    EXPECT_EQ(f[0].title, "default and max-autotune compiled nothing: TORCH_COMPILE_DISABLE=1 "
                          "turned torch.compile off, so they measured eager");
    EXPECT_EQ(f[0].run, -1);
    EXPECT_EQ(f[0].evidence.back(), "median default 100 µs (1.00×) and max-autotune 100 µs (1.00×) "
                                    "against eager's 100 µs: the same eager code (Compare tab)");
    EXPECT_EQ(f[1].setting, "reduce-overhead TORCHDYNAMO_DISABLE=1");
    EXPECT_NE(f[1].remedy.find("from the setting's env="), std::string::npos) << f[1].remedy;
}

// The model's code held Dynamo off (the probe's compile_time dynamo_off):
// named, with the call to remove. A variable that sets the same switch is
// the cause the finding names instead.
TEST(AdviceEnvironment, ASwitchInTheModelsCodeIsNamed) {
    cs::core::Run stance = uncompiled();
    stance.dynamoOff = "torch.compiler.set_stance(\"force_eager\")";
    auto findings = advise(pair(stance), {});
    auto f = withRule(findings, "compile.dynamo_off");
    ASSERT_EQ(f.size(), 1u);
    EXPECT_EQ(
        f[0].title,
        "default compiled nothing: torch.compiler.set_stance(\"force_eager\") held Dynamo off");
    EXPECT_NE(f[0].remedy.find("Remove torch.compiler.set_stance(\"force_eager\")"),
              std::string::npos)
        << f[0].remedy;
    EXPECT_TRUE(withRule(findings, "compile.no_graph").empty());
    EXPECT_TRUE(withRule(findings, "perf.no_gain").empty());

    cs::core::Run variable = uncompiled();
    variable.dynamoOff = "torch._dynamo.config.disable = True";
    findings = advise(pair(variable, {{"TORCH_COMPILE_DISABLE", "1"}}), {});
    EXPECT_EQ(withRule(findings, "env.compile_disabled").size(), 1u);
    EXPECT_TRUE(withRule(findings, "compile.dynamo_off").empty());
}
