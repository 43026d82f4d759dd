#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "core/events/event_parser.h"
#include "core/events/protocol_generated.h"

using namespace cs::core;

TEST(EventParser, SplitsLinesAcrossChunks) {
    EventParser parser;
    auto a = parser.feed(R"J({"type":"iteration","t_ns":1,"index":0,"lat)J");
    EXPECT_TRUE(a.empty());
    auto b = parser.feed(
        "ency_ns\":42}\n{\"type\":\"log\",\"t_ns\":2,\"level\":\"info\",\"message\":\"x\"}\n");
    ASSERT_EQ(b.size(), 2u);
    EXPECT_TRUE(b[0].ok);
    EXPECT_EQ(b[0].line, 1);
    EXPECT_EQ(b[0].event["latency_ns"], 42);
    EXPECT_EQ(b[1].line, 2);
}

TEST(EventParser, MalformedLineReportedWithNumberAndSkipped) {
    EventParser parser;
    auto items = parser.feed("{\"type\":\"hello\",\"t_ns\":0}\nnot json\n[1,2]\n{\"no_type\":1}\n\n"
                             "{\"type\":\"done\",\"t_ns\":5,\"status\":\"ok\"}\n");
    ASSERT_EQ(items.size(), 5u);
    EXPECT_TRUE(items[0].ok);
    EXPECT_FALSE(items[1].ok);
    EXPECT_EQ(items[1].line, 2);
    EXPECT_EQ(items[1].problem, "not valid JSON");
    EXPECT_EQ(items[2].problem, "not a JSON object");
    EXPECT_EQ(items[3].problem, "event has no \"type\" string");
    EXPECT_TRUE(items[4].ok);
    EXPECT_EQ(items[4].line, 6); // the blank line still counts
}

TEST(EventParser, PartialLastLineAtEndIsAProblem) {
    EventParser parser;
    EXPECT_TRUE(parser.feed("{\"type\":\"iteration\",\"ind").empty());
    auto tail = parser.finish();
    ASSERT_EQ(tail.size(), 1u);
    EXPECT_FALSE(tail[0].ok);
    EXPECT_NE(tail[0].problem.find("incomplete"), std::string::npos);
}

TEST(EventParser, CompleteLastLineWithoutNewlineIsParsed) {
    EventParser parser;
    parser.feed("{\"type\":\"done\",\"t_ns\":1,\"status\":\"ok\"}");
    auto tail = parser.finish();
    ASSERT_EQ(tail.size(), 1u);
    EXPECT_TRUE(tail[0].ok);
}

TEST(EventParser, OverlongLineIsSkippedNotBuffered) {
    EventParser parser(64);
    auto items = parser.feed(std::string(100, 'x'));
    ASSERT_EQ(items.size(), 1u);
    EXPECT_FALSE(items[0].ok);
    items = parser.feed(std::string(100, 'x') + "\n{\"type\":\"log\",\"t_ns\":0}\n");
    ASSERT_EQ(items.size(), 1u);
    EXPECT_TRUE(items[0].ok);
    EXPECT_EQ(items[0].line, 2);
}

// The 64 MiB bound by default: a line past it, arriving in 1 MiB chunks,
// is one problem naming its line; one exactly at the bound is still an event.
TEST(EventParser, DefaultBoundRefusesALineOver64MiB) {
    ASSERT_EQ(kMaxEventLineBytes, size_t{64} << 20);
    const std::string event = "{\"type\":\"log\",\"t_ns\":0}";
    std::string atBound = event + std::string(kMaxEventLineBytes - event.size(), ' ');
    EventParser parser;
    std::vector<StreamItem> items = parser.feed(event + "\n");
    const std::string mib(size_t{1} << 20, 'x');
    for (size_t fed = 0; fed <= kMaxEventLineBytes; fed += mib.size()) {
        for (auto& item : parser.feed(mib))
            items.push_back(std::move(item));
    }
    for (auto& item : parser.feed("x\n" + atBound + "\n"))
        items.push_back(std::move(item));
    for (auto& item : parser.finish())
        items.push_back(std::move(item));
    ASSERT_EQ(items.size(), 3u);
    EXPECT_TRUE(items[0].ok);
    EXPECT_FALSE(items[1].ok);
    EXPECT_EQ(items[1].line, 2);
    EXPECT_EQ(items[1].problem, "line 2 is longer than 67108864 bytes; skipped");
    EXPECT_TRUE(items[2].ok);
    EXPECT_EQ(items[2].line, 3);
}

