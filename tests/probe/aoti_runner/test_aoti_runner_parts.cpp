// The AOTInductor runner's torch-free parts: the JSON writer, the command
// line, the event sink, the CUPTI ABI it restates and the device memory
// timeline; and (AotiStreamReplay) a stream the real runner wrote, read by
// core's EventParser (tests/probe/aoti_runner/test_aoti_runner.py saves it).
#include "core/events/event_parser.h"
#include "probe/aoti_runner/cli_args.h"
#include "probe/aoti_runner/cupti_abi.h"
#include "probe/aoti_runner/cupti_bridge.h"
#include "probe/aoti_runner/event_sink.h"
#include "probe/aoti_runner/json_line.h"
#include "probe/aoti_runner/machine_cpu.h"
#include "probe/aoti_runner/protocol_generated.h"
#include "probe/cupti/compilescope_cupti.h"

#include "core/events/protocol_generated.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <csignal>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <sys/mman.h>
#include <unistd.h>
#include <vector>

namespace {

using cs::aoti::JsonLine;
using cs::aoti::parseArgs;

nlohmann::json parsed(JsonLine& line) {
    const std::string text = line.line();
    EXPECT_EQ(text.back(), '\n');
    EXPECT_EQ(text.find('\n'), text.size() - 1) << "one line";
    return nlohmann::json::parse(text);
}

// /proc/stat as the probe reads it (machine_load.py): busy is user + nice +
// system + irq + softirq, steal apart, only the CPUs it may run on.
TEST(AotiMachineCpu, ProcStatSumsTheAllowedCpus) {
    const std::string stat = "cpu  100 0 50 1000 5 1 2 7 0 0\n"
                             "cpu0 60 0 30 500 2 1 1 3 0 0\n"
                             "cpu1 40 0 20 500 3 0 1 4 0 0\n"
                             "intr 12345\n";
    const auto all = cs::aoti::parseProcStat(stat, {});
    ASSERT_TRUE(all);
    EXPECT_EQ(all->busyTicks, 60 + 30 + 1 + 1 + 40 + 20 + 1);
    EXPECT_EQ(all->stealTicks, 7);
    EXPECT_EQ(all->cpus, 2);
    const auto one = cs::aoti::parseProcStat(stat, {1});
    ASSERT_TRUE(one);
    EXPECT_EQ(one->busyTicks, 61);
    EXPECT_EQ(one->cpus, 1);
    EXPECT_FALSE(cs::aoti::parseProcStat(stat, {5}));
    EXPECT_FALSE(cs::aoti::parseProcStat("cpu0 1 2 3\n", {}));
    EXPECT_FALSE(cs::aoti::parseProcStat("", {}));
}

// Spins until it has used 200 ms of CPU (not of wall time: a loaded machine
// gives it less), then finds that CPU time on this machine's CPUs.
TEST(AotiMachineCpu, ABusyLoopShowsAsThisProcesssCpu) {
    const auto before = cs::aoti::machineSnapshot();
    ASSERT_TRUE(before) << "this test runs on Linux";
    volatile double sink = 0;
    while (cs::aoti::machineSnapshot()->processCpuNs - before->processCpuNs < 200'000'000)
        for (int i = 0; i < 10000; ++i)
            sink = sink + i;
    const auto field = cs::aoti::machineCpuBetween(before, cs::aoti::machineSnapshot());
    ASSERT_TRUE(field);
    EXPECT_GE(field->probeCpuNs, 200'000'000);
    EXPECT_GE(field->wallNs, field->probeCpuNs / field->cpus);
    EXPECT_GE(field->busyNs, 100'000'000); // the kernel's ticks: coarse, not that coarse
    EXPECT_FALSE(cs::aoti::machineCpuBetween(before, std::nullopt));
}

// Touches 64 fresh pages of a new mapping between two counts: they show as
// this process's minor faults.
TEST(AotiHostFaults, FreshPagesShowAsMinorFaultsAndTheAllocatorIsNamed) {
    const long page = sysconf(_SC_PAGESIZE);
    const size_t bytes = 64 * static_cast<size_t>(page);
    const auto before = cs::aoti::faultCounts();
    void* block = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(block, MAP_FAILED);
    std::memset(block, 1, bytes);
    munmap(block, bytes);
    const auto field = cs::aoti::hostFaultsBetween(before, cs::aoti::faultCounts(), 8);
    ASSERT_TRUE(field);
    EXPECT_EQ(field->calls, 8);
    EXPECT_GE(field->minor, 64);
    EXPECT_EQ(field->pageBytes, page);
    EXPECT_EQ(field->allocator, "glibc"); // this test preloads nothing
    EXPECT_FALSE(cs::aoti::hostFaultsBetween(before, before, 0));

    const std::string libc = "7f00-7f01 r-xp 0 08:01 1 /usr/lib/x86_64-linux-gnu/libc.so.6\n";
    EXPECT_EQ(cs::aoti::allocatorFromMaps(libc), "glibc");
    EXPECT_EQ(
        cs::aoti::allocatorFromMaps(libc + "7f02-7f03 r-xp 0 08:01 2 /lib/libjemalloc.so.2\n"),
        "jemalloc");
    EXPECT_EQ(cs::aoti::allocatorFromMaps("7f-80 r-xp 0 0:0 3 /opt/libtcmalloc_minimal.so.4\n"),
              "tcmalloc");
}

void* volatile gKeep = nullptr;

// A block kept between two reads shows in malloc's bytes in use at least
// byte for byte; another allocator, which serves malloc itself, reads nothing.
TEST(AotiHostHeld, AKeptBlockShowsInMallocsBytesInUse) {
    ASSERT_EQ(cs::aoti::processAllocator(), "glibc"); // this test preloads nothing
    const auto before = cs::aoti::mallocHeldBytes("glibc");
    ASSERT_TRUE(before);
    // 256 KiB is mmapped by malloc (hblkhd), 1 KiB blocks come from its arena
    // (uordblks). Each pointer goes through a volatile, so no block is elided.
    std::vector<void*> kept{std::malloc(size_t{256} * 1024)};
    for (int i = 0; i < 64; ++i)
        kept.push_back(std::malloc(1024));
    for (void* block : kept)
        gKeep = block;
    const auto after = cs::aoti::mallocHeldBytes("glibc");
    for (void* block : kept)
        std::free(block);
    ASSERT_TRUE(after);
    EXPECT_GE(*after - *before, 256 * 1024 + 64 * 1024);
    EXPECT_FALSE(cs::aoti::mallocHeldBytes("jemalloc"));
    EXPECT_FALSE(cs::aoti::mallocHeldBytes(""));

    const auto window = cs::aoti::heldWindow(before, after, 50);
    ASSERT_TRUE(window);
    EXPECT_EQ(window->calls, 50);
    EXPECT_EQ(window->beginBytes, *before);
    EXPECT_EQ(window->endBytes, *after);
    EXPECT_FALSE(cs::aoti::heldWindow(std::nullopt, after, 50));
    EXPECT_FALSE(cs::aoti::heldWindow(before, std::nullopt, 50));
    EXPECT_FALSE(cs::aoti::heldWindow(before, after, 0));
}

TEST(AotiJsonLine, EscapesStringsSoTheyRoundTrip) {
    const std::string nasty = std::string("quote \" backslash \\ newline \n tab \t cr \r ") +
                              "bell \x07 nul " + std::string(1, '\0') + " del \x7f end";
    JsonLine line;
    line.field("s", nasty).field(std::string("key \"with\" quotes"), 1);
    const auto j = parsed(line);
    EXPECT_EQ(j["s"], nasty);
    EXPECT_EQ(j["key \"with\" quotes"], 1);
}

TEST(AotiJsonLine, KeepsValidUtf8AndReplacesInvalidBytes) {
    JsonLine ok;
    ok.field("s", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
    EXPECT_EQ(parsed(ok)["s"], "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
    // A lone continuation byte, a truncated sequence, an overlong form, a surrogate.
    JsonLine bad;
    bad.field("s", std::string("a\x80"
                               "b\xe2\x82"
                               "c\xc0\xaf"
                               "d\xed\xa0\x80"
                               "e"));
    const std::string s = parsed(bad)["s"];
    EXPECT_EQ(s.front(), 'a');
    EXPECT_EQ(s.back(), 'e');
    EXPECT_NE(s.find("\xef\xbf\xbd"), std::string::npos);
}

TEST(AotiJsonLine, NumbersBoolsNullsAndNesting) {
    JsonLine line;
    line.field("i", 42)
        .field("big", static_cast<long long>(std::numeric_limits<int64_t>::max()))
        .field("neg", -7LL)
        .field("d", 0.1)
        .field("nan", std::nan(""))
        .field("inf", std::numeric_limits<double>::infinity())
        .field("t", true)
        .nullField("n")
        .array("v", std::vector<double>{1.5, 2.5})
        .key("nested")
        .beginArray()
        .beginArray()
        .value(1)
        .value(2)
        .end()
        .beginObject()
        .field("a", "b")
        .end()
        .beginArray()
        .end()
        .end()
        .key("empty")
        .beginObject();
    const auto j = parsed(line); // line() closes what is still open
    EXPECT_EQ(j["i"], 42);
    EXPECT_EQ(j["big"].get<int64_t>(), std::numeric_limits<int64_t>::max());
    EXPECT_EQ(j["neg"], -7);
    EXPECT_DOUBLE_EQ(j["d"].get<double>(), 0.1);
    EXPECT_TRUE(j["nan"].is_null());
    EXPECT_TRUE(j["inf"].is_null());
    EXPECT_EQ(j["t"], true);
    EXPECT_TRUE(j["n"].is_null());
    EXPECT_EQ(j["v"], nlohmann::json({1.5, 2.5}));
    EXPECT_EQ(j["nested"], nlohmann::json::parse(R"([[1,2],{"a":"b"},[]])"));
    EXPECT_TRUE(j["empty"].is_object() && j["empty"].empty());
}

TEST(AotiJsonLine, EventsStartWithTypeAndMonotonicTime) {
    const int64_t before = cs::aoti::monotonicNs();
    JsonLine e = cs::aoti::event("phase");
    e.field("name", "measure");
    const auto j = parsed(e);
    EXPECT_EQ(j["type"], "phase");
    EXPECT_EQ(j["name"], "measure");
    const std::string text = cs::aoti::event("phase").line();
    EXPECT_EQ(text.rfind("{\"type\":\"phase\",\"t_ns\":", 0), 0U) << text;
    EXPECT_GE(j["t_ns"].get<int64_t>(), before);
}

TEST(AotiProtocol, RunnerHeaderMatchesCore) {
    EXPECT_EQ(cs::aoti::protocol::version, cs::core::protocol::version);
    ASSERT_EQ(cs::aoti::protocol::events.size(), cs::core::protocol::events.size());
    for (size_t i = 0; i < cs::core::protocol::events.size(); ++i)
        EXPECT_EQ(cs::aoti::protocol::events[i], cs::core::protocol::events[i]);
}

TEST(AotiArgs, DefaultsAndEveryOption) {
    auto r = parseArgs({"--package", "m.pt2", "--inputs", "in.pt", "--device", "cuda:1"});
    ASSERT_TRUE(r.args) << r.error;
    EXPECT_EQ(r.args->warmup, 10);
    EXPECT_EQ(r.args->iters, 100);
    EXPECT_EQ(r.args->eventsFd, 1);
    EXPECT_FALSE(r.args->continueStream);
    EXPECT_EQ(r.args->device, "cuda:1");

    r = parseArgs({"--package=m.pt2", "--inputs", "in.pt", "--device", "cuda", "--warmup", "1",
                   "--iters", "0", "--events-fd", "7", "--continue-stream", "--threads", "2",
                   "--prior-phase", "export=2.5", "--prior-phase=package=21.9", "--cupti",
                   "/x/libcompilescope_cupti.so"});
    ASSERT_TRUE(r.args) << r.error;
    EXPECT_EQ(r.args->package, "m.pt2");
    EXPECT_EQ(r.args->warmup, 1);
    EXPECT_EQ(r.args->iters, 0);
    EXPECT_EQ(r.args->eventsFd, 7);
    EXPECT_TRUE(r.args->continueStream);
    EXPECT_EQ(r.args->threads, 2);
    ASSERT_EQ(r.args->priorPhases.size(), 2U);
    EXPECT_EQ(r.args->priorPhases[0].first, "export");
    EXPECT_DOUBLE_EQ(r.args->priorPhases[0].second, 2.5);
    EXPECT_EQ(r.args->priorPhases[1].first, "package");
    EXPECT_EQ(r.args->cupti, "/x/libcompilescope_cupti.so");

    r = parseArgs({"--version"});
    ASSERT_TRUE(r.args) << r.error;
    EXPECT_TRUE(r.args->version);
}

TEST(AotiArgs, BadArgumentsSayWhy) {
    const std::vector<std::string> base{"--package", "m.pt2",    "--inputs",
                                        "in.pt",     "--device", "cpu"};
    auto with = [&](std::vector<std::string> extra) {
        auto all = base;
        all.insert(all.end(), extra.begin(), extra.end());
        return parseArgs(all);
    };
    EXPECT_NE(with({"--warmup", "0"}).error.find("--warmup"), std::string::npos);
    EXPECT_NE(with({"--iters", "-1"}).error.find("--iters"), std::string::npos);
    EXPECT_NE(with({"--iters", "12x"}).error.find("--iters"), std::string::npos);
    EXPECT_NE(with({"--prior-phase", "export"}).error.find("NAME=SECONDS"), std::string::npos);
    EXPECT_NE(with({"--prior-phase", "export=-1"}).error.find("NAME=SECONDS"), std::string::npos);
    EXPECT_NE(with({"--cupti", "x.so"}).error.find("CUDA"), std::string::npos);
    EXPECT_NE(with({"--bogus"}).error.find("--bogus"), std::string::npos);
    EXPECT_NE(with({"--continue-stream=1"}).error.find("takes no value"), std::string::npos);
    EXPECT_NE(with({"--iters"}).error.find("needs a value"), std::string::npos);
    EXPECT_FALSE(parseArgs({"--package", "m.pt2", "--device", "cpu"}).args);
    EXPECT_NE(
        parseArgs({"--package", "m.pt2", "--inputs", "i", "--device", "gpu"}).error.find("gpu"),
        std::string::npos);
    EXPECT_FALSE(parseArgs({"--package", "m.pt2", "--inputs", "i", "--device", "cuda:"}).args);
    EXPECT_FALSE(parseArgs({"--package", "m.pt2", "--inputs", "i", "--device", "cuda:-1"}).args);
}

TEST(AotiEventSink, WritesWholeLinesAndStopsWhenTheReaderGoes) {
    std::signal(SIGPIPE, SIG_IGN);
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    cs::aoti::EventSink sink(fds[1]);
    // Bigger than a pipe's buffer is not needed here: a reader drains it below.
    JsonLine e = cs::aoti::event("log");
    e.field("message", std::string(1000, 'x'));
    EXPECT_TRUE(sink.emit(e));
    char buf[2048];
    const ssize_t n = read(fds[0], buf, sizeof buf);
    ASSERT_GT(n, 0);
    EXPECT_EQ(buf[n - 1], '\n');
    const auto j = nlohmann::json::parse(std::string(buf, static_cast<size_t>(n)));
    EXPECT_EQ(j["message"], std::string(1000, 'x'));
    close(fds[0]);
    JsonLine again = cs::aoti::event("log");
    EXPECT_FALSE(sink.emit(again)); // EPIPE: closed, quietly
    EXPECT_TRUE(sink.closed());
    close(fds[1]);
}

TEST(AotiCuptiAbi, RestatedAbiMatchesTheCollectorsHeader) {
    using cs::aoti::cupti_abi::Record;
    using cs::aoti::cupti_abi::Stats;
    EXPECT_EQ(cs::aoti::cupti_abi::kAbiVersion, CS_CUPTI_ABI_VERSION);
    EXPECT_EQ(sizeof(Record), sizeof(cs_cupti_record));
    EXPECT_EQ(sizeof(Stats), sizeof(cs_cupti_stats));
#define CS_SAME_OFFSET(T, U, f) EXPECT_EQ(offsetof(T, f), offsetof(U, f)) << #f
    CS_SAME_OFFSET(Record, cs_cupti_record, kind);
    CS_SAME_OFFSET(Record, cs_cupti_record, subkind);
    CS_SAME_OFFSET(Record, cs_cupti_record, name_id);
    CS_SAME_OFFSET(Record, cs_cupti_record, start_ns);
    CS_SAME_OFFSET(Record, cs_cupti_record, end_ns);
    CS_SAME_OFFSET(Record, cs_cupti_record, bytes);
    CS_SAME_OFFSET(Record, cs_cupti_record, address);
    CS_SAME_OFFSET(Record, cs_cupti_record, pool_address);
    CS_SAME_OFFSET(Record, cs_cupti_record, pool_size);
    CS_SAME_OFFSET(Record, cs_cupti_record, device_id);
    CS_SAME_OFFSET(Record, cs_cupti_record, flags);
    CS_SAME_OFFSET(Record, cs_cupti_record, pool_type);
    CS_SAME_OFFSET(Record, cs_cupti_record, seq);
    CS_SAME_OFFSET(Stats, cs_cupti_stats, dropped_by_cupti);
    CS_SAME_OFFSET(Stats, cs_cupti_stats, dropped_over_cap);
#undef CS_SAME_OFFSET
    EXPECT_EQ(cs::aoti::cupti_abi::kRecMemAlloc, CS_REC_MEM_ALLOC);
    EXPECT_EQ(cs::aoti::cupti_abi::kRecMemFree, CS_REC_MEM_FREE);
    EXPECT_EQ(cs::aoti::cupti_abi::kRecPoolCreated, CS_REC_POOL_CREATED);
    EXPECT_EQ(cs::aoti::cupti_abi::kRecPoolDestroyed, CS_REC_POOL_DESTROYED);
    EXPECT_EQ(cs::aoti::cupti_abi::kRecPoolTrimmed, CS_REC_POOL_TRIMMED);
    EXPECT_EQ(cs::aoti::cupti_abi::kRecPhase, CS_REC_PHASE);
    EXPECT_EQ(cs::aoti::cupti_abi::kFlagAsync, static_cast<uint32_t>(CS_FLAG_ASYNC));
    EXPECT_EQ(cs::aoti::cupti_abi::kFlagNoTimestamp, static_cast<uint32_t>(CS_FLAG_NO_TIMESTAMP));
    EXPECT_EQ(cs::aoti::cupti_abi::kFlagPhaseEnd, static_cast<uint32_t>(CS_FLAG_PHASE_END));
}

cs::aoti::MemRecord mem(uint16_t kind, uint64_t t, uint64_t bytes, uint64_t address) {
    cs::aoti::MemRecord r;
    r.kind = kind;
    r.subkind = 3; // DEVICE
    r.startNs = t;
    r.bytes = bytes;
    r.address = address;
    r.seq = t;
    return r;
}

cs::aoti::MemRecord mark(const char* name, bool end, uint64_t t) {
    cs::aoti::MemRecord r;
    r.kind = CS_REC_PHASE;
    r.name = name;
    r.flags = end ? CS_FLAG_PHASE_END : 0;
    r.startNs = t;
    r.seq = t;
    return r;
}

TEST(AotiCuptiMemory, TimelineAndPhasePeaksAsThePythonSideComputesThem) {
    std::vector<cs::aoti::MemRecord> records{mark("compile", false, 100),
                                             mem(CS_REC_MEM_ALLOC, 110, 1000, 0xa),
                                             mem(CS_REC_MEM_ALLOC, 120, 500, 0xb),
                                             mem(CS_REC_MEM_FREE, 130, 1000, 0xa),
                                             mark("compile", true, 140),
                                             mark("measure", false, 150),
                                             mem(CS_REC_MEM_ALLOC, 160, 200, 0xc),
                                             mem(CS_REC_MEM_FREE, 170, 999, 0xdead),
                                             mark("measure", true, 180)};
    const auto memory = cs::aoti::deviceMemoryTimeline(records, 50);
    const std::vector<std::pair<int64_t, int64_t>> expected{{50, 0},    {110, 1000}, {120, 1500},
                                                            {130, 500}, {160, 700},  {170, 700}};
    EXPECT_EQ(memory.samples, expected);
    EXPECT_EQ(memory.peak, 1500);
    EXPECT_EQ(memory.unknownFrees, 1);
    const auto windows = cs::aoti::phaseWindows(records, 200);
    const auto peaks = cs::aoti::phasePeaks(memory.samples, windows);
    EXPECT_EQ(peaks.at("compile"), 1500);
    EXPECT_EQ(peaks.at("measure"), 700); // held as it began counts
}

// What the sink received, one parsed event per line.
std::vector<nlohmann::json> drainEvents(int fd) {
    std::string text;
    char buf[4096];
    for (;;) {
        const ssize_t n = read(fd, buf, sizeof buf);
        if (n <= 0)
            break;
        text.append(buf, static_cast<size_t>(n));
    }
    std::vector<nlohmann::json> out;
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);)
        out.push_back(nlohmann::json::parse(line));
    return out;
}

// CuptiBridge::start never throws: whatever fails, one inactive cupti_status says why.
nlohmann::json startStatus(const std::string& library, bool& started) {
    int fds[2];
    EXPECT_EQ(pipe(fds), 0);
    cs::aoti::EventSink sink(fds[1]);
    cs::aoti::CuptiBridge bridge;
    started = bridge.start(library, sink);
    EXPECT_EQ(bridge.active(), started);
    close(fds[1]);
    auto events = drainEvents(fds[0]);
    close(fds[0]);
    EXPECT_EQ(events.size(), 1U);
    return events.empty() ? nlohmann::json() : events.front();
}

TEST(AotiCuptiBridge, ALibraryThatIsMissingOrNotTheCollectorIsSaidInCuptiStatus) {
    bool started = true;
    auto status = startStatus("/nonexistent/libcompilescope_cupti.so", started);
    EXPECT_FALSE(started);
    EXPECT_EQ(status["type"], "cupti_status");
    EXPECT_EQ(status["active"], false);
    EXPECT_NE(status["message"].get<std::string>().find("/nonexistent/libcompilescope_cupti.so"),
              std::string::npos);
    status = startStatus("libm.so.6", started);
    EXPECT_FALSE(started);
    EXPECT_NE(status["message"].get<std::string>().find("not a compatible CUPTI collector"),
              std::string::npos);
}

#ifdef CUPTI_COLLECTOR
// The real collector binds (every symbol, the ABI version, the record and
// stats sizes); on a machine without a driver or GPU, start fails and says so.
TEST(AotiCuptiBridge, TheProjectsCollectorBinds) {
    bool started = false;
    const auto status = startStatus(CUPTI_COLLECTOR, started);
    EXPECT_EQ(status["type"], "cupti_status");
    EXPECT_EQ(status["active"], started);
    const std::string message = status["message"];
    EXPECT_EQ(message.find("not a compatible"), std::string::npos) << message;
    EXPECT_NE(message.rfind("the CUPTI collector ", 0), 0U) << message; // dlopen worked
    if (!started) {
        EXPECT_NE(message.find("CUPTI could not start"), std::string::npos) << message;
    }
}
#endif

// The stream the real runner wrote (the pytest saves it): core reads it into
// a run with the phases and the iteration counts its hello asked for.
TEST(AotiStreamReplay, CoreParsesTheRunnersStream) {
    std::ifstream in(AOTI_RUNNER_STREAM);
    if (!in)
        GTEST_SKIP() << AOTI_RUNNER_STREAM << " is missing: the aoti_runner_pytest test writes it";
    std::stringstream text;
    text << in.rdbuf();
    const std::string stream = text.str();
    const nlohmann::json hello = nlohmann::json::parse(stream.substr(0, stream.find('\n')));
    ASSERT_EQ(hello["type"], "hello");
    const int warmup = hello["settings"]["warmup"];
    const int iters = hello["settings"]["iters"];

    const cs::core::Run run = cs::core::replayStream(stream);
    EXPECT_TRUE(run.parseProblems.empty());
    EXPECT_TRUE(run.unknownEvents.empty());
    EXPECT_TRUE(run.sawHello);
    EXPECT_TRUE(run.sawDone);
    EXPECT_EQ(run.doneStatus, "ok");
    EXPECT_EQ(run.probe.torch, hello["torch"].get<std::string>());
    ASSERT_EQ(run.iterations.size(), static_cast<size_t>(warmup + iters));
    for (size_t i = 0; i < run.iterations.size(); ++i) {
        EXPECT_EQ(run.iterations[i].index, static_cast<int>(i));
        EXPECT_GT(run.iterations[i].latencyNs, 0);
        EXPECT_EQ(run.iterations[i].warmup, i < static_cast<size_t>(warmup));
        EXPECT_EQ(run.iterations[i].firstCall, i == 0);
    }
    EXPECT_EQ(run.warmupLatencies().size(), static_cast<size_t>(warmup));
    EXPECT_EQ(run.measuredLatencies().size(), static_cast<size_t>(iters));
    for (const char* name : {"compile", "warmup", "measure"}) {
        const auto* span = run.phase(name);
        ASSERT_NE(span, nullptr) << name;
        EXPECT_LT(span->beginNs, span->endNs) << name;
    }
    EXPECT_GE(run.harnessOverheadNs, 0);
    // The machine's CPU over the phase, read by core as the probe's.
    EXPECT_TRUE(run.measureMachineCpu.present());
    EXPECT_GT(run.measureMachineCpu.probeCpuNs, 0);
    EXPECT_GT(run.firstCallNs, 0);
    std::vector<std::string> phases;
    for (const auto& p : run.compilePhases)
        phases.push_back(p.name);
    EXPECT_EQ(phases, (std::vector<std::string>{"export", "package", "load", "first_call"}));
    EXPECT_GE(run.crosscheckBlockCalls, 1);
    // malloc's bytes around both windows of the same calls, as the probe's.
    EXPECT_EQ(run.measureHostHeld.counter, "malloc");
    EXPECT_EQ(run.measureHostHeld.calls, iters);
    EXPECT_GT(run.measureHostHeld.beginBytes, 0);
    EXPECT_EQ(run.crosscheckHostHeld.counter, "malloc");
    EXPECT_GE(run.crosscheckHostHeld.calls, run.crosscheckBlockCalls);
    EXPECT_EQ(run.crosscheckHostHeld.calls % run.crosscheckBlockCalls, 0);
    const auto* rss = run.memorySeries("host_rss");
    ASSERT_NE(rss, nullptr);
    EXPECT_FALSE(rss->samples.empty());
}

} // namespace
