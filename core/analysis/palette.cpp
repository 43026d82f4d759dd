#include "core/analysis/palette.h"

#include <array>
#include <map>
#include <set>

namespace cs::core {

namespace {

const std::map<std::string, std::string>& modeColors() {
    static const std::map<std::string, std::string> colors{
        {"eager", "#4e79a7"},
        {"default", "#f28e2b"},
        {"reduce-overhead", "#59a14f"},
        {"max-autotune", "#e15759"},
        {"max-autotune-no-cudagraphs", "#b07aa1"},
        {"aoti", "#17becf"},
        {"as-written", "#9c755f"}};
    return colors;
}

constexpr std::array<const char*, 6> kSpare{"#76b7b2", "#edc948", "#ff9da7",
                                            "#9c755f", "#bab0ac", "#1f77b4"};

} // namespace

std::string runColor(const Report& report, int runIndex) {
    std::set<std::string> used;
    std::string color;
    size_t spare = 0;
    for (int i = 0; i <= runIndex && i < static_cast<int>(report.runs.size()); ++i) {
        const auto& mode = report.runs[static_cast<size_t>(i)].setting.mode;
        auto it = modeColors().find(mode);
        if (it != modeColors().end() && !used.count(it->second))
            color = it->second;
        else
            color = kSpare[spare++ % kSpare.size()];
        used.insert(color);
    }
    return color.empty() ? kSpare[0] : color;
}

} // namespace cs::core