// An overlong line is refused however the bytes are cut: in one chunk with its
// newline, or byte by byte; the lines around it keep their numbers.
TEST(EventParser, OverlongLineRefusedTheSameWhateverTheChunks) {
    const std::string stream = "{\"type\":\"log\",\"t_ns\":1}\n" + std::string(65, 'y') +
                               "\n{\"type\":\"log\",\"t_ns\":2}\n" + std::string(70, 'z');
    auto describe = [](const std::vector<StreamItem>& items) {
        std::string text;
        for (const auto& item : items)
            text += std::to_string(item.line) + (item.ok ? " ok" : " " + item.problem) + "\n";
        return text;
    };
    EventParser whole(64);
    auto items = whole.feed(stream);
    for (auto& item : whole.finish())
        items.push_back(std::move(item));
    EXPECT_EQ(describe(items), "1 ok\n2 line 2 is longer than 64 bytes; skipped\n3 ok\n"
                               "4 line 4 is longer than 64 bytes; skipped\n");
    EventParser bytes(64);
    std::vector<StreamItem> split;
    for (char c : stream) {
        for (auto& item : bytes.feed(std::string_view(&c, 1)))
            split.push_back(std::move(item));
    }
    for (auto& item : bytes.finish())
        split.push_back(std::move(item));
    EXPECT_EQ(describe(split), describe(items));
}

TEST(ApplyEvent, KeepsUnknownEventsAndFields) {
    cs::core::Run run = replayStream(
        "{\"type\":\"hello\",\"t_ns\":1,\"protocol\":1,\"torch\":\"2.15\",\"new_field\":7}\n"
        "{\"type\":\"from_the_future\",\"t_ns\":2,\"payload\":[1,2]}\n");
    EXPECT_TRUE(run.sawHello);
    EXPECT_EQ(run.probe.torch, "2.15");
    ASSERT_EQ(run.unknownEvents.size(), 1u);
    EXPECT_EQ(run.unknownEvents[0]["payload"][1], 2);
    EXPECT_TRUE(run.parseProblems.empty());
}

TEST(ApplyEvent, WrongFieldTypesDoNotThrow) {
    cs::core::Run run = replayStream(
        "{\"type\":\"iteration\",\"t_ns\":\"soon\",\"index\":\"x\",\"latency_ns\":[1]}\n"
        "{\"type\":\"graph\",\"nodes\":\"none\"}\n{\"type\":\"phase\",\"name\":5}\n");
    ASSERT_EQ(run.iterations.size(), 1u);
    EXPECT_EQ(run.iterations[0].latencyNs, 0);
    ASSERT_EQ(run.graphs.size(), 1u);
    EXPECT_TRUE(run.graphs[0].nodes.empty());
}

// Found by fuzzing: a graph node or a model input that is not an object threw
// out of json::value (terminate in the app). They are kept with empty fields.
TEST(ApplyEvent, ListElementsThatAreNotObjectsDoNotThrow) {
    cs::core::Run run;
    applyEvent(run, nlohmann::json::parse(
                        R"({"type":"graph","t_ns":1,"nodes":[7,"x",{"name":"a","shape":[2]}]})"));
    applyEvent(run, nlohmann::json::parse(R"({"type":"model","t_ns":2,"inputs":[null,3]})"));
    ASSERT_EQ(run.graphs.size(), 1u);
    ASSERT_EQ(run.graphs[0].nodes.size(), 3u);
    EXPECT_EQ(run.graphs[0].nodes[0].name, "");
    EXPECT_EQ(run.graphs[0].nodes[2].name, "a");
    EXPECT_EQ(run.model.inputs.size(), 2u);
}

