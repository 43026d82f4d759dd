#include "core/trace/rank_builder.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <limits>
#include <regex>
#include <set>
#include <string_view>

#include "core/report/json_lenient.h"
#include "core/report/text_lines.h"
#include "core/trace/graph_text.h"

namespace cs::core::trace {
namespace {

using json = nlohmann::json;

constexpr size_t kMaxProblems = 100;
constexpr int kUnknownExamples = 3;

// Record kinds torch writes that the importer reads or knowingly passes over;
// anything else is counted as unknown (and a few examples kept).
bool knownKind(std::string_view kind) {
    static constexpr std::array<std::string_view, 29> kKnown{
        "str",
        "dynamo_start",
        "dynamo_output_graph",
        "dynamo_guards",
        "dynamo_cpp_guards_str",
        "compilation_metrics",
        "bwd_compilation_metrics",
        "chromium_event",
        "artifact",
        "describe_storage",
        "describe_tensor",
        "describe_source",
        "create_symbol",
        "create_unbacked_symbol",
        "guard_added",
        "guard_added_fast",
        "expression_created",
        "propagate_real_tensors",
        "propagate_real_tensors_provenance",
        "symbolic_shape_specialization",
        "optimize_ddp_split_graph",
        "optimize_ddp_split_child",
        "compiled_autograd_graph",
        "dump_file",
        "link",
        "graph_dump",
        "exported_program",
        "missing_fake_kernel",
        "mismatched_fake_kernel",
    };
    if (kind.rfind("aot_", 0) == 0 || kind.rfind("inductor_", 0) == 0)
        return true;
    return std::find(kKnown.begin(), kKnown.end(), kind) != kKnown.end();
}

// Short names for the report reader's lenient lookups (missing, null or
// wrongly typed: the fallback), which torch's records need too.
std::string stringAt(const json& j, const char* key) {
    return lenientValue<std::string>(j, key, {});
}

double numberAt(const json& j, const char* key) {
    return lenientValue<double>(j, key, 0.0);
}

int intAt(const json& j, const char* key, int fallback = 0) {
    return lenientValue<int>(j, key, fallback);
}

std::string_view trimmed(std::string_view text) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\n'))
        text.remove_prefix(1);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\n'))
        text.remove_suffix(1);
    return text;
}

// "https://.../gb/gb0059.html" -> "GB0059".
std::string breakId(std::string_view text) {
    const size_t at = text.find("/gb/gb");
    if (at == std::string_view::npos)
        return {};
    size_t end = at + 6;
    while (end < text.size() && text[end] >= '0' && text[end] <= '9')
        ++end;
    return end == at + 6 ? std::string() : "GB" + std::string(text.substr(at + 6, end - at - 6));
}

// `  File "/path/m.py", line 4, in f` -> frame; false for any other line.
bool parseFrameLine(std::string_view line, SourceFrame& frame) {
    constexpr std::string_view kFile = "File \"";
    line = trimmed(line);
    if (line.rfind(kFile, 0) != 0)
        return false;
    const size_t close = line.find("\", line ", kFile.size());
    if (close == std::string_view::npos)
        return false;
    frame.file = std::string(line.substr(kFile.size(), close - kFile.size()));
    size_t at = close + 8;
    int number = 0;
    bool fits = true; // a line number past int's range is unknown (0)
    while (at < line.size() && line[at] >= '0' && line[at] <= '9') {
        fits = fits && number <= (std::numeric_limits<int>::max() - 9) / 10;
        number = fits ? number * 10 + (line[at] - '0') : 0;
        ++at;
    }
    frame.line = number;
    if (const size_t in = line.find(", in ", at); in != std::string_view::npos)
        frame.function = std::string(line.substr(in + 5));
    return true;
}

bool caretLine(std::string_view line) {
    line = trimmed(line);
    return !line.empty() && line.find_first_not_of("~^ ") == std::string_view::npos;
}

std::string joined(const json& value) {
    if (value.is_string())
        return value.get<std::string>();
    std::string text;
    if (value.is_array()) {
        for (const auto& item : value) {
            if (!text.empty())
                text += '\n';
            text += item.is_string() ? item.get<std::string>() : item.dump();
        }
    }
    return text;
}

// compilation_metrics carries torch's whole configuration as JSON text in
// string fields (inductor_config alone is ~28 KB); the importer reads none of
// it, so those values are emptied before parsing, which halves import time.
// `_config": "` can only be a key: quotes inside JSON strings are escaped.
std::string withoutConfigValues(std::string_view json) {
    constexpr std::string_view kKey = "_config\": \"";
    std::string out;
    out.reserve(json.size());
    size_t from = 0;
    for (size_t at = json.find(kKey); at != std::string_view::npos; at = json.find(kKey, from)) {
        const size_t valueStart = at + kKey.size(); // just past the opening quote
        size_t end = valueStart;
        while (end < json.size() && json[end] != '"')
            end += json[end] == '\\' ? 2 : 1;
        if (end >= json.size())
            break; // unterminated: leave it for the parser to report
        out.append(json.substr(from, valueStart - from));
        from = end; // keep the closing quote
    }
    out.append(json.substr(from));
    return out;
}

// Python's own library and installed packages are not the user's code; nor
// is compilescope's probe, whose harness calls the model in a trace it wrote
// (--torch-trace).
bool userFile(const std::string& file) {
    if (file.empty() || file.front() == '<' || file.find("site-packages/") != std::string::npos ||
        file.find("dist-packages/") != std::string::npos ||
        file.find("/compilescope_probe/") != std::string::npos)
        return false;
    static const std::regex stdlib(R"(/lib/python3\.\d+/)");
    return !std::regex_search(file, stdlib);
}

int innermostUserFrame(const std::vector<SourceFrame>& frames) {
    for (size_t i = frames.size(); i-- > 0;) {
        if (userFile(frames[i].file))
            return static_cast<int>(i);
    }
    return -1;
}

// nn.Module's call machinery between a module and the next: not a frame of
// anyone's model code.
bool moduleCallFrame(const SourceFrame& frame) {
    return frame.file.ends_with("/torch/nn/modules/module.py") &&
           (frame.function == "_call_impl" || frame.function == "_wrapped_call_impl");
}

} // namespace

