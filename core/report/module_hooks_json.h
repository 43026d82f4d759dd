// The model's module hooks, in both places they travel: the probe's model
// event (hooks) and the report's model.hooks, with the same fields
// (docs/protocol.md, docs/report-format.md).
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "core/report/session.h"

namespace cs::core {

// Empty when the list is missing or odd; an entry without a function is left out.
std::vector<ModuleHook> moduleHooksFromJson(const nlohmann::json& list);
nlohmann::json moduleHooksToJson(const std::vector<ModuleHook>& hooks);

} // namespace cs::core
