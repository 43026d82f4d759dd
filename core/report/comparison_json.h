// The report's derived "warmup" (per run) and "comparison" (top level)
// sections. Written from the runs on every save; a reader recomputes them.
#pragma once

#include <nlohmann/json.hpp>

#include "core/analysis/comparison.h"

namespace cs::core {

nlohmann::json warmupToJson(const WarmupAnalysis& warmup);
nlohmann::json comparisonToJson(const Comparison& comparison);

} // namespace cs::core
