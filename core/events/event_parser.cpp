#include "core/events/event_parser.h"

#include <algorithm>
#include <unordered_map>

#include "core/events/protocol_generated.h"
#include "core/report/gpu_trace_json.h"
#include "core/report/json_lenient.h"
#include "core/report/machine_cpu_json.h"
#include "core/report/module_hooks_json.h"
#include "core/report/outputs_check_json.h"
#include "core/report/own_compiles_json.h"
#include "core/report/report_code_fields.h"

namespace cs::core {

using nlohmann::json;

std::vector<StreamItem> EventParser::feed(std::string_view chunk) {
    std::vector<StreamItem> out;
    while (!chunk.empty()) {
        const auto newline = chunk.find('\n');
        if (newline == std::string_view::npos) {
            if (skippingLongLine_)
                return out;
            if (pending_.size() + chunk.size() > maxLineBytes_) {
                tooLong(out);
                skippingLongLine_ = true;
            } else {
                pending_.append(chunk);
            }
            return out;
        }
        const std::string_view rest = chunk.substr(0, newline);
        if (skippingLongLine_) {
            skippingLongLine_ = false;
        } else if (pending_.size() + rest.size() > maxLineBytes_) {
            tooLong(out);
        } else if (pending_.empty()) {
            takeLine(rest, true, out);
        } else {
            pending_.append(rest);
            takeLine(pending_, true, out);
            pending_.clear();
        }
        chunk.remove_prefix(newline + 1);
    }
    return out;
}

void EventParser::tooLong(std::vector<StreamItem>& out) {
    ++line_;
    out.push_back({line_,
                   false,
                   {},
                   "line " + std::to_string(line_) + " is longer than " +
                       std::to_string(maxLineBytes_) + " bytes; skipped"});
    pending_.clear();
    pending_.shrink_to_fit();
}

std::vector<StreamItem> EventParser::finish() {
    std::vector<StreamItem> out;
    if (!pending_.empty() && !skippingLongLine_)
        takeLine(pending_, false, out);
    pending_.clear();
    skippingLongLine_ = false;
    return out;
}

void EventParser::takeLine(std::string_view text, bool complete, std::vector<StreamItem>& out) {
    ++line_;
    if (!text.empty() && text.back() == '\r')
        text.remove_suffix(1);
    if (std::all_of(text.begin(), text.end(), [](char c) { return c == ' ' || c == '\t'; }))
        return;
    StreamItem item;
    item.line = line_;
    json parsed = json::parse(text, nullptr, false);
    if (parsed.is_discarded()) {
        item.problem =
            complete ? "not valid JSON" : "incomplete last line (the probe stopped mid-write)";
    } else if (!parsed.is_object()) {
        item.problem = "not a JSON object";
    } else if (!parsed.contains("type") || !parsed["type"].is_string()) {
        item.problem = "event has no \"type\" string";
    } else {
        item.ok = true;
        item.event = std::move(parsed);
    }
    out.push_back(std::move(item));
}

namespace {

template <typename T> T get(const json& object, const char* key, T fallback) {
    return lenientValue<T>(object, key, std::move(fallback));
}

// A field of what should be an object; null when it is missing or the
// element is not an object at all (json::value would throw on those).
const json& fieldOrNull(const json& object, const char* key) {
    static const json kNull;
    if (!object.is_object())
        return kNull;
    auto it = object.find(key);
    return it == object.end() ? kNull : *it;
}

std::string getString(const json& object, const char* key) {
    auto it = object.find(key);
    if (it == object.end() || it->is_null())
        return {};
    if (it->is_string())
        return it->get<std::string>();
    return it->dump();
}

// Shapes arrive as a string, a list of ints, or a list of those (tuple outputs).
std::string shapeText(const json& value) {
    if (value.is_null())
        return {};
    if (value.is_string())
        return value.get<std::string>();
    if (value.is_array()) {
        std::string text = "[";
        for (size_t i = 0; i < value.size(); ++i) {
            if (i)
                text += ", ";
            text += value[i].is_string() ? value[i].get<std::string>() : shapeText(value[i]);
        }
        return text + "]";
    }
    return value.dump();
}

SourceFrame frameFrom(const json& j) {
    SourceFrame frame;
    frame.file = getString(j, "file");
    frame.line = get<int>(j, "line", 0);
    frame.function = getString(j, "function");
    frame.code = getString(j, "code");
    frame.user = get<bool>(j, "user", true);
    return frame;
}

GraphBreak graphBreakFromEvent(const json& event) {
    GraphBreak br;
    br.index = get<int>(event, "index", 0);
    br.reason = getString(event, "reason");
    br.gbType = getString(event, "gb_type");
    br.gbId = getString(event, "gb_id");
    if (auto it = event.find("frames"); it != event.end() && it->is_array()) {
        for (const auto& f : *it) {
            if (f.is_object())
                br.frames.push_back(frameFrom(f));
        }
    }
    br.userFrame = get<int>(event, "user_frame", -1);
    if (br.userFrame < -1 || br.userFrame >= static_cast<int>(br.frames.size()))
        br.userFrame = -1;
    br.graphBefore = get<int>(event, "graph_before", -1);
    br.graphAfter = get<int>(event, "graph_after", -1);
    return br;
}

void closePhase(Run& run, const std::string& name, int64_t tNs) {
    for (auto it = run.phases.rbegin(); it != run.phases.rend(); ++it) {
        if (it->name == name && it->endNs < 0) {
            it->endNs = tNs;
            return;
        }
    }
    run.phases.push_back({name, -1, tNs});
}

void applyMemory(Run& run, const json& event) {
    const std::string kind = getString(event, "kind");
    MemorySeries* series = nullptr;
    for (auto& s : run.memory) {
        if (s.kind == kind)
            series = &s;
    }
    if (!series) {
        run.memory.push_back({kind, {}, {}});
        series = &run.memory.back();
    }
    if (auto it = event.find("samples"); it != event.end() && it->is_array()) {
        for (const auto& sample : *it) {
            int64_t t = 0;
            int64_t bytes = 0;
            if (sample.is_array() && sample.size() >= 2 && lenientConvert(sample[0], t) &&
                lenientConvert(sample[1], bytes))
                series->samples.emplace_back(t, bytes);
        }
    }
    if (auto it = event.find("phase_peaks"); it != event.end() && it->is_object()) {
        for (const auto& [phase, bytes] : it->items()) {
            if (int64_t peak = 0; lenientConvert(bytes, peak))
                series->phasePeaks[phase] = peak;
        }
    }
    series->baseline = get<int64_t>(event, "baseline", series->baseline);
    series->unknownFrees = get<int64_t>(event, "unknown_frees", series->unknownFrees);
    series->dropped = get<int64_t>(event, "dropped", series->dropped);
}

void applyKernelSummary(Run& run, const json& event) {
    KernelSummary& k = run.kernels;
    k.present = true;
    k.iterations = get<int>(event, "iterations", 0);
    k.launchesPerIter = get<double>(event, "launches_per_iter", 0);
    k.gpuNsPerIter = get<double>(event, "gpu_ns_per_iter", 0);
    k.busyFraction = get<double>(event, "busy_fraction", 0);
    k.dropped = get<int64_t>(event, "dropped", 0);
    k.top.clear();
    if (auto it = event.find("top"); it != event.end() && it->is_array()) {
        for (const auto& t : *it) {
            k.top.push_back({getString(t, "name"), get<int64_t>(t, "count", 0),
                             get<int64_t>(t, "total_ns", 0), get<int64_t>(t, "mean_ns", 0)});
        }
    }
    if (auto it = event.find("memcpy"); it != event.end() && it->is_object()) {
        k.memcpyCount = get<int64_t>(*it, "count", 0);
        k.memcpyBytes = get<int64_t>(*it, "bytes", 0);
        k.memcpyNs = get<int64_t>(*it, "total_ns", 0);
        k.memcpyBytesByKind.clear();
        if (auto kinds = it->find("bytes_by_kind"); kinds != it->end() && kinds->is_object()) {
            for (const auto& [kind, bytes] : kinds->items()) {
                if (int64_t total = 0; lenientConvert(bytes, total))
                    k.memcpyBytesByKind[kind] = total;
            }
        }
    }
    k.kernelsPerIter = get<double>(event, "kernels_per_iter", 0);
    if (auto it = event.find("memset"); it != event.end() && it->is_object()) {
        k.memsetCount = get<int64_t>(*it, "count", 0);
        k.memsetBytes = get<int64_t>(*it, "bytes", 0);
        k.memsetNs = get<int64_t>(*it, "total_ns", 0);
    }
    k.windowNs = get<int64_t>(event, "window_ns", 0);
    k.kernelRecords = get<int64_t>(event, "kernel_records", 0);
    k.untimed = get<int64_t>(event, "untimed", 0);
    k.note = getString(event, "note");
}

// Applies one event to a run; one member per event type, chosen by name in applyEvent.
class EventApplier {
  public:
    using Handler = void (EventApplier::*)();

