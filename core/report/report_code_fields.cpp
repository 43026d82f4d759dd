#include "core/report/report_code_fields.h"

#include <algorithm>

#include <openssl/evp.h>
#include <zlib.h>

#include "core/report/json_lenient.h"

namespace cs::core {

using nlohmann::json;

namespace {

// A hand-edited or hostile report cannot make the reader inflate without bound.
constexpr size_t kMaxWrapperBytes = size_t{256} << 20;

// Counts and durations are never negative, whatever the stream says.
template <typename T> T count(const json& j, const char* key, T fallback = 0) {
    return std::max<T>(lenientValue<T>(j, key, fallback), fallback < 0 ? fallback : 0);
}

std::string text(const json& j, const char* key) {
    auto it = j.find(key);
    if (it == j.end() || !it->is_string())
        return {};
    return it->get<std::string>();
}

SourceFrame frameFrom(const json& j) {
    SourceFrame f;
    f.file = text(j, "file");
    f.line = count<int>(j, "line");
    f.function = text(j, "function");
    f.code = text(j, "code");
    return f;
}

json frameToJson(const SourceFrame& f) {
    return {{"file", f.file}, {"line", f.line}, {"function", f.function}, {"code", f.code}};
}

const json& arrayOf(const json& j, const char* key) {
    static const json none = json::array();
    auto it = j.find(key);
    return it != j.end() && it->is_array() ? *it : none;
}

CodeKernel kernelFrom(const json& j) {
    CodeKernel k;
    k.name = text(j, "name");
    k.kind = text(j, "kind");
    k.handle = count<int>(j, "handle", -1);
    k.firstLine = count<int>(j, "first_line");
    k.lastLine = count<int>(j, "last_line");
    for (const auto& n : arrayOf(j, "nodes")) {
        if (n.is_string())
            k.nodes.push_back(n.get<std::string>());
    }
    for (const auto& l : arrayOf(j, "lines")) {
        if (l.is_object())
            k.lines.push_back(frameFrom(l));
    }
    return k;
}

json kernelToJson(const CodeKernel& k) {
    json lines = json::array();
    for (const auto& l : k.lines)
        lines.push_back(frameToJson(l));
    return {{"name", k.name},          {"kind", k.kind},
            {"handle", k.handle},      {"first_line", k.firstLine},
            {"last_line", k.lastLine}, {"nodes", k.nodes},
            {"lines", lines}};
}

// The event's fields but the wrapper, which differs between event and report.
GeneratedCode codeFrom(const json& j) {
    GeneratedCode c;
    c.compileId = text(j, "compile_id");
    c.part = text(j, "part");
    c.wrapperBytes = count<int64_t>(j, "wrapper_bytes");
    c.truncated = lenientValue<bool>(j, "truncated", false);
    c.fusionSource = text(j, "fusion_source");
    for (const auto& k : arrayOf(j, "kernels")) {
        if (k.is_object())
            c.kernels.push_back(kernelFrom(k));
    }
    return c;
}

KernelCost costFrom(const json& j) {
    return {text(j, "compile_id"), text(j, "name"), count<int64_t>(j, "ns"),
            count<int64_t>(j, "count"), lenientValue<bool>(j, "ambiguous", false)};
}

json costToJson(const KernelCost& c, bool wrapper) {
    if (wrapper)
        return {{"compile_id", c.compileId}, {"ns", c.ns}};
    return {{"compile_id", c.compileId},
            {"name", c.name},
            {"ns", c.ns},
            {"count", c.count},
            {"ambiguous", c.ambiguous}};
}

json profileToJson(const KernelProfile& p) {
    json kernels = json::array();
    for (const auto& k : p.kernels)
        kernels.push_back(costToJson(k, false));
    json wrappers = json::array();
    for (const auto& w : p.wrappers)
        wrappers.push_back(costToJson(w, true));
    json eager = json::array();
    for (const auto& e : p.eager) {
        json line = frameToJson(e.where);
        line["ns"] = e.ns;
        eager.push_back(std::move(line));
    }
    json out = {{"source", p.source},  {"calls", p.calls},      {"window_ns", p.windowNs},
                {"call_ns", p.callNs}, {"kernels", kernels},    {"wrappers", wrappers},
                {"eager", eager},      {"eager_ns", p.eagerNs}, {"note", p.note}};
    if (!p.eagerModules.empty()) {
        json modules = json::array();
        for (const auto& m : p.eagerModules)
            modules.push_back({{"module", m.module}, {"ns", m.ns}});
        out["eager_modules"] = std::move(modules);
    }
    if (!p.graphCalls.empty()) {
        json calls = json::array();
        for (const auto& c : p.graphCalls)
            calls.push_back({{"compile_id", c.compileId},
                             {"module", c.module},
                             {"ns", c.ns},
                             {"count", c.count}});
        out["graph_calls"] = std::move(calls);
    }
    return out;
}

} // namespace

GeneratedCode generatedCodeFromEvent(const json& event) {
    GeneratedCode c = codeFrom(event);
    c.wrapper = text(event, "wrapper");
    if (c.wrapperBytes == 0)
        c.wrapperBytes = static_cast<int64_t>(c.wrapper.size());
    return c;
}

KernelProfile kernelProfileFromEvent(const json& event) {
    KernelProfile p;
    p.present = true;
    p.source = text(event, "source");
    p.calls = count<int>(event, "calls");
    p.windowNs = count<int64_t>(event, "window_ns");
    p.callNs = count<int64_t>(event, "call_ns");
    for (const auto& k : arrayOf(event, "kernels")) {
        if (k.is_object())
            p.kernels.push_back(costFrom(k));
    }
    for (const auto& w : arrayOf(event, "wrappers")) {
        if (w.is_object())
            p.wrappers.push_back(costFrom(w));
    }
    for (const auto& e : arrayOf(event, "eager")) {
        if (e.is_object())
            p.eager.push_back({frameFrom(e), count<int64_t>(e, "ns")});
    }
    for (const auto& m : arrayOf(event, "eager_modules")) {
        if (m.is_object())
            p.eagerModules.push_back({text(m, "module"), count<int64_t>(m, "ns")});
    }
    for (const auto& c : arrayOf(event, "graph_calls")) {
        if (c.is_object())
            p.graphCalls.push_back({text(c, "compile_id"), text(c, "module"),
                                    count<int64_t>(c, "ns"), count<int64_t>(c, "count")});
    }
    p.eagerNs = count<int64_t>(event, "eager_ns");
    p.note = text(event, "note");
    return p;
}

void addCodeFields(json& runJson, const Run& run) {
    if (!run.code.empty()) {
        json code = json::array();
        for (const auto& c : run.code) {
            json j = {{"compile_id", c.compileId},       {"part", c.part},
                      {"wrapper_bytes", c.wrapperBytes}, {"truncated", c.truncated},
                      {"fusion_source", c.fusionSource}, {"kernels", json::array()}};
            if (!c.wrapper.empty())
                j["wrapper_zlib"] = deflateBase64(c.wrapper);
            for (const auto& k : c.kernels)
                j["kernels"].push_back(kernelToJson(k));
            code.push_back(std::move(j));
        }
        runJson["code"] = std::move(code);
    }
    if (!run.codeOmitted.empty())
        runJson["code_omitted"] = run.codeOmitted;
    if (run.kernelProfile.present)
        runJson["kernel_profile"] = profileToJson(run.kernelProfile);
}

void readCodeFields(const json& runJson, Run& run, std::vector<std::string>& warnings,
                    const std::string& where) {
    for (const auto& j : arrayOf(runJson, "code")) {
        if (!j.is_object())
            continue;
        GeneratedCode c = codeFrom(j);
        if (const std::string packed = text(j, "wrapper_zlib"); !packed.empty()) {
            if (auto wrapper = inflateBase64(packed, kMaxWrapperBytes))
                c.wrapper = std::move(*wrapper);
            else
                warnings.push_back(where + ": the generated code of compile " + c.compileId +
                                   " is not readable (wrapper_zlib); shown without its text");
        }
        run.code.push_back(std::move(c));
    }
    run.codeOmitted = text(runJson, "code_omitted");
    if (auto it = runJson.find("kernel_profile"); it != runJson.end() && it->is_object())
        run.kernelProfile = kernelProfileFromEvent(*it);
}

std::string deflateBase64(std::string_view input) {
    uLongf packedSize = compressBound(static_cast<uLong>(input.size()));
    std::string packed(packedSize, '\0');
    if (compress2(reinterpret_cast<Bytef*>(packed.data()), &packedSize,
                  reinterpret_cast<const Bytef*>(input.data()), static_cast<uLong>(input.size()),
                  Z_BEST_COMPRESSION) != Z_OK)
        return {};
    std::string encoded(4 * ((packedSize + 2) / 3) + 1, '\0');
    const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(encoded.data()),
                                  reinterpret_cast<const unsigned char*>(packed.data()),
                                  static_cast<int>(packedSize));
    encoded.resize(n < 0 ? 0 : static_cast<size_t>(n));
    return encoded;
}