void startAtCompiledFrame(GraphBreak& br, const std::string& function, const std::string& file,
                          int defLine) {
    auto& frames = br.frames;
    // The compiled function's frame: of its name and file, the one whose line
    // lies nearest below its def line (two modules' forward in one file).
    auto from = frames.end();
    for (auto it = frames.begin(); it != frames.end(); ++it) {
        if (function.empty() || it->function != function || it->file != file || it->line < defLine)
            continue;
        if (from == frames.end() || it->line < from->line)
            from = it;
    }
    // A compiled frame torch's traceback leaves out (a decorator's wrapper):
    // at least the probe's own frames go, in a trace it wrote.
    if (from == frames.end()) {
        const auto probe = std::find_if(frames.rbegin(), frames.rend(), [](const SourceFrame& f) {
            return f.file.find("/compilescope_probe/") != std::string::npos;
        });
        from = probe == frames.rend() ? frames.begin() : probe.base();
    }
    frames.erase(frames.begin(), from);
    if (!frames.empty())
        frames.erase(std::remove_if(frames.begin(), frames.end() - 1, moduleCallFrame),
                     frames.end() - 1);
    br.userFrame = innermostUserFrame(frames);
}

GraphBreak parseBreakText(const std::string& text) {
    GraphBreak br;
    const std::string_view all(text);
    constexpr std::string_view kReason = "Graph Break Reason: ";
    constexpr std::string_view kUser = "User code traceback:";
    const size_t reasonAt = all.find(kReason);
    const size_t userAt = all.find(kUser);
    std::string_view reason =
        reasonAt == std::string_view::npos
            ? all.substr(0, userAt)
            : all.substr(reasonAt + kReason.size(), userAt == std::string_view::npos
                                                        ? std::string_view::npos
                                                        : userAt - reasonAt - kReason.size());
    // "Encountered graph break when attempting to trace CALL: ...:" then a blank
    // line, then torch's break type and its explanation.
    // "Failed to handle graph break gracefully. Skipping the function ...
    // Graph break encountered:" (the frame runs eagerly), the same way.
    if (reason.rfind("Encountered graph break", 0) == 0 ||
        reason.rfind("Failed to handle graph break gracefully", 0) == 0) {
        if (const size_t blank = reason.find("\n\n"); blank != std::string_view::npos)
            reason = reason.substr(blank + 2);
    }
    reason = trimmed(reason);
    br.reason = std::string(reason);
    br.gbType = firstLine(reason);
    br.gbId = breakId(all);

    if (userAt != std::string_view::npos) {
        std::string_view rest = all.substr(userAt + kUser.size());
        // The user's frames end where torch's own traceback starts.
        if (const size_t torchAt = rest.find("\nTraceback (most recent call last)");
            torchAt != std::string_view::npos)
            rest = rest.substr(0, torchAt);
        size_t start = 0;
        while (start < rest.size()) {
            size_t end = rest.find('\n', start);
            if (end == std::string_view::npos)
                end = rest.size();
            const std::string_view line = rest.substr(start, end - start);
            start = end + 1;
            SourceFrame frame;
            if (parseFrameLine(line, frame)) {
                br.frames.push_back(std::move(frame));
            } else if (!br.frames.empty() && br.frames.back().code.empty() && !caretLine(line) &&
                       !trimmed(line).empty()) {
                br.frames.back().code = std::string(trimmed(line));
            }
        }
    }
    if (br.frames.empty()) {
        // "Graph break in user code at /path/m.py:4"
        constexpr std::string_view kAt = "Graph break in user code at ";
        if (const size_t at = all.find(kAt); at != std::string_view::npos) {
            const std::string where = firstLine(all.substr(at + kAt.size()));
            if (const size_t colon = where.rfind(':'); colon != std::string::npos) {
                SourceFrame frame;
                frame.file = where.substr(0, colon);
                frame.line = std::atoi(where.c_str() + colon + 1);
                br.frames.push_back(std::move(frame));
            }
        }
    }
    br.userFrame = innermostUserFrame(br.frames);
    return br;
}

