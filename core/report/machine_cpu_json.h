// What the machine did over the measure phase, in both places it travels:
// the probe's measure end (machine_cpu, host_faults, host_held; the last on
// the crosscheck end too) and the report's latency.machine_cpu,
// latency.host_faults and latency.host_held, with the same fields
// (docs/protocol.md, docs/report-format.md).
#pragma once

#include <nlohmann/json.hpp>

#include "core/report/session.h"

namespace cs::core {

// Not present (cpus 0) when the object is missing, odd or has no CPUs.
MachineCpu machineCpuFromJson(const nlohmann::json& object);
nlohmann::json machineCpuToJson(const MachineCpu& cpu);

// Not present (calls 0) when the object is missing, odd or covers no calls.
HostFaults hostFaultsFromJson(const nlohmann::json& object);
nlohmann::json hostFaultsToJson(const HostFaults& faults);

// Not present (calls 0) when the object is missing, odd, covers no calls or
// holds a negative count.
HeldWindow heldWindowFromJson(const nlohmann::json& object);
nlohmann::json heldWindowToJson(const HeldWindow& window);

} // namespace cs::core
