// A self-contained HTML report: no network at view time, every string from
// the model, the user's source, the environment or an error escaped.
#pragma once

#include <string>
#include <string_view>

#include "core/report/session.h"

namespace cs::core {

// Escapes text for HTML element content and quoted attribute values. Invalid
// UTF-8 bytes become U+FFFD so the page stays well-formed.
std::string htmlEscape(std::string_view text);

std::string writeReportHtml(const Report& report);

} // namespace cs::core