    EventApplier(Run& run, const json& event, std::string_view type, int64_t tNs)
        : run_(run), event_(event), type_(type), tNs_(tNs) {}

    void hello() {
        run_.sawHello = true;
        ProbeInfo& p = run_.probe;
        p.protocol = get<int>(event_, "protocol", 0);
        p.probeVersion = getString(event_, "probe_version");
        p.python = getString(event_, "python");
        p.pythonExecutable = getString(event_, "python_executable");
        p.torch = getString(event_, "torch");
        p.cuda = getString(event_, "cuda");
        p.device = getString(event_, "device");
        p.deviceName = getString(event_, "device_name");
        p.cpu = getString(event_, "cpu");
        p.host = getString(event_, "host");
        p.platform = getString(event_, "platform");
        p.cpuAffinity = get<std::vector<int>>(event_, "cpu_affinity", {});
        p.torchEnvironment = get<std::map<std::string, std::string>>(event_, "torch_env", {});
        // A malformed set says nothing: none of it was kept.
        const auto said = event_.find("torch_env");
        p.torchEnvironmentKnown = said != event_.end() && said->is_object() &&
                                  (said->empty() || !p.torchEnvironment.empty());
        if (p.protocol > protocol::version) {
            run_.logs.push_back({tNs_, "warning",
                                 "probe speaks protocol " + std::to_string(p.protocol) +
                                     ", this app knows " + std::to_string(protocol::version) +
                                     "; unknown events are kept and ignored"});
        }
    }

