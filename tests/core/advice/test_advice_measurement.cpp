// Rules 6-7: a disturbed measurement (the cross-check disagrees) and a warmup
// too short (the first measured calls still above the steady-state band).
#include <gtest/gtest.h>

#include "core/analysis/comparison.h"
#include "core/analysis/measurement_check.h"
#include "tests/core/advice_reports.h"

using namespace advice_test;

namespace {

constexpr int64_t kUs = 1000;

Run checkedRun(int64_t perCallNs, std::vector<double> blockMeans) {
    cs::core::Run run = timedRun("default", {50000 * kUs}, constant(40, perCallNs));
    run.crosscheckBlockCalls = 50;
    run.crosscheckBlockMeansNs = std::move(blockMeans);
    run.probe.threads = 2;
    run.probe.cpuAffinity = {0, 1};
    run.appCpuMeasureNs = 3000 * kUs;
    return run;
}

} // namespace

TEST(DisturbedRule, FiresWhenBlocksAndPerCallDisagree) {
    // per-call 230 us against blocks of 210 us: +9.5%, as a busy machine gives
    const auto report = reportOf({timedRun("eager", {1}, constant(40, 300 * kUs)),
                                  checkedRun(230 * kUs, {210e3, 211e3, 209e3})});
    const auto findings = withRule(advise(report, {}), "measure.disturbed");
    ASSERT_EQ(findings.size(), 1u);
    const auto& f = findings[0];
    EXPECT_EQ(f.run, 1);
    EXPECT_EQ(f.tab, EvidenceTab::Latency);
    EXPECT_NE(f.evidence[0].find("+9.5%"), std::string::npos) << f.evidence[0];
    EXPECT_NE(f.remedy.find("--threads"), std::string::npos);
    EXPECT_NE(f.remedy.find("--iters"), std::string::npos);
    bool namesAppCpu = false;
    for (const auto& e : f.evidence)
        namesAppCpu =
            namesAppCpu || e.find("compilescope itself used 3.00 ms") != std::string::npos;
    EXPECT_TRUE(namesAppCpu);
}

TEST(DisturbedRule, QuietWhenTheyAgreeOrThereIsNoCrosscheck) {
    const auto report = reportOf({timedRun("eager", {1}, constant(40, 300 * kUs)),
                                  checkedRun(230 * kUs, {225e3, 226e3, 224e3})});
    EXPECT_TRUE(withRule(advise(report, {}), "measure.disturbed").empty());
}

namespace {

// A 2 s measure phase on the probe's 2 CPUs: `busyNs` all processes, the probe's 1.9 s included.
const Environment here;

MachineCpu machineCpu(int64_t busyNs, int64_t stealNs = 0) {
    return MachineCpu{2, 2'000'000'000, busyNs, stealNs, 1'900'000'000, 10'000'000};
}

} // namespace

