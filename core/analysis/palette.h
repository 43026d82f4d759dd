// One colour per setting, the same in every chart, table, legend and report.
#pragma once

#include <string>

#include "core/report/session.h"

namespace cs::core {

// "#rrggbb". Each mode has its own colour; a second run of the same mode in
// one report takes the next free colour of the palette.
std::string runColor(const Report& report, int runIndex);

} // namespace cs::core