// get_inputs() gave keyword arguments: each input carries its name.
TEST(ApplyEvent, ModelInputsKeepTheirKeywordNames) {
    cs::core::Run run;
    applyEvent(run, nlohmann::json::parse(R"({"type":"model","t_ns":2,"inputs":[)"
                                          R"({"name":"input_ids","dtype":"int64","shape":[4,32]},)"
                                          R"({"dtype":"float32","shape":[4]}]})"));
    EXPECT_EQ(run.model.inputs,
              (std::vector<std::string>{"input_ids: int64[4, 32]", "float32[4]"}));
}

// Found by fuzzing: a float too big for the integer field was cast to it
// (undefined behaviour; garbage on x86). It now counts as a wrong type.
TEST(ApplyEvent, FloatsOutOfIntegerRangeFallBack) {
    cs::core::Run run;
    applyEvent(run, nlohmann::json::parse(
                        R"({"type":"iteration","t_ns":1e300,"index":-1e19,"latency_ns":4.6e140,)"
                        R"("wall_ns":12.0})"));
    applyEvent(run, nlohmann::json::parse(R"({"type":"iterations","t_ns":2,"first_index":5,)"
                                          R"("latency_ns":[1,2,1e30],"wall_ns":[3,4,5]})"));
    applyEvent(run, nlohmann::json::parse(
                        R"({"type":"memory","t_ns":3,"kind":"host_rss","samples":[[1,2e19],)"
                        R"([3,4],[9.3e18,5]],"phase_peaks":{"a":1e99,"b":7},"baseline":-1e40})"));
    applyEvent(run, nlohmann::json::parse(R"({"type":"phase","t_ns":4,"name":"measure",)"
                                          R"("edge":"end","harness_overhead_ns":-9.9e18})"));
    ASSERT_EQ(run.iterations.size(), 1u); // the chunk with 1e30 is not a list of integers
    EXPECT_EQ(run.iterations[0].index, 0);
    EXPECT_EQ(run.iterations[0].latencyNs, 0);
    EXPECT_EQ(run.iterations[0].wallNs, 12);
    EXPECT_EQ(run.firstEventNs, 0);
    ASSERT_EQ(run.memory.size(), 1u);
    EXPECT_EQ(run.memory[0].samples, (std::vector<std::pair<int64_t, int64_t>>{{3, 4}}));
    EXPECT_EQ(run.memory[0].phasePeaks, (std::map<std::string, int64_t>{{"b", 7}}));
    EXPECT_EQ(run.harnessOverheadNs, -1);
}

TEST(ApplyEvent, PhasesOpenAndClose) {
    cs::core::Run run =
        replayStream("{\"type\":\"phase\",\"t_ns\":10,\"name\":\"load\",\"edge\":\"begin\"}\n"
                     "{\"type\":\"phase\",\"t_ns\":20,\"name\":\"load\",\"edge\":\"end\"}\n"
                     "{\"type\":\"phase\",\"t_ns\":30,\"name\":\"measure\",\"edge\":\"begin\"}\n"
                     "{\"type\":\"phase\",\"t_ns\":40,\"name\":\"measure\",\"edge\":\"end\","
                     "\"harness_overhead_ns\":55}\n");
    ASSERT_EQ(run.phases.size(), 2u);
    EXPECT_EQ(run.phases[0].beginNs, 10);
    EXPECT_EQ(run.phases[0].endNs, 20);
    EXPECT_EQ(run.phase("measure")->endNs, 40);
    EXPECT_EQ(run.harnessOverheadNs, 55);
    EXPECT_FALSE(run.measureMachineCpu.present());
}

