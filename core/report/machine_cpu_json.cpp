#include "core/report/machine_cpu_json.h"

#include <algorithm>

#include "core/report/json_lenient.h"

namespace cs::core {

namespace {

// A count or a duration: never negative, 0 when missing or odd.
int64_t countAt(const nlohmann::json& object, const char* key) {
    return std::max<int64_t>(0, lenientValue<int64_t>(object, key, 0));
}

} // namespace

MachineCpu machineCpuFromJson(const nlohmann::json& object) {
    MachineCpu cpu;
    cpu.cpus = std::max(0, lenientValue<int>(object, "cpus", 0));
    cpu.wallNs = countAt(object, "wall_ns");
    cpu.busyNs = countAt(object, "busy_ns");
    cpu.stealNs = countAt(object, "steal_ns");
    cpu.probeCpuNs = countAt(object, "probe_cpu_ns");
    cpu.childrenCpuNs =
        std::clamp<int64_t>(lenientValue<int64_t>(object, "children_cpu_ns", 0), 0, cpu.probeCpuNs);
    cpu.tickNs = countAt(object, "tick_ns");
    if (!cpu.present())
        return {};
    return cpu;
}

nlohmann::json machineCpuToJson(const MachineCpu& cpu) {
    nlohmann::json j = {
        {"cpus", cpu.cpus},        {"wall_ns", cpu.wallNs},          {"busy_ns", cpu.busyNs},
        {"steal_ns", cpu.stealNs}, {"probe_cpu_ns", cpu.probeCpuNs}, {"tick_ns", cpu.tickNs}};
    if (cpu.childrenCpuNs > 0)
        j["children_cpu_ns"] = cpu.childrenCpuNs;
    return j;
}

HostFaults hostFaultsFromJson(const nlohmann::json& object) {
    HostFaults faults;
    faults.calls = std::max(0, lenientValue<int>(object, "calls", 0));
    faults.minor = countAt(object, "minor");
    faults.major = countAt(object, "major");
    faults.sysCpuNs = countAt(object, "sys_cpu_ns");
    faults.wallNs = countAt(object, "wall_ns");
    if (const auto page = lenientValue<int64_t>(object, "page_bytes", 0); page > 0)
        faults.pageBytes = page;
    faults.allocator = lenientValue<std::string>(object, "allocator", "");
    if (const auto it = object.find("malloc_env"); it != object.end() && it->is_object())
        for (const auto& [name, value] : it->items())
            if (value.is_string())
                faults.mallocEnv.emplace_back(name, value.get<std::string>());
    if (!faults.present())
        return {};
    return faults;
}

nlohmann::json hostFaultsToJson(const HostFaults& faults) {
    nlohmann::json env = nlohmann::json::object();
    for (const auto& [name, value] : faults.mallocEnv)
        env[name] = value;
    return {{"calls", faults.calls},         {"minor", faults.minor},
            {"major", faults.major},         {"sys_cpu_ns", faults.sysCpuNs},
            {"wall_ns", faults.wallNs},      {"page_bytes", faults.pageBytes},
            {"allocator", faults.allocator}, {"malloc_env", env}};
}

HeldWindow heldWindowFromJson(const nlohmann::json& object) {
    HeldWindow window;
    window.counter = lenientValue<std::string>(object, "counter", "");
    window.calls = std::max(0, lenientValue<int>(object, "calls", 0));
    window.beginBytes = lenientValue<int64_t>(object, "begin_bytes", -1);
    window.endBytes = lenientValue<int64_t>(object, "end_bytes", -1);
    if (!window.present() || window.counter.empty() || window.beginBytes < 0 || window.endBytes < 0)
        return {};
    return window;
}

nlohmann::json heldWindowToJson(const HeldWindow& window) {
    return {{"counter", window.counter},
            {"calls", window.calls},
            {"begin_bytes", window.beginBytes},
            {"end_bytes", window.endBytes}};
}

} // namespace cs::core