RankBuilder::RankBuilder(const std::string& path, int rank) {
    source_.path = path;
    source_.rank = rank;
    run_.status = RunStatus::Imported;
    run_.setting.mode = rank >= 0 ? "rank " + std::to_string(rank) : "trace";
    run_.setting.warmup = 0;
    run_.setting.iters = 0;
}

std::string RankBuilder::compileKey(const json& envelope) {
    const auto frame = envelope.find("frame_id");
    const auto compile = envelope.find("frame_compile_id");
    if (frame == envelope.end() || compile == envelope.end() || !frame->is_number_integer() ||
        !compile->is_number_integer())
        return {};
    return std::to_string(frame->get<int64_t>()) + "/" + std::to_string(compile->get<int64_t>());
}

bool RankBuilder::wantPayload(const TraceRecord& record) const {
    if (record.kind == "dynamo_output_graph")
        return true;
    if (record.kind != "artifact")
        return false;
    // The artifact's name is in the envelope; only a few are read.
    for (std::string_view name :
         {"\"dynamo_graph_break_reason\"", "\"recompile_reasons\"", "\"torch_version\"",
          "cache_bypass\"", "\"compilescope_keyword_call\""}) {
        if (record.json.find(name) != std::string::npos)
            return true;
    }
    return false;
}

void RankBuilder::problem(int64_t line, std::string message) {
    if (run_.parseProblems.size() < kMaxProblems)
        run_.parseProblems.push_back({line, std::move(message)});
    else if (run_.parseProblems.size() == kMaxProblems)
        run_.parseProblems.push_back({line, "more problems follow; only the first " +
                                                std::to_string(kMaxProblems) + " are listed"});
}

void RankBuilder::add(TraceRecord& record) {
    ++source_.records;
    ++source_.kinds[record.kind];
    lastRecordLine_ = record.line;
    lastRecordBroken_ = false;
    if (source_.pid < 0)
        source_.pid = record.pid;
    if (source_.started.empty())
        source_.started = record.stamp;
    if (!record.payloadOk) {
        ++source_.badPayloads;
        lastRecordBroken_ = true;
        problem(record.line,
                "the payload of this " + record.kind +
                    (record.payloadCut ? " record is cut off: the file ends inside it"
                                       : " record does not match its md5: lines were lost or "
                                         "changed; what remains of it is used"));
    }
    if (!knownKind(record.kind)) {
        ++source_.unknownKinds[record.kind];
        keepUnknown(record, json());
        return;
    }
    const bool read = record.kind == "str" || record.kind == "dynamo_start" ||
                      record.kind == "dynamo_output_graph" || record.kind == "artifact" ||
                      record.kind == "compilation_metrics" || record.kind == "inductor_output_code";
    if (!read)
        return;
    json envelope = record.kind == "compilation_metrics"
                        ? json::parse(withoutConfigValues(record.json), nullptr, false)
                        : json::parse(record.json, nullptr, false);
    if (envelope.is_discarded() || !envelope.is_object()) {
        lastRecordBroken_ = true;
        problem(record.line, "this " + record.kind + " record is not valid JSON; it is skipped");
        return;
    }
    if (source_.rank < 0)
        source_.rank = intAt(envelope, "rank", -1);
    const json& body = envelope[record.kind];
    if (record.kind == "str") {
        if (body.is_array() && body.size() == 2 && body[0].is_string() &&
            body[1].is_number_integer())
            strings_[body[1].get<int64_t>()] = body[0].get<std::string>();
    } else if (record.kind == "dynamo_start") {
        const auto stack = body.find("stack");
        if (stack != body.end() && stack->is_array() && !stack->empty()) {
            const json& top = stack->back();
            Where where;
            where.function = stringAt(top, "name");
            where.line = intAt(top, "line");
            if (const auto file = top.find("filename"); file != top.end()) {
                if (file->is_number_integer()) {
                    const auto it = strings_.find(file->get<int64_t>());
                    where.file = it != strings_.end() ? it->second : std::string();
                } else if (file->is_string()) {
                    where.file = file->get<std::string>();
                }
            }
            starts_[compileKey(envelope)] = where;
        }
    } else if (record.kind == "dynamo_output_graph") {
        addGraph(record, envelope);
    } else if (record.kind == "artifact") {
        addArtifact(record, envelope);
    } else if (record.kind == "compilation_metrics") {
        addMetrics(body);
    } else if (record.kind == "inductor_output_code" && record.payloadOffset >= 0) {
        outputCode_[compileKey(envelope)] = {record.payloadOffset, record.payloadBytes};
    }
}