TEST(ApplyEvent, ARecompileKnowsThePhaseItHappenedIn) {
    const auto event = [](const char* type, const char* name, const char* edge) {
        return std::string(R"({"type":")") + type + R"(","t_ns":1,"name":")" + name +
               R"(","edge":")" + edge + R"(","function":"forward","reason":"r"})" + "\n";
    };
    const cs::core::Run run =
        replayStream(event("recompile", "", "") + event("phase", "warmup", "begin") +
                     event("recompile", "", "") + event("phase", "warmup", "end") +
                     event("phase", "measure", "begin") + event("recompile", "", "") +
                     event("recompile_limit", "", "") + event("phase", "measure", "end"));
    ASSERT_EQ(run.recompiles.size(), 4u);
    EXPECT_EQ(run.recompiles[0].phase, ""); // before any phase
    EXPECT_EQ(run.recompiles[1].phase, "warmup");
    EXPECT_EQ(run.recompiles[2].phase, "measure");
    EXPECT_EQ(run.recompiles[3].phase, "measure");
    EXPECT_TRUE(run.recompiles[3].limitHit);
}

TEST(ApplyEvent, ARecompileKnowsItsCallWhenTheProbeSaysIt) {
    const cs::core::Run run = replayStream(
        R"({"type":"recompile","t_ns":1,"function":"forward","reason":"r","call_index":12})"
        "\n"
        R"({"type":"recompile","t_ns":2,"function":"forward","reason":"r"})"
        "\n"
        R"({"type":"recompile","t_ns":3,"function":"forward","reason":"r","call_index":-4})"
        "\n");
    ASSERT_EQ(run.recompiles.size(), 3u);
    EXPECT_EQ(run.recompiles[0].callIndex, 12);
    EXPECT_EQ(run.recompiles[1].callIndex, -1);
    EXPECT_EQ(run.recompiles[2].callIndex, -1) << "a negative index is no call";
}

TEST(ApplyEvent, TheMeasureEndCarriesTheMachinesCpu) {
    const std::string begin =
        "{\"type\":\"phase\",\"t_ns\":30,\"name\":\"measure\",\"edge\":\"begin\"}\n";
    cs::core::Run run = replayStream(
        begin + R"({"type":"phase","t_ns":40,"name":"measure","edge":"end","machine_cpu":)"
                R"({"cpus":2,"wall_ns":1000000000,"busy_ns":1300000000,"steal_ns":0,)"
                R"("probe_cpu_ns":950000000,"tick_ns":10000000,"children_cpu_ns":300000000}})"
                "\n");
    EXPECT_EQ(run.measureMachineCpu, (MachineCpu{2, 1'000'000'000, 1'300'000'000, 0, 950'000'000,
                                                 10'000'000, 300'000'000}));
    // Odd values read as not measured, never as a throw.
    for (const char* odd : {R"("nope")", R"({"cpus":0,"wall_ns":5})", R"({"cpus":"x"})",
                            R"({"cpus":2,"wall_ns":-4})"}) {
        run = replayStream(
            begin + R"({"type":"phase","t_ns":40,"name":"measure","edge":"end","machine_cpu":)" +
            odd + "}\n");
        EXPECT_FALSE(run.measureMachineCpu.present()) << odd;
        EXPECT_TRUE(run.parseProblems.empty()) << odd;
    }
}

TEST(ApplyEvent, TheMeasureEndCarriesTheHostReference) {
    const std::string begin =
        "{\"type\":\"phase\",\"t_ns\":30,\"name\":\"measure\",\"edge\":\"begin\"}\n";
    cs::core::Run run =
        replayStream(begin + R"({"type":"phase","t_ns":40,"name":"measure","edge":"end",)"
                             R"("host_reference":{"before_ns":1010000,"after_ns":1990000}})"
                             "\n");
    EXPECT_EQ(run.hostReference, (cs::core::HostReference{1'010'000, 1'990'000}));
    for (const char* odd : {R"("nope")", R"({"before_ns":"x","after_ns":5})", R"({})"}) {
        run = replayStream(
            begin + R"({"type":"phase","t_ns":40,"name":"measure","edge":"end","host_reference":)" +
            odd + "}\n");
        EXPECT_FALSE(run.hostReference.present()) << odd;
    }
}

