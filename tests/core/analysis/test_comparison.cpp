// Warmup analysis, break-even and the comparison on hand-computed data.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "core/analysis/comparison.h"
#include "core/analysis/comparison_text.h"
#include "core/analysis/run_summary.h"
#include "core/analysis/units.h"
#include "core/events/event_parser.h"
#include "core/report/report_json.h"
#include "core/report/text_lines.h"

using namespace cs::core;

namespace {

// A run whose calls have these latencies (wall = latency, as on CPU).
Run makeRun(const std::string& mode, const std::vector<int64_t>& warmup,
            const std::vector<int64_t>& measured, RunStatus status = RunStatus::Ok) {
    cs::core::Run run;
    run.setting.mode = mode;
    run.status = status;
    run.probe.device = "cpu";
    int index = 0;
    for (auto ns : warmup) {
        run.iterations.push_back({index, ns, ns, 0, true, index == 0});
        ++index;
    }
    for (auto ns : measured)
        run.iterations.push_back({index++, ns, ns, 0, false, false});
    return run;
}

std::vector<int64_t> repeat(int64_t ns, int times) {
    return std::vector<int64_t>(static_cast<size_t>(times), ns);
}

} // namespace

TEST(SteadyBand, TenPercentFloorWhenTheSpreadIsSmall) {
    // median 100; |x - 100| = 0,2,2,1,1,0,50 -> MAD 1; 3 MAD = 3 < 10% of 100.
    auto band = steadyBand({100, 102, 98, 101, 99, 100, 150});
    ASSERT_TRUE(band);
    EXPECT_DOUBLE_EQ(band->median, 100);
    EXPECT_DOUBLE_EQ(band->mad, 1);
    EXPECT_DOUBLE_EQ(band->halfWidth, 10);
    EXPECT_DOUBLE_EQ(band->low, 90);
    EXPECT_DOUBLE_EQ(band->high, 110);
    EXPECT_TRUE(band->contains(110));
    EXPECT_FALSE(band->contains(110.5));
}

TEST(SteadyBand, ThreeMadsWhenTheSpreadIsLarge) {
    // median 100; deviations 0,20,20,10,10 -> MAD 10; 3 MAD = 30 > 10.
    auto band = steadyBand({100, 80, 120, 90, 110});
    ASSERT_TRUE(band);
    EXPECT_DOUBLE_EQ(band->mad, 10);
    EXPECT_DOUBLE_EQ(band->low, 70);
    EXPECT_DOUBLE_EQ(band->high, 130);
    EXPECT_FALSE(steadyBand({}));
}

TEST(Warmup, EndsAtTheFirstCallInTheBand) {
    cs::core::Run run =
        makeRun("default", {5000, 300, 115, 105}, {100, 102, 98, 101, 99, 100, 150});
    auto w = analyzeWarmup(run);
    ASSERT_TRUE(w.band);
    EXPECT_DOUBLE_EQ(w.band->high, 110);
    ASSERT_TRUE(w.steadyFrom);
    EXPECT_EQ(*w.steadyFrom, 3); // 115 is above 110, 105 is in
    EXPECT_EQ(w.warmupWallNs, 5000 + 300 + 115);
    ASSERT_TRUE(w.extraNs);
    EXPECT_DOUBLE_EQ(*w.extraNs, 4900 + 200 + 15);
    ASSERT_EQ(w.curve.size(), 11u); // fewer calls than kFirstCallsShown: all of them
    EXPECT_FALSE(w.curve[0].inBand);
    EXPECT_TRUE(w.curve[0].warmup);
    EXPECT_TRUE(w.curve[3].inBand);
    EXPECT_FALSE(w.curve[4].warmup);
    EXPECT_FALSE(w.curve[10].inBand); // the 150 outlier
}

TEST(Warmup, EdgesOfTheBand) {
    // Exactly at the top of the band counts as steady.
    auto atTop = analyzeWarmup(makeRun("default", {5000, 110}, repeat(100, 9)));
    ASSERT_TRUE(atTop.steadyFrom);
    EXPECT_EQ(*atTop.steadyFrom, 1);
    // Faster than steady state is not still warming up.
    auto below = analyzeWarmup(makeRun("default", {5000, 50}, repeat(100, 9)));
    EXPECT_EQ(below.steadyFrom.value_or(-1), 1);
    EXPECT_DOUBLE_EQ(*below.extraNs, 4900);
    // A first call already in the band: no warmup at all.
    auto none = analyzeWarmup(makeRun("eager", {101, 100}, repeat(100, 9)));
    EXPECT_EQ(none.steadyFrom.value_or(-1), 0);
    EXPECT_EQ(none.warmupWallNs, 0);
    EXPECT_DOUBLE_EQ(*none.extraNs, 0);
}

TEST(Warmup, WithoutMeasuredCallsThereIsNoBand) {
    auto w = analyzeWarmup(makeRun("default", {5000, 300}, {}));
    EXPECT_FALSE(w.band);
    EXPECT_FALSE(w.steadyFrom);
    EXPECT_FALSE(w.extraNs);
    EXPECT_EQ(w.warmupWallNs, 5300); // every call made is warmup
    EXPECT_EQ(w.curve.size(), 2u);
}

TEST(Warmup, WarmupRunningIntoTheMeasuredCalls) {
    // Warmup calls all above the band: warmup ends among the measured calls.
    auto w = analyzeWarmup(makeRun("default", {5000, 400}, {300, 100, 100, 100, 100, 100, 100}));
    EXPECT_EQ(w.steadyFrom.value_or(-1), 3);
    EXPECT_DOUBLE_EQ(*w.extraNs, 4900 + 300 + 200);
}

