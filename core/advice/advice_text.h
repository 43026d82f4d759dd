// Small wording helpers shared by the advice rules.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "core/analysis/python_names.h" // pythonAccess, moduleName
#include "core/analysis/units.h"        // formatCount, used by every rule
#include "core/report/text_lines.h"     // firstLine, used by several rules

namespace cs::core::advice {

// "item_break.py:21" (the file's last path component and the line).
std::string shortLocation(const std::string& file, int line);
std::string baseName(const std::string& path);
// The installed package a path lies in ("torchvision" for
// .../site-packages/torchvision/ops/boxes.py); empty outside site-packages.
std::string installedPackage(const std::string& path);
// "1 graph", "3 graphs", "1,500 nodes".
std::string plural(long long count, const std::string& one, const std::string& many);
// "1.23×"
std::string formatRatio(double ratio);
// "a, b and c"
std::string joinWords(const std::vector<std::string>& words);
// A run of digits read from a report: nullopt past `limit`, never a throw
// (std::stoi throws on a number too long to hold).
std::optional<int64_t> number(const std::string& digits,
                              int64_t limit = std::numeric_limits<int64_t>::max());
// A source line's number; 0 (no line) when it cannot be one.
int lineNumber(const std::string& digits);

bool containsText(const std::string& text, const std::string& part); // case-sensitive
// Where transformers installs its output-capturing hooks on a model's first
// call (graph_break.library and recompile.value both name the installation).
inline constexpr const char* kOutputCapturingFile = "transformers/utils/output_capturing.py";
bool containsNoCase(const std::string& text, const std::string& part);
// A failed guard without torch's source comment and hint after it:
// "1/1: self.level == 1" of "1/1: self.level == 1     # return ... (HINT: ...)".
std::string guardExpression(const std::string& reason);

} // namespace cs::core::advice
