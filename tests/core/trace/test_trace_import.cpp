// The TORCH_TRACE importer on a real trace (tests/fixtures/trace/one_process:
// torch 2.15 compiling model.py.txt, a print break and a shape change) and on
// damaged copies of it made here.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "core/trace/graph_text.h"
#include "core/trace/rank_builder.h"
#include "core/trace/trace_import.h"
#include "core/trace/trace_payload.h"
#include "core/trace/trace_reader.h"

namespace cs::core::trace {
namespace {

namespace fs = std::filesystem;

const fs::path kFixtureDir = fs::path(COMPILESCOPE_FIXTURES) / "trace" / "one_process";

fs::path fixtureLog() {
    for (const auto& entry : fs::directory_iterator(kFixtureDir)) {
        if (entry.path().extension() == ".log")
            return entry.path();
    }
    return {};
}

std::string readAll(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

void writeAll(const fs::path& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
}

class TempDir {
  public:
    TempDir() {
        path_ = fs::temp_directory_path() /
                ("cs_trace_" + std::to_string(std::random_device{}()) + "_" +
                 ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::create_directories(path_);
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path_, ec);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const fs::path& path() const { return path_; }

  private:
    fs::path path_;
};

// The fixture's text with every record line's time of day replaced, so two
// copies look like two runs.
std::string restamped(const std::string& text, const std::string& hour) {
    std::string out;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        RecordPrefix prefix;
        if (parseRecordPrefix(line, prefix))
            line.replace(6, 2, hour);
        out += line + "\n";
    }
    return out;
}

TEST(TraceImport, ReadsTheRealTrace) {
    const ImportResult result = importTrace(kFixtureDir.string());
    ASSERT_TRUE(result.error.empty()) << result.error;
    ASSERT_EQ(result.report.runs.size(), 1U);
    const core::Run& run = result.report.runs.front();
    EXPECT_EQ(run.status, RunStatus::Imported);
    ASSERT_TRUE(run.trace.has_value());
    EXPECT_EQ(run.trace->rank, -1);
    EXPECT_EQ(run.trace->badPayloads, 0);
    EXPECT_FALSE(run.trace->truncated);
    EXPECT_TRUE(run.trace->unknownKinds.empty());
    EXPECT_TRUE(run.parseProblems.empty()) << run.parseProblems.front().message;
    EXPECT_EQ(result.report.environment.torch.rfind("2.", 0), 0U);

    // f and the function resumed after the print, each compiled for size 2 and
    // again for the dynamic size.
    ASSERT_EQ(run.graphs.size(), 4U);
    EXPECT_EQ(run.graphs[0].compileId, "0/0");
    EXPECT_EQ(run.graphs[0].function, "f");
    EXPECT_EQ(run.graphs[1].function, "torch_dynamo_resume_in_f_at_4");
    const auto& sin = run.graphs[0].nodes[1];
    EXPECT_EQ(sin.name, "y");
    EXPECT_EQ(sin.op, "call_method");
    EXPECT_EQ(sin.target, "sin");
    EXPECT_EQ(sin.shape, "[2, 5]");
    EXPECT_EQ(sin.dtype, "float32");
    EXPECT_EQ(sin.line, 3);
    EXPECT_EQ(run.graphs[2].nodes[0].shape, "Sym(s77)");

    ASSERT_EQ(run.graphBreaks.size(), 2U);
    const GraphBreak& br = run.graphBreaks.front();
    EXPECT_EQ(br.gbType, "Failed to trace builtin operator");
    EXPECT_EQ(br.gbId, "GB0059");
    ASSERT_NE(br.location(), nullptr);
    EXPECT_EQ(br.location()->line, 4);
    EXPECT_EQ(br.location()->function, "f");
    EXPECT_EQ(br.location()->code, "print(\"hi\")");

    ASSERT_EQ(run.recompiles.size(), 2U);
    EXPECT_EQ(run.recompiles[0].function, "f");
    EXPECT_NE(run.recompiles[0].reason.find("size mismatch at index 0"), std::string::npos);
    EXPECT_EQ(run.recompiles[0].cacheSize, 1);

    ASSERT_EQ(run.compiles.size(), 4U);
    double total = 0;
    for (const auto& c : run.compiles) {
        EXPECT_GT(c.seconds, 0) << c.compileId;
        EXPECT_EQ(c.graphs, 1) << c.compileId;
        EXPECT_GE(c.outputCodeOffset, 0) << c.compileId;
        total += c.seconds;
    }
    EXPECT_EQ(run.compiles[0].graphBreaks, 1);
    EXPECT_FALSE(run.compiles[0].restartReasons.empty());
    double phases = 0;
    for (const auto& p : run.compilePhases)
        phases += p.seconds;
    EXPECT_LE(phases, total + 1e-6);
    EXPECT_GT(phases, 0.5 * total);

    EXPECT_EQ(std::count_if(run.cacheLookups.begin(), run.cacheLookups.end(),
                            [](const auto& l) { return l.outcome == "miss"; }),
              static_cast<long>(run.cacheLookups.size()));
    EXPECT_FALSE(run.cacheLookups.empty());
}

TEST(TraceImport, GeneratedCodeStaysInTheFileUntilAsked) {
    const ImportResult result = importTrace(fixtureLog().string());
    ASSERT_TRUE(result.error.empty()) << result.error;
    const CompileRecord& c = result.report.runs.front().compiles.front();
    const auto code = readPayload(fixtureLog().string(), c.outputCodeOffset, c.outputCodeBytes);
    ASSERT_TRUE(code.has_value());
    EXPECT_EQ(code->rfind("# AOT ID:", 0), 0U);
    EXPECT_FALSE(readPayload(fixtureLog().string(), 0, 100).has_value()); // a record line
}

TEST(TraceImport, ReportsProgressToTheEndAndCancels) {
    int64_t last = 0;
    int64_t total = 0;
    ImportOptions options;
    options.progress = [&](int64_t done, int64_t all) {
        EXPECT_GE(done, last);
        last = done;
        total = all;
    };
    ASSERT_TRUE(importTrace(kFixtureDir.string(), options).error.empty());
    EXPECT_EQ(last, static_cast<int64_t>(fs::file_size(fixtureLog())));
    EXPECT_EQ(total, last);

    std::atomic<bool> cancel{true};
    options.cancel = &cancel;
    const ImportResult cancelled = importTrace(kFixtureDir.string(), options);
    EXPECT_TRUE(cancelled.cancelled);
    EXPECT_TRUE(cancelled.report.runs.empty());
}

TEST(TraceImport, RanksOfOneJobBecomeOneRunEach) {
    TempDir dir;
    const std::string text = readAll(fixtureLog());
    writeAll(dir.path() / "dedicated_log_torch_trace_rank_1_bbb.log", text);
    writeAll(dir.path() / "dedicated_log_torch_trace_rank_0_aaa.log", text);
    writeAll(dir.path() / "notes.txt", "not a trace\n");
    const TraceListing listing = listTrace(dir.path().string());
    ASSERT_EQ(listing.jobs.size(), 1U);
    EXPECT_EQ(listing.jobs[0].files.size(), 2U);
    EXPECT_EQ(listing.skipped.size(), 1U);
    EXPECT_NE(listing.jobs[0].label().find("2 ranks"), std::string::npos);

    ImportOptions options;
    options.threads = 2;
    const ImportResult result = importTrace(dir.path().string(), options);
    ASSERT_TRUE(result.error.empty()) << result.error;
    ASSERT_EQ(result.report.runs.size(), 2U);
    EXPECT_EQ(result.report.runs[0].trace->rank, 0);
    EXPECT_EQ(result.report.runs[1].trace->rank, 1);
    EXPECT_EQ(result.report.runs[1].setting.label(), "rank 1");
    EXPECT_EQ(result.report.runs[0].graphs, result.report.runs[1].graphs);
}

TEST(TraceImport, SeveralRunsInOneDirectoryAskWhichOne) {
    TempDir dir;
    const std::string text = readAll(fixtureLog());
    writeAll(dir.path() / "dedicated_log_torch_trace_first.log", restamped(text, "08"));
    writeAll(dir.path() / "dedicated_log_torch_trace_second.log", restamped(text, "09"));
    const ImportResult ambiguous = importTrace(dir.path().string());
    EXPECT_NE(ambiguous.error.find("holds 2 runs; pick one with --job"), std::string::npos)
        << ambiguous.error;
    EXPECT_NE(ambiguous.error.find("1: 1 process, started"), std::string::npos);

    ImportOptions options;
    options.job = 2;
    const ImportResult second = importTrace(dir.path().string(), options);
    ASSERT_TRUE(second.error.empty()) << second.error;
    ASSERT_EQ(second.report.runs.size(), 1U);
    EXPECT_EQ(second.report.runs[0].trace->started.substr(5, 2), "09");

    options.job = 3;
    EXPECT_NE(importTrace(dir.path().string(), options).error.find("has no run 3"),
              std::string::npos);
}

TEST(TraceImport, EmptyDirectoryAndNonTraceFilesSayWhatToDo) {
    TempDir dir;
    const ImportResult empty = importTrace(dir.path().string());
    EXPECT_NE(empty.error.find("the directory is empty"), std::string::npos) << empty.error;
    EXPECT_NE(empty.error.find("TORCH_TRACE="), std::string::npos);

    writeAll(dir.path() / "model.py", "import torch\n");
    const ImportResult none = importTrace(dir.path().string());
    EXPECT_NE(none.error.find("holds no TORCH_TRACE log"), std::string::npos) << none.error;

    const ImportResult file = importTrace((dir.path() / "model.py").string());
    EXPECT_NE(file.error.find("model.py: not a TORCH_TRACE log"), std::string::npos) << file.error;

    const ImportResult missing = importTrace((dir.path() / "nowhere").string());
    EXPECT_NE(missing.error.find("no such file or directory"), std::string::npos);
}

TEST(TraceImport, TruncatedLastLineKeepsWhatCameBefore) {
    TempDir dir;
    const std::string text = readAll(fixtureLog());
    // Cut in the middle of a line about two thirds in: the job died while writing.
    size_t cut = text.size() * 2 / 3;
    while (text[cut] == '\n')
        ++cut;
    writeAll(dir.path() / "dedicated_log_torch_trace_cut.log", text.substr(0, cut));
    const ImportResult result = importTrace(dir.path().string());
    ASSERT_TRUE(result.error.empty()) << result.error;
    const core::Run& run = result.report.runs.front();
    EXPECT_TRUE(run.trace->truncated);
    EXPECT_FALSE(run.graphs.empty());
    EXPECT_LT(run.graphs.size(), 4U);
    EXPECT_TRUE(std::any_of(result.warnings.begin(), result.warnings.end(), [](const auto& w) {
        return w.find("ends in the middle of a line") != std::string::npos;
    }));
}

TEST(TraceImport, PayloadThatDoesNotMatchItsMd5NamesTheRecord) {
    TempDir dir;
    std::string text = readAll(fixtureLog());
    const size_t record = text.find("{\"dynamo_output_graph\"");
    ASSERT_NE(record, std::string::npos);
    const size_t payload = text.find("\n\t", record) + 2;
    const size_t sin = text.find("sin()", payload);
    text[sin] = 'c'; // l_x_.sin() -> l_x_.cin(): one byte changed
    const int64_t line =
        std::count(text.begin(), text.begin() + static_cast<long>(record), '\n') + 1;
    writeAll(dir.path() / "dedicated_log_torch_trace_md5.log", text);
    const ImportResult result = importTrace(dir.path().string());
    ASSERT_TRUE(result.error.empty()) << result.error;
    const core::Run& run = result.report.runs.front();
    EXPECT_EQ(run.trace->badPayloads, 1);
    ASSERT_FALSE(run.parseProblems.empty());
    EXPECT_EQ(run.parseProblems.front().line, line);
    EXPECT_NE(run.parseProblems.front().message.find("dynamo_output_graph"), std::string::npos);
    EXPECT_NE(run.parseProblems.front().message.find("md5"), std::string::npos);
    EXPECT_EQ(run.graphs.size(), 4U); // what remains is still shown
}

TEST(TraceImport, RankCutOffMidRecordIsFlaggedAndTheOtherRankIsWhole) {
    TempDir dir;
    const std::string text = readAll(fixtureLog());
    writeAll(dir.path() / "dedicated_log_torch_trace_rank_0_a.log", text);
    // Rank 1 stops inside the payload of the last dynamo_output_graph.
    const size_t record = text.rfind("{\"dynamo_output_graph\"");
    const size_t inside = text.find("\n\t", record) + 20;
    writeAll(dir.path() / "dedicated_log_torch_trace_rank_1_b.log", text.substr(0, inside));
    const ImportResult result = importTrace(dir.path().string());
    ASSERT_TRUE(result.error.empty()) << result.error;
    ASSERT_EQ(result.report.runs.size(), 2U);
    EXPECT_FALSE(result.report.runs[0].trace->truncated);
    const core::Run& cut = result.report.runs[1];
    EXPECT_TRUE(cut.trace->truncated);
    EXPECT_EQ(cut.trace->badPayloads, 1);
    ASSERT_FALSE(cut.parseProblems.empty());
    EXPECT_NE(cut.parseProblems.front().message.find("cut off"), std::string::npos);
}

TEST(TraceImport, UnknownKindsAreCountedAndKept) {
    TempDir dir;
    std::string text = readAll(fixtureLog());
    text += "V1130 18:48:09.000000 2103 torch/x.py:1] {\"brand_new_kind\": {\"a\": 1}, "
            "\"frame_id\": 0, \"frame_compile_id\": 0, \"attempt\": 0}\n";
    writeAll(dir.path() / "dedicated_log_torch_trace_new.log", text);
    const ImportResult result = importTrace(dir.path().string());
    ASSERT_TRUE(result.error.empty()) << result.error;
    const core::Run& run = result.report.runs.front();
    EXPECT_EQ(run.trace->unknownKinds.at("brand_new_kind"), 1);
    ASSERT_EQ(run.unknownEvents.size(), 1U);
    EXPECT_EQ(run.unknownEvents[0]["brand_new_kind"]["a"], 1);
    EXPECT_EQ(run.graphs.size(), 4U);
}

TEST(TraceImport, OverlongLineIsSkippedAndNamedNotBuffered) {
    TempDir dir;
    const std::string text = readAll(fixtureLog());
    const size_t firstRecordEnd = text.find('\n') + 1;
    std::string damaged = text.substr(0, firstRecordEnd);
    damaged += std::string((size_t{64} << 20) + 10, 'x') + "\n"; // one line over the bound
    damaged += text.substr(firstRecordEnd);
    writeAll(dir.path() / "dedicated_log_torch_trace_long.log", damaged);
    const ImportResult result = importTrace(dir.path().string());
    ASSERT_TRUE(result.error.empty()) << result.error;
    const core::Run& run = result.report.runs.front();
    // It lands inside the first record's payload: that payload fails its md5 too.
    const auto tooLong =
        std::find_if(run.parseProblems.begin(), run.parseProblems.end(), [](const auto& p) {
            return p.message.find("longer than 64 MiB") != std::string::npos;
        });
    ASSERT_NE(tooLong, run.parseProblems.end());
    EXPECT_EQ(tooLong->line, 2);
    EXPECT_EQ(run.trace->badPayloads, 1);
    EXPECT_EQ(run.graphs.size(), 4U); // everything after it is read
}

// Random cuts and byte changes of a real trace: never a crash, and a cut or a
// changed payload is always reported.
TEST(TraceImport, SurvivesRandomCutsAndMutations) {
    TempDir dir;
    const std::string text = readAll(fixtureLog());
    std::mt19937 random(20261130);
    const fs::path file = dir.path() / "dedicated_log_torch_trace_fuzz.log";
    for (int round = 0; round < 60; ++round) {
        std::string damaged = text;
        const bool cut = round % 2 == 0;
        size_t at = std::uniform_int_distribution<size_t>(1, text.size() - 2)(random);
        if (cut) {
            damaged.resize(at);
        } else {
            // Only bytes inside payload lines (after their tab) are checked by an md5.
            const auto insidePayload = [&](size_t i) {
                const size_t lineStart = damaged.rfind('\n', i - 1) + 1;
                return damaged[lineStart] == '\t' && i > lineStart && damaged[i] != '\n';
            };
            while (!insidePayload(at))
                at = std::uniform_int_distribution<size_t>(1, text.size() - 2)(random);
            damaged[at] = damaged[at] == 'x' ? 'y' : 'x';
        }
        writeAll(file, damaged);
        const ImportResult result = importTrace(file.string());
        if (!result.error.empty())
            continue; // cut before the first record ended: said so
        ASSERT_EQ(result.report.runs.size(), 1U);
        const core::Run& run = result.report.runs.front();
        if (cut && damaged.back() != '\n') {
            EXPECT_TRUE(run.trace->truncated) << "round " << round;
        }
        if (!cut) {
            EXPECT_EQ(run.trace->badPayloads, 1) << "round " << round << " at " << at;
        }
    }
}

TEST(TraceReader, RecordPrefixWithAnOverlongPidIsNoRecord) {
    RecordPrefix prefix;
    ASSERT_TRUE(parseRecordPrefix("V1130 18:48:03.431000 2103 x.py:1] {\"str\": 1}", prefix));
    EXPECT_EQ(prefix.pid, 2103);
    // 30 digits would overflow an int64: not a pid, so not a record.
    EXPECT_FALSE(parseRecordPrefix(
        "V1130 18:48:03.431000 999999999999999999999999999999 x.py:1] {\"str\": 1}", prefix));
}

TEST(GraphText, ReadsOpsShapesSourceAndInputs) {
    const std::string text = R"graph(class GraphModule(torch.nn.Module):
    def forward(self, L_x_: "f32[3, 4][4, 1]cpu", L_w_: "bf16[4, 4][4, 1]cuda:0", s0: "Sym(s0)"):
        l_x_ = L_x_
        l_w_ = L_w_

        # File: /m.py:6 in forward, code: y = s.l(x) + 1
        linear: "f32[3, 4][4, 1]cpu" = torch._C._nn.linear(l_x_, l_w_);  l_x_ = None
        y: "f32[3, 4][4, 1]cpu" = linear + 1;  linear = None
        chunk = y.chunk(2, dim = 1)
        a: "f32[3, 2][4, 1]cpu" = chunk[0];  chunk = None
        sub = self.L__self___sub(a)
        cond_true_0 = self.cond_true_0

        # No stacktrace found for following nodes
        eq: "b8[3, 2][2, 1]cpu" = a == 0
        return (y, a, eq)

    class cond_true_0(torch.nn.Module):
        def forward(self, l_x_: "f32[3][1]cpu"):
            sin: "f32[3][1]cpu" = l_x_.sin()
            return (sin,)
)graph";
    const std::vector<GraphNode> nodes = parseGraphText(text);
    ASSERT_EQ(nodes.size(), 11U);
    EXPECT_EQ(nodes[0].name, "l_x_");
    EXPECT_EQ(nodes[0].target, "L_x_");
    EXPECT_EQ(nodes[1].dtype, "bfloat16");
    EXPECT_EQ(nodes[2].shape, "Sym(s0)");
    EXPECT_EQ(nodes[3].op, "call_function");
    EXPECT_EQ(nodes[3].target, "torch._C._nn.linear");
    EXPECT_EQ(nodes[3].inputs, (std::vector<std::string>{"l_x_", "l_w_"}));
    EXPECT_EQ(nodes[3].file, "/m.py");
    EXPECT_EQ(nodes[3].line, 6);
    EXPECT_EQ(nodes[4].target, "operator.add");
    EXPECT_EQ(nodes[5].op, "call_method");
    EXPECT_EQ(nodes[5].target, "chunk");
    EXPECT_EQ(nodes[6].target, "operator.getitem");
    EXPECT_EQ(nodes[7].op, "call_module");
    EXPECT_EQ(nodes[7].target, "L__self___sub");
    EXPECT_EQ(nodes[8].op, "get_attr");
    EXPECT_EQ(nodes[9].target, "operator.eq");
    EXPECT_EQ(nodes[9].file, ""); // after "No stacktrace found"
    EXPECT_EQ(nodes[10].op, "output");
    EXPECT_EQ(nodes[10].inputs, (std::vector<std::string>{"y", "a", "eq"}));
}

TEST(GraphText, AnnotationsIntoShapeAndDtype) {
    std::string shape;
    std::string dtype;
    ASSERT_TRUE(parseTypeAnnotation("i64[s77, 5][5, 1]cpu", shape, dtype));
    EXPECT_EQ(shape, "[s77, 5]");
    EXPECT_EQ(dtype, "int64");
    ASSERT_TRUE(parseTypeAnnotation("f32[][]cpu", shape, dtype));
    EXPECT_EQ(shape, "[]");
    EXPECT_FALSE(parseTypeAnnotation("torch.Tensor", shape, dtype));
    EXPECT_FALSE(parseTypeAnnotation("", shape, dtype));
}

// Found by fuzzing: a line number or rank with more digits than an int holds
// overflowed it (undefined behaviour). Now it is no line (0) and no rank (-1).
TEST(GraphText, NumbersPastAnIntAreUnknownNotOverflowed) {
    const std::vector<GraphNode> nodes = parseGraphText(R"graph(class GraphModule(torch.nn.Module):
    def forward(self, L_x_: "f32[3][1]cpu"):
        l_x_ = L_x_

        # File: /m.py:44444444444444 in f, code: y = x.sin()
        y: "f32[3][1]cpu" = l_x_.sin();  l_x_ = None
        return (y,)
)graph");
    ASSERT_EQ(nodes.size(), 3U);
    EXPECT_EQ(nodes[1].name, "y");
    EXPECT_EQ(nodes[1].file, "");
    EXPECT_EQ(nodes[1].line, 0);

    const GraphBreak br = parseBreakText("Graph break in user code at /m.py:4\n"
                                         "User code traceback:\n"
                                         "  File \"/m.py\", line 99999999999, in f\n    g()\n");
    ASSERT_EQ(br.frames.size(), 1U);
    EXPECT_EQ(br.frames[0].file, "/m.py");
    EXPECT_EQ(br.frames[0].line, 0);

    TempDir dir;
    writeAll(dir.path() / "dedicated_log_torch_trace_rank_99999999999_a.log",
             readAll(fixtureLog()));
    const TraceListing listing = listTrace(dir.path().string());
    ASSERT_EQ(listing.jobs.size(), 1U);
    ASSERT_EQ(listing.jobs[0].files.size(), 1U);
    EXPECT_EQ(listing.jobs[0].files[0].rank, -1);
}

TEST(BreakText, ReadsTypeIdAndUserFrames) {
    const GraphBreak br = parseBreakText(
        "Graph break in user code at /m.py:4\n"
        "Graph Break Reason: Encountered graph break when attempting to trace CALL: a call:\n\n"
        "Failed to trace builtin operator\n  Explanation: print\n\n"
        " For more details, please visit: https://x/gb/gb0059.html\n\n"
        "User code traceback:\n"
        "  File \"/run.py\", line 9, in <module>\n    f(x)\n    ~^^^\n"
        "  File \"/m.py\", line 4, in f\n    print(\"hi\")\n\n"
        "Traceback (most recent call last):\n  File \"/torch/x.py\", line 1, in g\n    pass\n");
    EXPECT_EQ(br.gbType, "Failed to trace builtin operator");
    EXPECT_EQ(br.gbId, "GB0059");
    ASSERT_EQ(br.frames.size(), 2U);
    EXPECT_EQ(br.frames[0].code, "f(x)");
    EXPECT_EQ(br.userFrame, 1);
    EXPECT_EQ(br.frames[1].file, "/m.py");
    EXPECT_EQ(br.frames[1].function, "f");

    const GraphBreak bare = parseBreakText("Graph break in user code at /m.py:12\nsomething");
    ASSERT_EQ(bare.frames.size(), 1U);
    EXPECT_EQ(bare.frames[0].line, 12);
}

TEST(BreakText, AFrameSkippedForABreakIsReadByTheBreaksOwnType) {
    // torch 2.15's record when a break inside an inlined call skips the frame.
    const GraphBreak br = parseBreakText(
        "Graph break in user code at /lib/site-packages/t/o.py:239\n"
        "Graph Break Reason: Failed to handle graph break gracefully. Skipping the function and "
        "falling back to eager. Graph break encountered:\n\n"
        "Unsupported context manager\n  Explanation: a lock\n\n"
        "User code traceback:\n"
        "  File \"/lib/site-packages/t/o.py\", line 239, in hooks\n    with lock:\n");
    EXPECT_EQ(br.gbType, "Unsupported context manager");
    EXPECT_EQ(br.userFrame, -1); // installed code only
}

SourceFrame at(const std::string& file, int line, const std::string& function) {
    SourceFrame f;
    f.file = file;
    f.line = line;
    f.function = function;
    return f;
}

TEST(BreakText, AStackStartsAtTheCompiledFrameAsTheLiveProbesDoes) {
    const std::string mm = "/venv/lib/python3.11/site-packages/torch/nn/modules/module.py";
    const std::string lib = "/venv/lib/python3.11/site-packages/transformers/seg.py";
    GraphBreak br;
    br.frames = {at("<frozen runpy>", 198, "_run_module_as_main"),
                 at("/opt/cs/probe/compilescope_probe/main.py", 784, "call"),
                 at("/opt/cs/probe/compilescope_probe/harness.py", 21, "__call__"),
                 at(mm, 1787, "_wrapped_call_impl"),
                 at(mm, 1798, "_call_impl"),
                 at(lib, 578, "forward"),
                 at(mm, 1798, "_call_impl"),
                 at(lib, 355, "wrapper"),
                 at("/usr/lib/python3.11/threading.py", 90, "__enter__")};
    GraphBreak compiled = br;
    startAtCompiledFrame(compiled, "forward", lib, 570);
    ASSERT_EQ(compiled.frames.size(), 3U);
    EXPECT_EQ(compiled.frames[0].line, 578);
    EXPECT_EQ(compiled.frames[1].line, 355); // module.py's call machinery left out
    EXPECT_EQ(compiled.userFrame, -1);       // the library's, and Python's own
    // A compiled frame the traceback leaves out: at least the probe's frames go.
    GraphBreak unnamed = br;
    startAtCompiledFrame(unnamed, "wrapper", "/other.py", 1);
    ASSERT_EQ(unnamed.frames.size(), 3U);
    EXPECT_EQ(unnamed.frames[0].line, 578);

    // A user's own program: two forwards in one file, told apart by the def line.
    GraphBreak own;
    own.frames = {at("/home/u/train.py", 50, "<module>"), at(mm, 1798, "_call_impl"),
                  at("/home/u/model.py", 19, "forward"), at(mm, 1798, "_call_impl"),
                  at("/home/u/model.py", 8, "forward")};
    GraphBreak inner = own;
    startAtCompiledFrame(inner, "forward", "/home/u/model.py", 7);
    ASSERT_EQ(inner.frames.size(), 1U);
    EXPECT_EQ(inner.frames[0].line, 8);
    EXPECT_EQ(inner.userFrame, 0);
    startAtCompiledFrame(own, "forward", "/home/u/model.py", 18);
    ASSERT_EQ(own.frames.size(), 2U);
    EXPECT_EQ(own.frames[0].line, 19);
    EXPECT_EQ(own.userFrame, 1);
}

} // namespace
} // namespace cs::core::trace