TEST(ApplyEvent, TheMeasureEndCarriesTheHostFaults) {
    const std::string begin =
        "{\"type\":\"phase\",\"t_ns\":30,\"name\":\"measure\",\"edge\":\"begin\"}\n";
    cs::core::Run run = replayStream(
        begin + R"({"type":"phase","t_ns":40,"name":"measure","edge":"end","host_faults":)"
                R"({"calls":20,"minor":94700,"major":1,"sys_cpu_ns":238000000,"wall_ns":802000000,)"
                R"("page_bytes":4096,"allocator":"jemalloc",)"
                R"("malloc_env":{"MALLOC_CONF":"dirty_decay_ms:0","ODD":7}}})"
                "\n");
    EXPECT_EQ(run.measureHostFaults, (cs::core::HostFaults{20,
                                                           94'700,
                                                           1,
                                                           238'000'000,
                                                           802'000'000,
                                                           4096,
                                                           "jemalloc",
                                                           {{"MALLOC_CONF", "dirty_decay_ms:0"}}}));
    // Odd values read as not measured, never as a throw.
    for (const char* odd : {R"("nope")", R"({"calls":0,"minor":5})", R"({"calls":"x"})", R"({})"}) {
        run = replayStream(
            begin + R"({"type":"phase","t_ns":40,"name":"measure","edge":"end","host_faults":)" +
            odd + "}\n");
        EXPECT_FALSE(run.measureHostFaults.present()) << odd;
        EXPECT_TRUE(run.parseProblems.empty()) << odd;
    }
}

TEST(ApplyEvent, TheMeasureAndCrosscheckEndsCarryWhatMallocHeld) {
    const std::string stream =
        R"({"type":"phase","t_ns":30,"name":"measure","edge":"begin"})"
        "\n"
        R"({"type":"phase","t_ns":40,"name":"measure","edge":"end","host_held":)"
        R"({"counter":"malloc","calls":20,"begin_bytes":1000,"end_bytes":5000}})"
        "\n"
        R"({"type":"phase","t_ns":50,"name":"crosscheck","edge":"begin"})"
        "\n"
        R"({"type":"phase","t_ns":60,"name":"crosscheck","edge":"end","host_held":)"
        R"({"counter":"malloc","calls":240,"begin_bytes":5100,"end_bytes":9000}})"
        "\n";
    cs::core::Run run = replayStream(stream);
    EXPECT_EQ(run.measureHostHeld, (cs::core::HeldWindow{"malloc", 20, 1000, 5000}));
    EXPECT_EQ(run.crosscheckHostHeld, (cs::core::HeldWindow{"malloc", 240, 5100, 9000}));
    // Odd values read as not measured, never as a throw.
    for (const char* odd :
         {R"("nope")", R"({"counter":"malloc","calls":0,"begin_bytes":1,"end_bytes":2})",
          R"({"counter":"malloc","calls":3,"begin_bytes":-1,"end_bytes":2})",
          R"({"calls":3,"begin_bytes":1,"end_bytes":2})", R"({})"}) {
        run =
            replayStream(R"({"type":"phase","t_ns":40,"name":"measure","edge":"end","host_held":)" +
                         std::string(odd) + "}\n");
        EXPECT_FALSE(run.measureHostHeld.present()) << odd;
        EXPECT_TRUE(run.parseProblems.empty()) << odd;
    }
}

TEST(ApplyEvent, GraphBreakAndFullgraphError) {
    cs::core::Run run = replayStream(
        R"J({"type":"graph_break","t_ns":1,"index":0,"reason":"print","frames":[{"file":"/m.py","line":7,"function":"forward","code":"print(x)","user":true},{"file":"/torch/x.py","line":3,"function":"f","user":false}],"user_frame":0,"graph_before":0,"graph_after":1})J"
        "\n"
        R"J({"type":"error","t_ns":2,"kind":"fullgraph_break","message":"m","fatal":true,"graph_break":{"reason":"item","frames":[],"user_frame":5}})J"
        "\n");
    ASSERT_EQ(run.graphBreaks.size(), 2u);
    ASSERT_NE(run.graphBreaks[0].location(), nullptr);
    EXPECT_EQ(run.graphBreaks[0].location()->line, 7);
    EXPECT_EQ(run.graphBreaks[1].userFrame, -1); // out of range index rejected
    EXPECT_EQ(run.graphBreaks[1].location(), nullptr);
    ASSERT_TRUE(run.error);
    EXPECT_EQ(run.error->kind, "fullgraph_break");
}