    void phase() {
        const std::string name = getString(event_, "name");
        if (getString(event_, "edge") == "end") {
            closePhase(run_, name, tNs_);
            if (auto it = event_.find("harness_overhead_ns"); it != event_.end())
                lenientConvert(*it, run_.harnessOverheadNs);
            if (auto it = event_.find("machine_cpu"); it != event_.end() && name == "measure")
                run_.measureMachineCpu = machineCpuFromJson(*it);
            if (auto it = event_.find("host_faults"); it != event_.end() && name == "measure")
                run_.measureHostFaults = hostFaultsFromJson(*it);
            if (auto it = event_.find("host_held"); it != event_.end()) {
                if (name == "measure")
                    run_.measureHostHeld = heldWindowFromJson(*it);
                else if (name == "crosscheck")
                    run_.crosscheckHostHeld = heldWindowFromJson(*it);
            }
            if (auto it = event_.find("compile_time");
                it != event_.end() && it->is_object() && name == "warmup")
                laterWarmupCompile(*it, "wall_ns");
            if (auto it = event_.find("host_reference");
                it != event_.end() && it->is_object() && name == "measure") {
                run_.hostReference.beforeNs = get<int64_t>(*it, "before_ns", 0);
                run_.hostReference.afterNs = get<int64_t>(*it, "after_ns", 0);
            }
        } else {
            run_.phases.push_back({name, tNs_, -1});
        }
    }

