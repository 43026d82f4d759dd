#include "core/analysis/units.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace cs::core {

namespace {

std::string withPrecision(double value, const char* unit) {
    char buffer[64];
    const double magnitude = std::fabs(value);
    const int decimals = magnitude >= 100 ? 0 : magnitude >= 10 ? 1 : 2;
    std::snprintf(buffer, sizeof buffer, "%.*f %s", decimals, value, unit);
    return buffer;
}

} // namespace

std::string formatDuration(double ns) {
    const double magnitude = std::fabs(ns);
    if (magnitude == 0)
        return "0";
    if (magnitude < 1e3)
        return withPrecision(ns, "ns");
    if (magnitude < 1e6)
        return withPrecision(ns / 1e3, "µs");
    if (magnitude < 1e9)
        return withPrecision(ns / 1e6, "ms");
    return withPrecision(ns / 1e9, "s");
}

std::string formatBytes(double bytes) {
    const double magnitude = std::fabs(bytes);
    if (magnitude == 0)
        return "0";
    if (magnitude < 1024)
        return withPrecision(bytes, "B");
    if (magnitude < 1024.0 * 1024)
        return withPrecision(bytes / 1024, "KiB");
    if (magnitude < 1024.0 * 1024 * 1024)
        return withPrecision(bytes / (1024.0 * 1024), "MiB");
    return withPrecision(bytes / (1024.0 * 1024 * 1024), "GiB");
}

std::string formatSignedPercent(double fraction) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%+.1f%%", 100 * fraction);
    return buffer;
}

std::string formatPercent(double fraction) {
    const double percent = fraction * 100;
    if (percent == 0 || !std::isfinite(percent))
        return std::isfinite(percent) ? "0%" : "—";
    // Two significant digits: as many decimals as the magnitude leaves.
    const int decimals =
        std::max(0, 1 - static_cast<int>(std::floor(std::log10(std::fabs(percent)))));
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.*f%%", std::min(decimals, 12), percent);
    return buffer;
}

std::string formatCount(double count) {
    if (std::isnan(count))
        return "—";
    if (std::isinf(count))
        return count > 0 ? "∞" : "-∞";
    // Past 1e18 a long long overflows; print the rounded double without an exponent.
    char digits[400];
    std::snprintf(digits, sizeof digits, "%.0f", std::round(count));
    const std::string text = digits;
    const size_t first = text[0] == '-' ? 1 : 0;
    std::string out = text.substr(0, first);
    for (size_t i = first; i < text.size(); ++i) {
        if (i > first && (text.size() - i) % 3 == 0)
            out += ',';
        out += text[i];
    }
    return out == "-0" ? "0" : out;
}

std::string joinList(const std::vector<std::string>& items) {
    std::string text;
    for (const auto& item : items)
        text += (text.empty() ? "" : ", ") + item;
    return text;
}

} // namespace cs::core
