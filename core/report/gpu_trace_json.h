// The GPU timeline (Run::gpuTrace) as JSON: the probe's gpu_trace event and the
// report's "gpu_trace" share one shape, so one reader serves both.
//   {"phase": "measure", "names": [...], "truncated": N,
//    "records": [[kind, start_ns, end_ns, stream, name_index, bytes], ...]}
#pragma once

#include <cstdint>

#include <nlohmann/json.hpp>

#include "core/report/session.h"

namespace cs::core {

// null when the run has no GPU timeline.
nlohmann::json gpuTraceToJson(const Run& run);
// Replaces run.gpuTrace from `j`; returns how many rows were malformed and left out.
int64_t gpuTraceFromJson(const nlohmann::json& j, Run& run);

} // namespace cs::core
