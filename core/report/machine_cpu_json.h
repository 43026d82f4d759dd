// The machine's CPU over the measure phase in both places it travels: the
// probe's measure end (machine_cpu) and the report's latency.machine_cpu,
// with the same fields (docs/protocol.md, docs/report-format.md).
#pragma once

#include <nlohmann/json.hpp>

#include "core/report/session.h"

namespace cs::core {

// Not present (cpus 0) when the object is missing, odd or has no CPUs.
MachineCpu machineCpuFromJson(const nlohmann::json& object);
nlohmann::json machineCpuToJson(const MachineCpu& cpu);

} // namespace cs::core