void RankBuilder::addGraph(const TraceRecord& record, const json& envelope) {
    Graph graph;
    graph.index = static_cast<int>(run_.graphs.size());
    graph.compileId = compileKey(envelope);
    if (const auto it = starts_.find(graph.compileId); it != starts_.end()) {
        graph.function = it->second.function;
        graph.file = it->second.file;
        graph.line = it->second.line;
    }
    graph.nodes = parseGraphText(record.payload);
    if (graph.nodes.empty() && !record.payload.empty())
        problem(record.line, "the graph of " + graph.compileId + " could not be read");
    run_.graphs.push_back(std::move(graph));
}

void RankBuilder::addArtifact(const TraceRecord& record, const json& envelope) {
    const json& body = envelope["artifact"];
    const std::string name = body.is_object() ? stringAt(body, "name") : std::string();
    ++source_.artifacts[name];
    const std::string key = compileKey(envelope);
    if (name == "dynamo_graph_break_reason") {
        GraphBreak br = parseBreakText(record.payload);
        const auto start = starts_.find(key);
        if (start == starts_.end())
            startAtCompiledFrame(br, {}, {}, 0);
        else
            startAtCompiledFrame(br, start->second.function, start->second.file,
                                 start->second.line);
        br.index = static_cast<int>(run_.graphBreaks.size());
        run_.graphBreaks.push_back(std::move(br));
        breakCompiles_.push_back(key);
        return;
    }
    if (name == "recompile_reasons") {
        Recompile recompile;
        const json payload = json::parse(record.payload, nullptr, false);
        recompile.reason = payload.is_discarded() ? record.payload : joined(payload);
        recompile.reason = std::string(trimmed(recompile.reason));
        recompileCompiles_.push_back(key);
        run_.recompiles.push_back(std::move(recompile));
        return;
    }
    if (name == "compilescope_keyword_call") {
        addKeywordCall(record.payload);
        return;
    }
    if (name == "torch_version") {
        const json payload = json::parse(record.payload, nullptr, false);
        if (payload.is_object())
            torch_ = stringAt(payload, "pytorch_version");
        return;
    }
    for (const char* cache : {"fx_graph", "aotautograd"}) {
        const std::string prefix = std::string(cache) + "_cache_";
        if (name.rfind(prefix, 0) != 0)
            continue;
        CacheLookup lookup;
        lookup.compileId = key;
        lookup.cache = cache;
        lookup.outcome = name.substr(prefix.size());
        if (lookup.outcome == "bypass") { // hits and misses carry only the cache key's parts
            const json payload = json::parse(record.payload, nullptr, false);
            for (const char* field : {"cache_bypass_reason", "reason", "cache_bypass_exception"}) {
                if (payload.is_object() && !stringAt(payload, field).empty()) {
                    lookup.reason = stringAt(payload, field);
                    break;
                }
            }
            if (lookup.reason.empty())
                lookup.reason = firstLine(record.payload);
        }
        run_.cacheLookups.push_back(std::move(lookup));
        return;
    }
}