TEST(Warmup, CurveShowsAtLeastTwentyCalls) {
    auto w = analyzeWarmup(makeRun("default", {5000, 100}, repeat(100, 50)));
    EXPECT_EQ(w.curve.size(), static_cast<size_t>(kFirstCallsShown));
    // Long warmups are shown whole, plus a few calls past them.
    auto longer = analyzeWarmup(makeRun("default", repeat(900, 30), repeat(100, 50)));
    EXPECT_EQ(longer.curve.size(), 35u);
}

TEST(Warmup, PhasesAddUpToTheFirstCall) {
    cs::core::Run run = makeRun("default", {2'000'000'000, 100}, repeat(100, 9));
    run.firstCallNs = 2'000'000'000;
    run.compilePhases = {{"dynamo_tracing", 1.0}, {"aot_autograd", 0.5}, {"other", 0.3}};
    auto w = analyzeWarmup(run);
    ASSERT_EQ(w.phases.size(), 3u);
    EXPECT_EQ(w.phases.back().name, "other");
    EXPECT_DOUBLE_EQ(w.phases.back().seconds, 0.5); // recomputed from the wall time
    EXPECT_DOUBLE_EQ(w.phasesSeconds(), 2.0);

    // Counters larger than the call are scaled into it, proportions kept.
    run.compilePhases = {{"dynamo_tracing", 2.0}, {"aot_autograd", 1.0}};
    w = analyzeWarmup(run);
    EXPECT_NEAR(w.phases[0].seconds, 4.0 / 3.0, 1e-12);
    EXPECT_NEAR(w.phases[1].seconds, 2.0 / 3.0, 1e-12);
    EXPECT_DOUBLE_EQ(w.phases[2].seconds, 0);
    EXPECT_NEAR(w.phasesSeconds(), 2.0, 1e-12);

    // No compile_time event: the first call's wall time still comes from its iteration.
    run.firstCallNs = -1;
    run.compilePhases.clear();
    w = analyzeWarmup(run);
    EXPECT_EQ(w.firstCallNs, 2'000'000'000);
    ASSERT_EQ(w.phases.size(), 1u);
    EXPECT_DOUBLE_EQ(w.phases[0].seconds, 2.0);
}

TEST(Comparison, SpeedupAndBreakEvenAgainstEager) {
    Report report;
    // eager: band [90, 110]; 300 and 120 are warmup: extra 200 + 20 = 220.
    report.runs.push_back(makeRun("eager", {300, 120, 100}, repeat(100, 10)));
    // default: band [45, 55]; 10000 and 60 are warmup: extra 9950 + 10 = 9960.
    report.runs.push_back(makeRun("default", {10000, 60, 50}, repeat(50, 10)));
    // slower per call than eager: never pays back.
    report.runs.push_back(makeRun("max-autotune", {20000, 120}, repeat(120, 10)));
    cs::core::Run failed = makeRun("reduce-overhead", {}, {}, RunStatus::Failed);
    failed.error = ErrorInfo{"compile_failed", "torch.compile failed", "Traceback"};
    report.runs.push_back(failed);

    auto c = compareRuns(report);
    EXPECT_EQ(c.baseline, 0);
    ASSERT_EQ(c.rows.size(), 4u);
    EXPECT_TRUE(c.rows[0].isBaseline);
    EXPECT_FALSE(c.rows[0].speedup);
    EXPECT_FALSE(c.rows[0].breakEven);
    EXPECT_DOUBLE_EQ(*c.rows[0].warmupNs, 220);

    const auto& compiled = c.rows[1];
    ASSERT_TRUE(compiled.speedup);
    EXPECT_DOUBLE_EQ(compiled.speedup->value, 2.0);
    EXPECT_TRUE(compiled.saves);
    EXPECT_DOUBLE_EQ(*compiled.warmupNs, 9960);
    EXPECT_EQ(*compiled.warmupWallNs, 10060);
    ASSERT_TRUE(compiled.breakEven);
    EXPECT_DOUBLE_EQ(*compiled.breakEven, 195); // ceil((9960 - 220) / (100 - 50)) = ceil(194.8)

    const auto& slower = c.rows[2];
    EXPECT_FALSE(slower.saves);
    EXPECT_FALSE(slower.breakEven); // never
    EXPECT_NEAR(slower.speedup->value, 100.0 / 120.0, 1e-12);
    EXPECT_EQ(slower.notes.size(), 1u); // CUDA graphs asked for on CPU

    const auto& broken = c.rows[3];
    EXPECT_EQ(broken.status, RunStatus::Failed);
    EXPECT_FALSE(broken.stats);
    ASSERT_TRUE(broken.error);
    EXPECT_EQ(broken.error->kind, "compile_failed");
    EXPECT_FALSE(broken.speedup);
    EXPECT_EQ(c.row(3), &c.rows[3]);
    EXPECT_EQ(c.row(9), nullptr);
}

TEST(Comparison, TheOnceAMachineHeaderBuildIsNotAWarmupCost) {
    Report report;
    report.runs.push_back(makeRun("eager", {300, 120, 100}, repeat(100, 10)));
    // As in SpeedupAndBreakEvenAgainstEager, but 4000 ns of the 10000 ns first
    // call built torch's precompiled header.
    cs::core::Run compiled = makeRun("default", {10000, 60, 50}, repeat(50, 10));
    compiled.compilePhases = {{"inductor_codegen", 3e-6}, {"precompiled_header", 4e-6}};
    report.runs.push_back(compiled);

    EXPECT_EQ(analyzeWarmup(report.runs[1]).headerBuildNs, 4000);
    const auto c = compareRuns(report);
    const auto& row = c.rows[1];
    EXPECT_DOUBLE_EQ(*row.warmupNs, 9960 - 4000);
    EXPECT_EQ(*row.warmupWallNs, 10060 - 4000);
    ASSERT_TRUE(row.breakEven);
    EXPECT_DOUBLE_EQ(*row.breakEven, 115); // ceil((5960 - 220) / 50) = ceil(114.8)
    ASSERT_EQ(row.notes.size(), 1u);
    EXPECT_NE(row.notes[0].find("precompiled C++ header (4.00 µs"), std::string::npos)
        << row.notes[0];
    EXPECT_TRUE(c.rows[0].notes.empty());
}

TEST(Comparison, BestPerColumn) {
    Report report;
    report.runs.push_back(makeRun("eager", {300, 100}, repeat(100, 10)));
    report.runs.push_back(makeRun("default", {10000, 50}, repeat(50, 10)));
    report.runs.push_back(makeRun("max-autotune", {20000, 80}, repeat(80, 10)));
    report.runs.push_back(makeRun("max-autotune-no-cudagraphs", {30000, 50}, repeat(50, 10)));
    for (int i = 1; i <= 3; ++i)
        report.runs[static_cast<size_t>(i)].graphs.resize(1);
    report.runs[2].graphBreaks.resize(1);
    report.runs[0].memory.push_back({"host_rss", {{1, 500}, {2, 700}}, {}});
    report.runs[1].memory.push_back({"host_rss", {{1, 900}}, {}});
    report.runs[2].memory.push_back({"host_rss", {{1, 600}}, {{"compile", 650}}});
    report.runs[3].memory.push_back({"host_rss", {{1, 800}}, {}});
    auto c = compareRuns(report);
    auto best = [&](int row, CompareColumn column) {
        return c.rows[static_cast<size_t>(row)].isBest(column);
    };
    EXPECT_TRUE(best(1, CompareColumn::Median));
    EXPECT_TRUE(best(3, CompareColumn::Median)); // ties for best are all marked
    EXPECT_FALSE(best(0, CompareColumn::Median));
    EXPECT_TRUE(best(1, CompareColumn::Speedup));
    EXPECT_FALSE(best(0, CompareColumn::Speedup)); // the baseline has no speedup of its own
    EXPECT_TRUE(best(1, CompareColumn::BreakEven));
    EXPECT_FALSE(best(2, CompareColumn::BreakEven));
    EXPECT_TRUE(best(0, CompareColumn::Warmup));
    // All equal: nothing to tell apart. Eager compiles nothing and takes no part in breaks.
    for (int i = 0; i < 4; ++i)
        EXPECT_FALSE(best(i, CompareColumn::Graphs));
    EXPECT_TRUE(best(1, CompareColumn::Breaks));
    EXPECT_TRUE(best(3, CompareColumn::Breaks));
    EXPECT_FALSE(best(2, CompareColumn::Breaks));
    EXPECT_FALSE(best(0, CompareColumn::Breaks));
    EXPECT_EQ(*c.rows[2].peakMemoryBytes, 650);
    EXPECT_EQ(c.rows[2].memoryKind, "host RSS");
    EXPECT_TRUE(best(2, CompareColumn::Memory));
    EXPECT_FALSE(best(0, CompareColumn::Memory));
}

// The deploy column races the compiled settings in speed and break-even,
// not in graphs or breaks, which torch.export does not count as Dynamo does.
TEST(Comparison, AotiCanBeBestInSpeedAndBreakEven) {
    Report report;
    report.runs.push_back(makeRun("eager", {300, 100}, repeat(100, 10)));
    report.runs.push_back(makeRun("default", {10000, 50}, repeat(50, 10)));
    report.runs.push_back(makeRun("aoti", {400, 40}, repeat(40, 10)));
    report.runs[1].graphs.resize(1);
    auto c = compareRuns(report);
    EXPECT_TRUE(c.rows[2].isBest(CompareColumn::Speedup));
    EXPECT_FALSE(c.rows[1].isBest(CompareColumn::Speedup));
    EXPECT_TRUE(c.rows[2].isBest(CompareColumn::BreakEven));
    EXPECT_FALSE(c.rows[1].isBest(CompareColumn::BreakEven));
    EXPECT_FALSE(c.rows[2].isBest(CompareColumn::Graphs));
    // A slower package has no compile of its own to pay back.
    report.runs[2] = makeRun("aoti", {400, 140}, repeat(140, 10));
    const std::string summary = comparisonSummary(compareRuns(report));
    EXPECT_NE(summary.find("aoti is 1.40× slower than eager per call: deploying it gains nothing "
                           "per call."),
              std::string::npos)
        << summary;
    EXPECT_FALSE(c.rows[2].isBest(CompareColumn::Breaks));
}

TEST(Comparison, NothingToMarkWithOneCandidate) {
    Report report;
    report.runs.push_back(makeRun("eager", {300, 100}, repeat(100, 10)));
    report.runs.push_back(makeRun("default", {10000, 50}, repeat(50, 10)));
    auto c = compareRuns(report);
    EXPECT_FALSE(
        c.rows[1].isBest(CompareColumn::Speedup)); // one compiled row: nothing to compare with
    EXPECT_TRUE(c.rows[1].isBest(CompareColumn::Median)); // eager and default
}

TEST(Comparison, NoBaselineWithoutAMeasuredEagerRun) {
    Report report;
    cs::core::Run eager = makeRun("eager", {300}, {}, RunStatus::Crashed);
    report.runs.push_back(eager);
    report.runs.push_back(makeRun("default", {10000, 50}, repeat(50, 10)));
    auto c = compareRuns(report);
    EXPECT_EQ(c.baseline, -1);
    EXPECT_FALSE(c.rows[1].speedup);
    EXPECT_FALSE(c.rows[1].breakEven);
    EXPECT_FALSE(c.rows[1].saves);
}

TEST(Comparison, CompileCheaperThanEagerWarmupBreaksEvenAtOnce) {
    Report report;
    report.runs.push_back(makeRun("eager", {5000, 100}, repeat(100, 10)));
    report.runs.push_back(makeRun("default", {1000, 50}, repeat(50, 10)));
    auto c = compareRuns(report);
    EXPECT_DOUBLE_EQ(*c.rows[1].breakEven, 0);
}

TEST(Comparison, PeakMemoryPrefersTheDeviceAllocator) {
    cs::core::Run run = makeRun("default", {10}, repeat(10, 3));
    run.memory.push_back({"host_rss", {{1, 5000}}, {}});
    std::string kind;
    EXPECT_EQ(*peakMemory(run, &kind), 5000);
    EXPECT_EQ(kind, "host RSS");
    run.memory.push_back({"device", {{1, 3000}, {2, 4000}}, {}});
    EXPECT_EQ(*peakMemory(run, &kind), 4000);
    EXPECT_EQ(kind, "device");
    run.memoryStats.push_back({"measure", "end", 100, 200, 300, 4096});
    EXPECT_EQ(*peakMemory(run, &kind), 4096);
    EXPECT_EQ(kind, "device reserved");
    EXPECT_FALSE(peakMemory(cs::core::Run{}));
}

TEST(Comparison, WhatTorchDid) {
    cs::core::Run run = makeRun("reduce-overhead", {10}, repeat(10, 3));
    auto notes = whatTorchDid(run);
    ASSERT_EQ(notes.size(), 1u);
    EXPECT_NE(notes[0].find("CUDA graphs"), std::string::npos);
    run.probe.device = "cuda:0";
    EXPECT_TRUE(whatTorchDid(run).empty());
    run.logs.push_back({0, "info", "torch skipped CUDA graphs: mutated inputs"});
    run.recompiles.push_back({"forward", "size changed", 9, "", true, 8, "", ""});
    notes = whatTorchDid(run);
    ASSERT_EQ(notes.size(), 2u);
    EXPECT_EQ(notes[0], "torch skipped CUDA graphs: mutated inputs");
    EXPECT_NE(notes[1].find("recompile limit (8)"), std::string::npos);
    // The probe's code names the line, whatever its wording.
    run.logs = {{0, "info", "torch skipped CUDA graphs: x", "cudagraphs_skipped", "x"},
                {0, "info", "CUDA graphs were skipped", "cudagraphs_skipped", "y"},
                {0, "info", "torch skipped CUDA graphs (quoted)", "other_code", ""}};
    run.recompiles.clear();
    notes = whatTorchDid(run);
    ASSERT_EQ(notes.size(), 2u);
    EXPECT_EQ(notes[1], "CUDA graphs were skipped");
}

TEST(Comparison, ASettingThatCompiledNothingSaysSo) {
    cs::core::Run run = makeRun("default", {10}, repeat(10, 3));
    EXPECT_TRUE(whatTorchDid(run).empty()); // no compile source: an older report
    run.compilePhasesSource = "none";
    EXPECT_EQ(whatTorchDid(run),
              std::vector<std::string>{"compiled nothing: no graph, no graph break, no compile"});
    run.probe.torchEnvironment = {{"TORCHDYNAMO_DISABLE", "1"}};
    EXPECT_EQ(whatTorchDid(run),
              std::vector<std::string>{"compiled nothing: TORCHDYNAMO_DISABLE=1 "
                                       "turned torch.compile off, so it ran eager"});
    run.probe.torchEnvironment.clear();
    run.dynamoOff = "torch.compiler.set_stance(\"force_eager\")";
    EXPECT_EQ(whatTorchDid(run),
              std::vector<std::string>{
                  "compiled nothing: torch.compiler.set_stance(\"force_eager\") held Dynamo off"});
    run.setting.mode = "eager"; // compiles nothing by design
    EXPECT_TRUE(whatTorchDid(run).empty());
}

TEST(ComparisonJson, DerivedOnWriteRecomputedOnRead) {
    Report report;
    report.runs.push_back(makeRun("eager", {300, 120, 100}, repeat(100, 10)));
    report.runs.push_back(makeRun("default", {10000, 60, 50}, repeat(50, 10)));
    report.runs.push_back(makeRun("max-autotune", {20000, 120}, repeat(120, 10)));
    report.runs[1].firstCallNs = 10000;
    report.runs[1].compilePhases = {{"dynamo_tracing", 4e-6}, {"other", 1e-6}};
    const std::string text = writeReportJson(report);
    auto doc = nlohmann::json::parse(text);

    const auto& rows = doc["comparison"]["rows"];
    EXPECT_EQ(doc["comparison"]["baseline_run"], 0);
    EXPECT_EQ(rows[1]["break_even_iterations"], 195.0);
    EXPECT_EQ(rows[2]["break_even_iterations"], "never");
    EXPECT_TRUE(rows[0]["break_even_iterations"].is_null()); // the baseline
    EXPECT_DOUBLE_EQ(rows[1]["speedup"]["value"].get<double>(), 2.0);
    // Speedup: max-autotune is slower than eager, so default is the only candidate.
    EXPECT_EQ(rows[1]["best"], nlohmann::json({"median", "p99"}));

    const auto& warmup = doc["runs"][1]["warmup"];
    EXPECT_EQ(warmup["steady_from_call"], 2);
    EXPECT_DOUBLE_EQ(warmup["extra_ns"].get<double>(), 9960);
    EXPECT_DOUBLE_EQ(warmup["steady_band"]["high_ns"].get<double>(), 55);
    EXPECT_EQ(warmup["first_calls"].size(), 13u);
    EXPECT_EQ(warmup["phases"][1]["name"], "other");
    EXPECT_EQ(warmup["phases"][1]["ns"], 6000); // 10 µs - 4 µs, integer ns (format version 2)
    EXPECT_TRUE(warmup["extra_ns"].is_number_integer());
    EXPECT_TRUE(rows[1]["median_ns"].is_number_integer());

    // A tampered derived section is ignored: the reader keeps runs, the writer recomputes.
    doc["comparison"]["rows"][1]["break_even_iterations"] = 1;
    doc["runs"][1]["warmup"]["extra_ns"] = 0;
    auto read = readReportJson(doc.dump(), "tampered.json");
    ASSERT_TRUE(read.ok) << read.error;
    EXPECT_EQ(writeReportJson(read.report), text);
}

TEST(ComparisonText, NeverBaselineAndTheVerdict) {
    Report report;
    report.runs.push_back(makeRun("eager", {300, 120, 100}, repeat(100, 10)));
    report.runs.push_back(makeRun("default", {10000, 60, 50}, repeat(50, 10)));
    report.runs.push_back(makeRun("max-autotune", {20000, 120}, repeat(120, 10)));
    cs::core::Run failed = makeRun("reduce-overhead", {}, {}, RunStatus::Timeout);
    failed.error = ErrorInfo{"timeout", "Stopped after 900 s. Raise the limit.\nmore", ""};
    report.runs.push_back(failed);
    auto c = compareRuns(report);
    EXPECT_EQ(breakEvenText(c.rows[0]), "baseline");
    EXPECT_EQ(breakEvenText(c.rows[1]), "195 calls");
    EXPECT_EQ(breakEvenText(c.rows[2]), "never");
    EXPECT_EQ(breakEvenText(c.rows[3]), "—");
    EXPECT_EQ(speedupText(c.rows[1]), "2.00× (2.00–2.00)");
    const std::string summary = comparisonSummary(c);
    EXPECT_NE(summary.find("default is 2.00× faster than eager per call"), std::string::npos)
        << summary;
    EXPECT_NE(summary.find("after 195 calls"), std::string::npos) << summary;
    EXPECT_NE(summary.find("max-autotune is 1.20× slower"), std::string::npos) << summary;
    EXPECT_NE(summary.find("never pays back"), std::string::npos) << summary;
    EXPECT_NE(summary.find("reduce-overhead did not finish (timeout): Stopped after 900 s."),
              std::string::npos)
        << summary;
    // One sentence of it in the summary; the table keeps the line.
    EXPECT_EQ(summary.find("Raise the limit"), std::string::npos) << summary;
    const std::string table = comparisonTable(c);
    EXPECT_NE(table.find("never"), std::string::npos);
    EXPECT_NE(table.find("timeout: Stopped after 900 s."), std::string::npos);
    // Eager has no Dynamo graphs to count: dashes, as in the HTML and the Compare tab.
    const std::string eagerRow = table.substr(table.find("\neager") + 1, 80);
    EXPECT_EQ(eagerRow.find("ok             —      —     —"), 29u) << eagerRow;

    // A label wider than its column has a line of its own; its row's figures
    // stay under their headings.
    report.runs[1].setting.environment = {{"MALLOC_MMAP_THRESHOLD_", "33554432"}};
    const std::string wide = comparisonTable(compareRuns(report));
    const std::string header = wide.substr(0, wide.find('\n'));
    const size_t labelLine = wide.find("\ndefault MALLOC_MMAP_THRESHOLD_=33554432\n");
    ASSERT_NE(labelLine, std::string::npos) << wide;
    const size_t rowStart = wide.find('\n', labelLine + 1) + 1;
    const std::string row = wide.substr(rowStart, wide.find('\n', rowStart) - rowStart);
    EXPECT_EQ(row.find_first_not_of(' '), header.find("status")) << row;
    EXPECT_EQ(glyphCount("2.00× µs"), 8u);

    // Eager asked for and failed: the summary says so, not "include eager".
    report.runs[0] = makeRun("eager", {}, {}, RunStatus::Failed);
    report.runs[0].error = ErrorInfo{"model_raised",
                                     "The model raised RuntimeError: bad indices. It fails "
                                     "without torch.compile too.",
                                     ""};
    const std::string failedSummary = comparisonSummary(compareRuns(report));
    EXPECT_EQ(failedSummary.find("include eager"), std::string::npos) << failedSummary;
    EXPECT_EQ(
        failedSummary.rfind("eager did not finish (failed): The model raised RuntimeError: bad "
                            "indices. Without eager's calls",
                            0),
        0u)
        << failedSummary;
    // No eager setting at all: include it.
    report.runs.erase(report.runs.begin());
    EXPECT_NE(comparisonSummary(compareRuns(report)).find("include eager"), std::string::npos);
}

TEST(Warmup, LaterWarmupCompileKeepsTheFirstCallPhases) {
    // reduce-overhead records CUDA graphs on a later call: a second compile_time, scope warmup.
    cs::core::Run run = replayStream(
        R"J({"type":"iteration","t_ns":1,"index":0,"latency_ns":3000000000,"wall_ns":3000000000,"warmup":true,"first_call":true})J"
        "\n"
        R"J({"type":"compile_time","t_ns":2,"scope":"first_call","phases":[{"name":"dynamo_tracing","seconds":1.0},{"name":"other","seconds":2.0}],"first_call_ns":3000000000,"source":"m"})J"
        "\n"
        R"J({"type":"iteration","t_ns":3,"index":1,"latency_ns":500000000,"wall_ns":500000000,"warmup":true})J"
        "\n"
        R"J({"type":"compile_time","t_ns":4,"scope":"warmup","phases":[{"name":"cudagraph_recording","seconds":0.4},{"name":"other","seconds":0.1}],"first_call_ns":500000000,"source":"m"})J"
        "\n"
        R"J({"type":"iteration","t_ns":5,"index":2,"latency_ns":1000,"wall_ns":1000})J"
        "\n");
    EXPECT_EQ(run.firstCallNs, 3'000'000'000);
    ASSERT_EQ(run.compilePhases.size(), 2u);
    EXPECT_EQ(run.compilePhases[0].name, "dynamo_tracing");
    EXPECT_EQ(run.warmupCompileNs, 500'000'000);
    ASSERT_EQ(run.warmupCompilePhases.size(), 2u);
    auto w = analyzeWarmup(run);
    EXPECT_DOUBLE_EQ(w.phasesSeconds(), 3.0);
    ASSERT_EQ(w.laterPhases.size(), 1u); // named phases only
    EXPECT_EQ(w.laterPhases[0].name, "cudagraph_recording");
    EXPECT_DOUBLE_EQ(w.laterSeconds(), 0.4);
    EXPECT_EQ(w.steadyFrom.value_or(-1), 2);

    // The report keeps both scopes through a save and a read.
    Report report;
    report.runs.push_back(run);
    auto read = readReportJson(writeReportJson(report), "memory");
    ASSERT_TRUE(read.ok);
    EXPECT_EQ(read.report.runs[0], run);
}

// Today's probe sends what later warmup calls compiled on the warmup end
// (docs/protocol.md). Recorded: a guard that fails at call 20 of 21 warmup
// calls; its recompile ran the C++ compiler (periodic_guard.py).
TEST(Warmup, LaterWarmupCompilesFromTheWarmupEndOfARealStream) {
    std::ifstream in(std::string(COMPILESCOPE_FIXTURES) + "/streams/recompiles_mid_measure.jsonl");
    std::stringstream text;
    text << in.rdbuf();
    const std::string stream = text.str();
    ASSERT_NE(stream.find(R"("name": "warmup", "edge": "end", "compile_time")"), std::string::npos);
    const cs::core::Run run = replayStream(stream);
    ASSERT_FALSE(run.warmupCompilePhases.empty());
    int64_t laterWall = 0;
    for (const auto& it : run.iterations)
        laterWall += it.warmup && !it.firstCall ? it.wallNs : 0;
    EXPECT_EQ(run.warmupCompileNs, laterWall) << "the wall time of warmup calls 2-21";
    const auto w = analyzeWarmup(run);
    EXPECT_GT(w.laterSeconds(), 0);
    EXPECT_LE(w.laterSeconds() * 1e9, static_cast<double>(laterWall));
}

TEST(Warmup, AWarmupCallThatRecompiledAfterSteadyStateIsWarmupCost) {
    cs::core::Run run = makeRun("default", {5000, 100, 100, 2000, 100}, repeat(100, 9));
    cs::core::Recompile rc;
    rc.function = "forward";
    rc.phase = "warmup";
    rc.callIndex = 3;
    run.recompiles.push_back(rc);
    cs::core::Recompile measured = rc; // among the measured calls: not warmup
    measured.phase = "measure";
    measured.callIndex = 7;
    run.recompiles.push_back(measured);
    run.iterations[7].latencyNs = run.iterations[7].wallNs = 900;
    const auto w = analyzeWarmup(run);
    ASSERT_TRUE(w.steadyFrom);
    EXPECT_EQ(*w.steadyFrom, 1);
    EXPECT_EQ(w.recompiledAfterSteady, std::vector<int>{3});
    EXPECT_EQ(w.warmupWallNs, 5000 + 2000);
    ASSERT_TRUE(w.extraNs);
    EXPECT_DOUBLE_EQ(*w.extraNs, 4900 + 1900);
    EXPECT_TRUE(w.curve[3].recompiled);
    EXPECT_TRUE(w.curve[7].recompiled);
    EXPECT_FALSE(w.curve[4].recompiled);

    // One at the recompile limit ran eager: no compile in it.
    run.recompiles[0].limitHit = true;
    EXPECT_TRUE(analyzeWarmup(run).recompiledAfterSteady.empty());
}

TEST(Warmup, APeriodicGuardsWarmupRecompileIsMarkedAndCountedInARealStream) {
    std::ifstream in(std::string(COMPILESCOPE_FIXTURES) + "/streams/recompiles_mid_measure.jsonl");
    std::stringstream text;
    text << in.rdbuf();
    const cs::core::Run run = replayStream(text.str());
    const auto w = analyzeWarmup(run);
    ASSERT_TRUE(w.steadyFrom);
    ASSERT_GT(w.curve.size(), 19u);
    EXPECT_TRUE(w.curve[19].recompiled) << "the guard flips in warmup call 20";
    EXPECT_TRUE(w.curve[19].warmup);
    // Before steady state or after it, the recompiling call is warmup cost.
    const bool counted = 19 < *w.steadyFrom || w.recompiledAfterSteady == std::vector<int>{19};
    EXPECT_TRUE(counted);
    int recompiledOnCurve = 0;
    for (const auto& c : w.curve)
        recompiledOnCurve += c.recompiled ? 1 : 0;
    EXPECT_GE(recompiledOnCurve, 1);
}

TEST(Comparison, ARecompileLimitHitIsNotARecompile) {
    // The periodic guard: torch recompiled 7 times, filling its cache of 8,
    // then refused the 8th (one recompile_limit event).
    std::ifstream in(std::string(COMPILESCOPE_FIXTURES) + "/streams/recompiles_mid_measure.jsonl");
    std::stringstream text;
    text << in.rdbuf();
    cs::core::Run run = replayStream(text.str());
    run.status = RunStatus::Ok;
    ASSERT_EQ(run.recompiles.size(), 8u);
    ASSERT_TRUE(run.recompiles.back().limitHit);
    EXPECT_EQ(recompileCount(run), 7);
    EXPECT_EQ(summarizeRun(run).recompiles, 7);
    Report report;
    report.runs.push_back(run);
    EXPECT_EQ(compareRuns(report).rows[0].recompiles, 7);
}

TEST(Comparison, ASlowdownIsNeverBest) {
    Report report;
    report.runs.push_back(makeRun("eager", {300, 100}, repeat(100, 10)));
    report.runs.push_back(makeRun("default", {10000, 110}, repeat(110, 10)));
    report.runs.push_back(makeRun("reduce-overhead", {10000, 120}, repeat(120, 10)));
    auto c = compareRuns(report);
    EXPECT_FALSE(c.rows[1].isBest(CompareColumn::Speedup));
    EXPECT_FALSE(c.rows[2].isBest(CompareColumn::Speedup));
    EXPECT_TRUE(c.rows[0].isBest(CompareColumn::Median)); // eager is the fastest
}

TEST(ComparisonText, NoSignificantGainHasNoBreakEven) {
    // default saves 1 ns on a median of 100 ns with ±10 ns of spread: its speedup
    // interval includes 1×, so the million-call break-even is noise.
    std::vector<int64_t> eager, compiled;
    for (int i = 0; i < 21; ++i) {
        eager.push_back(90 + i);
        compiled.push_back(89 + i);
    }
    Report report;
    report.runs.push_back(makeRun("eager", {100}, eager));
    report.runs.push_back(makeRun("default", {1000000}, compiled));
    auto c = compareRuns(report);
    const auto& row = c.rows[1];
    ASSERT_TRUE(row.speedup);
    ASSERT_TRUE(row.breakEven);
    EXPECT_GT(*row.breakEven, 1e5);
    EXPECT_TRUE(row.noSignificantGain());
    EXPECT_FALSE(row.isBest(CompareColumn::BreakEven));
    EXPECT_EQ(breakEvenText(row), "no significant gain");
    const std::string detail = breakEvenDetail(row);
    EXPECT_NE(detail.find(formatCount(*row.breakEven) + " calls"), std::string::npos) << detail;
    const std::string table = comparisonTable(c);
    EXPECT_NE(table.find("no significant gain"), std::string::npos) << table;
    EXPECT_NE(table.find("note: " + detail), std::string::npos) << table;
    EXPECT_EQ(table.find("e+"), std::string::npos) << table;
    EXPECT_NE(comparisonSummary(c).find("no break-even"), std::string::npos);
    EXPECT_EQ(breakEvenDetail(c.rows[0]), "");
}

// A setting that compiled nothing ran eager code: its slower median is eager
// against itself, not a compile that never pays back.
TEST(ComparisonText, ASettingThatCompiledNothingHasNoBreakEven) {
    Report report;
    report.runs.push_back(makeRun("eager", {300, 100}, repeat(100, 10)));
    report.runs.push_back(makeRun("default", {400, 120}, repeat(120, 10)));
    report.runs[1].compilePhasesSource = "none";
    report.runs[1].probe.torchEnvironment = {{"TORCH_COMPILE_DISABLE", "1"}};
    const auto c = compareRuns(report);
    const auto& row = c.rows[1];
    ASSERT_TRUE(row.compiledNothing && row.speedup && !row.saves);
    EXPECT_EQ(breakEvenText(row), "nothing compiled");
    EXPECT_EQ(
        comparisonSummary(c),
        "default compiled nothing, so its 0.83× against eager compares eager code with itself.");
    EXPECT_NE(comparisonTable(c).find("note: compiled nothing: TORCH_COMPILE_DISABLE=1"),
              std::string::npos);
    EXPECT_FALSE(c.rows[0].compiledNothing);
}

// eager beside eager (eager:autocast=bf16) compiles nothing by design: its
// speedup stands, a break-even has nothing to pay back.
TEST(ComparisonText, AnEagerVariantHasNoBreakEven) {
    Report report;
    report.runs.push_back(makeRun("eager", {300, 100}, repeat(100, 10)));
    report.runs.push_back(makeRun("eager", {500, 120}, repeat(120, 10)));
    report.runs[1].setting.autocast = "bf16";
    report.runs.push_back(makeRun("eager", {900, 80}, repeat(80, 10)));
    report.runs[2].setting.autocast = "fp16";
    const auto c = compareRuns(report);
    for (size_t i : {1u, 2u}) {
        const auto& row = c.rows[i];
        ASSERT_TRUE(row.speedup);
        EXPECT_FALSE(row.compiles || row.breakEven);
        EXPECT_EQ(breakEvenText(row), "—");
        EXPECT_EQ(breakEvenDetail(row), "");
    }
    EXPECT_EQ(comparisonSummary(c), "eager bf16 is 1.20× slower than eager per call. eager fp16 is "
                                    "1.25× faster than eager per call.");
}

// The input sweep after measuring (--sweep): its wall time and the recompiles
// in it get a column, best where lowest; without any sweep there is no column.
TEST(Comparison, TheInputSweepIsAColumnOfItsOwn) {
    Report report;
    report.runs.push_back(makeRun("eager", {300, 100}, repeat(100, 10)));
    report.runs.push_back(makeRun("default", {10000, 50}, repeat(50, 10)));
    report.runs.push_back(makeRun("default", {10000, 50}, repeat(50, 10)));
    report.runs[2].setting.dynamic = "true";
    EXPECT_EQ(comparisonTable(compareRuns(report)).find("sweep"), std::string::npos);

    report.runs[0].phases = {{"measure", 0, 10}, {"sweep", 100, 100 + 4'000'000}};
    report.runs[1].phases = {{"sweep", 100, 100 + 900'000'000}};
    report.runs[2].phases = {{"sweep", 100, 100 + 30'000'000}};
    Recompile inSweep;
    inSweep.phase = "sweep";
    Recompile inWarmup;
    inWarmup.phase = "warmup";
    report.runs[1].recompiles = {inWarmup, inSweep, inSweep};
    const Comparison c = compareRuns(report);
    EXPECT_EQ(c.rows[1].sweepWallNs, 900'000'000);
    EXPECT_EQ(c.rows[1].sweepRecompiles, 2);
    EXPECT_EQ(c.rows[1].recompiles, 3);
    EXPECT_EQ(sweepText(c.rows[1]), "input sweep 900 ms, 2 recompiles in it");
    EXPECT_EQ(sweepText(c.rows[2]), "input sweep 30.0 ms, 0 recompiles in it");
    EXPECT_TRUE(c.rows[0].isBest(CompareColumn::Sweep)); // eager compiles nothing
    EXPECT_FALSE(c.rows[1].isBest(CompareColumn::Sweep));

    const std::string table = comparisonTable(c);
    const std::string header = table.substr(0, table.find('\n'));
    ASSERT_NE(header.find("sweep"), std::string::npos) << table;
    const size_t slow = table.find("900 ms");
    ASSERT_NE(slow, std::string::npos) << table;
    // The figure ends where its heading ends.
    const size_t lineStart = table.rfind('\n', slow) + 1;
    const std::string upToFigure = table.substr(lineStart, slow + 6 - lineStart);
    EXPECT_EQ(glyphCount(upToFigure), glyphCount(header.substr(0, header.find("sweep") + 5)))
        << table;

    // A sweep that never ended (the probe died in it) has no figure.
    report.runs[1].phases = {{"sweep", 100, -1}};
    EXPECT_FALSE(compareRuns(report).rows[1].sweepWallNs);
}

// A failed setting's sentence in the summary: its message's first sentence,
// which a path's dots or an "e.g." do not end.
TEST(ComparisonText, FirstSentenceEndsAtAPeriodBeforeACapital) {
    EXPECT_EQ(cs::core::firstSentence("torch.export cannot export the model at "
                                      "/x/boxes.py:86 (`a.b(c)`). GuardOnData: u0 > 4. Fix it."),
              "torch.export cannot export the model at /x/boxes.py:86 (`a.b(c)`).");
    EXPECT_EQ(cs::core::firstSentence("use e.g. the cpu. then more"),
              "use e.g. the cpu. then more");
    EXPECT_EQ(cs::core::firstSentence("one line only.\nSecond line."), "one line only.");
    EXPECT_EQ(cs::core::firstSentence(""), "");
    // torch's own sentences quoted in parentheses are part of the probe's one.
    EXPECT_EQ(cs::core::firstSentence("get_inputs() asks for CUDA (RuntimeError: No driver. "
                                      "Please check). Build it on the CPU."),
              "get_inputs() asks for CUDA (RuntimeError: No driver. Please check).");
    EXPECT_EQ(cs::core::firstSentence("Syntax error in /m.py:1: invalid syntax (`def f(:`). Fix "
                                      "that line."),
              "Syntax error in /m.py:1: invalid syntax (`def f(:`).");
}

// A timm ViT measured beside a build: the row notes the load, and the summary
// says to measure again before comparing.
TEST(ComparisonText, ASettingMeasuredUnderLoadIsSaidToBe) {
    auto timed = [](const std::string& mode, int64_t medianNs, int64_t othersBusyNs) {
        cs::core::Run run = makeRun(mode, {medianNs * 10}, repeat(medianNs, 40));
        run.probe.threads = 2;
        run.probe.cpuAffinity = {0, 1};
        // 2 s on the probe's 2 CPUs; the probe's own 1.9 s.
        run.measureMachineCpu = MachineCpu{2, 2'000'000'000, 1'900'000'000 + othersBusyNs,
                                           0, 1'900'000'000, 10'000'000};
        return run;
    };
    Report report;
    report.runs = {timed("eager", 40'000'000, 3'000'000),
                   timed("default", 136'000'000, 1'800'000'000)};
    auto c = compareRuns(report);
    EXPECT_FALSE(c.rows[0].measuredUnderLoad);
    ASSERT_TRUE(c.rows[1].measuredUnderLoad);
    bool noted = false;
    for (const auto& note : c.rows[1].notes)
        noted |= note.rfind("measured while other work shared its CPUs (others kept 0.90", 0) == 0;
    EXPECT_TRUE(noted);
    EXPECT_NE(comparisonSummary(c).find("Other work shared the CPUs while default measured: "
                                        "measure again on a quiet machine before comparing."),
              std::string::npos)
        << comparisonSummary(c);
    report.runs[1].measureMachineCpu.busyNs = 1'903'000'000; // quiet
    EXPECT_EQ(comparisonSummary(compareRuns(report)).find("Other work"), std::string::npos);
}
