#include "report_json.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "advice_json.h"
#include "comparison_json.h"
#include "report_gpu_fields.h"
#include "stats.h"

namespace cs::core {

using nlohmann::json;

namespace {

json statsToJson(const std::vector<int64_t>& samples) {
    auto stats = computeStats(samples);
    if (!stats)
        return nullptr;
    return {{"count", stats->count},       {"min_ns", stats->min},
            {"max_ns", stats->max},        {"mean_ns", stats->mean},
            {"median_ns", stats->median},  {"p90_ns", stats->p90},
            {"p99_ns", stats->p99},        {"std_ns", stats->std},
            {"median_ci95_ns", {stats->medianCiLow, stats->medianCiHigh}},
            {"q1_ns", stats->q1},          {"q3_ns", stats->q3},
            {"outliers", stats->outliers}};
}

json frameToJson(const SourceFrame& f) {
    return {{"file", f.file}, {"line", f.line}, {"function", f.function}, {"code", f.code},
            {"user", f.user}};
}

json breakToJson(const GraphBreak& b) {
    json frames = json::array();
    for (const auto& f : b.frames)
        frames.push_back(frameToJson(f));
    return {{"index", b.index},         {"reason", b.reason},           {"gb_type", b.gbType},
            {"frames", frames},         {"user_frame", b.userFrame},    {"graph_before", b.graphBefore},
            {"graph_after", b.graphAfter}};
}

json graphToJson(const Graph& g) {
    json nodes = json::array();
    for (const auto& n : g.nodes) {
        nodes.push_back({{"name", n.name},   {"op", n.op},     {"target", n.target},
                         {"shape", n.shape}, {"dtype", n.dtype}, {"file", n.file},
                         {"line", n.line},   {"module", n.module}, {"inputs", n.inputs}});
    }
    return {{"index", g.index}, {"compile_id", g.compileId}, {"function", g.function},
            {"file", g.file},   {"line", g.line},            {"nodes", nodes}};
}

json modelToJson(const ModelInfo& m) {
    return {{"spec", m.spec}, {"file", m.file}, {"name", m.name}, {"parameters", m.parameters},
            {"inputs", m.inputs}};
}

json kernelsToJson(const KernelSummary& k) {
    if (!k.present)
        return nullptr;
    json top = json::array();
    for (const auto& t : k.top)
        top.push_back({{"name", t.name}, {"count", t.count}, {"total_ns", t.totalNs}, {"mean_ns", t.meanNs}});
    return {{"iterations", k.iterations},
            {"launches_per_iter", k.launchesPerIter},
            {"gpu_ns_per_iter", k.gpuNsPerIter},
            {"busy_fraction", k.busyFraction},
            {"top", top},
            {"memcpy", {{"count", k.memcpyCount}, {"bytes", k.memcpyBytes}, {"total_ns", k.memcpyNs}}},
            {"dropped", k.dropped}};
}

template <typename T> T value(const json& j, const char* key, T fallback) {
    auto it = j.find(key);
    if (it == j.end() || it->is_null())
        return fallback;
    try {
        return it->get<T>();
    } catch (const json::exception&) {
        return fallback;
    }
}

} // namespace

json settingToJson(const Setting& s) {
    return {{"mode", s.mode},       {"backend", s.backend}, {"dynamic", s.dynamic},
            {"fullgraph", s.fullgraph}, {"device", s.device}, {"autocast", s.autocast},
            {"warmup", s.warmup},   {"iters", s.iters},     {"sweep", s.sweep},
            {"warm_cache", s.warmCache}};
}

Setting settingFromJson(const json& j) {
    Setting s;
    s.mode = value<std::string>(j, "mode", s.mode);
    s.backend = value<std::string>(j, "backend", s.backend);
    s.dynamic = value<std::string>(j, "dynamic", s.dynamic);
    s.fullgraph = value<bool>(j, "fullgraph", s.fullgraph);
    s.device = value<std::string>(j, "device", s.device);
    s.autocast = value<std::string>(j, "autocast", s.autocast);
    s.warmup = value<int>(j, "warmup", s.warmup);
    s.iters = value<int>(j, "iters", s.iters);
    s.sweep = value<bool>(j, "sweep", s.sweep);
    s.warmCache = value<bool>(j, "warm_cache", s.warmCache);
    return s;
}

json runToJson(const Run& run) {
    json j;
    j["label"] = run.setting.label();
    j["setting"] = settingToJson(run.setting);
    j["status"] = toString(run.status);
    j["error"] = run.error ? json{{"kind", run.error->kind},
                                  {"message", run.error->message},
                                  {"traceback", run.error->traceback}}
                           : json(nullptr);
    j["exit_code"] = run.exitCode ? json(*run.exitCode) : json(nullptr);
    j["probe"] = {{"protocol", run.probe.protocol},       {"probe_version", run.probe.probeVersion},
                  {"python", run.probe.python},           {"python_executable", run.probe.pythonExecutable},
                  {"torch", run.probe.torch},             {"cuda", run.probe.cuda},
                  {"device", run.probe.device},           {"device_name", run.probe.deviceName},
                  {"cpu", run.probe.cpu},                 {"host", run.probe.host},
                  {"platform", run.probe.platform}};
    j["model"] = modelToJson(run.model);
    j["stream"] = {{"hello", run.sawHello}, {"done", run.sawDone}, {"done_status", run.doneStatus},
                   {"first_t_ns", run.firstEventNs}, {"last_t_ns", run.lastEventNs}};

    json phases = json::array();
    for (const auto& p : run.phases)
        phases.push_back({{"name", p.name}, {"begin_ns", p.beginNs}, {"end_ns", p.endNs}});
    j["phases"] = phases;

    json iterations = json::array();
    for (const auto& it : run.iterations) {
        iterations.push_back({{"index", it.index}, {"latency_ns", it.latencyNs}, {"wall_ns", it.wallNs},
                              {"t_ns", it.tNs}, {"warmup", it.warmup}, {"first_call", it.firstCall}});
    }
    const auto measured = run.measuredLatencies();
    j["latency"] = {{"samples_ns", measured},
                    {"warmup_ns", run.warmupLatencies()},
                    {"iterations", iterations},
                    {"harness_overhead_ns", run.harnessOverheadNs},
                    {"stats", statsToJson(measured)}};

    json graphs = json::array();
    for (const auto& g : run.graphs)
        graphs.push_back(graphToJson(g));
    j["graphs"] = graphs;
    json breaks = json::array();
    for (const auto& b : run.graphBreaks)
        breaks.push_back(breakToJson(b));
    j["graph_breaks"] = breaks;
    json recompiles = json::array();
    for (const auto& r : run.recompiles) {
        recompiles.push_back({{"function", r.function}, {"reason", r.reason}, {"cache_size", r.cacheSize},
                              {"input_shapes", r.inputShapes}, {"limit_hit", r.limitHit},
                              {"limit", r.limit}});
    }
    j["recompiles"] = recompiles;

    json compilePhases = json::array();
    for (const auto& p : run.compilePhases)
        compilePhases.push_back({{"name", p.name}, {"seconds", p.seconds}});
    j["compile_phases"] = {{"phases", compilePhases}, {"first_call_ns", run.firstCallNs},
                           {"source", run.compilePhasesSource}};
    if (run.warmupCompileNs >= 0) {
        json later = json::array();
        for (const auto& p : run.warmupCompilePhases)
            later.push_back({{"name", p.name}, {"seconds", p.seconds}});
        j["compile_phases"]["later_warmup"] = {{"phases", later}, {"wall_ns", run.warmupCompileNs}};
    }
    // Derived (docs/measuring.md); recomputed from the iterations on read.
    j["warmup"] = warmupToJson(analyzeWarmup(run));

    json series = json::array();
    for (const auto& m : run.memory) {
        json samples = json::array();
        for (const auto& [t, bytes] : m.samples)
            samples.push_back({t, bytes});
        series.push_back({{"kind", m.kind}, {"samples", samples}, {"phase_peaks", m.phasePeaks}});
    }
    json memStats = json::array();
    for (const auto& s : run.memoryStats) {
        memStats.push_back({{"phase", s.phase}, {"edge", s.edge}, {"allocated", s.allocated},
                            {"reserved", s.reserved}, {"peak_allocated", s.peakAllocated},
                            {"peak_reserved", s.peakReserved}});
    }
    j["memory"] = {{"series", series}, {"stats", memStats},
                   {"cupti", {{"active", run.cuptiActive}, {"message", run.cuptiMessage}}}};
    j["kernels"] = kernelsToJson(run.kernels);
    addGpuFields(j, run); // report_gpu_fields.cpp

    json logs = json::array();
    for (const auto& l : run.logs)
        logs.push_back({{"t_ns", l.tNs}, {"level", l.level}, {"message", l.message}});
    j["logs"] = logs;
    j["console"] = run.console;
    json problems = json::array();
    for (const auto& p : run.parseProblems)
        problems.push_back({{"line", p.line}, {"message", p.message}});
    j["parse_problems"] = problems;
    j["unknown_events"] = run.unknownEvents;
    return j;
}

json reportToJson(const Report& report) {
    json runs = json::array();
    for (const auto& run : report.runs)
        runs.push_back(runToJson(run));
    const auto& e = report.environment;
    json doc = {{"format", kReportFormat},
            {"version", kReportVersion},
            {"generator", report.generator},
            {"created", report.created},
            {"model", modelToJson(report.model)},
            {"environment",
             {{"python", e.python}, {"torch", e.torch}, {"cuda", e.cuda}, {"device", e.device},
              {"cpu", e.cpu}, {"host", e.host}, {"platform", e.platform}}},
            {"runs", runs},
            // Derived from the runs (docs/measuring.md); ignored and recomputed on read.
            {"comparison", comparisonToJson(compareRuns(report))}};
    // Derived from the runs and the user's advice options; recomputed on read.
    doc["advice"] = adviceToJson(report);
    return doc;
}

std::string writeReportJson(const Report& report, int indent) {
    // Replace invalid UTF-8 (a model may print any bytes) instead of throwing.
    return reportToJson(report).dump(indent, ' ', false, json::error_handler_t::replace);
}

namespace {

ModelInfo modelFromJson(const json& j) {
    ModelInfo m;
    if (!j.is_object())
        return m;
    m.spec = value<std::string>(j, "spec", "");
    m.file = value<std::string>(j, "file", "");
    m.name = value<std::string>(j, "name", "");
    m.parameters = value<int64_t>(j, "parameters", 0);
    m.inputs = value<std::vector<std::string>>(j, "inputs", {});
    return m;
}

SourceFrame frameFromJson(const json& j) {
    return {value<std::string>(j, "file", ""), value<int>(j, "line", 0),
            value<std::string>(j, "function", ""), value<std::string>(j, "code", ""),
            value<bool>(j, "user", true)};
}

Run runFromJson(const json& j, std::vector<std::string>& warnings, size_t index) {
    Run run;
    const std::string where = "run " + std::to_string(index + 1);
    run.setting = settingFromJson(j.value("setting", json::object()));
    const auto statusText = value<std::string>(j, "status", "");
    if (auto status = runStatusFromString(statusText)) {
        run.status = *status;
    } else {
        run.status = RunStatus::Failed;
        warnings.push_back(where + ": unknown status \"" + statusText + "\", shown as failed");
    }
    if (auto e = j.find("error"); e != j.end() && e->is_object()) {
        run.error = ErrorInfo{value<std::string>(*e, "kind", ""), value<std::string>(*e, "message", ""),
                              value<std::string>(*e, "traceback", "")};
    }
    if (auto c = j.find("exit_code"); c != j.end() && c->is_number_integer())
        run.exitCode = c->get<int>();
    if (auto p = j.find("probe"); p != j.end() && p->is_object()) {
        ProbeInfo& pi = run.probe;
        pi.protocol = value<int>(*p, "protocol", 0);
        pi.probeVersion = value<std::string>(*p, "probe_version", "");
        pi.python = value<std::string>(*p, "python", "");
        pi.pythonExecutable = value<std::string>(*p, "python_executable", "");
        pi.torch = value<std::string>(*p, "torch", "");
        pi.cuda = value<std::string>(*p, "cuda", "");
        pi.device = value<std::string>(*p, "device", "");
        pi.deviceName = value<std::string>(*p, "device_name", "");
        pi.cpu = value<std::string>(*p, "cpu", "");
        pi.host = value<std::string>(*p, "host", "");
        pi.platform = value<std::string>(*p, "platform", "");
    }
    run.model = modelFromJson(j.value("model", json::object()));
    if (auto s = j.find("stream"); s != j.end() && s->is_object()) {
        run.sawHello = value<bool>(*s, "hello", false);
        run.sawDone = value<bool>(*s, "done", false);
        run.doneStatus = value<std::string>(*s, "done_status", "");
        run.firstEventNs = value<int64_t>(*s, "first_t_ns", -1);
        run.lastEventNs = value<int64_t>(*s, "last_t_ns", -1);
    }
    for (const auto& p : j.value("phases", json::array()))
        run.phases.push_back({value<std::string>(p, "name", ""), value<int64_t>(p, "begin_ns", -1),
                              value<int64_t>(p, "end_ns", -1)});

    const json latency = j.value("latency", json::object());
    run.harnessOverheadNs = value<int64_t>(latency, "harness_overhead_ns", -1);
    if (auto its = latency.find("iterations"); its != latency.end() && its->is_array()) {
        for (const auto& it : *its) {
            run.iterations.push_back({value<int>(it, "index", 0), value<int64_t>(it, "latency_ns", 0),
                                      value<int64_t>(it, "wall_ns", 0), value<int64_t>(it, "t_ns", 0),
                                      value<bool>(it, "warmup", false),
                                      value<bool>(it, "first_call", false)});
        }
    } else {
        // Only the sample arrays: rebuild iterations from them.
        int index = 0;
        for (auto ns : value<std::vector<int64_t>>(latency, "warmup_ns", {}))
            run.iterations.push_back({index++, ns, ns, 0, true, index == 1});
        for (auto ns : value<std::vector<int64_t>>(latency, "samples_ns", {}))
            run.iterations.push_back({index++, ns, ns, 0, false, false});
        if (!latency.contains("samples_ns"))
            warnings.push_back(where + ": no latency samples");
    }

    for (const auto& g : j.value("graphs", json::array())) {
        Graph graph;
        graph.index = value<int>(g, "index", 0);
        graph.compileId = value<std::string>(g, "compile_id", "");
        graph.function = value<std::string>(g, "function", "");
        graph.file = value<std::string>(g, "file", "");
        graph.line = value<int>(g, "line", 0);
        for (const auto& n : g.value("nodes", json::array())) {
            graph.nodes.push_back({value<std::string>(n, "name", ""), value<std::string>(n, "op", ""),
                                   value<std::string>(n, "target", ""), value<std::string>(n, "shape", ""),
                                   value<std::string>(n, "dtype", ""), value<std::string>(n, "file", ""),
                                   value<int>(n, "line", 0), value<std::string>(n, "module", ""),
                                   value<std::vector<std::string>>(n, "inputs", {})});
        }
        run.graphs.push_back(std::move(graph));
    }
    for (const auto& b : j.value("graph_breaks", json::array())) {
        GraphBreak br;
        br.index = value<int>(b, "index", 0);
        br.reason = value<std::string>(b, "reason", "");
        br.gbType = value<std::string>(b, "gb_type", "");
        for (const auto& f : b.value("frames", json::array()))
            br.frames.push_back(frameFromJson(f));
        br.userFrame = value<int>(b, "user_frame", -1);
        br.graphBefore = value<int>(b, "graph_before", -1);
        br.graphAfter = value<int>(b, "graph_after", -1);
        run.graphBreaks.push_back(std::move(br));
    }
    for (const auto& r : j.value("recompiles", json::array())) {
        run.recompiles.push_back({value<std::string>(r, "function", ""), value<std::string>(r, "reason", ""),
                                  value<int>(r, "cache_size", 0), value<std::string>(r, "input_shapes", ""),
                                  value<bool>(r, "limit_hit", false), value<int>(r, "limit", 0)});
    }
    const json compile = j.value("compile_phases", json::object());
    for (const auto& p : compile.value("phases", json::array()))
        run.compilePhases.push_back({value<std::string>(p, "name", ""), value<double>(p, "seconds", 0)});
    run.firstCallNs = value<int64_t>(compile, "first_call_ns", -1);
    run.compilePhasesSource = value<std::string>(compile, "source", "");
    if (auto later = compile.find("later_warmup"); later != compile.end() && later->is_object()) {
        for (const auto& p : later->value("phases", json::array()))
            run.warmupCompilePhases.push_back(
                {value<std::string>(p, "name", ""), value<double>(p, "seconds", 0)});
        run.warmupCompileNs = value<int64_t>(*later, "wall_ns", -1);
    }

    const json memory = j.value("memory", json::object());
    for (const auto& m : memory.value("series", json::array())) {
        MemorySeries series;
        series.kind = value<std::string>(m, "kind", "");
        for (const auto& s : m.value("samples", json::array())) {
            if (s.is_array() && s.size() >= 2 && s[0].is_number() && s[1].is_number())
                series.samples.emplace_back(s[0].get<int64_t>(), s[1].get<int64_t>());
        }
        series.phasePeaks = value<std::map<std::string, int64_t>>(m, "phase_peaks", {});
        run.memory.push_back(std::move(series));
    }
    for (const auto& s : memory.value("stats", json::array())) {
        run.memoryStats.push_back({value<std::string>(s, "phase", ""), value<std::string>(s, "edge", ""),
                                   value<int64_t>(s, "allocated", 0), value<int64_t>(s, "reserved", 0),
                                   value<int64_t>(s, "peak_allocated", 0),
                                   value<int64_t>(s, "peak_reserved", 0)});
    }
    const json cupti = memory.value("cupti", json::object());
    run.cuptiActive = value<bool>(cupti, "active", false);
    run.cuptiMessage = value<std::string>(cupti, "message", "");

    if (auto k = j.find("kernels"); k != j.end() && k->is_object()) {
        KernelSummary& ks = run.kernels;
        ks.present = true;
        ks.iterations = value<int>(*k, "iterations", 0);
        ks.launchesPerIter = value<double>(*k, "launches_per_iter", 0);
        ks.gpuNsPerIter = value<double>(*k, "gpu_ns_per_iter", 0);
        ks.busyFraction = value<double>(*k, "busy_fraction", 0);
        ks.dropped = value<int64_t>(*k, "dropped", 0);
        for (const auto& t : k->value("top", json::array()))
            ks.top.push_back({value<std::string>(t, "name", ""), value<int64_t>(t, "count", 0),
                              value<int64_t>(t, "total_ns", 0), value<int64_t>(t, "mean_ns", 0)});
        const json memcpy = k->value("memcpy", json::object());
        ks.memcpyCount = value<int64_t>(memcpy, "count", 0);
        ks.memcpyBytes = value<int64_t>(memcpy, "bytes", 0);
        ks.memcpyNs = value<int64_t>(memcpy, "total_ns", 0);
    }
    readGpuFields(j, run, warnings, where); // report_gpu_fields.cpp
    for (const auto& l : j.value("logs", json::array()))
        run.logs.push_back({value<int64_t>(l, "t_ns", 0), value<std::string>(l, "level", ""),
                            value<std::string>(l, "message", "")});
    run.console = value<std::string>(j, "console", "");
    for (const auto& p : j.value("parse_problems", json::array()))
        run.parseProblems.push_back({value<int64_t>(p, "line", 0), value<std::string>(p, "message", "")});
    if (auto u = j.find("unknown_events"); u != j.end() && u->is_array())
        run.unknownEvents.assign(u->begin(), u->end());
    return run;
}

} // namespace

ReportReadResult readReportJson(const std::string& text, const std::string& source) {
    ReportReadResult result;
    json doc;
    try {
        doc = json::parse(text);
    } catch (const json::parse_error& e) {
        const bool truncated = e.id == 101 && e.byte >= text.size();
        result.error = source + " is not a compilescope report: " +
                       (truncated ? std::string("the file ends early (truncated?)")
                                  : "not valid JSON (byte " + std::to_string(e.byte) + ")") +
                       ". Open a .json report written by compilescope.";
        return result;
    }
    if (!doc.is_object() || doc.value("format", "") != kReportFormat) {
        result.error = source + " is valid JSON but not a compilescope report (no \"format\": \"" +
                       kReportFormat + "\"). Open a .json report written by compilescope.";
        return result;
    }
    const int version = value<int>(doc, "version", 0);
    if (version < 1) {
        result.error = source + " has no valid report \"version\".";
        return result;
    }
    if (version > kReportVersion) {
        result.warnings.push_back(source + " is report version " + std::to_string(version) +
                                  ", newer than this compilescope reads (" +
                                  std::to_string(kReportVersion) +
                                  "); showing what this version knows. Update compilescope to see all of it.");
    }
    Report& r = result.report;
    r.version = version;
    r.generator = value<std::string>(doc, "generator", "");
    r.created = value<std::string>(doc, "created", "");
    r.model = modelFromJson(doc.value("model", json::object()));
    const json env = doc.value("environment", json::object());
    r.environment = {value<std::string>(env, "python", ""), value<std::string>(env, "torch", ""),
                     value<std::string>(env, "cuda", ""),   value<std::string>(env, "device", ""),
                     value<std::string>(env, "cpu", ""),    value<std::string>(env, "host", ""),
                     value<std::string>(env, "platform", "")};
    auto runs = doc.find("runs");
    if (runs == doc.end() || !runs->is_array()) {
        result.error = source + " is a compilescope report without a \"runs\" list; it may be damaged.";
        return result;
    }
    for (size_t i = 0; i < runs->size(); ++i) {
        if (!(*runs)[i].is_object()) {
            result.warnings.push_back("run " + std::to_string(i + 1) + " is not an object; skipped");
            continue;
        }
        r.runs.push_back(runFromJson((*runs)[i], result.warnings, i));
    }
    // Findings are derived: keep only the options they were derived with.
    r.adviceOptions = adviceOptionsFromJson(doc.value("advice", json::object()));
    result.ok = true;
    return result;
}

ReportReadResult readReportFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        ReportReadResult result;
        result.error = "Cannot open " + path + ": the file does not exist or is not readable.";
        return result;
    }
    std::ostringstream buffer;
    buffer << in.rdbuf();
    return readReportJson(buffer.str(), path);
}

bool saveTextFile(const std::string& path, const std::string& text, std::string* error) {
    const std::string temp = path + ".partial";
    {
        std::ofstream out(temp, std::ios::binary | std::ios::trunc);
        if (!out) {
            if (error)
                *error = "Cannot write " + path + ": the folder does not exist or is not writable.";
            return false;
        }
        out << text;
        out.flush();
        if (!out) {
            if (error)
                *error = "Writing " + path + " failed (disk full?).";
            std::remove(temp.c_str());
            return false;
        }
    }
    std::error_code ec;
    std::filesystem::rename(temp, path, ec);
    if (ec) {
        if (error)
            *error = "Cannot replace " + path + ": " + ec.message();
        std::remove(temp.c_str());
        return false;
    }
    return true;
}

} // namespace cs::core