void RankBuilder::addKeywordCall(const std::string& payload) {
    const json body = json::parse(payload, nullptr, false);
    if (!body.is_object() || stringAt(body, "wrapper_file").empty())
        return;
    KeywordCall call;
    call.wrapperFile = stringAt(body, "wrapper_file");
    if (const auto names = body.find("input_names"); names != body.end() && names->is_array())
        for (const auto& name : *names)
            call.names.push_back(name.is_string() ? name.get<std::string>() : std::string());
    if (const auto root = body.find("root"); root != body.end() && root->is_object())
        call.root = {stringAt(*root, "function"), stringAt(*root, "file"), intAt(*root, "line")};
    keywordCall_ = std::move(call);
}

// The probe's keyword wrapper told as the live probe tells it: its graphs,
// compiles and recompiles are the model's forward's, and the guards' values[i]
// the keyword names (breaks already start past the probe's frames).
void RankBuilder::nameKeywordCall() {
    if (!keywordCall_)
        return;
    const KeywordCall& call = *keywordCall_;
    const bool rooted = !call.root.function.empty();
    std::set<std::string> wrapped; // compile keys of the wrapper's frame
    for (const auto& [key, where] : starts_)
        if (where.file == call.wrapperFile)
            wrapped.insert(key);
    for (auto& g : run_.graphs)
        if (g.file == call.wrapperFile && rooted)
            g.function = call.root.function, g.file = call.root.file, g.line = call.root.line;
    // Bounded: std::regex recurses once per character a match spans.
    static const std::regex value(R"((?:L\[')?\bvalues(?:'\])?\[(\d{1,9})\])");
    const auto named = [&](const std::string& text) {
        std::string out;
        auto at = text.cbegin();
        for (std::sregex_iterator it(text.begin(), text.end(), value), end; it != end; ++it) {
            const auto& m = *it;
            const std::string digits = m[1].str();
            size_t i = call.names.size();
            std::from_chars(digits.data(), digits.data() + digits.size(), i);
            out.append(at, m[0].first);
            out += i < call.names.size() && !call.names[i].empty() ? call.names[i] : m[0].str();
            at = m[0].second;
        }
        return out.append(at, text.cend());
    };
    for (auto& c : run_.compiles) {
        if (c.file != call.wrapperFile)
            continue;
        c.recompileReason = named(c.recompileReason);
        if (rooted)
            c.function = call.root.function, c.file = call.root.file, c.line = call.root.line;
    }
    for (size_t i = 0; i < run_.recompiles.size() && i < recompileCompiles_.size(); ++i)
        if (wrapped.count(recompileCompiles_[i]))
            run_.recompiles[i].reason = named(run_.recompiles[i].reason);
}

void RankBuilder::addMetrics(const json& metrics) {
    if (!metrics.is_object())
        return;
    CompileRecord c;
    c.compileId = stringAt(metrics, "compile_id");
    c.function = stringAt(metrics, "co_name");
    c.file = stringAt(metrics, "co_filename");
    c.line = intAt(metrics, "co_firstlineno");
    c.startTime = numberAt(metrics, "start_time");
    c.seconds = numberAt(metrics, "entire_frame_compile_time_s");
    c.failType = stringAt(metrics, "fail_type");
    c.failReason = stringAt(metrics, "fail_reason");
    if (const auto it = metrics.find("restart_reasons"); it != metrics.end() && it->is_array()) {
        for (const auto& r : *it)
            c.restartReasons.push_back(r.is_string() ? r.get<std::string>() : r.dump());
    }
    c.recompileReason = stringAt(metrics, "recompile_reason");
    c.cudagraphSkipReason = stringAt(metrics, "cudagraph_skip_reason");
    c.cacheSize = intAt(metrics, "cache_size");

    // The live probe's phase names (compile_phases.py); the cumulative
    // microsecond counters where torch has them, else the older seconds.
    const auto seconds = [&](const char* us, const char* s) {
        const double micro = numberAt(metrics, us);
        return micro > 0 ? micro / 1e6 : numberAt(metrics, s);
    };
    const double dynamo =
        seconds("dynamo_cumulative_compile_time_us", "entire_frame_compile_time_s");
    const double backend = std::min(
        dynamo, seconds("aot_autograd_cumulative_compile_time_us", "backend_compile_time_s"));
    const double inductor = std::min(
        backend, seconds("inductor_cumulative_compile_time_us", "inductor_compile_time_s"));
    const double compileFiles =
        std::min(inductor, numberAt(metrics, "triton_compile_time_us") / 1e6);
    const double autotune =
        std::min(inductor - compileFiles, numberAt(metrics, "compile_time_autotune_time_us") / 1e6);
    if (c.seconds <= 0)
        c.seconds = dynamo;
    c.phases = {{"dynamo_tracing", std::max(0.0, dynamo - backend)},
                {"aot_autograd", std::max(0.0, backend - inductor)},
                {"inductor_codegen", std::max(0.0, inductor - compileFiles - autotune)},
                {"cpp_triton_compile", compileFiles},
                {"autotune", std::max(0.0, autotune)},
                {"cudagraph_recording", numberAt(metrics, "runtime_cudagraphify_time_us") / 1e6}};
    run_.compiles.push_back(std::move(c));
}

