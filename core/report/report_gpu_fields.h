// The JSON report's GPU details beyond the basic "memory" and "kernels" blocks
// of report_json.cpp: device-series bookkeeping (baseline, unknown frees,
// drops), the rest of the kernel summary, and "gpu_trace". Kept apart so the
// report writer and reader each call one function (docs/cupti.md lists the fields).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/report/session.h"

namespace cs::core {

// Adds to a run object made by runToJson (which already has "memory" and "kernels").
void addGpuFields(nlohmann::json& runJson, const Run& run);
// Reads them back into a run read from the same object; problems become warnings.
void readGpuFields(const nlohmann::json& runJson, Run& run, std::vector<std::string>& warnings,
                   const std::string& where);

} // namespace cs::core
