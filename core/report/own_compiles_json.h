// The model's own torch.compile calls, in both places they travel: the
// probe's model event (own_compiles) and the report's model.own_compiles,
// with the same fields (docs/protocol.md, docs/report-format.md).
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "core/report/session.h"

namespace cs::core {

// Empty when the list is missing or odd; an entry without `where` or `how`
// is left out.
std::vector<OwnCompile> ownCompilesFromJson(const nlohmann::json& list);
nlohmann::json ownCompilesToJson(const std::vector<OwnCompile>& calls);

} // namespace cs::core