void RankBuilder::keepUnknown(const TraceRecord& record, json envelope) {
    if (unknownKept_[record.kind]++ >= kUnknownExamples)
        return;
    if (envelope.is_null())
        envelope = json::parse(record.json, nullptr, false);
    if (envelope.is_discarded())
        return;
    envelope["line"] = record.line;
    run_.unknownEvents.push_back(std::move(envelope));
}

Run RankBuilder::finish(const TraceReader::Summary& summary) {
    source_.bytes = summary.bytes;
    source_.truncated = summary.endsMidLine;
    const std::string name = source_.path.substr(source_.path.find_last_of('/') + 1);
    if (summary.endsMidLine) {
        warnings_.push_back(name + ": the file ends in the middle of a line (line " +
                            std::to_string(summary.lines) +
                            "): the job was cut off while writing; the records before it are kept");
        if (lastRecordLine_ == summary.lines || lastRecordBroken_)
            problem(summary.lines, "the last record is cut off");
    }
    if (source_.badPayloads > 0)
        warnings_.push_back(
            name + ": " + std::to_string(source_.badPayloads) +
            " payload(s) do not match their md5 (lines lost or changed); the "
            "first is at line " +
            std::to_string(run_.parseProblems.empty() ? 0 : run_.parseProblems.front().line));
    if (!source_.unknownKinds.empty()) {
        std::string kinds;
        for (const auto& [kind, count] : source_.unknownKinds)
            kinds += (kinds.empty() ? "" : ", ") + kind + " (" + std::to_string(count) + ")";
        warnings_.push_back(name +
                            ": record kinds this version does not read, kept as counts: " + kinds);
    }

    nameKeywordCall();
    // Join what arrived before the compile it belongs to was summed up.
    std::map<std::string, CompileRecord*> byId;
    for (auto& c : run_.compiles)
        byId[c.compileId] = &c;
    for (const auto& g : run_.graphs) {
        if (auto it = byId.find(g.compileId); it != byId.end())
            ++it->second->graphs;
    }
    for (const auto& key : breakCompiles_) {
        if (auto it = byId.find(key); it != byId.end())
            ++it->second->graphBreaks;
    }
    for (size_t i = 0; i < run_.recompiles.size() && i < recompileCompiles_.size(); ++i) {
        Recompile& r = run_.recompiles[i];
        const auto it = byId.find(recompileCompiles_[i]);
        if (it != byId.end()) {
            r.function = it->second->function;
            r.cacheSize = it->second->cacheSize;
        } else if (auto start = starts_.find(recompileCompiles_[i]); start != starts_.end()) {
            r.function = start->second.function;
        }
    }
    for (const auto& [key, where] : outputCode_) {
        if (auto it = byId.find(key); it != byId.end()) {
            it->second->outputCodeOffset = where.first;
            it->second->outputCodeBytes = where.second;
        }
    }
    // Totals over the rank's compiles, in the live runs' phase names.
    std::map<std::string, double> totals;
    std::vector<std::string> order;
    for (const auto& c : run_.compiles) {
        for (const auto& p : c.phases) {
            if (totals.emplace(p.name, 0).second)
                order.push_back(p.name);
            totals[p.name] += p.seconds;
        }
    }
    for (const auto& name : order)
        run_.compilePhases.push_back({name, totals[name]});
    if (!run_.compiles.empty())
        run_.compilePhasesSource = "TORCH_TRACE compilation_metrics";

    run_.probe.torch = torch_;
    run_.model.spec = source_.path;
    run_.model.name =
        source_.rank >= 0 ? "TORCH_TRACE rank " + std::to_string(source_.rank) : "TORCH_TRACE log";
    if (source_.rank >= 0)
        run_.setting.mode = "rank " + std::to_string(source_.rank);
    run_.trace = source_;
    return std::move(run_);
}

} // namespace cs::core::trace
