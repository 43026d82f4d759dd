// Hand-built imported ranks (what core/trace makes of a TORCH_TRACE log) for
// the rank comparison, advice, HTML and Ranks tab tests.
#pragma once

#include <string>
#include <vector>

#include "core/report/session.h"

namespace rank_test {

using namespace cs::core;

// A graph of `nodes` nodes: a placeholder, calls to `op`, an output.
inline Graph graphOf(const std::string& compileId, const std::string& function, int nodes,
                     const std::string& op = "torch.relu") {
    Graph g;
    g.compileId = compileId;
    g.function = function;
    g.file = "/job/train.py";
    g.line = 40;
    g.nodes.push_back({"x", "placeholder", "x", "", "", "", 0, "", {}});
    for (int i = 0; i < nodes - 2; ++i)
        g.nodes.push_back({"n" + std::to_string(i), "call_function", op, "", "", "", 0, "", {}});
    g.nodes.push_back({"out", "output", "output", "", "", "", 0, "", {}});
    return g;
}

inline CompileRecord compileOf(const std::string& id, const std::string& function, double seconds,
                               double start = 1764528470.0) {
    CompileRecord c;
    c.compileId = id;
    c.function = function;
    c.file = "/job/train.py";
    c.line = 40;
    c.startTime = start;
    c.seconds = seconds;
    // Binary fractions: they survive the report's whole nanoseconds exactly.
    c.phases = {{"dynamo_tracing", seconds * 0.25}, {"inductor_codegen", seconds * 0.5}};
    c.graphs = 1;
    return c;
}

// One rank that compiled `forward` as 0/0 (12 nodes) and `loss` as 1/0 (6
// nodes), both found in the FX graph cache, in `seconds` each.
inline Run rankRun(int rank, double seconds = 4.0) {
    Run run;
    run.status = RunStatus::Imported;
    run.setting.mode = "default";
    TraceSource source;
    source.path = "/tmp/trace/dedicated_log_torch_trace_rank_" + std::to_string(rank) + ".log";
    source.rank = rank;
    source.pid = 100 + rank;
    source.records = 420;
    run.trace = source;
    run.graphs = {graphOf("0/0", "forward", 12), graphOf("1/0", "loss", 6, "torch.sum")};
    run.compiles = {compileOf("0/0", "forward", seconds), compileOf("1/0", "loss", seconds / 4)};
    run.compilePhases = {{"dynamo_tracing", seconds * 1.25 * 0.25},
                         {"inductor_codegen", seconds * 1.25 * 0.75}};
    run.cacheLookups = {{"0/0", "fx_graph", "hit", ""}, {"1/0", "fx_graph", "hit", ""}};
    return run;
}

inline Report ranksReport(std::vector<Run> runs) {
    Report report;
    report.model.spec = "TORCH_TRACE /tmp/trace";
    report.model.name = "train.py";
    report.runs = std::move(runs);
    return report;
}

// Two ranks where rank 1 diverges every way: a longer graph, a recompile, a
// cache miss and a much longer compile.
inline Report divergentTwoRanks() {
    Run zero = rankRun(0, 4.0);
    Run one = rankRun(1, 16.0);
    one.graphs[0] = graphOf("0/0", "forward", 14);
    one.graphs.push_back(graphOf("0/1", "forward", 14));
    one.compiles.push_back(compileOf("0/1", "forward", 3.0, 1764528490.0));
    one.compiles.back().recompileReason = "tensor 'x' size mismatch at index 0. expected 32, "
                                          "actual 24";
    one.recompiles.push_back({"forward",
                              "tensor 'x' size mismatch at index 0. expected 32, actual 24", 2, "",
                              false, 0, "", ""});
    one.cacheLookups[0].outcome = "miss";
    one.cacheLookups.push_back({"0/1", "fx_graph", "bypass", "cache bypass: unsupported op"});
    one.compiles[0].restartReasons = {"restart: graph break in forward"};
    return ranksReport({zero, one});
}

} // namespace rank_test