TEST(ApplyEvent, CaptureWarningsAreKeptInOrder) {
    cs::core::Run run = replayStream(
        "{\"type\":\"capture_warning\",\"t_ns\":3,\"what\":\"torch._dynamo.utils.counters\","
        "\"error\":\"AttributeError: counters\",\"torch\":\"2.11.0\"}\n"
        "{\"type\":\"capture_warning\",\"t_ns\":4,\"what\":\"torch._inductor.metrics\"}\n");
    EXPECT_TRUE(run.unknownEvents.empty());
    EXPECT_TRUE(run.logs.empty());
    ASSERT_EQ(run.captureWarnings.size(), 2u);
    EXPECT_EQ(run.captureWarnings[0], (CaptureWarning{"torch._dynamo.utils.counters",
                                                      "AttributeError: counters", "2.11.0"}));
    EXPECT_EQ(run.captureWarnings[1], (CaptureWarning{"torch._inductor.metrics", "", ""}));
}

TEST(Protocol, EveryEventNameIsHandled) {
    // Each protocol event must change the run somehow, not land in unknownEvents.
    for (auto name : protocol::events) {
        cs::core::Run run = replayStream("{\"type\":\"" + std::string(name) + "\",\"t_ns\":1}\n");
        EXPECT_TRUE(run.unknownEvents.empty()) << name;
    }
}

// Replays every probe stream saved from real runs (tests/fixtures/streams).
TEST(Fixtures, RealStreamsReplayCleanly) {
    const std::string dir = std::string(COMPILESCOPE_FIXTURES) + "/streams";
    if (!std::filesystem::exists(dir))
        GTEST_SKIP() << "no saved probe streams in " << dir;
    int count = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        if (entry.path().extension() != ".jsonl")
            continue;
        std::ifstream in(entry.path());
        std::stringstream text;
        text << in.rdbuf();
        cs::core::Run run = replayStream(text.str());
        SCOPED_TRACE(entry.path().string());
        EXPECT_TRUE(run.sawHello);
        EXPECT_TRUE(run.parseProblems.empty());
        EXPECT_TRUE(run.unknownEvents.empty());
        EXPECT_TRUE(run.sawDone);
        ++count;
    }
    EXPECT_GT(count, 0);
}

namespace {
cs::core::Run fixture(const std::string& name) {
    std::ifstream in(std::string(COMPILESCOPE_FIXTURES) + "/streams/" + name);
    std::stringstream text;
    text << in.rdbuf();
    return replayStream(text.str());
}
bool endsWith(const std::string& text, const std::string& tail) {
    return text.size() >= tail.size() &&
           text.compare(text.size() - tail.size(), tail.size(), tail) == 0;
}
} // namespace

// What real probe streams say, read back through the parser.
TEST(Fixtures, PrintBreakSplitsTheModelInTwo) {
    auto run = fixture("print_break_aot_eager_cpu.jsonl");
    ASSERT_EQ(run.graphs.size(), 2u);
    ASSERT_EQ(run.graphBreaks.size(), 1u);
    const auto& br = run.graphBreaks[0];
    EXPECT_NE(br.reason.find("print"), std::string::npos);
    ASSERT_NE(br.location(), nullptr);
    EXPECT_TRUE(endsWith(br.location()->file, "print_break.py"));
    EXPECT_GT(br.location()->line, 0);
    EXPECT_NE(br.location()->code.find("print"), std::string::npos);
    EXPECT_EQ(br.graphBefore, 0);
    EXPECT_EQ(br.graphAfter, 1);
}

