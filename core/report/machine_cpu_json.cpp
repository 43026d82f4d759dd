#include "core/report/machine_cpu_json.h"

#include <algorithm>

#include "core/report/json_lenient.h"

namespace cs::core {

MachineCpu machineCpuFromJson(const nlohmann::json& object) {
    MachineCpu cpu;
    cpu.cpus = std::max(0, lenientValue<int>(object, "cpus", 0));
    cpu.wallNs = std::max<int64_t>(0, lenientValue<int64_t>(object, "wall_ns", 0));
    cpu.busyNs = std::max<int64_t>(0, lenientValue<int64_t>(object, "busy_ns", 0));
    cpu.stealNs = std::max<int64_t>(0, lenientValue<int64_t>(object, "steal_ns", 0));
    cpu.probeCpuNs = std::max<int64_t>(0, lenientValue<int64_t>(object, "probe_cpu_ns", 0));
    cpu.childrenCpuNs =
        std::clamp<int64_t>(lenientValue<int64_t>(object, "children_cpu_ns", 0), 0, cpu.probeCpuNs);
    cpu.tickNs = std::max<int64_t>(0, lenientValue<int64_t>(object, "tick_ns", 0));
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

} // namespace cs::core