    void model() {
        ModelInfo& m = run_.model;
        m.spec = getString(event_, "spec");
        m.file = getString(event_, "file");
        m.name = getString(event_, "name");
        m.parameters = get<int64_t>(event_, "parameters", 0);
        // hello only guesses the device (it is written before torch loads); this is the one used.
        if (auto device = getString(event_, "device"); !device.empty())
            run_.probe.device = device;
        if (auto name = getString(event_, "device_name"); !name.empty())
            run_.probe.deviceName = name;
        run_.probe.threads = get<int>(event_, "intra_op_threads", run_.probe.threads);
        m.inputs.clear();
        if (auto it = event_.find("inputs"); it != event_.end() && it->is_array()) {
            for (const auto& in : *it) {
                const std::string name = getString(in, "name");
                m.inputs.push_back((name.empty() ? "" : name + ": ") + getString(in, "dtype") +
                                   shapeText(fieldOrNull(in, "shape")));
            }
        }
        m.ownCompiles = ownCompilesFromJson(fieldOrNull(event_, "own_compiles"));
        m.hooks = moduleHooksFromJson(fieldOrNull(event_, "hooks"));
    }

    void iteration() {
        Iteration it;
        it.index = get<int>(event_, "index", static_cast<int>(run_.iterations.size()));
        it.latencyNs = get<int64_t>(event_, "latency_ns", 0);
        it.wallNs = get<int64_t>(event_, "wall_ns", it.latencyNs);
        it.tNs = tNs_;
        it.warmup = get<bool>(event_, "warmup", false);
        it.firstCall = get<bool>(event_, "first_call", false);
        run_.iterations.push_back(it);
    }

    // A chunk of measured calls: the same as one iteration event per call.
    void iterations() {
        const auto latency = get<std::vector<int64_t>>(event_, "latency_ns", {});
        const auto wall = get<std::vector<int64_t>>(event_, "wall_ns", {});
        int index = get<int>(event_, "first_index", static_cast<int>(run_.iterations.size()));
        run_.iterations.reserve(run_.iterations.size() + latency.size());
        for (size_t k = 0; k < latency.size(); ++k) {
            Iteration it;
            it.index = index++;
            it.latencyNs = latency[k];
            it.wallNs = k < wall.size() ? wall[k] : latency[k];
            it.tNs = tNs_;
            run_.iterations.push_back(it);
        }
    }

    void crosscheck() {
        run_.crosscheckBlockCalls = get<int>(event_, "block_calls", 0);
        run_.crosscheckBlockMeansNs = get<std::vector<double>>(event_, "block_means_ns", {});
    }

    void graph() {
        Graph g;
        g.index = get<int>(event_, "index", static_cast<int>(run_.graphs.size()));
        g.compileId = getString(event_, "compile_id");
        g.function = getString(event_, "function");
        g.file = getString(event_, "file");
        g.line = get<int>(event_, "line", 0);
        if (auto it = event_.find("nodes"); it != event_.end() && it->is_array()) {
            g.nodes.reserve(it->size());
            for (const auto& n : *it) {
                GraphNode node;
                node.name = getString(n, "name");
                node.op = getString(n, "op");
                node.target = getString(n, "target");
                node.shape = shapeText(fieldOrNull(n, "shape"));
                node.dtype = shapeText(fieldOrNull(n, "dtype"));
                node.file = getString(n, "file");
                node.line = get<int>(n, "line", 0);
                node.module = getString(n, "module");
                if (auto in = n.find("inputs"); in != n.end() && in->is_array()) {
                    for (const auto& name : *in) {
                        if (name.is_string())
                            node.inputs.push_back(name.get<std::string>());
                    }
                }
                g.nodes.push_back(std::move(node));
            }
        }
        if (auto it = event_.find("frame_module"); it != event_.end() && it->is_string())
            g.frameModule = it->get<std::string>();
        run_.graphs.push_back(std::move(g));
    }

