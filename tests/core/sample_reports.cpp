#include "tests/core/sample_reports.h"

#include "core/events/event_parser.h"

namespace cs::test {

using namespace cs::core;

Report sampleReport() {
    Report report;
    report.generator = "compilescope test";
    report.created = "2026-11-30T00:00:00Z";
    cs::core::Run run = replayStream(
        R"J({"type":"hello","t_ns":1,"protocol":1,"python":"3.11.2","torch":"2.15.0","device":"cpu","cpu":"x86","host":"h"})J"
        "\n"
        R"J({"type":"model","t_ns":2,"spec":"/m/mlp.py","file":"/m/mlp.py","name":"MLP","parameters":1000,"inputs":[{"shape":[32,512],"dtype":"float32"}]})J"
        "\n"
        R"J({"type":"phase","t_ns":3,"name":"compile","edge":"begin"})J"
        "\n"
        R"J({"type":"iteration","t_ns":4,"index":0,"latency_ns":900000000,"wall_ns":900000001,"warmup":true,"first_call":true})J"
        "\n"
        R"J({"type":"phase","t_ns":5,"name":"compile","edge":"end"})J"
        "\n"
        R"J({"type":"iteration","t_ns":6,"index":1,"latency_ns":1000,"wall_ns":1001})J"
        "\n"
        R"J({"type":"iteration","t_ns":7,"index":2,"latency_ns":1100,"wall_ns":1101})J"
        "\n"
        R"J({"type":"graph","t_ns":8,"index":0,"compile_id":"0/0","function":"forward","nodes":[{"name":"x","op":"placeholder","target":"x","shape":["s0",512],"dtype":"float32","inputs":[]},{"name":"relu","op":"call_function","target":"torch.relu","shape":"[s0, 512]","dtype":"float32","file":"/m/mlp.py","line":9,"module":"act","inputs":["x"]}]})J"
        "\n"
        R"J({"type":"graph_break","t_ns":9,"index":0,"reason":"print","frames":[{"file":"/m/mlp.py","line":12,"function":"forward","code":"print(x)"}],"user_frame":0,"graph_before":0,"graph_after":1})J"
        "\n"
        R"J({"type":"recompile","t_ns":10,"function":"forward","reason":"size mismatch","cache_size":2,"input_shapes":"[8, 16]","call_index":3})J"
        "\n"
        R"J({"type":"recompile_limit","t_ns":11,"function":"forward","limit":8,"reason":"limit"})J"
        "\n"
        R"J({"type":"compile_time","t_ns":12,"phases":[{"name":"dynamo_tracing","seconds":0.25},{"name":"other","seconds":0.65}],"first_call_ns":900000000,"source":"metrics"})J"
        "\n"
        R"J({"type":"memory","t_ns":13,"kind":"host_rss","samples":[[1,100],[2,200]],"phase_peaks":{"compile":200}})J"
        "\n"
        R"J({"type":"memory_stats","t_ns":14,"phase":"measure","edge":"end","allocated":1,"reserved":2,"peak_allocated":3,"peak_reserved":4})J"
        "\n"
        R"J({"type":"kernel_summary","t_ns":15,"iterations":2,"launches_per_iter":3.5,"gpu_ns_per_iter":100,"busy_fraction":0.25,"top":[{"name":"k<1>","count":4,"total_ns":40,"mean_ns":10}],"memcpy":{"count":1,"bytes":64,"total_ns":5},"dropped":0})J"
        "\n"
        R"J({"type":"log","t_ns":16,"level":"warning","message":"w"})J"
        "\n"
        R"J({"type":"mystery","t_ns":17,"data":{"a":[1,2]}})J"
        "\n"
        "garbage\n"
        R"J({"type":"done","t_ns":18,"status":"ok"})J"
        "\n");
    run.status = RunStatus::Ok;
    run.exitCode = 0;
    run.console = "printed \xff bytes\n";
    report.runs.push_back(run);
    cs::core::Run failed;
    failed.setting.mode = "max-autotune";
    failed.status = RunStatus::Crashed;
    failed.error = ErrorInfo{"crashed", "died", "tb"};
    report.runs.push_back(failed);
    report.deriveFromRuns();
    return report;
}

Run runWithLatencies(const std::string& mode, const std::vector<int64_t>& warmupNs,
                     const std::vector<int64_t>& measuredNs) {
    Run run;
    run.setting.mode = mode;
    run.status = RunStatus::Ok;
    run.exitCode = 0;
    int index = 0;
    for (auto ns : warmupNs)
        run.iterations.push_back({index++, ns, ns, 0, true, index == 1});
    for (auto ns : measuredNs)
        run.iterations.push_back({index++, ns, ns, 0, false, false});
    return run;
}

std::vector<int64_t> latencies(int64_t center, int64_t spread, int count) {
    std::vector<int64_t> out;
    for (int i = 0; i < count; ++i)
        out.push_back(center - spread + (count > 1 ? 2 * spread * i / (count - 1) : 0));
    return out;
}

GraphBreak graphBreak(const std::string& file, int line, const std::string& reason, int before) {
    GraphBreak b;
    b.reason = reason;
    b.frames.push_back({file, line, "forward", "print(x)", true});
    b.userFrame = 0;
    b.graphBefore = before;
    b.graphAfter = before + 1;
    return b;
}

} // namespace cs::test