TEST(MachineLoad, OthersAreTheBusyTimeLessTheProbesAndTheAppsOwn) {
    cs::core::Run run = checkedRun(230 * kUs, {});
    run.measureMachineCpu = machineCpu(2'603'000'000);
    const auto load = machineLoad(run, here);
    ASSERT_TRUE(load);
    EXPECT_NEAR(load->otherCpus, 0.35, 1e-9); // (2.603 - 1.9 - 0.003 app) s over 2 s
    EXPECT_NEAR(load->probeCpus, 0.95, 1e-9);
    EXPECT_TRUE(load->contended()); // 2 threads + 0.35 on 2 CPUs
    EXPECT_EQ(machineLoadText(*load),
              "other processes kept 0.35 of the probe's 2 CPUs busy (the probe 0.95, 2 threads); "
              "steal 0.0%");
    // On a remote target the app ran elsewhere: its CPU is not taken off.
    Environment remote;
    remote.target = "ssh://gpu-box";
    EXPECT_NEAR(machineLoad(run, remote)->otherCpus, 0.3515, 1e-9);
}

TEST(MachineLoad, TheProbesChildProcessesAreItsOwnNotOthers) {
    // A recompile in the measure phase: the C++ compiler ran as the probe's
    // child, 1.7 of the probe's 1.9 s, on a machine busy 2.0 s of 2 CPUs.
    cs::core::Run run = checkedRun(230 * kUs, {});
    run.probe.threads = 1;
    run.measureMachineCpu = machineCpu(2'003'000'000);
    run.measureMachineCpu.childrenCpuNs = 1'700'000'000;
    const auto load = machineLoad(run, here);
    ASSERT_TRUE(load);
    EXPECT_NEAR(load->otherCpus, 0.05, 1e-9);
    EXPECT_NEAR(load->childCpus, 0.85, 1e-9);
    EXPECT_FALSE(load->contended());
    EXPECT_EQ(machineLoadText(*load),
              "other processes kept 0.05 of the probe's 2 CPUs busy (the probe 0.95, 0.85 of it "
              "in its child processes, 1 thread); steal 0.0%");
    const auto report = reportOf({run});
    EXPECT_TRUE(withRule(advise(report, {}), "measure.busy_machine").empty());
}

TEST(MachineLoad, ContendedOnlyWhenTheProbeAndTheOthersWantMoreThanTheCpus) {
    cs::core::Run run = checkedRun(230 * kUs, {});
    run.measureMachineCpu = machineCpu(2'003'000'000); // others 0.05 CPU: daemons
    EXPECT_FALSE(machineLoad(run, here)->contended());
    run.probe.threads = 1;
    run.measureMachineCpu = machineCpu(3'703'000'000); // others 0.9 beside 1 thread
    EXPECT_FALSE(machineLoad(run, here)->contended());
    run.measureMachineCpu = machineCpu(4'303'000'000); // others 1.2
    EXPECT_TRUE(machineLoad(run, here)->contended());
    // Steal alone: the hypervisor gave 5% of the CPUs' time to other guests.
    run.measureMachineCpu = machineCpu(1'903'000'000, 200'000'000);
    EXPECT_TRUE(machineLoad(run, here)->contended());
    // A phase under 0.5 s: ticks too coarse to judge.
    run.measureMachineCpu = machineCpu(4'303'000'000);
    run.measureMachineCpu.wallNs = 400'000'000;
    EXPECT_FALSE(machineLoad(run, here)->contended());
    EXPECT_NE(machineLoadVerdict(*machineLoad(run, here)).find("too short"), std::string::npos);
    run.measureMachineCpu = {};
    EXPECT_FALSE(machineLoad(run, here));
}

TEST(BusyMachineRule, NamesTheLoadAndTheSettingsMeasuredOnAQuieterMachine) {
    cs::core::Run eager = checkedRun(300 * kUs, {});
    eager.setting.mode = "eager";
    eager.measureMachineCpu = machineCpu(1'903'000'000);
    cs::core::Run busy = checkedRun(230 * kUs, {225e3, 226e3, 224e3}); // the cross-check agrees
    busy.measureMachineCpu = machineCpu(3'903'000'000);
    const auto report = reportOf({eager, busy});
    EXPECT_TRUE(withRule(advise(report, {}), "measure.disturbed").empty());
    const auto findings = withRule(advise(report, {}), "measure.busy_machine");
    ASSERT_EQ(findings.size(), 1u);
    const auto& f = findings[0];
    EXPECT_EQ(f.run, 1);
    EXPECT_EQ(f.tab, EvidenceTab::Latency);
    EXPECT_NE(f.title.find("default"), std::string::npos) << f.title;
    EXPECT_NE(f.evidence[0].find("other processes kept 1.00 of the probe's 2 CPUs"),
              std::string::npos)
        << f.evidence[0];
    ASSERT_EQ(f.evidence.size(), 2u);
    EXPECT_NE(f.evidence[1].find("eager was measured on a quieter machine"), std::string::npos)
        << f.evidence[1];
    EXPECT_NE(f.remedy.find("taskset"), std::string::npos);
    // Imported runs were not measured by the probe.
    Report imported = report;
    imported.runs[1].status = RunStatus::Imported;
    EXPECT_TRUE(withRule(advise(imported, {}), "measure.busy_machine").empty());
}

TEST(UnsettledRule, SaysHowManyCallsItTookToSettle) {
    std::vector<int64_t> measured{19000 * kUs, 15000 * kUs, 11000 * kUs, 12000 * kUs};
    for (int i = 0; i < 6; ++i)
        measured.push_back((269 + i) * kUs);
    cs::core::Run run = timedRun("default", {50000 * kUs, 900 * kUs}, measured);
    run.setting.warmup = 2;
    const auto findings = withRule(advise(reportOf({run}), {}), "measure.unsettled");
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_NE(findings[0].title.find("first 4 measured calls"), std::string::npos)
        << findings[0].title;
    EXPECT_NE(findings[0].remedy.find("--warmup 6"), std::string::npos) << findings[0].remedy;
    EXPECT_NE(findings[0].remedy.find("--drop-unsettled"), std::string::npos);

    run.droppedUnsettled = 4;
    const auto dropped = withRule(advise(reportOf({run}), {}), "measure.unsettled");
    ASSERT_EQ(dropped.size(), 1u);
    EXPECT_NE(dropped[0].evidence.back().find("4 of them are left out"), std::string::npos);

    EXPECT_TRUE(withRule(advise(reportOf({timedRun("default", {1}, constant(10, 269 * kUs))}), {}),
                         "measure.unsettled")
                    .empty());
}

TEST(UnsettledRule, RecompilesAmongTheMeasuredCallsAreNotAShortWarmup) {
    // self.calls == N guards: each measured call compiled until torch's limit.
    std::vector<int64_t> measured{1'400'000 * kUs, 1'300'000 * kUs, 1'500'000 * kUs};
    for (int i = 0; i < 10; ++i)
        measured.push_back((23 + i % 2) * kUs);
    cs::core::Run run = timedRun("default", {16'000'000 * kUs, 900 * kUs}, measured);
    run.setting.warmup = 5;
    for (int i = 0; i < 3; ++i)
        run.recompiles.push_back({"forward", "self.calls == " + std::to_string(5 + i), 6 + i, "",
                                  false, 8, "", "measure"});
    run.recompiles.push_back({"", "0/7: self.calls == 7", 8, "", true, 8, "", "measure"});
    run.recompiles.push_back({"forward", "self.calls == 1", 2, "", false, 8, "", "warmup"});
    const auto findings = withRule(advise(reportOf({run}), {}), "measure.unsettled");
    ASSERT_EQ(findings.size(), 1u);
    const auto& f = findings[0];
    EXPECT_EQ(f.title, "default: the measured calls recompiled; the first 3 were not steady");
    bool counted = false;
    for (const auto& e : f.evidence)
        counted = counted || e == "3 recompiles of forward happened among the measured calls: "
                                  "compile time, not warmup";
    EXPECT_TRUE(counted);
    EXPECT_EQ(f.remedy.find("--warmup"), std::string::npos) << f.remedy;
    EXPECT_NE(f.remedy.find("Stop the recompiles"), std::string::npos) << f.remedy;
    EXPECT_NE(f.remedy.find("--drop-unsettled"), std::string::npos) << f.remedy;

    // The same calls with the recompiles in the warmup: a short warmup, as before.
    for (auto& rc : run.recompiles)
        rc.phase = "warmup";
    const auto warm = withRule(advise(reportOf({run}), {}), "measure.unsettled");
    ASSERT_EQ(warm.size(), 1u);
    EXPECT_NE(warm[0].remedy.find("--warmup 8"), std::string::npos) << warm[0].remedy;
}

TEST(RecompiledRule, ARecompileLaterAmongTheMeasuredCallsIsAnOutlierWithACause) {
    // A guard that fails every 20 calls: the start settles, two calls compile.
    std::vector<int64_t> measured = constant(40, 269 * kUs);
    measured[19] = 150'000 * kUs;
    measured[34] = 140'000 * kUs;
    cs::core::Run run = timedRun("default", {16'000'000 * kUs, 900 * kUs}, measured);
    EXPECT_TRUE(withRule(advise(reportOf({run}), {}), "measure.recompiled").empty());

    // Calls 21 and 36 of the run are measured calls 20 and 35.
    run.recompiles.push_back(
        {"forward", "1/0: self.level == 0\nmore", 2, "", false, 8, "", "measure", 21});
    run.recompiles.push_back(
        {"forward", "1/1: self.level == 1", 3, "", false, 8, "", "measure", 36});
    run.recompiles.push_back({"forward", "1/2: self.level == 2", 4, "", false, 8, "", "profile"});
    const auto all = advise(reportOf({run}), {});
    EXPECT_TRUE(withRule(all, "measure.unsettled").empty()) << "the start settled";
    const auto findings = withRule(all, "measure.recompiled");
    ASSERT_EQ(findings.size(), 1u);
    const auto& f = findings[0];
    EXPECT_EQ(f.title, "default: 2 recompiles among the measured calls");
    ASSERT_GE(f.evidence.size(), 3u);
    EXPECT_EQ(f.evidence[0],
              "measured call 20 took 150 ms: forward recompiled (1/0: self.level == 0)");
    EXPECT_EQ(f.evidence[1],
              "measured call 35 took 140 ms: forward recompiled (1/1: self.level == 1)");
    EXPECT_NE(f.evidence[2].find("the median, 269"), std::string::npos) << f.evidence[2];
    EXPECT_NE(f.remedy.find("Stop the recompiles"), std::string::npos) << f.remedy;
    EXPECT_EQ(f.remedy.find("--warmup"), std::string::npos) << f.remedy;
    EXPECT_DOUBLE_EQ(f.confidence, 0.8);

    // Four calls are named; the rest counted, in the singular for one.
    cs::core::Run five = run;
    five.recompiles.pop_back();
    for (int index : {6, 11, 16}) { // measured calls 5, 10 and 15
        five.iterations[static_cast<size_t>(index)].latencyNs = 100'000 * kUs;
        five.recompiles.push_back(
            {"forward", "1/9: self.level == 9", 5, "", false, 8, "", "measure", index});
    }
    const auto named = withRule(advise(reportOf({five}), {}), "measure.recompiled");
    ASSERT_EQ(named.size(), 1u);
    EXPECT_EQ(named[0].title, "default: 5 recompiles among the measured calls");
    ASSERT_GE(named[0].evidence.size(), 5u);
    EXPECT_EQ(named[0].evidence[4], "1 more measured call recompiled");

    // An older report: the phase but not the call.
    for (auto& rc : run.recompiles)
        rc.callIndex = -1;
    const auto unlocated = withRule(advise(reportOf({run}), {}), "measure.recompiled");
    ASSERT_EQ(unlocated.size(), 1u);
    EXPECT_EQ(unlocated[0].evidence[0], "2 recompiles of forward happened among the measured "
                                        "calls (the report does not say which)");
    EXPECT_DOUBLE_EQ(unlocated[0].confidence, 0.6);
}

TEST(RecompiledRule, AShortWarmupAndALaterRecompileAreToldApart) {
    // The first three measured calls still warming up (no compile in them),
    // and measured call 30 recompiled: two findings, each with its remedy.
    std::vector<int64_t> measured{19000 * kUs, 15000 * kUs, 11000 * kUs};
    for (int i = 0; i < 37; ++i)
        measured.push_back((269 + i % 3) * kUs);
    measured[29] = 150'000 * kUs;
    cs::core::Run run = timedRun("default", {16'000'000 * kUs, 900 * kUs}, measured);
    run.setting.warmup = 2;
    run.recompiles.push_back({"torch_dynamo_resume_in_forward_at_25",
                              "1/1: self.level == 1      # return x  # m.py:26 "
                              "(HINT: torch.compile considers integer attributes ...)",
                              2, "", false, 8, "", "measure", 31});
    const auto all = advise(reportOf({run}), {});
    const auto unsettled = withRule(all, "measure.unsettled");
    ASSERT_EQ(unsettled.size(), 1u);
    EXPECT_NE(unsettled[0].title.find("warmup too short"), std::string::npos) << unsettled[0].title;
    EXPECT_NE(unsettled[0].remedy.find("--warmup 5"), std::string::npos) << unsettled[0].remedy;
    const auto recompiled = withRule(all, "measure.recompiled");
    ASSERT_EQ(recompiled.size(), 1u);
    EXPECT_EQ(recompiled[0].evidence[0],
              "measured call 30 took 150 ms: forward (after the break at "
              "line 25) recompiled (1/1: self.level == 1)");
}

namespace {

Run referenced(const std::string& mode, int64_t medianNs, int64_t beforeNs, int64_t afterNs) {
    cs::core::Run run = timedRun(mode, {1000 * kUs}, constant(40, medianNs));
    run.hostReference.beforeNs = beforeNs;
    run.hostReference.afterNs = afterNs;
    return run;
}

} // namespace

// An LSTM on this project's VM: eager at 550 µs, default measured during a
// minute when the whole machine ran at half speed (1.15 ms), cross-check and
// CPU counters silent. The reference workload shows the machine's change.
TEST(HostDriftRule, ASettingMeasuredOnASlowerMachineIsNotLikeForLike) {
    const auto report = reportOf({referenced("eager", 550 * kUs, 1000 * kUs, 1020 * kUs),
                                  referenced("default", 1150 * kUs, 1950 * kUs, 2010 * kUs)});
    const auto findings = withRule(advise(report, {}), "measure.host_drift");
    ASSERT_EQ(findings.size(), 1u);
    const Finding& f = findings.front();
    EXPECT_EQ(f.run, 1);
    EXPECT_EQ(f.tab, EvidenceTab::Compare);
    EXPECT_NE(f.title.find("1.96× slower than during eager's measurement"), std::string::npos)
        << f.title;
    EXPECT_NE(f.evidence[0].find("took 1.98 ms around default's measurement and 1.01 ms around "
                                 "eager's"),
              std::string::npos)
        << f.evidence[0];
    // The comparison row says so too, for the CLI, the Compare tab and the HTML.
    const auto comparison = cs::core::compareRuns(report);
    ASSERT_EQ(comparison.rows.size(), 2u);
    bool noted = false;
    for (const auto& note : comparison.rows[1].notes)
        noted = noted || note.find("not like for like") != std::string::npos;
    EXPECT_TRUE(noted);
}

TEST(HostDriftRule, AChangeWithinOneRunIsSaidAndAQuietMachineIsNot) {
    auto report = reportOf({referenced("eager", 550 * kUs, 1000 * kUs, 1040 * kUs),
                            referenced("default", 600 * kUs, 820 * kUs, 1230 * kUs)});
    auto findings = withRule(advise(report, {}), "measure.host_drift");
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_NE(findings[0].title.find("changed speed while it measured"), std::string::npos)
        << findings[0].title;
    EXPECT_EQ(findings[0].tab, EvidenceTab::Latency);
    EXPECT_NE(findings[0].evidence.back().find("820 µs before the warmup and 1.23 ms after"),
              std::string::npos)
        << findings[0].evidence.back();

    EXPECT_EQ(cs::core::hostReferenceText(report.runs[1]),
              "820 µs before the warmup and 1.23 ms after the measured calls: the machine changed "
              "speed");
    EXPECT_NE(cs::core::hostReferenceText(report.runs[0]).find(": steady"), std::string::npos);

    // Within ±25% both ways, and without a reference (an older report): quiet.
    report = reportOf({referenced("eager", 550 * kUs, 1000 * kUs, 1100 * kUs),
                       referenced("default", 300 * kUs, 1150 * kUs, 1200 * kUs)});
    EXPECT_TRUE(withRule(advise(report, {}), "measure.host_drift").empty());
    report =
        reportOf({referenced("eager", 550 * kUs, 0, 0), referenced("default", 300 * kUs, 0, 0)});
    EXPECT_TRUE(withRule(advise(report, {}), "measure.host_drift").empty());
}

// A model that appends to a cache it is given (recorded, eager): the probe's
// warning becomes one finding naming the tensor; a run without it, none.
TEST(AdviceMeasurement, AModelThatGrowsItsInputsIsOneFindingNamingTheTensor) {
    cs::core::Setting setting;
    setting.mode = "eager";
    const cs::core::Run grown = fixtureRun("advice_growing_input.jsonl", setting);
    cs::core::Run plain = timedRun("default", {}, {});
    const auto found = withRule(advise(reportOf({grown, plain}), {}), "measure.inputs_changed");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].severity, Severity::Warning);
    EXPECT_EQ(found[0].run, 0);
    EXPECT_NE(found[0].title.find("each call of eager did different work"), std::string::npos)
        << found[0].title;
    ASSERT_EQ(found[0].evidence.size(), 1u);
    EXPECT_EQ(found[0].evidence[0].rfind("eager: cache.keys went from [1, 4] to [", 0), 0u)
        << found[0].evidence[0];
    EXPECT_EQ(found[0].evidence[0].find("Each call"), std::string::npos) << found[0].evidence[0];
    EXPECT_NE(found[0].remedy.find("StaticCache"), std::string::npos);
    EXPECT_TRUE(withRule(advise(reportOf({plain}), {}), "measure.inputs_changed").empty());
}

// The probe names its warning with a code and the changes with a detail; a
// line an older probe wrote has neither and is read by its wording.
TEST(AdviceMeasurement, TheInputsChangedLineIsReadByItsCodeOrAnOlderProbesWording) {
    cs::core::Run coded = timedRun("default", {}, {});
    coded.logs.push_back({0, "warning", "any wording at all", "inputs_changed",
                          "past.keys went from [1, 8] to [1, 9]"});
    cs::core::Run older = timedRun("eager", {}, {});
    older.logs.push_back({0, "warning",
                          "the model changed its own inputs' shapes over the calls the probe made: "
                          "cache went from [2] to [3]. Each call then did different work and the "
                          "statistics describe none of them."});
    cs::core::Run quoted = timedRun("default", {}, {});
    // A code the rule does not read, with the old wording: not this finding.
    quoted.logs.push_back({0, "warning",
                           "the model changed its own inputs' shapes over the calls the probe "
                           "made: y. Each call then did different work",
                           "something_else", "y"});
    const auto found =
        withRule(advise(reportOf({coded, older, quoted}), {}), "measure.inputs_changed");
    ASSERT_EQ(found.size(), 1u);
    ASSERT_EQ(found[0].evidence.size(), 2u);
    EXPECT_EQ(found[0].evidence[0], "default: past.keys went from [1, 8] to [1, 9]");
    EXPECT_EQ(found[0].evidence[1], "eager: cache went from [2] to [3]");
}

// A timm ViT measured while a build ran: default 0.30x eager, "significantly
// slower" at 90%; on a quiet machine the two measured 1.00x. The verdict
// stands but says it was measured under load, and is held less sure.
TEST(BusyMachineRule, ASpeedVerdictOnALoadedMachineSaysSo) {
    cs::core::Run eager = checkedRun(40 * kUs * 1000, {});
    eager.setting.mode = "eager";
    eager.measureMachineCpu = machineCpu(3'450'000'000); // others 0.53 beside the probe's 0.95
    cs::core::Run compiled = checkedRun(136 * kUs * 1000, {});
    compiled.measureMachineCpu = machineCpu(3'900'000'000); // others 0.88
    auto findings = withRule(advise(reportOf({eager, compiled}), {}), "perf.no_gain");
    ASSERT_EQ(findings.size(), 1u);
    const Finding& f = findings[0];
    bool said = false;
    for (const auto& e : f.evidence)
        said |= e.find("measured while other work shared the CPUs (eager others kept") !=
                    std::string::npos &&
                e.find("default others kept") != std::string::npos;
    EXPECT_TRUE(said);
    EXPECT_EQ(f.remedy.rfind("Measure again on a quiet machine", 0), 0u) << f.remedy;
    EXPECT_LE(f.confidence, 0.4);

    // Both quiet: the verdict as it was.
    eager.measureMachineCpu = machineCpu(1'903'000'000);
    compiled.measureMachineCpu = machineCpu(1'903'000'000);
    findings = withRule(advise(reportOf({eager, compiled}), {}), "perf.no_gain");
    ASSERT_EQ(findings.size(), 1u);
    for (const auto& e : findings[0].evidence)
        EXPECT_EQ(e.find("other work shared"), std::string::npos) << e;
    EXPECT_GE(findings[0].confidence, 0.8);
}

// perf.autocast holds a setting against itself without autocast: the load on
// either of those two is what makes its ratio doubtful, not eager's.
TEST(BusyMachineRule, AnAutocastVerdictOnALoadedMachineSaysSo) {
    cs::core::Run plain = checkedRun(40 * kUs * 1000, {});
    plain.measureMachineCpu = machineCpu(1'903'000'000);
    cs::core::Run autocast = checkedRun(136 * kUs * 1000, {});
    autocast.setting.autocast = "bf16";
    autocast.measureMachineCpu = machineCpu(3'900'000'000); // others 0.88
    auto findings = withRule(advise(reportOf({plain, autocast}), {}), "perf.autocast");
    ASSERT_EQ(findings.size(), 1u);
    bool said = false;
    for (const auto& e : findings[0].evidence)
        said |= e.find("measured while other work shared the CPUs (default bf16 others kept") !=
                std::string::npos;
    EXPECT_TRUE(said);
    EXPECT_EQ(findings[0].remedy.rfind("Measure again on a quiet machine", 0), 0u);
    EXPECT_LE(findings[0].confidence, 0.4);

    autocast.measureMachineCpu = machineCpu(1'903'000'000);
    findings = withRule(advise(reportOf({plain, autocast}), {}), "perf.autocast");
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_NE(findings[0].remedy.rfind("Measure again on a quiet machine", 0), 0u);
}

// get_model() left the model in training mode: the probe's warning becomes
// one finding for the model, not one per setting.
TEST(AdviceMeasurement, AModelLeftInTrainingModeIsOneFinding) {
    auto eager = timedRun("eager", {1000}, constant(20, 100));
    auto compiled = timedRun("default", {1000}, constant(20, 60));
    for (auto* run : {&eager, &compiled})
        run->logs.push_back({0, "warning", "get_model() returned the model in training mode, …",
                             "training_mode", "BatchNorm2d, Dropout"});
    const auto found = withRule(advise(reportOf({eager, compiled}), {}), "model.training_mode");
    ASSERT_EQ(found.size(), 1u);
    EXPECT_TRUE(hasLine(found.front().evidence, "act otherwise in training mode: BatchNorm2d, "
                                                "Dropout"));
    EXPECT_NE(found.front().remedy.find("call model.eval()"), std::string::npos);
    EXPECT_TRUE(withRule(advise(reportOf({timedRun("eager", {1000}, constant(20, 100))}), {}),
                         "model.training_mode")
                    .empty());
}

// A model with an autograd.Function on a noisy VM: default 122 µs a call
// against eager's 81.2 µs, "slower than eager (0.66×)" at 90%, while the
// blocks timed after the calls took 82.4 µs and 90.6 µs: both per-call
// timings disturbed. The verdict says what the blocks say and is held less sure.
TEST(DisturbedRule, ASpeedVerdictTheBlocksContradictSaysSo) {
    cs::core::Run eager = checkedRun(81 * kUs, {90.6e3, 90.5e3, 90.7e3});
    eager.setting.mode = "eager";
    cs::core::Run compiled = checkedRun(122 * kUs, {82.4e3, 82.3e3, 82.5e3});
    auto findings = withRule(advise(reportOf({eager, compiled}), {}), "perf.no_gain");
    ASSERT_EQ(findings.size(), 1u);
    const Finding& f = findings[0];
    const std::string told =
        "the per-call timing was disturbed (default +48.1% and eager -10.6%, "
        "each against its own blocks, measure.disturbed): by the blocks of calls timed "
        "after them, default took 82.4 µs per call and eager 90.6 µs (1.10×, "
        "the other way)";
    EXPECT_NE(std::find(f.evidence.begin(), f.evidence.end(), told), f.evidence.end())
        << ::testing::PrintToString(f.evidence);
    EXPECT_EQ(f.remedy.rfind("Measure again before acting on this", 0), 0u) << f.remedy;
    EXPECT_LE(f.confidence, 0.4);

    // Blocks that agree on the direction: told, held a little less sure.
    compiled.crosscheckBlockMeansNs = {100e3, 100.2e3, 99.8e3};
    findings = withRule(advise(reportOf({eager, compiled}), {}), "perf.no_gain");
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_NE(findings[0].remedy.rfind("Measure again", 0), 0u) << findings[0].remedy;
    EXPECT_DOUBLE_EQ(findings[0].confidence, 0.6);

    // Neither disturbed: the verdict as it was.
    eager.crosscheckBlockMeansNs = {81.5e3, 81.4e3, 81.6e3};
    compiled.crosscheckBlockMeansNs = {121e3, 121.5e3, 120.5e3};
    findings = withRule(advise(reportOf({eager, compiled}), {}), "perf.no_gain");
    ASSERT_EQ(findings.size(), 1u);
    for (const auto& e : findings[0].evidence)
        EXPECT_EQ(e.find("disturbed"), std::string::npos) << e;
    EXPECT_GE(findings[0].confidence, 0.8);
}