TEST(Fixtures, SweepRecompilesOnEachNewLength) {
    auto run = fixture("variable_length_sweep.jsonl");
    ASSERT_GE(run.recompiles.size(), 2u);
    for (const auto& r : run.recompiles) {
        EXPECT_NE(r.reason.find("size mismatch"), std::string::npos) << r.reason;
        EXPECT_EQ(r.phase, "sweep");
    }
    EXPECT_NE(run.phase("sweep"), nullptr);
}

TEST(Fixtures, CompiledMlpHasOneGraphAndCompilePhases) {
    auto run = fixture("mlp_default_cpu.jsonl");
    ASSERT_EQ(run.graphs.size(), 1u);
    EXPECT_GT(run.graphs[0].nodes.size(), 5u);
    EXPECT_FALSE(run.compilePhases.empty());
    ASSERT_FALSE(run.iterations.empty());
    EXPECT_TRUE(run.iterations[0].firstCall);
    EXPECT_FALSE(run.measuredLatencies().empty());
    EXPECT_NE(run.memorySeries("host_rss"), nullptr);
}

TEST(Fixtures, ModelThatRaisesEndsFailedWithItsLine) {
    auto run = fixture("model_raised_cpu.jsonl");
    ASSERT_TRUE(run.error);
    EXPECT_EQ(run.error->kind, "model_raised");
    EXPECT_NE(run.error->message.find("raises_in_forward.py:"), std::string::npos);
    EXPECT_EQ(run.doneStatus, "failed");
}

TEST(ApplyEvent, ModelEventNamesTheDeviceActuallyUsed) {
    auto run = replayStream(
        R"J({"type":"hello","t_ns":1,"device":"cuda:0","device_name":"guess"})J"
        "\n"
        R"J({"type":"model","t_ns":2,"spec":"m.py","device":"cpu","device_name":"Xeon"})J"
        "\n");
    EXPECT_EQ(run.probe.device, "cpu");
    EXPECT_EQ(run.probe.deviceName, "Xeon");
}

// The measure phase's chunks give the same run as one iteration event per call.
TEST(ApplyEvent, IterationsChunkEqualsOneEventPerCall) {
    const cs::core::Run chunked = replayStream(
        "{\"type\":\"iteration\",\"t_ns\":5,\"index\":0,\"latency_ns\":900,\"wall_ns\":950,"
        "\"warmup\":true,\"first_call\":true}\n"
        "{\"type\":\"iterations\",\"t_ns\":7,\"first_index\":1,\"latency_ns\":[10,11],"
        "\"wall_ns\":[12,13]}\n"
        "{\"type\":\"iterations\",\"t_ns\":7,\"first_index\":3,\"latency_ns\":[14],"
        "\"wall_ns\":[15]}\n");
    const cs::core::Run single = replayStream(
        "{\"type\":\"iteration\",\"t_ns\":5,\"index\":0,\"latency_ns\":900,\"wall_ns\":950,"
        "\"warmup\":true,\"first_call\":true}\n"
        "{\"type\":\"iteration\",\"t_ns\":7,\"index\":1,\"latency_ns\":10,\"wall_ns\":12}\n"
        "{\"type\":\"iteration\",\"t_ns\":7,\"index\":2,\"latency_ns\":11,\"wall_ns\":13}\n"
        "{\"type\":\"iteration\",\"t_ns\":7,\"index\":3,\"latency_ns\":14,\"wall_ns\":15}\n");
    EXPECT_EQ(chunked.iterations, single.iterations);
    EXPECT_EQ(chunked.measuredLatencies(), (std::vector<int64_t>{10, 11, 14}));
    EXPECT_TRUE(chunked.unknownEvents.empty());
}

