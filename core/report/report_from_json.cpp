#include "core/report/report_from_json.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "core/report/json_lenient.h"
#include "core/report/machine_cpu_json.h"
#include "core/report/module_hooks_json.h"
#include "core/report/outputs_check_json.h"
#include "core/report/own_compiles_json.h"
#include "core/report/report_code_fields.h"
#include "core/report/report_gpu_fields.h"
#include "core/report/report_json.h"

namespace cs::core {

using nlohmann::json;

namespace {

const json& emptyArray() {
    static const json empty = json::array();
    return empty;
}

const json& emptyObject() {
    static const json empty = json::object();
    return empty;
}

// j[key] when j is an object holding an array there, else an empty array:
// a hand-edited report with the wrong types must not throw.
const json& arrayAt(const json& j, const char* key) {
    if (!j.is_object())
        return emptyArray();
    auto it = j.find(key);
    return it != j.end() && it->is_array() ? *it : emptyArray();
}

const json& objectAt(const json& j, const char* key) {
    if (!j.is_object())
        return emptyObject();
    auto it = j.find(key);
    return it != j.end() && it->is_object() ? *it : emptyObject();
}

// j[key] as NAME → VALUE, string values only: anything else is left out.
std::map<std::string, std::string> stringMap(const json& j, const char* key) {
    std::map<std::string, std::string> out;
    for (const auto& [name, value] : objectAt(j, key).items()) {
        if (value.is_string())
            out.emplace(name, value.get<std::string>());
    }
    return out;
}

SourceFrame frameFromJson(const json& j) {
    return {lenientValue<std::string>(j, "file", ""), lenientValue<int>(j, "line", 0),
            lenientValue<std::string>(j, "function", ""), lenientValue<std::string>(j, "code", ""),
            lenientValue<bool>(j, "user", true)};
}

GraphBreak breakFromJson(const json& b) {
    GraphBreak br;
    br.index = lenientValue<int>(b, "index", 0);
    br.reason = lenientValue<std::string>(b, "reason", "");
    br.gbType = lenientValue<std::string>(b, "gb_type", "");
    br.gbId = lenientValue<std::string>(b, "gb_id", "");
    for (const auto& f : arrayAt(b, "frames"))
        br.frames.push_back(frameFromJson(f));
    br.userFrame = lenientValue<int>(b, "user_frame", -1);
    br.graphBefore = lenientValue<int>(b, "graph_before", -1);
    br.graphAfter = lenientValue<int>(b, "graph_after", -1);
    return br;
}

void readLatency(Run& run, const json& j, RunParts& parts, std::vector<std::string>& warnings,
                 const std::string& where) {
    const json& latency = objectAt(j, "latency");
    run.harnessOverheadNs = lenientValue<int64_t>(latency, "harness_overhead_ns", -1);
    run.appCpuMeasureNs = lenientValue<int64_t>(latency, "app_cpu_measure_ns", -1);
    run.droppedUnsettled = std::max(0, lenientValue<int>(latency, "dropped_unsettled", 0));
    run.measureMachineCpu = machineCpuFromJson(objectAt(latency, "machine_cpu"));
    run.measureHostFaults = hostFaultsFromJson(objectAt(latency, "host_faults"));
    const json& held = objectAt(latency, "host_held");
    run.measureHostHeld = heldWindowFromJson(objectAt(held, "measure"));
    run.crosscheckHostHeld = heldWindowFromJson(objectAt(held, "crosscheck"));
    const json& reference = objectAt(latency, "host_reference");
    run.hostReference.beforeNs =
        std::max<int64_t>(0, lenientValue<int64_t>(reference, "before_ns", 0));
    run.hostReference.afterNs =
        std::max<int64_t>(0, lenientValue<int64_t>(reference, "after_ns", 0));
    for (const auto& r : arrayAt(latency, "repeats")) {
        if (!r.is_object())
            continue;
        RepeatProbe repeat;
        repeat.round = std::max(1, lenientValue<int>(r, "round", 1));
        repeat.status = runStatusFromString(lenientValue<std::string>(r, "status", ""))
                            .value_or(RunStatus::Failed);
        repeat.error = lenientValue<std::string>(r, "error", "");
        repeat.latencyNs = lenientValue<std::vector<int64_t>>(r, "samples_ns", {});
        const json& ref = objectAt(r, "host_reference");
        repeat.hostReference.beforeNs =
            std::max<int64_t>(0, lenientValue<int64_t>(ref, "before_ns", 0));
        repeat.hostReference.afterNs =
            std::max<int64_t>(0, lenientValue<int64_t>(ref, "after_ns", 0));
        run.repeats.push_back(std::move(repeat));
    }
    const json& check = objectAt(latency, "crosscheck");
    run.crosscheckBlockCalls = lenientValue<int>(check, "block_calls", 0);
    run.crosscheckBlockMeansNs = lenientValue<std::vector<double>>(check, "block_means_ns", {});
    if (latency.contains("iterations")) {
        // Streamed elements arrive in parts; a DOM-only caller leaves them in place.
        for (const auto& it : arrayAt(latency, "iterations")) {
            if (it.is_object())
                parts.iterations.push_back(iterationFromJson(it));
        }
        run.iterations = std::move(parts.iterations);
        return;
    }
    // Only the sample arrays: rebuild the iterations from them.
    int index = 0;
    for (auto ns : lenientValue<std::vector<int64_t>>(latency, "warmup_ns", {}))
        run.iterations.push_back({index++, ns, ns, 0, true, index == 1});
    for (auto ns : lenientValue<std::vector<int64_t>>(latency, "samples_ns", {}))
        run.iterations.push_back({index++, ns, ns, 0, false, false});
    if (!latency.contains("samples_ns"))
        warnings.push_back(where + ": no latency samples");
}

double secondsAt(const json& j, const char* key) {
    return static_cast<double>(lenientValue<int64_t>(j, key, 0)) / 1e9;
}

// An imported TORCH_TRACE run: its file, compiles and cache lookups (absent otherwise).
void readTraceFields(Run& run, const json& j) {
    if (auto t = j.find("trace"); t != j.end() && t->is_object()) {
        TraceSource source;
        source.path = lenientValue<std::string>(*t, "path", "");
        source.rank = lenientValue<int>(*t, "rank", -1);
        source.pid = lenientValue<int64_t>(*t, "pid", -1);
        source.started = lenientValue<std::string>(*t, "started", "");
        source.bytes = lenientValue<int64_t>(*t, "bytes", 0);
        source.records = lenientValue<int64_t>(*t, "records", 0);
        using Counts = std::map<std::string, int64_t>;
        source.kinds = lenientValue<Counts>(*t, "kinds", {});
        source.unknownKinds = lenientValue<Counts>(*t, "unknown_kinds", {});
        source.artifacts = lenientValue<Counts>(*t, "artifacts", {});
        source.badPayloads = lenientValue<int64_t>(*t, "bad_payloads", 0);
        source.truncated = lenientValue<bool>(*t, "truncated", false);
        run.trace = std::move(source);
    }
    for (const auto& c : arrayAt(j, "compiles")) {
        if (!c.is_object())
            continue;
        CompileRecord record;
        record.compileId = lenientValue<std::string>(c, "compile_id", "");
        record.function = lenientValue<std::string>(c, "function", "");
        record.file = lenientValue<std::string>(c, "file", "");
        record.line = lenientValue<int>(c, "line", 0);
        record.startTime = lenientValue<double>(c, "start_unix_s", 0);
        record.seconds = secondsAt(c, "compile_ns");
        for (const auto& p : arrayAt(c, "phases"))
            record.phases.push_back({lenientValue<std::string>(p, "name", ""), secondsAt(p, "ns")});
        record.failType = lenientValue<std::string>(c, "fail_type", "");
        record.failReason = lenientValue<std::string>(c, "fail_reason", "");
        record.restartReasons = lenientValue<std::vector<std::string>>(c, "restart_reasons", {});
        record.recompileReason = lenientValue<std::string>(c, "recompile_reason", "");
        record.cudagraphSkipReason = lenientValue<std::string>(c, "cudagraph_skip_reason", "");
        record.cacheSize = lenientValue<int>(c, "cache_size", 0);
        record.graphs = lenientValue<int>(c, "graphs", 0);
        record.graphBreaks = lenientValue<int>(c, "graph_breaks", 0);
        record.outputCodeOffset = lenientValue<int64_t>(c, "output_code_offset", -1);
        record.outputCodeBytes = lenientValue<int64_t>(c, "output_code_bytes", 0);
        run.compiles.push_back(std::move(record));
    }
    for (const auto& l : arrayAt(j, "cache_lookups")) {
        run.cacheLookups.push_back({lenientValue<std::string>(l, "compile_id", ""),
                                    lenientValue<std::string>(l, "cache", ""),
                                    lenientValue<std::string>(l, "outcome", ""),
                                    lenientValue<std::string>(l, "reason", "")});
    }
}

// A scale run's walk (absent otherwise).
void readScaling(Run& run, const json& j) {
    auto it = j.find("scaling");
    if (it == j.end() || !it->is_object())
        return;
    Scaling s;
    s.batchSource = lenientValue<std::string>(*it, "batch_source", "");
    s.dynamic = lenientValue<bool>(*it, "dynamic", false);
    s.requested = lenientValue<std::vector<int64_t>>(*it, "requested", {});
    s.budgetSeconds = lenientValue<double>(*it, "budget_s", 0);
    s.memoryCapBytes = lenientValue<int64_t>(*it, "memory_cap_bytes", 0);
    for (const auto& p : arrayAt(*it, "points")) {
        if (!p.is_object())
            continue;
        ScalePoint point;
        point.batchSize = lenientValue<int64_t>(p, "batch_size", 0);
        point.firstCallNs = lenientValue<int64_t>(p, "first_call_ns", -1);
        point.latencyNs = lenientValue<std::vector<int64_t>>(p, "latency_ns", {});
        point.peakMemoryBytes = lenientValue<int64_t>(p, "peak_memory_bytes", -1);
        point.memoryKind = lenientValue<std::string>(p, "memory_kind", "");
        point.recompiles = lenientValue<int>(p, "recompiles", 0);
        s.points.push_back(std::move(point));
    }
    if (auto stop = it->find("stop"); stop != it->end() && stop->is_object())
        s.stop = ScaleStop{lenientValue<std::string>(*stop, "reason", ""),
                           lenientValue<int64_t>(*stop, "batch_size", 0),
                           lenientValue<std::string>(*stop, "message", "")};
    run.scaling = std::move(s);
}

// An aoti run's export refusal (absent otherwise).
void readExportFailure(Run& run, const json& j) {
    auto it = j.find("export_failure");
    if (it == j.end() || !it->is_object())
        return;
    run.exportFailure = ExportFailure{lenientValue<std::string>(*it, "category", "other"),
                                      lenientValue<std::string>(*it, "exception", ""),
                                      lenientValue<std::string>(*it, "reason", ""),
                                      lenientValue<std::string>(*it, "file", ""),
                                      lenientValue<int>(*it, "line", 0),
                                      lenientValue<std::string>(*it, "code", ""),
                                      lenientValue<std::string>(*it, "remedy", ""),
                                      lenientValue<bool>(*it, "strict", false)};
}

// A run that saved or loaded torch's portable cache artifacts (absent otherwise).
void readCacheArtifacts(Run& run, const json& j) {
    auto it = j.find("cache_artifacts");
    if (it == j.end() || !it->is_object())
        return;
    CacheArtifacts a;
    a.action = lenientValue<std::string>(*it, "action", "");
    a.path = lenientValue<std::string>(*it, "path", "");
    a.bytes = lenientValue<int64_t>(*it, "bytes", -1);
    a.ns = lenientValue<int64_t>(*it, "ns", -1);
    for (const auto& e : arrayAt(*it, "entries")) {
        if (e.is_object())
            a.entries.emplace_back(lenientValue<std::string>(e, "kind", ""),
                                   lenientValue<int>(e, "count", 0));
    }
    a.message = lenientValue<std::string>(*it, "message", "");
    run.cacheArtifacts = std::move(a);
}

void readCompilePhases(Run& run, const json& j) {
    const json& compile = objectAt(j, "compile_phases");
    for (const auto& p : arrayAt(compile, "phases")) {
        // Version 2 writes integer "ns"; version 1 wrote float "seconds".
        double seconds = lenientValue<double>(p, "seconds", 0);
        if (p.is_object() && p.contains("ns"))
            seconds = static_cast<double>(lenientValue<int64_t>(p, "ns", 0)) / 1e9;
        run.compilePhases.push_back({lenientValue<std::string>(p, "name", ""), seconds});
    }
    run.firstCallNs = lenientValue<int64_t>(compile, "first_call_ns", -1);
    run.compilePhasesSource = lenientValue<std::string>(compile, "source", "");
    run.dynamoOff = lenientValue<std::string>(compile, "dynamo_off", "");
    // Compile work of later warmup calls (compile_time scope "warmup"), when there was any.
    if (auto later = compile.find("later_warmup"); later != compile.end() && later->is_object()) {
        for (const auto& p : arrayAt(*later, "phases")) {
            const double seconds = static_cast<double>(lenientValue<int64_t>(p, "ns", 0)) / 1e9;
            run.warmupCompilePhases.push_back({lenientValue<std::string>(p, "name", ""), seconds});
        }
        run.warmupCompileNs = lenientValue<int64_t>(*later, "wall_ns", -1);
    }
}

void readMemory(Run& run, const json& j) {
    const json& memory = objectAt(j, "memory");
    for (const auto& m : arrayAt(memory, "series")) {
        MemorySeries series;
        series.kind = lenientValue<std::string>(m, "kind", "");
        for (const auto& s : arrayAt(m, "samples")) {
            int64_t t = 0;
            int64_t bytes = 0;
            if (s.is_array() && s.size() >= 2 && lenientConvert(s[0], t) &&
                lenientConvert(s[1], bytes))
                series.samples.emplace_back(t, bytes);
        }
        series.phasePeaks = lenientValue<std::map<std::string, int64_t>>(m, "phase_peaks", {});
        run.memory.push_back(std::move(series));
    }
    for (const auto& s : arrayAt(memory, "stats")) {
        run.memoryStats.push_back(
            {lenientValue<std::string>(s, "phase", ""), lenientValue<std::string>(s, "edge", ""),
             lenientValue<int64_t>(s, "allocated", 0), lenientValue<int64_t>(s, "reserved", 0),
             lenientValue<int64_t>(s, "peak_allocated", 0),
             lenientValue<int64_t>(s, "peak_reserved", 0)});
    }
    const json& cupti = objectAt(memory, "cupti");
    run.cuptiActive = lenientValue<bool>(cupti, "active", false);
    run.cuptiMessage = lenientValue<std::string>(cupti, "message", "");
}

void readKernels(Run& run, const json& j) {
    auto k = j.find("kernels");
    if (k == j.end() || !k->is_object())
        return;
    KernelSummary& ks = run.kernels;
    ks.present = true;
    ks.iterations = lenientValue<int>(*k, "iterations", 0);
    ks.launchesPerIter = lenientValue<double>(*k, "launches_per_iter", 0);
    ks.gpuNsPerIter = lenientValue<double>(*k, "gpu_ns_per_iter", 0);
    ks.busyFraction = lenientValue<double>(*k, "busy_fraction", 0);
    ks.dropped = lenientValue<int64_t>(*k, "dropped", 0);
    for (const auto& t : arrayAt(*k, "top"))
        ks.top.push_back(
            {lenientValue<std::string>(t, "name", ""), lenientValue<int64_t>(t, "count", 0),
             lenientValue<int64_t>(t, "total_ns", 0), lenientValue<int64_t>(t, "mean_ns", 0)});
    const json& memcpy = objectAt(*k, "memcpy");
    ks.memcpyCount = lenientValue<int64_t>(memcpy, "count", 0);
    ks.memcpyBytes = lenientValue<int64_t>(memcpy, "bytes", 0);
    ks.memcpyNs = lenientValue<int64_t>(memcpy, "total_ns", 0);
}

} // namespace

Setting settingFromJson(const json& j) {
    Setting s;
    s.mode = lenientValue<std::string>(j, "mode", s.mode);
    s.backend = lenientValue<std::string>(j, "backend", s.backend);
    s.dynamic = lenientValue<std::string>(j, "dynamic", s.dynamic);
    s.fullgraph = lenientValue<bool>(j, "fullgraph", s.fullgraph);
    s.device = lenientValue<std::string>(j, "device", s.device);
    s.autocast = lenientValue<std::string>(j, "autocast", s.autocast);
    s.warmup = lenientValue<int>(j, "warmup", s.warmup);
    s.iters = lenientValue<int>(j, "iters", s.iters);
    s.sweep = lenientValue<bool>(j, "sweep", s.sweep);
    // "start" came with portable cache artifacts; before it, "warm_cache" said it all.
    s.start = lenientValue<bool>(j, "warm_cache", false) ? kStartWarmCache : kStartFresh;
    s.start = lenientValue<std::string>(j, "start", s.start);
    s.threads = lenientValue<int>(j, "threads", s.threads);
    s.strictExport = lenientValue<bool>(j, "strict_export", s.strictExport);
    s.environment = stringMap(j, "environment");
    return s;
}

Iteration iterationFromJson(const json& it) {
    return {lenientValue<int>(it, "index", 0),       lenientValue<int64_t>(it, "latency_ns", 0),
            lenientValue<int64_t>(it, "wall_ns", 0), lenientValue<int64_t>(it, "t_ns", 0),
            lenientValue<bool>(it, "warmup", false), lenientValue<bool>(it, "first_call", false)};
}

Graph graphFromJson(const json& g) {
    Graph graph;
    graph.index = lenientValue<int>(g, "index", 0);
    graph.compileId = lenientValue<std::string>(g, "compile_id", "");
    graph.function = lenientValue<std::string>(g, "function", "");
    graph.file = lenientValue<std::string>(g, "file", "");
    graph.line = lenientValue<int>(g, "line", 0);
    for (const auto& n : arrayAt(g, "nodes")) {
        graph.nodes.push_back(
            {lenientValue<std::string>(n, "name", ""), lenientValue<std::string>(n, "op", ""),
             lenientValue<std::string>(n, "target", ""), lenientValue<std::string>(n, "shape", ""),
             lenientValue<std::string>(n, "dtype", ""), lenientValue<std::string>(n, "file", ""),
             lenientValue<int>(n, "line", 0), lenientValue<std::string>(n, "module", ""),
             lenientValue<std::vector<std::string>>(n, "inputs", {})});
    }
    if (const auto it = g.find("frame_module"); it != g.end() && it->is_string())
        graph.frameModule = it->get<std::string>();
    return graph;
}

ModelInfo modelFromJson(const json& j) {
    ModelInfo m;
    m.spec = lenientValue<std::string>(j, "spec", "");
    m.file = lenientValue<std::string>(j, "file", "");
    m.name = lenientValue<std::string>(j, "name", "");
    m.parameters = lenientValue<int64_t>(j, "parameters", 0);
    m.inputs = lenientValue<std::vector<std::string>>(j, "inputs", {});
    if (j.is_object())
        m.ownCompiles = ownCompilesFromJson(j.value("own_compiles", nlohmann::json()));
    m.hooks = moduleHooksFromJson(j.value("hooks", nlohmann::json()));
    return m;
}

Environment environmentFromJson(const json& env) {
    return {lenientValue<std::string>(env, "python", ""),
            lenientValue<std::string>(env, "torch", ""),
            lenientValue<std::string>(env, "cuda", ""),
            lenientValue<std::string>(env, "device", ""),
            lenientValue<std::string>(env, "cpu", ""),
            lenientValue<std::string>(env, "host", ""),
            lenientValue<std::string>(env, "platform", ""),
            lenientValue<std::string>(env, "target", ""),
            stringMap(env, "probe_environment")};
}

Run runFromJson(const json& j, RunParts parts, std::vector<std::string>& warnings, size_t number) {
    Run run;
    const std::string where = "run " + std::to_string(number);
    run.setting = settingFromJson(objectAt(j, "setting"));
    const auto statusText = lenientValue<std::string>(j, "status", "");
    if (auto status = runStatusFromString(statusText)) {
        run.status = *status;
    } else {
        run.status = RunStatus::Failed;
        warnings.push_back(where + ": unknown status \"" + statusText + "\", shown as failed");
    }
    if (auto e = j.find("error"); e != j.end() && e->is_object()) {
        run.error = ErrorInfo{lenientValue<std::string>(*e, "kind", ""),
                              lenientValue<std::string>(*e, "message", ""),
                              lenientValue<std::string>(*e, "traceback", "")};
        run.error->stage = lenientValue<std::string>(*e, "stage", "");
        for (const json& c : arrayAt(*e, "stage_checks")) {
            if (c.is_object())
                run.error->stageChecks.push_back({lenientValue<std::string>(c, "backend", ""),
                                                  lenientValue<bool>(c, "ok", false),
                                                  lenientValue<std::string>(c, "error", "")});
        }
    }
    if (auto c = j.find("exit_code"); c != j.end() && c->is_number_integer())
        run.exitCode = lenientValue<int>(j, "exit_code", 0);
    const json& p = objectAt(j, "probe");
    ProbeInfo& pi = run.probe;
    pi.protocol = lenientValue<int>(p, "protocol", 0);
    pi.probeVersion = lenientValue<std::string>(p, "probe_version", "");
    pi.python = lenientValue<std::string>(p, "python", "");
    pi.pythonExecutable = lenientValue<std::string>(p, "python_executable", "");
    pi.torch = lenientValue<std::string>(p, "torch", "");
    pi.cuda = lenientValue<std::string>(p, "cuda", "");
    pi.device = lenientValue<std::string>(p, "device", "");
    pi.deviceName = lenientValue<std::string>(p, "device_name", "");
    pi.cpu = lenientValue<std::string>(p, "cpu", "");
    pi.host = lenientValue<std::string>(p, "host", "");
    pi.platform = lenientValue<std::string>(p, "platform", "");
    pi.threads = lenientValue<int>(p, "threads", -1);
    pi.cpuAffinity = lenientValue<std::vector<int>>(p, "cpu_affinity", {});
    pi.torchEnvironment = stringMap(p, "torch_env");
    pi.torchEnvironmentKnown = p.is_object() && p.contains("torch_env");
    run.model = modelFromJson(objectAt(j, "model"));
    const json& s = objectAt(j, "stream");
    run.sawHello = lenientValue<bool>(s, "hello", false);
    run.sawDone = lenientValue<bool>(s, "done", false);
    run.doneStatus = lenientValue<std::string>(s, "done_status", "");
    run.firstEventNs = lenientValue<int64_t>(s, "first_t_ns", -1);
    run.lastEventNs = lenientValue<int64_t>(s, "last_t_ns", -1);
    for (const auto& ph : arrayAt(j, "phases"))
        run.phases.push_back({lenientValue<std::string>(ph, "name", ""),
                              lenientValue<int64_t>(ph, "begin_ns", -1),
                              lenientValue<int64_t>(ph, "end_ns", -1)});

    readLatency(run, j, parts, warnings, where);
    for (const auto& g : arrayAt(j, "graphs")) {
        if (g.is_object())
            parts.graphs.push_back(graphFromJson(g));
    }
    run.graphs = std::move(parts.graphs);
    for (const auto& b : arrayAt(j, "graph_breaks"))
        run.graphBreaks.push_back(breakFromJson(b));
    for (const auto& r : arrayAt(j, "recompiles")) {
        run.recompiles.push_back(
            {lenientValue<std::string>(r, "function", ""),
             lenientValue<std::string>(r, "reason", ""), lenientValue<int>(r, "cache_size", 0),
             lenientValue<std::string>(r, "input_shapes", ""),
             lenientValue<bool>(r, "limit_hit", false), lenientValue<int>(r, "limit", 0),
             lenientValue<std::string>(r, "library_frame", ""),
             lenientValue<std::string>(r, "phase", ""),
             std::max(lenientValue<int>(r, "call_index", -1), -1)});
    }
    readCompilePhases(run, j);
    readMemory(run, j);
    readKernels(run, j);
    readGpuFields(j, run, warnings, where); // report_gpu_fields.cpp: device bookkeeping, gpu_trace
    for (const auto& l : arrayAt(j, "logs"))
        run.logs.emplace_back(
            lenientValue<int64_t>(l, "t_ns", 0), lenientValue<std::string>(l, "level", ""),
            lenientValue<std::string>(l, "message", ""), lenientValue<std::string>(l, "code", ""),
            lenientValue<std::string>(l, "detail", ""));
    for (const auto& w : arrayAt(j, "capture_warnings"))
        run.captureWarnings.push_back({lenientValue<std::string>(w, "what", ""),
                                       lenientValue<std::string>(w, "error", ""),
                                       lenientValue<std::string>(w, "torch", "")});
    readTraceFields(run, j);
    readScaling(run, j);
    readExportFailure(run, j);
    readCacheArtifacts(run, j);
    readCodeFields(j, run, warnings, where); // report_code_fields.cpp
    if (auto it = j.find("outputs_check"); it != j.end())
        run.outputsCheck = outputsCheckFromJson(*it);
    run.console = lenientValue<std::string>(j, "console", "");
    for (const auto& pp : arrayAt(j, "parse_problems"))
        run.parseProblems.push_back(
            {lenientValue<int64_t>(pp, "line", 0), lenientValue<std::string>(pp, "message", "")});
    const json& unknown = arrayAt(j, "unknown_events");
    run.unknownEvents.assign(unknown.begin(), unknown.end());
    return run;
}

const std::vector<std::string>& reportFieldNames() {
    static const std::vector<std::string> names{"format", "version",     "generator", "created",
                                                "model",  "environment", "runs"};
    return names;
}

const std::vector<std::string>& runFieldNames() {
    static const std::vector<std::string> names{
        "label",   "setting",      "status",     "error",          "exit_code",
        "probe",   "model",        "stream",     "phases",         "latency",
        "graphs",  "graph_breaks", "recompiles", "compile_phases", "memory",
        "kernels", "logs",         "console",    "parse_problems", "unknown_events"};
    return names;
}

} // namespace cs::core
