// GPU data in the model: the gpu_trace event, the kernel summary's details,
// the JSON report's round trip of both, memory per phase and the "why empty"
// texts. Replays the synthetic GPU streams of tests/fixtures/cupti and a real
// CPU stream of the probe.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "core/analysis/gpu_status.h"
#include "core/analysis/memory_timeline.h"
#include "core/events/event_parser.h"
#include "core/report/report_json.h"

using namespace cs::core;

namespace {

constexpr int64_t MiB = 1 << 20;

std::string readFixture(const std::string& name) {
    std::ifstream in(std::string(COMPILESCOPE_FIXTURES) + "/" + name, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

cs::core::Run replayFixture(const std::string& name, const std::string& mode,
                            RunStatus status = RunStatus::Ok) {
    Setting setting;
    setting.mode = mode;
    cs::core::Run run = replayStream(readFixture(name), setting);
    run.status = status;
    return run;
}

} // namespace

TEST(GpuData, GpuTraceEventBecomesSlicesInTimeOrder) {
    const cs::core::Run run = replayFixture("cupti/run_reduce_overhead.jsonl", "reduce-overhead");
    ASSERT_TRUE(run.parseProblems.empty());
    // 4 iterations of: memcpy, copy kernel, three graph kernels.
    ASSERT_EQ(run.gpuTrace.size(), 20u);
    EXPECT_EQ(run.gpuTracePhase, "measure");
    EXPECT_EQ(run.gpuTraceTruncated, 0);
    const GpuSlice& first = run.gpuTrace.front();
    EXPECT_EQ(first.kind, GpuSlice::Memcpy);
    EXPECT_EQ(first.name, "memcpy htod");
    EXPECT_EQ(first.bytes, 4096);
    EXPECT_EQ(first.startNs, 1006001000);
    EXPECT_EQ(first.endNs, 1006005000);
    EXPECT_EQ(run.gpuTrace[2].name, "triton_per_fused_native_layer_norm_0");
    EXPECT_EQ(run.gpuTrace[2].stream, 8);
    for (size_t i = 1; i < run.gpuTrace.size(); ++i)
        EXPECT_LE(run.gpuTrace[i - 1].startNs, run.gpuTrace[i].startNs);
    const PhaseSpan* measure = run.phase("measure");
    ASSERT_TRUE(measure);
    for (const auto& s : run.gpuTrace) {
        EXPECT_GE(s.startNs, measure->beginNs);
        EXPECT_LT(s.startNs, measure->endNs);
    }
}

TEST(GpuData, MalformedGpuTraceRowsAreCountedNotGuessed) {
    const cs::core::Run run = replayStream(
        R"J({"type":"gpu_trace","t_ns":5,"phase":"measure","names":["k"],"truncated":7,)J"
        R"J("records":[[1,10,20,0,0,0],[1,30,25,0,0,0],[1,40,50,0,3,0],"bad",[1,60,70,0,0.5,0],[2,80,90,7,0,64]]})J"
        "\n");
    ASSERT_EQ(run.gpuTrace.size(), 2u);
    EXPECT_EQ(run.gpuTrace[1].bytes, 64);
    EXPECT_EQ(run.gpuTrace[1].stream, 7);
    EXPECT_EQ(run.gpuTraceTruncated, 7);
    ASSERT_EQ(run.logs.size(), 1u);
    EXPECT_NE(run.logs[0].message.find("4 malformed"), std::string::npos);
}

TEST(GpuData, KernelSummaryKeepsEveryFieldTheTabsShow) {
    const cs::core::Run run = replayFixture("cupti/run_default.jsonl", "default");
    const KernelSummary& k = run.kernels;
    ASSERT_TRUE(k.present);
    EXPECT_EQ(k.iterations, 4);
    EXPECT_DOUBLE_EQ(k.launchesPerIter, 4.0);
    EXPECT_DOUBLE_EQ(k.kernelsPerIter, 4.0);
    EXPECT_DOUBLE_EQ(k.gpuNsPerIter, 110000.0);
    EXPECT_DOUBLE_EQ(k.busyFraction, 0.36);
    EXPECT_EQ(k.memcpyCount, 4);
    EXPECT_EQ(k.memcpyBytes, 4 * 4096);
    EXPECT_EQ(k.memcpyBytesByKind.at("htod"), 4 * 4096);
    EXPECT_EQ(k.memsetCount, 0);
    EXPECT_EQ(k.windowNs, 1000000);
    EXPECT_EQ(k.kernelRecords, 17);
    EXPECT_EQ(k.dropped, 0);
    ASSERT_EQ(k.top.size(), 4u);
    EXPECT_EQ(k.top[0].name, "triton_per_fused_native_layer_norm_0");
    const MemorySeries* device = run.memorySeries("device");
    ASSERT_TRUE(device);
    EXPECT_EQ(device->unknownFrees, 1);
    EXPECT_EQ(device->baseline, 0);
}

TEST(GpuData, ReportRoundTripKeepsGpuTraceAndDetails) {
    Report report;
    report.generator = "test";
    report.runs.push_back(replayFixture("cupti/run_reduce_overhead.jsonl", "reduce-overhead"));
    report.runs.push_back(replayFixture("cupti/run_default.jsonl", "default"));
    report.runs.push_back(replayFixture("streams/mlp_eager_cpu.jsonl", "eager"));
    report.runs[1].kernels.memsetCount = 3; // a field the fixture leaves at zero
    report.runs[1].kernels.note = "a note";
    report.runs[1].memory[0].dropped = 2; // bookkeeping on a host series is kept too
    report.deriveFromRuns();
    const std::string first = writeReportJson(report);
    auto read = readReportJson(first, "memory");
    ASSERT_TRUE(read.ok) << read.error;
    EXPECT_TRUE(read.warnings.empty());
    EXPECT_EQ(read.report, report);
    EXPECT_EQ(writeReportJson(read.report), first);

    const auto doc = nlohmann::json::parse(first);
    const auto& trace = doc["runs"][0]["gpu_trace"];
    EXPECT_EQ(trace["records"].size(), 20u);
    EXPECT_EQ(trace["names"].size(), 5u); // each name once
    EXPECT_EQ(doc["runs"][0]["kernels"]["kernels_per_iter"], 4.0);
    EXPECT_EQ(doc["runs"][0]["kernels"]["memcpy"]["bytes_by_kind"]["htod"], 4 * 4096);
    EXPECT_TRUE(doc["runs"][2]["gpu_trace"].is_null()); // CPU: no GPU timeline
    EXPECT_TRUE(doc["runs"][2]["kernels"].is_null());
}

TEST(GpuData, ReportWithBrokenGpuTraceWarnsAndKeepsTheRest) {
    Report report;
    report.runs.push_back(replayFixture("cupti/run_default.jsonl", "default"));
    auto doc = reportToJson(report);
    doc["runs"][0]["gpu_trace"]["records"][0] = "garbage";
    auto read = readReportJson(doc.dump(), "broken.json");
    ASSERT_TRUE(read.ok);
    ASSERT_EQ(read.warnings.size(), 1u);
    EXPECT_NE(read.warnings[0].find("1 malformed gpu_trace"), std::string::npos);
    EXPECT_EQ(read.report.runs[0].gpuTrace.size(), 19u);
}

TEST(MemoryTimeline, DevicePeaksComeFromTheProbeAndHostPeaksFromSamples) {
    const cs::core::Run gpu = replayFixture("cupti/run_reduce_overhead.jsonl", "reduce-overhead");
    const auto devicePeaks = phasePeaks(*gpu.memorySeries("device"), gpu);
    EXPECT_EQ(devicePeaks.at("compile"), 86 * MiB);
    EXPECT_EQ(devicePeaks.at("measure"), 54 * MiB);

    const cs::core::Run cpu = replayFixture("streams/mlp_eager_cpu.jsonl", "eager");
    const MemorySeries* rss = cpu.memorySeries("host_rss");
    ASSERT_TRUE(rss);
    ASSERT_TRUE(rss->phasePeaks.empty()); // the probe sends none for RSS
    const auto hostPeaks = phasePeaks(*rss, cpu);
    for (const char* phase : {"load", "compile", "warmup", "measure"}) {
        ASSERT_TRUE(hostPeaks.count(phase)) << phase;
        // The peak is one of the samples held during the phase, and none held there is higher.
        const PhaseSpan* span = cpu.phase(phase);
        int64_t expected = -1;
        for (const auto& [t, bytes] : rss->samples) {
            if (t <= span->beginNs)
                expected = bytes; // what was held as it began
            else if (t <= span->endNs)
                expected = std::max(expected, bytes);
        }
        EXPECT_EQ(hostPeaks.at(phase), expected) << phase;
    }
}

TEST(MemoryTimeline, PeakCountsWhatWasHeldAsThePhaseBegan) {
    cs::core::Run run;
    run.phases = {{"measure", 100, 200}};
    MemorySeries series{"host_rss", {{50, 900}, {150, 300}, {250, 5000}}, {}};
    EXPECT_EQ(phasePeaks(series, run).at("measure"), 900);
    // Samples out of time order (two sampling threads) give the same answer.
    MemorySeries shuffled{"host_rss", {{150, 300}, {50, 900}, {250, 5000}}, {}};
    EXPECT_EQ(phasePeaks(shuffled, run).at("measure"), 900);
    // An open phase runs to the end of the run.
    run.phases = {{"measure", 100, -1}};
    EXPECT_EQ(phasePeaks(series, run).at("measure"), 5000);
}

TEST(MemoryTimeline, TorchCountersSitAtTheirPhaseEdges) {
    const cs::core::Run run = replayFixture("cupti/run_reduce_overhead.jsonl", "reduce-overhead");
    const auto points = memoryStatsTimeline(run);
    ASSERT_EQ(points.size(), 8u); // begin and end of four phases
    for (size_t i = 1; i < points.size(); ++i)
        EXPECT_LE(points[i - 1].tNs, points[i].tNs);
    const PhaseSpan* compile = run.phase("compile");
    auto end = std::find_if(points.begin(), points.end(), [](const MemoryStatsPoint& p) {
        return p.stats.phase == "compile" && p.stats.edge == "end";
    });
    ASSERT_NE(end, points.end());
    EXPECT_EQ(end->tNs, compile->endNs);
    EXPECT_EQ(end->stats.peakReserved, 86 * MiB);

    cs::core::Run orphan;
    orphan.memoryStats.push_back({"measure", "end", 1, 2, 3, 4}); // no such phase seen
    EXPECT_TRUE(memoryStatsTimeline(orphan).empty());
}

TEST(MemoryTimeline, PhaseOrderIsTheHarnessOrderThenOthers) {
    Report report;
    cs::core::Run a;
    a.phases = {{"measure", 3, 4}, {"load", 1, 2}, {"custom", 5, 6}};
    cs::core::Run b;
    b.phases = {{"compile", 1, 2}};
    report.runs = {a, b};
    EXPECT_EQ(phaseOrder(report),
              (std::vector<std::string>{"load", "compile", "measure", "custom"}));
}

TEST(GpuStatus, CpuRunSaysNoCudaDeviceWithTheProbesReason) {
    const cs::core::Run cpu = replayFixture("streams/mlp_eager_cpu.jsonl", "eager");
    EXPECT_FALSE(ranOnCuda(cpu));
    const std::string why = gpuDataMissingReason(cpu, GpuData::Kernels);
    EXPECT_EQ(why.rfind(kNoCudaMessage, 0), 0u) << why;
    EXPECT_NE(why.find(cpu.cuptiMessage), std::string::npos) << why;
    EXPECT_EQ(gpuDataMissingReason(cpu, GpuData::Memory), why);
    EXPECT_NE(gpuDataHint(cpu).find("NVIDIA GPU"), std::string::npos);
}

TEST(GpuStatus, GpuRunWithDataNeedsNoReason) {
    const cs::core::Run gpu = replayFixture("cupti/run_default.jsonl", "default");
    EXPECT_TRUE(ranOnCuda(gpu));
    EXPECT_EQ(gpuDataMissingReason(gpu, GpuData::Kernels), "");
    EXPECT_EQ(gpuDataMissingReason(gpu, GpuData::Memory), "");
}

TEST(GpuStatus, CudaRunWithoutCuptiUsesItsMessage) {
    cs::core::Run run = replayStream(
        R"J({"type":"hello","t_ns":1,"protocol":1,"device":"cuda:0"})J"
        "\n"
        R"J({"type":"cupti_status","t_ns":2,"active":false,"message":"CUPTI off: --no-cupti"})J"
        "\n");
    run.status = RunStatus::Ok;
    EXPECT_EQ(gpuDataMissingReason(run, GpuData::Memory), "CUPTI off: --no-cupti");
    EXPECT_NE(gpuDataHint(run).find("--no-cupti"), std::string::npos);

    cs::core::Run active =
        replayStream(R"J({"type":"hello","t_ns":1,"protocol":1,"device":"cuda:0"})J"
                     "\n"
                     R"J({"type":"cupti_status","t_ns":2,"active":true,"message":"CUPTI 13.2"})J"
                     "\n");
    active.status = RunStatus::Running;
    EXPECT_NE(gpuDataMissingReason(active, GpuData::Kernels).find("arrive when the run ends"),
              std::string::npos);
    active.status = RunStatus::Crashed;
    EXPECT_NE(gpuDataMissingReason(active, GpuData::Kernels).find("no kernel summary"),
              std::string::npos);

    cs::core::Run silent;
    silent.status = RunStatus::Crashed;
    EXPECT_FALSE(gpuDataMissingReason(silent, GpuData::Kernels).empty());
}