    void graphBreak() { run_.graphBreaks.push_back(graphBreakFromEvent(event_)); }

    // recompile and recompile_limit share a shape; the type says whether the limit was hit.
    void recompile() {
        Recompile r;
        r.function = getString(event_, "function");
        r.reason = getString(event_, "reason");
        r.cacheSize = get<int>(event_, "cache_size", 0);
        r.inputShapes = getString(event_, "input_shapes");
        r.limitHit = type_ == protocol::event::recompile_limit;
        r.limit = get<int>(event_, "limit", 0);
        if (auto it = event_.find("library_frame"); it != event_.end() && it->is_object()) {
            const SourceFrame frame = frameFrom(*it);
            r.libraryFrame =
                frame.function + " at " + frame.file + ":" + std::to_string(frame.line);
        }
        if (const PhaseSpan* open = run_.openPhase())
            r.phase = open->name;
        r.callIndex = std::max(get<int>(event_, "call_index", -1), -1);
        run_.recompiles.push_back(std::move(r));
    }

    // What the warmup calls after the first compiled: the warmup end's
    // compile_time (wall_ns), or from an older probe a compile_time event of
    // scope warmup (first_call_ns).
    void laterWarmupCompile(const json& ct, const char* wallField) {
        run_.warmupCompilePhases.clear();
        if (auto it = ct.find("phases"); it != ct.end() && it->is_array()) {
            for (const auto& p : *it)
                run_.warmupCompilePhases.push_back(
                    {getString(p, "name"), get<double>(p, "seconds", 0)});
        }
        run_.warmupCompileNs = get<int64_t>(ct, wallField, -1);
    }

    void compileTime() {
        if (getString(event_, "scope") == "warmup") {
            laterWarmupCompile(event_, "first_call_ns");
            return;
        }
        run_.compilePhases.clear();
        if (auto it = event_.find("phases"); it != event_.end() && it->is_array()) {
            for (const auto& p : *it)
                run_.compilePhases.push_back({getString(p, "name"), get<double>(p, "seconds", 0)});
        }
        run_.firstCallNs = get<int64_t>(event_, "first_call_ns", -1);
        run_.compilePhasesSource = getString(event_, "source");
        run_.dynamoOff = getString(event_, "dynamo_off");
    }

    void memory() { applyMemory(run_, event_); }

    void memoryStats() {
        run_.memoryStats.push_back(
            {getString(event_, "phase"), getString(event_, "edge"),
             get<int64_t>(event_, "allocated", 0), get<int64_t>(event_, "reserved", 0),
             get<int64_t>(event_, "peak_allocated", 0), get<int64_t>(event_, "peak_reserved", 0)});
    }

    void kernelSummary() { applyKernelSummary(run_, event_); }

    void gpuTrace() {
        if (const int64_t bad = gpuTraceFromJson(event_, run_)) {
            run_.logs.push_back({tNs_, "warning",
                                 "gpu_trace: " + std::to_string(bad) +
                                     " malformed records were left out of the GPU timeline"});
        }
    }

    void cuptiStatus() {
        run_.cuptiActive = get<bool>(event_, "active", false);
        run_.cuptiMessage = getString(event_, "message");
    }

    void log() {
        LogLine line(tNs_, getString(event_, "level"), getString(event_, "message"),
                     getString(event_, "code"), getString(event_, "detail"));
        if (run_.logs.size() < kMaxKeptLogs) {
            run_.logs.push_back(std::move(line));
            return;
        }
        if (run_.logs.size() == kMaxKeptLogs)
            run_.logs.push_back({tNs_, "warning",
                                 "more log lines follow; only the first " +
                                     std::to_string(kMaxKeptLogs) + " are kept"});
        // A chatty probe must not hide the lines the advice reads.
        if (line.code.empty())
            return;
        // Only the lines past the bound count: a scan of all 10,000 per line
        // would make a flood of coded lines quadratic.
        const auto coded =
            std::count_if(run_.logs.begin() + static_cast<std::ptrdiff_t>(kMaxKeptLogs),
                          run_.logs.end(), [](const LogLine& l) { return !l.code.empty(); });
        if (static_cast<size_t>(coded) < kMaxKeptCodedLogs)
            run_.logs.push_back(std::move(line));
    }

