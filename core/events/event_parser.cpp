#include "core/events/event_parser.h"

#include <algorithm>

#include "core/events/protocol_generated.h"
#include "core/report/gpu_trace_json.h"

namespace cs::core {

using nlohmann::json;

std::vector<StreamItem> EventParser::feed(std::string_view chunk) {
    std::vector<StreamItem> out;
    while (!chunk.empty()) {
        const auto newline = chunk.find('\n');
        if (newline == std::string_view::npos) {
            if (skippingLongLine_)
                return out;
            pending_.append(chunk);
            if (pending_.size() > maxLineBytes_) {
                ++line_;
                out.push_back(
                    {line_,
                     false,
                     {},
                     "line longer than " + std::to_string(maxLineBytes_) + " bytes; skipped"});
                pending_.clear();
                skippingLongLine_ = true;
            }
            return out;
        }
        if (skippingLongLine_) {
            skippingLongLine_ = false;
        } else if (pending_.empty()) {
            takeLine(chunk.substr(0, newline), true, out);
        } else {
            pending_.append(chunk.substr(0, newline));
            takeLine(pending_, true, out);
            pending_.clear();
        }
        chunk.remove_prefix(newline + 1);
    }
    return out;
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
    auto it = object.find(key);
    if (it == object.end() || it->is_null())
        return fallback;
    try {
        return it->get<T>();
    } catch (const json::exception&) {
        return fallback;
    }
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
            if (sample.is_array() && sample.size() >= 2 && sample[0].is_number() &&
                sample[1].is_number())
                series->samples.emplace_back(sample[0].get<int64_t>(), sample[1].get<int64_t>());
        }
    }
    if (auto it = event.find("phase_peaks"); it != event.end() && it->is_object()) {
        for (const auto& [phase, bytes] : it->items()) {
            if (bytes.is_number())
                series->phasePeaks[phase] = bytes.get<int64_t>();
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
                if (bytes.is_number())
                    k.memcpyBytesByKind[kind] = bytes.get<int64_t>();
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

} // namespace

void applyEvent(Run& run, const json& event) {
    const std::string type = event.value("type", "");
    const int64_t tNs = get<int64_t>(event, "t_ns", 0);
    if (run.firstEventNs < 0)
        run.firstEventNs = tNs;
    run.lastEventNs = std::max(run.lastEventNs, tNs);
    namespace ev = protocol::event;

    if (type == ev::hello) {
        run.sawHello = true;
        ProbeInfo& p = run.probe;
        p.protocol = get<int>(event, "protocol", 0);
        p.probeVersion = getString(event, "probe_version");
        p.python = getString(event, "python");
        p.pythonExecutable = getString(event, "python_executable");
        p.torch = getString(event, "torch");
        p.cuda = getString(event, "cuda");
        p.device = getString(event, "device");
        p.deviceName = getString(event, "device_name");
        p.cpu = getString(event, "cpu");
        p.host = getString(event, "host");
        p.platform = getString(event, "platform");
        if (p.protocol > protocol::version) {
            run.logs.push_back({tNs, "warning",
                                "probe speaks protocol " + std::to_string(p.protocol) +
                                    ", this app knows " + std::to_string(protocol::version) +
                                    "; unknown events are kept and ignored"});
        }
    } else if (type == ev::phase) {
        const std::string name = getString(event, "name");
        if (getString(event, "edge") == "end") {
            closePhase(run, name, tNs);
            if (auto it = event.find("harness_overhead_ns"); it != event.end() && it->is_number())
                run.harnessOverheadNs = it->get<int64_t>();
        } else {
            run.phases.push_back({name, tNs, -1});
        }
    } else if (type == ev::model) {
        ModelInfo& m = run.model;
        m.spec = getString(event, "spec");
        m.file = getString(event, "file");
        m.name = getString(event, "name");
        m.parameters = get<int64_t>(event, "parameters", 0);
        // hello only guesses the device (it is written before torch loads); this is the one used.
        if (auto device = getString(event, "device"); !device.empty())
            run.probe.device = device;
        if (auto name = getString(event, "device_name"); !name.empty())
            run.probe.deviceName = name;
        m.inputs.clear();
        if (auto it = event.find("inputs"); it != event.end() && it->is_array()) {
            for (const auto& in : *it)
                m.inputs.push_back(getString(in, "dtype") + shapeText(in.value("shape", json())));
        }
    } else if (type == ev::iteration) {
        Iteration it;
        it.index = get<int>(event, "index", static_cast<int>(run.iterations.size()));
        it.latencyNs = get<int64_t>(event, "latency_ns", 0);
        it.wallNs = get<int64_t>(event, "wall_ns", it.latencyNs);
        it.tNs = tNs;
        it.warmup = get<bool>(event, "warmup", false);
        it.firstCall = get<bool>(event, "first_call", false);
        run.iterations.push_back(it);
    } else if (type == ev::graph) {
        Graph g;
        g.index = get<int>(event, "index", static_cast<int>(run.graphs.size()));
        g.compileId = getString(event, "compile_id");
        g.function = getString(event, "function");
        g.file = getString(event, "file");
        g.line = get<int>(event, "line", 0);
        if (auto it = event.find("nodes"); it != event.end() && it->is_array()) {
            g.nodes.reserve(it->size());
            for (const auto& n : *it) {
                GraphNode node;
                node.name = getString(n, "name");
                node.op = getString(n, "op");
                node.target = getString(n, "target");
                node.shape = shapeText(n.value("shape", json()));
                node.dtype = shapeText(n.value("dtype", json()));
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
        run.graphs.push_back(std::move(g));
    } else if (type == ev::graph_break) {
        run.graphBreaks.push_back(graphBreakFromEvent(event));
    } else if (type == ev::recompile || type == ev::recompile_limit) {
        Recompile r;
        r.function = getString(event, "function");
        r.reason = getString(event, "reason");
        r.cacheSize = get<int>(event, "cache_size", 0);
        r.inputShapes = getString(event, "input_shapes");
        r.limitHit = type == ev::recompile_limit;
        r.limit = get<int>(event, "limit", 0);
        run.recompiles.push_back(std::move(r));
    } else if (type == ev::compile_time && getString(event, "scope") == "warmup") {
        run.warmupCompilePhases.clear();
        if (auto it = event.find("phases"); it != event.end() && it->is_array()) {
            for (const auto& p : *it)
                run.warmupCompilePhases.push_back(
                    {getString(p, "name"), get<double>(p, "seconds", 0)});
        }
        run.warmupCompileNs = get<int64_t>(event, "first_call_ns", -1);
    } else if (type == ev::compile_time) {
        run.compilePhases.clear();
        if (auto it = event.find("phases"); it != event.end() && it->is_array()) {
            for (const auto& p : *it)
                run.compilePhases.push_back({getString(p, "name"), get<double>(p, "seconds", 0)});
        }
        run.firstCallNs = get<int64_t>(event, "first_call_ns", -1);
        run.compilePhasesSource = getString(event, "source");
    } else if (type == ev::memory) {
        applyMemory(run, event);
    } else if (type == ev::memory_stats) {
        run.memoryStats.push_back(
            {getString(event, "phase"), getString(event, "edge"),
             get<int64_t>(event, "allocated", 0), get<int64_t>(event, "reserved", 0),
             get<int64_t>(event, "peak_allocated", 0), get<int64_t>(event, "peak_reserved", 0)});
    } else if (type == ev::kernel_summary) {
        applyKernelSummary(run, event);
    } else if (type == ev::gpu_trace) {
        if (const int64_t bad = gpuTraceFromJson(event, run)) {
            run.logs.push_back({tNs, "warning",
                                "gpu_trace: " + std::to_string(bad) +
                                    " malformed records were left out of the GPU timeline"});
        }
    } else if (type == ev::cupti_status) {
        run.cuptiActive = get<bool>(event, "active", false);
        run.cuptiMessage = getString(event, "message");
    } else if (type == ev::log) {
        run.logs.push_back({tNs, getString(event, "level"), getString(event, "message")});
    } else if (type == ev::error) {
        const bool fatal = get<bool>(event, "fatal", true);
        ErrorInfo error{getString(event, "kind"), getString(event, "message"),
                        getString(event, "traceback")};
        if (auto it = event.find("graph_break"); it != event.end() && it->is_object())
            run.graphBreaks.push_back(graphBreakFromEvent(*it));
        if (fatal || !run.error)
            run.error = error;
        if (!fatal)
            run.logs.push_back({tNs, "error", error.message});
    } else if (type == ev::done) {
        run.sawDone = true;
        run.doneStatus = getString(event, "status");
    } else {
        run.unknownEvents.push_back(event);
    }
}

void applyStreamItem(Run& run, const StreamItem& item) {
    if (item.ok)
        applyEvent(run, item.event);
    else
        run.parseProblems.push_back({item.line, item.problem});
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