std::optional<std::string> inflateBase64(std::string_view encoded, size_t maxBytes) {
    if (encoded.empty() || encoded.size() % 4 != 0 || encoded.size() > (size_t{1} << 31))
        return std::nullopt;
    std::string packed(encoded.size() / 4 * 3, '\0');
    const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(packed.data()),
                                  reinterpret_cast<const unsigned char*>(encoded.data()),
                                  static_cast<int>(encoded.size()));
    if (n < 0)
        return std::nullopt;
    // EVP_DecodeBlock counts the padding as zero bytes.
    size_t size = static_cast<size_t>(n);
    for (size_t i = encoded.size(); i > 0 && encoded[i - 1] == '=' && size > 0; --i)
        --size;
    z_stream stream{};
    if (inflateInit(&stream) != Z_OK)
        return std::nullopt;
    stream.next_in = reinterpret_cast<Bytef*>(packed.data());
    stream.avail_in = static_cast<uInt>(size);
    std::string out;
    char buffer[1 << 16];
    int status = Z_OK;
    while (status == Z_OK) {
        stream.next_out = reinterpret_cast<Bytef*>(buffer);
        stream.avail_out = sizeof buffer;
        status = inflate(&stream, Z_NO_FLUSH);
        if (status != Z_OK && status != Z_STREAM_END)
            break;
        out.append(buffer, sizeof buffer - stream.avail_out);
        if (out.size() > maxBytes) {
            status = Z_MEM_ERROR;
            break;
        }
    }
    inflateEnd(&stream);
    if (status != Z_STREAM_END)
        return std::nullopt;
    return out;
}

void omitCode(Run& run, const std::string& why) {
    bool dropped = false;
    for (auto& c : run.code) {
        dropped = dropped || !c.wrapper.empty();
        c.wrapper.clear();
        c.wrapper.shrink_to_fit();
    }
    if (dropped || !run.code.empty())
        run.codeOmitted = why;
}

} // namespace cs::core