    void error() {
        const bool fatal = get<bool>(event_, "fatal", true);
        ErrorInfo info{getString(event_, "kind"), getString(event_, "message"),
                       getString(event_, "traceback")};
        info.stage = getString(event_, "stage");
        if (auto it = event_.find("stage_checks"); it != event_.end() && it->is_array()) {
            for (const auto& c : *it) {
                if (c.is_object())
                    info.stageChecks.push_back({getString(c, "backend"), get<bool>(c, "ok", false),
                                                getString(c, "error")});
            }
        }
        if (auto it = event_.find("graph_break"); it != event_.end() && it->is_object())
            run_.graphBreaks.push_back(graphBreakFromEvent(*it));
        if (fatal || !run_.error)
            run_.error = info;
        if (!fatal)
            run_.logs.push_back({tNs_, "error", info.message});
    }

    void captureWarning() {
        run_.captureWarnings.push_back(
            {getString(event_, "what"), getString(event_, "error"), getString(event_, "torch")});
    }

    void scalePlan() {
        Scaling& s = run_.scaling.emplace();
        s.batchSource = getString(event_, "batch_source");
        s.dynamic = get<bool>(event_, "dynamic", false);
        if (!get<bool>(event_, "auto", false))
            s.requested = get<std::vector<int64_t>>(event_, "sizes", {});
        s.budgetSeconds = get<double>(event_, "budget_s", 0);
        s.memoryCapBytes = get<int64_t>(event_, "memory_cap_bytes", 0);
    }

    void scalePoint() {
        if (!run_.scaling)
            run_.scaling.emplace();
        ScalePoint p;
        p.batchSize = get<int64_t>(event_, "batch_size", 0);
        p.firstCallNs = get<int64_t>(event_, "first_call_ns", -1);
        p.latencyNs = get<std::vector<int64_t>>(event_, "latency_ns", {});
        p.peakMemoryBytes = get<int64_t>(event_, "peak_memory_bytes", -1);
        p.memoryKind = getString(event_, "memory_kind");
        p.recompiles = get<int>(event_, "recompiles", 0);
        run_.scaling->points.push_back(std::move(p));
    }

    void scaleStop() {
        if (!run_.scaling)
            run_.scaling.emplace();
        run_.scaling->stop =
            ScaleStop{getString(event_, "reason"), get<int64_t>(event_, "batch_size", 0),
                      getString(event_, "message")};
    }

    void exportFailure() {
        run_.exportFailure =
            ExportFailure{getString(event_, "category"), getString(event_, "exception"),
                          getString(event_, "reason"),   getString(event_, "file"),
                          get<int>(event_, "line", 0),   getString(event_, "code"),
                          getString(event_, "remedy"),   get<bool>(event_, "strict", false)};
    }

    void cacheArtifacts() {
        CacheArtifacts a;
        a.action = getString(event_, "action");
        a.path = getString(event_, "path");
        a.bytes = get<int64_t>(event_, "bytes", -1);
        a.ns = get<int64_t>(event_, "ns", -1);
        if (auto it = event_.find("entries"); it != event_.end() && it->is_array()) {
            for (const auto& e : *it) {
                if (e.is_object())
                    a.entries.emplace_back(getString(e, "kind"), get<int>(e, "count", 0));
            }
        }
        a.message = getString(event_, "message");
        run_.cacheArtifacts = std::move(a);
    }

    void inductorCode() { run_.code.push_back(generatedCodeFromEvent(event_)); }

