#include "core/advice/shape_guard.h"

#include <regex>

namespace cs::core::advice {

std::optional<ShapeGuardFailure> parseShapeGuard(const std::string& reason) {
    // torch 2.x: "0/1: tensor 'tokens' size mismatch at index 1. expected 32, actual 16"
    static const std::regex mismatch(
        R"(tensor '(.+?)' (size|stride) mismatch at index (\d+)\. expected (\d+), actual (\d+))");
    std::smatch m;
    if (std::regex_search(reason, m, mismatch)) {
        return ShapeGuardFailure{m[1].str(), m[2].str(), std::stoi(m[3].str()),
                                 std::stoll(m[4].str()), std::stoll(m[5].str())};
    }
    // Older guards print the failed check: "L['x'].size()[1] == 32".
    static const std::regex check(R"((\w+\['[^']+'\])\.(size|stride)\(\)\[(\d+)\] == (\d+))");
    if (std::regex_search(reason, m, check)) {
        return ShapeGuardFailure{m[1].str(), m[2].str(), std::stoi(m[3].str()),
                                 std::stoll(m[4].str()), -1};
    }
    return std::nullopt;
}

} // namespace cs::core::advice
