// The outputs check in both places it travels: the probe's outputs_check
// event and the report's run "outputs_check", with the same fields
// (docs/protocol.md, docs/report-format.md).
#pragma once

#include <nlohmann/json.hpp>

#include "core/report/session.h"

namespace cs::core {

// Not present (status empty) when the object is missing, odd or has no status.
OutputsCheck outputsCheckFromJson(const nlohmann::json& object);
nlohmann::json outputsCheckToJson(const OutputsCheck& check);

} // namespace cs::core