    void kernelProfile() { run_.kernelProfile = kernelProfileFromEvent(event_); }
    void outputsCheck() { run_.outputsCheck = outputsCheckFromJson(event_); }

    void compileProgress() { run_.compileStage = getString(event_, "stage"); }

    void done() {
        run_.sawDone = true;
        run_.doneStatus = getString(event_, "status");
    }

  private:
    Run& run_;
    const json& event_;
    std::string_view type_;
    int64_t tNs_;
};

// Event type -> handler. Types not listed are kept in Run::unknownEvents.
const std::unordered_map<std::string_view, EventApplier::Handler>& eventHandlers() {
    namespace ev = protocol::event;
    using A = EventApplier;
    static const std::unordered_map<std::string_view, A::Handler> table{
        {ev::hello, &A::hello},
        {ev::phase, &A::phase},
        {ev::model, &A::model},
        {ev::iteration, &A::iteration},
        {ev::iterations, &A::iterations},
        {ev::crosscheck, &A::crosscheck},
        {ev::graph, &A::graph},
        {ev::graph_break, &A::graphBreak},
        {ev::recompile, &A::recompile},
        {ev::recompile_limit, &A::recompile},
        {ev::compile_time, &A::compileTime},
        {ev::memory, &A::memory},
        {ev::memory_stats, &A::memoryStats},
        {ev::kernel_summary, &A::kernelSummary},
        {ev::gpu_trace, &A::gpuTrace},
        {ev::cupti_status, &A::cuptiStatus},
        {ev::log, &A::log},
        {ev::error, &A::error},
        {ev::done, &A::done},
        {ev::capture_warning, &A::captureWarning},
        {ev::compile_progress, &A::compileProgress},
        {ev::scale_plan, &A::scalePlan},
        {ev::scale_point, &A::scalePoint},
        {ev::scale_stop, &A::scaleStop},
        {ev::export_failure, &A::exportFailure},
        {ev::cache_artifacts, &A::cacheArtifacts},
        {ev::inductor_code, &A::inductorCode},
        {ev::kernel_profile, &A::kernelProfile},
        {ev::outputs_check, &A::outputsCheck},
    };
    return table;
}

} // namespace

void applyEvent(Run& run, const json& event) {
    const std::string type = event.value("type", "");
    const int64_t tNs = get<int64_t>(event, "t_ns", 0);
    if (run.firstEventNs < 0)
        run.firstEventNs = tNs;
    run.lastEventNs = std::max(run.lastEventNs, tNs);

    const auto& handlers = eventHandlers();
    const auto it = handlers.find(type);
    if (it == handlers.end()) {
        if (run.unknownEvents.size() < kMaxKeptUnknownEvents)
            run.unknownEvents.push_back(event);
        else if (run.unknownEvents.size() == kMaxKeptUnknownEvents)
            run.unknownEvents.push_back(
                json{{"type", "compilescope_left_out"},
                     {"message", "more unknown events follow; only the first " +
                                     std::to_string(kMaxKeptUnknownEvents) + " are kept"}});
        return;
    }
    EventApplier applier(run, event, type, tNs);
    (applier.*(it->second))();
}

void applyStreamItem(Run& run, const StreamItem& item) {
    if (item.ok)
        applyEvent(run, item.event);
    else if (run.parseProblems.size() < kMaxKeptProblems)
        run.parseProblems.push_back({item.line, item.problem});
    else if (run.parseProblems.size() == kMaxKeptProblems)
        run.parseProblems.push_back({item.line, "more problems follow (from this line on); only "
                                                "the first " +
                                                    std::to_string(kMaxKeptProblems) +
                                                    " are kept"});
}

Run replayStream(std::string_view text, const Setting& setting) {
    Run run;
    run.setting = setting;
    EventParser parser;
    for (const auto& item : parser.feed(text))
        applyStreamItem(run, item);
    for (const auto& item : parser.finish())
        applyStreamItem(run, item);
    return run;
}

} // namespace cs::core
