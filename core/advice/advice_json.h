// The report's "advice" section: the user's advice options and the findings
// derived from them. Findings are written for readers of the file; on read
// only the options are kept and the findings are recomputed (advise()).
#pragma once

#include <nlohmann/json.hpp>

#include "core/advice/advice_options.h"
#include "core/report/session.h"

namespace cs::core {

nlohmann::json adviceToJson(const Report& report);
// Options from an "advice" section; defaults for what is missing or malformed.
AdviceOptions adviceOptionsFromJson(const nlohmann::json& advice);

} // namespace cs::core