TEST(ApplyEvent, CrosscheckThreadsAndAffinity) {
    const cs::core::Run run = replayStream(
        "{\"type\":\"hello\",\"t_ns\":1,\"protocol\":1,\"cpu_affinity\":[0,2,3]}\n"
        "{\"type\":\"model\",\"t_ns\":2,\"intra_op_threads\":3}\n"
        "{\"type\":\"iterations\",\"t_ns\":3,\"first_index\":0,\"latency_ns\":[100,120,110]}\n"
        "{\"type\":\"crosscheck\",\"t_ns\":4,\"block_calls\":8,"
        "\"block_means_ns\":[104.5,101.0,130.0,99.0]}\n");
    EXPECT_EQ(run.probe.cpuAffinity, (std::vector<int>{0, 2, 3}));
    EXPECT_EQ(run.probe.threads, 3);
    ASSERT_EQ(run.iterations.size(), 3u);
    EXPECT_EQ(run.iterations[2].wallNs, 110); // no wall_ns: the latency stands in, as for one call
    EXPECT_EQ(run.crosscheckBlockCalls, 8);
    ASSERT_TRUE(run.blockEstimateNs());
    EXPECT_DOUBLE_EQ(*run.blockEstimateNs(), (101.0 + 104.5) / 2);
}

TEST(ApplyEvent, HelloKeepsTheTorchVariablesAndDropsAMalformedSet) {
    cs::core::Run run =
        replayStream("{\"type\":\"hello\",\"t_ns\":1,\"protocol\":1,"
                     "\"torch_env\":{\"TORCH_LOGS\":\"+dynamo\",\"OMP_NUM_THREADS\":\"2\"}}\n");
    EXPECT_EQ(
        run.probe.torchEnvironment,
        (std::map<std::string, std::string>{{"OMP_NUM_THREADS", "2"}, {"TORCH_LOGS", "+dynamo"}}));
    EXPECT_TRUE(run.probe.torchEnvironmentKnown);
    // A value that is not a string: none of them is trusted, the run still reads.
    run = replayStream("{\"type\":\"hello\",\"t_ns\":1,\"torch_env\":{\"TORCH_LOGS\":3}}\n");
    EXPECT_TRUE(run.sawHello);
    EXPECT_TRUE(run.probe.torchEnvironment.empty());
    EXPECT_FALSE(run.probe.torchEnvironmentKnown);
    // An empty set is a probe saying there were none; no set is a probe that did not say.
    run = replayStream("{\"type\":\"hello\",\"t_ns\":1,\"torch_env\":{}}\n");
    EXPECT_TRUE(run.probe.torchEnvironmentKnown);
    run = replayStream("{\"type\":\"hello\",\"t_ns\":1}\n");
    EXPECT_FALSE(run.probe.torchEnvironmentKnown);
}

// A probe that logs without end (a chatty model, a hostile stream) is cut at
// the bound; a line the advice reads (with a code) is kept past it, a bounded
// number of them, and its code and detail come through.
TEST(ApplyEvent, ALineTheAdviceReadsIsKeptPastTheLogBound) {
    std::string stream;
    for (size_t i = 0; i < cs::core::kMaxKeptLogs + 5; ++i)
        stream += R"J({"type":"log","t_ns":1,"level":"info","message":"chatter"})J"
                  "\n";
    for (size_t i = 0; i < cs::core::kMaxKeptCodedLogs + 5; ++i)
        stream += R"J({"type":"log","t_ns":2,"level":"warning","message":"the model changed",)J"
                  R"J("code":"inputs_changed","detail":"x went from [1] to [2]"})J"
                  "\n";
    const cs::core::Run run = replayStream(stream);
    ASSERT_EQ(run.logs.size(), cs::core::kMaxKeptLogs + 1 + cs::core::kMaxKeptCodedLogs);
    EXPECT_NE(run.logs[cs::core::kMaxKeptLogs].message.find("more log lines follow"),
              std::string::npos);
    EXPECT_EQ(run.logs.back().code, "inputs_changed");
    EXPECT_EQ(run.logs.back().detail, "x went from [1] to [2]");
    EXPECT_EQ(run.logs.back().level, "warning");
    EXPECT_TRUE(run.logs.front().code.empty());
}
