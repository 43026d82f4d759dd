#include "core/report/gpu_trace_json.h"

#include <algorithm>
#include <unordered_map>

namespace cs::core {

using nlohmann::json;

json gpuTraceToJson(const Run& run) {
    if (run.gpuTrace.empty() && run.gpuTraceTruncated == 0 && run.gpuTracePhase.empty())
        return nullptr;
    json names = json::array();
    std::unordered_map<std::string, int64_t> index;
    json records = json::array();
    for (const auto& s : run.gpuTrace) {
        auto [it, fresh] = index.try_emplace(s.name, static_cast<int64_t>(names.size()));
        if (fresh)
            names.push_back(s.name);
        records.push_back({s.kind, s.startNs, s.endNs, s.stream, it->second, s.bytes});
    }
    return {{"phase", run.gpuTracePhase},
            {"names", names},
            {"records", records},
            {"truncated", run.gpuTraceTruncated}};
}

int64_t gpuTraceFromJson(const json& j, Run& run) {
    run.gpuTrace.clear();
    run.gpuTraceTruncated = 0;
    run.gpuTracePhase.clear();
    if (!j.is_object())
        return 0;
    std::vector<std::string> names;
    if (auto it = j.find("names"); it != j.end() && it->is_array()) {
        for (const auto& n : *it)
            names.push_back(n.is_string() ? n.get<std::string>() : std::string());
    }
    if (auto it = j.find("phase"); it != j.end() && it->is_string())
        run.gpuTracePhase = it->get<std::string>();
    if (auto it = j.find("truncated"); it != j.end() && it->is_number_integer())
        run.gpuTraceTruncated = it->get<int64_t>();
    int64_t bad = 0;
    auto it = j.find("records");
    if (it == j.end() || !it->is_array())
        return 0;
    run.gpuTrace.reserve(it->size());
    for (const auto& row : *it) {
        const bool integers = row.is_array() && row.size() >= 5 &&
                              std::all_of(row.begin(), row.end(),
                                          [](const json& v) { return v.is_number_integer(); });
        if (!integers) {
            ++bad;
            continue;
        }
        const auto nameIndex = row[4].get<int64_t>();
        GpuSlice slice;
        slice.kind = row[0].get<int>();
        slice.startNs = row[1].get<int64_t>();
        slice.endNs = row[2].get<int64_t>();
        slice.stream = row[3].get<int64_t>();
        slice.bytes = row.size() > 5 ? row[5].get<int64_t>() : 0;
        if (nameIndex < 0 || nameIndex >= static_cast<int64_t>(names.size()) ||
            slice.endNs < slice.startNs) {
            ++bad;
            continue;
        }
        slice.name = names[static_cast<size_t>(nameIndex)];
        run.gpuTrace.push_back(std::move(slice));
    }
    std::stable_sort(run.gpuTrace.begin(), run.gpuTrace.end(),
                     [](const GpuSlice& a, const GpuSlice& b) { return a.startNs < b.startNs; });
    return bad;
}

} // namespace cs::core
