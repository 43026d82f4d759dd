#include "core/report/report_gpu_fields.h"

#include "core/report/gpu_trace_json.h"
#include "core/report/json_lenient.h"

namespace cs::core {

using nlohmann::json;

namespace {

bool hasBookkeeping(const MemorySeries& m) {
    return m.kind == "device" || m.baseline || m.unknownFrees || m.dropped;
}

} // namespace

void addGpuFields(json& runJson, const Run& run) {
    json& series = runJson["memory"]["series"];
    for (size_t i = 0; i < run.memory.size() && i < series.size(); ++i) {
        const MemorySeries& m = run.memory[i];
        if (!hasBookkeeping(m))
            continue;
        series[i]["baseline"] = m.baseline;
        series[i]["unknown_frees"] = m.unknownFrees;
        series[i]["dropped"] = m.dropped;
    }
    json& k = runJson["kernels"];
    if (k.is_object()) {
        const KernelSummary& ks = run.kernels;
        k["kernels_per_iter"] = ks.kernelsPerIter;
        k["memcpy"]["bytes_by_kind"] = ks.memcpyBytesByKind;
        k["memset"] = {
            {"count", ks.memsetCount}, {"bytes", ks.memsetBytes}, {"total_ns", ks.memsetNs}};
        k["window_ns"] = ks.windowNs;
        k["kernel_records"] = ks.kernelRecords;
        k["untimed"] = ks.untimed;
        k["note"] = ks.note;
    }
    runJson["gpu_trace"] = gpuTraceToJson(run);
}

void readGpuFields(const json& runJson, Run& run, std::vector<std::string>& warnings,
                   const std::string& where) {
    static const json none = json::array();
    const json* series = &none;
    if (auto m = runJson.find("memory"); m != runJson.end() && m->is_object()) {
        if (auto s = m->find("series"); s != m->end() && s->is_array())
            series = &*s;
    }
    for (size_t i = 0; i < run.memory.size() && i < series->size(); ++i) {
        const json& m = (*series)[i];
        run.memory[i].baseline = lenientValue<int64_t>(m, "baseline", 0);
        run.memory[i].unknownFrees = lenientValue<int64_t>(m, "unknown_frees", 0);
        run.memory[i].dropped = lenientValue<int64_t>(m, "dropped", 0);
    }
    if (auto k = runJson.find("kernels"); k != runJson.end() && k->is_object()) {
        KernelSummary& ks = run.kernels;
        ks.kernelsPerIter = lenientValue<double>(*k, "kernels_per_iter", 0);
        const json memcpy = lenientValue<json>(*k, "memcpy", json::object());
        ks.memcpyBytesByKind =
            lenientValue<std::map<std::string, int64_t>>(memcpy, "bytes_by_kind", {});
        const json memset = lenientValue<json>(*k, "memset", json::object());
        ks.memsetCount = lenientValue<int64_t>(memset, "count", 0);
        ks.memsetBytes = lenientValue<int64_t>(memset, "bytes", 0);
        ks.memsetNs = lenientValue<int64_t>(memset, "total_ns", 0);
        ks.windowNs = lenientValue<int64_t>(*k, "window_ns", 0);
        ks.kernelRecords = lenientValue<int64_t>(*k, "kernel_records", 0);
        ks.untimed = lenientValue<int64_t>(*k, "untimed", 0);
        ks.note = lenientValue<std::string>(*k, "note", "");
    }
    if (auto t = runJson.find("gpu_trace"); t != runJson.end() && t->is_object()) {
        if (const int64_t bad = gpuTraceFromJson(*t, run))
            warnings.push_back(where + ": " + std::to_string(bad) +
                               " malformed gpu_trace records were left out");
    }
}

} // namespace cs::core
