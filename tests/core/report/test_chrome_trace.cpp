// The Chrome trace export parsed back: valid JSON with the fields Perfetto's
// JSON importer reads, sorted, slices nesting per track, and the run's phases,
// calls, memory counters and GPU records all there.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "core/events/event_parser.h"
#include "core/report/chrome_trace.h"

using namespace cs::core;
using nlohmann::json;

namespace {

std::string readFixture(const std::string& name) {
    std::ifstream in(std::string(COMPILESCOPE_FIXTURES) + "/" + name, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

cs::core::Run replayFixture(const std::string& name, const std::string& mode) {
    Setting setting;
    setting.mode = mode;
    cs::core::Run run = replayStream(readFixture(name), setting);
    run.status = RunStatus::Ok;
    return run;
}

Report gpuReport() {
    Report report;
    report.generator = "test";
    report.runs.push_back(replayFixture("cupti/run_default.jsonl", "default"));
    report.runs.push_back(replayFixture("cupti/run_reduce_overhead.jsonl", "reduce-overhead"));
    return report;
}

json parsedTrace(const Report& report) {
    const std::string text = writeChromeTrace(report);
    json doc = json::parse(text, nullptr, false);
    EXPECT_FALSE(doc.is_discarded());
    return doc;
}

// The checks every trace must pass, whatever it holds.
void expectWellFormed(const json& doc) {
    ASSERT_TRUE(doc.is_object());
    ASSERT_TRUE(doc["traceEvents"].is_array());
    double lastTs = -1e300;
    bool metadataDone = false;
    // Per (pid, tid): the slices still open, to check they nest.
    std::map<std::pair<int, int>, std::vector<double>> open;
    for (const auto& e : doc["traceEvents"]) {
        ASSERT_TRUE(e.is_object());
        ASSERT_TRUE(e["ph"].is_string()) << e.dump();
        ASSERT_TRUE(e["name"].is_string()) << e.dump();
        ASSERT_TRUE(e["pid"].is_number_integer()) << e.dump();
        ASSERT_TRUE(e["tid"].is_number_integer()) << e.dump();
        const std::string ph = e["ph"];
        if (ph == "M") {
            EXPECT_FALSE(metadataDone) << "metadata after timed events";
            EXPECT_TRUE(e["args"].is_object());
            continue;
        }
        metadataDone = true;
        ASSERT_TRUE(e["ts"].is_number()) << e.dump();
        const double ts = e["ts"];
        EXPECT_GE(ts, 0.0) << e.dump();
        EXPECT_GE(ts, lastTs) << "events out of time order: " << e.dump();
        lastTs = ts;
        if (ph == "X") {
            ASSERT_TRUE(e["dur"].is_number()) << e.dump();
            const double dur = e["dur"];
            EXPECT_GE(dur, 0.0);
            auto& stack = open[{e["pid"].get<int>(), e["tid"].get<int>()}];
            while (!stack.empty() && stack.back() <= ts)
                stack.pop_back();
            if (!stack.empty()) {
                EXPECT_LE(ts + dur, stack.back() + 1e-9)
                    << "slice overlaps its track without nesting: " << e.dump();
            }
            stack.push_back(ts + dur);
        } else if (ph == "C") {
            ASSERT_TRUE(e["args"].is_object());
            for (const auto& [key, value] : e["args"].items())
                EXPECT_TRUE(value.is_number()) << key;
        } else {
            EXPECT_EQ(ph, "i") << e.dump();
        }
    }
}

// name of each (pid, tid) track and of each pid.
std::map<std::pair<int, int>, std::string> trackNames(const json& doc) {
    std::map<std::pair<int, int>, std::string> names;
    for (const auto& e : doc["traceEvents"]) {
        if (e["ph"] == "M" && e["name"] == "thread_name")
            names[{e["pid"].get<int>(), e["tid"].get<int>()}] = e["args"]["name"];
        if (e["ph"] == "M" && e["name"] == "process_name")
            names[{e["pid"].get<int>(), -1}] = e["args"]["name"];
    }
    return names;
}

std::vector<json> eventsOn(const json& doc, int pid, const std::string& track) {
    const auto names = trackNames(doc);
    std::vector<json> out;
    for (const auto& e : doc["traceEvents"]) {
        if (e["ph"] == "M" || e["pid"] != pid)
            continue;
        auto it = names.find({pid, e["tid"].get<int>()});
        if (it != names.end() && it->second.rfind(track, 0) == 0)
            out.push_back(e);
    }
    return out;
}

} // namespace

TEST(ChromeTrace, GpuRunsHaveEveryTrack) {
    const Report report = gpuReport();
    const json doc = parsedTrace(report);
    expectWellFormed(doc);
    const auto names = trackNames(doc);
    EXPECT_EQ(names.at({1, -1}), "default (ok)");
    EXPECT_EQ(names.at({2, -1}), "reduce-overhead (ok)");

    for (int pid : {1, 2}) {
        const cs::core::Run& run = report.runs[static_cast<size_t>(pid - 1)];
        std::vector<std::string> phases;
        for (const auto& e : eventsOn(doc, pid, "phases"))
            phases.push_back(e["name"]);
        EXPECT_EQ(phases, (std::vector<std::string>{"load", "compile", "warmup", "measure"}));
        const auto calls = eventsOn(doc, pid, "calls");
        EXPECT_EQ(calls.size(), run.iterations.size());
        EXPECT_EQ(calls.front()["name"], "first call (compiles)");

        // GPU: every gpu_trace record is one slice on its stream's track.
        size_t gpuSlices = 0;
        std::set<std::string> streams;
        for (const auto& [key, name] : names) {
            if (key.first != pid || name.rfind("GPU stream", 0) != 0)
                continue;
            streams.insert(name);
            gpuSlices += eventsOn(doc, pid, name).size();
        }
        EXPECT_EQ(gpuSlices, run.gpuTrace.size());
        EXPECT_TRUE(streams.count("GPU stream 0"));
        EXPECT_TRUE(streams.count("GPU stream 8"));

        // Counters: device bytes at every CUPTI sample, torch's counters at every edge.
        size_t device = 0, torch = 0, host = 0;
        for (const auto& e : doc["traceEvents"]) {
            if (e["ph"] != "C" || e["pid"] != pid)
                continue;
            device += e["name"] == "device memory held (CUPTI)";
            torch += e["name"] == "torch.cuda memory";
            host += e["name"] == "host memory (RSS)";
        }
        EXPECT_EQ(device, run.memorySeries("device")->samples.size());
        EXPECT_EQ(torch, run.memoryStats.size());
        EXPECT_EQ(host, run.memorySeries("host_rss")->samples.size());
    }
}

TEST(ChromeTrace, TimesAreMicrosecondsFromTheEarliestEvent) {
    const Report report = gpuReport();
    const json doc = parsedTrace(report);
    const int64_t origin = doc["otherData"]["origin_ns"];
    EXPECT_EQ(origin, report.runs[0].firstEventNs); // the hello of the first run
    const cs::core::Run& run = report.runs[0];
    const GpuSlice& kernel = run.gpuTrace[1];
    bool found = false;
    for (const auto& e : eventsOn(doc, 1, "GPU stream")) {
        if (e["name"] == kernel.name &&
            e["ts"].get<double>() == (kernel.startNs - origin) / 1000.0) {
            EXPECT_DOUBLE_EQ(e["dur"].get<double>(), (kernel.endNs - kernel.startNs) / 1000.0);
            EXPECT_EQ(e["cat"], "kernel");
            found = true;
        }
    }
    EXPECT_TRUE(found);
    const auto measure = eventsOn(doc, 1, "phases")[3];
    EXPECT_DOUBLE_EQ(measure["ts"].get<double>(),
                     (run.phase("measure")->beginNs - origin) / 1000.0);
}

TEST(ChromeTrace, CpuRunHasPhasesCallsAndHostMemoryButNoGpuTracks) {
    Report report;
    report.runs.push_back(replayFixture("streams/mlp_eager_cpu.jsonl", "eager"));
    const json doc = parsedTrace(report);
    expectWellFormed(doc);
    EXPECT_EQ(eventsOn(doc, 1, "phases").size(), 4u);
    EXPECT_EQ(eventsOn(doc, 1, "calls").size(), report.runs[0].iterations.size());
    size_t host = 0;
    for (const auto& e : doc["traceEvents"])
        host += e["ph"] == "C" && e["name"] == "host memory (RSS)";
    EXPECT_EQ(host, report.runs[0].memorySeries("host_rss")->samples.size());
    for (const auto& [key, name] : trackNames(doc))
        EXPECT_EQ(name.find("GPU"), std::string::npos) << name;
}

TEST(ChromeTrace, OverlappingSlicesOnOneStreamMoveToAnotherLane) {
    Report report;
    cs::core::Run run;
    run.status = RunStatus::Ok;
    run.firstEventNs = 0;
    // b starts inside a and ends after it; c nests inside a; d comes later.
    run.gpuTrace = {{GpuSlice::Kernel, 1000, 5000, 7, "a", 0},
                    {GpuSlice::Kernel, 2000, 3000, 7, "c", 0},
                    {GpuSlice::Kernel, 4000, 9000, 7, "b", 0},
                    {GpuSlice::Memcpy, 9000, 9500, 7, "memcpy dtoh", 64}};
    report.runs.push_back(run);
    const json doc = parsedTrace(report);
    expectWellFormed(doc);
    std::vector<std::string> first, second;
    for (const auto& e : eventsOn(doc, 1, "GPU stream 7 (overlap 2)"))
        second.push_back(e["name"]);
    for (const auto& e : eventsOn(doc, 1, "GPU stream 7"))
        first.push_back(e["name"]);
    EXPECT_EQ(second, (std::vector<std::string>{"b"}));
    EXPECT_EQ(first.size(), 4u); // "GPU stream 7" is a prefix of the overlap lane's name
    const auto memcpy = eventsOn(doc, 1, "GPU stream 7").back();
    EXPECT_EQ(memcpy["args"]["bytes"], 64);
}

TEST(ChromeTrace, ACrashedRunsOpenPhaseEndsAtItsLastEventAndTruncationIsShown) {
    Report report;
    cs::core::Run run = replayStream(
        R"J({"type":"hello","t_ns":1000,"protocol":1,"device":"cuda:0"})J"
        "\n"
        R"J({"type":"phase","t_ns":2000,"name":"measure","edge":"begin"})J"
        "\n"
        R"J({"type":"gpu_trace","t_ns":3000,"phase":"measure","names":["k"],"records":[[1,2100,2200,0,0,0]],"truncated":12})J"
        "\n"
        R"J({"type":"log","t_ns":5000,"level":"warning","message":"CUPTI dropped 3 records"})J"
        "\n");
    run.status = RunStatus::Crashed;
    report.runs.push_back(run);
    const json doc = parsedTrace(report);
    expectWellFormed(doc);
    const auto phases = eventsOn(doc, 1, "phases");
    ASSERT_EQ(phases.size(), 1u);
    EXPECT_DOUBLE_EQ(phases[0]["dur"].get<double>(), 3.0); // 2000 → 5000 ns
    EXPECT_EQ(phases[0]["args"]["open"], true);
    bool cut = false, logged = false;
    for (const auto& e : doc["traceEvents"]) {
        cut |= e["name"] == "GPU trace cut short" && e["args"]["records_left_out"] == 12;
        logged |= e["ph"] == "i" && e["args"].value("message", "") == "CUPTI dropped 3 records";
    }
    EXPECT_TRUE(cut);
    EXPECT_TRUE(logged);
    EXPECT_EQ(trackNames(doc).at({1, -1}), "default (crashed)");
}

TEST(ChromeTrace, EmptyReportIsStillAValidTrace) {
    const json doc = parsedTrace(Report{});
    expectWellFormed(doc);
    EXPECT_TRUE(doc["traceEvents"].empty());
}
