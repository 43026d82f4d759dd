#include "core/advice/advice_text.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace cs::core::advice {

std::string baseName(const std::string& path) {
    const auto slash = path.find_last_of("/\\");
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string installedPackage(const std::string& path) {
    for (const char* marker : {"site-packages/", "dist-packages/"}) {
        if (const size_t at = path.rfind(marker); at != std::string::npos) {
            const size_t from = at + std::string(marker).size();
            const std::string rest = path.substr(from);
            const size_t end = rest.find_first_of("/\\");
            if (end != std::string::npos)
                return rest.substr(0, end);
            return rest.substr(0, rest.rfind('.')); // a module of its own: six.py
        }
    }
    return {};
}

std::string shortLocation(const std::string& file, int line) {
    if (file.empty())
        return {};
    return line > 0 ? baseName(file) + ":" + std::to_string(line) : baseName(file);
}

std::string plural(long long count, const std::string& one, const std::string& many) {
    return formatCount(static_cast<double>(count)) + " " + (count == 1 ? one : many);
}

std::string formatRatio(double ratio) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, ratio >= 10 ? "%.1f×" : "%.2f×", ratio);
    return buffer;
}

std::string joinWords(const std::vector<std::string>& words) {
    std::string out;
    for (size_t i = 0; i < words.size(); ++i) {
        if (i > 0)
            out += i + 1 == words.size() ? " and " : ", ";
        out += words[i];
    }
    return out;
}

std::optional<int64_t> number(const std::string& digits, int64_t limit) {
    int64_t value = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (ec != std::errc() || end == digits.data() || value > limit)
        return std::nullopt;
    return value;
}

int lineNumber(const std::string& digits) {
    return static_cast<int>(number(digits, std::numeric_limits<int>::max()).value_or(0));
}

bool containsText(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

bool containsNoCase(const std::string& text, const std::string& part) {
    auto it = std::search(text.begin(), text.end(), part.begin(), part.end(), [](char a, char b) {
        return std::tolower(static_cast<unsigned char>(a)) ==
               std::tolower(static_cast<unsigned char>(b));
    });
    return it != text.end();
}

std::string guardExpression(const std::string& reason) {
    std::string line = firstLine(reason);
    if (const auto comment = line.find(" #"); comment != std::string::npos)
        line.resize(comment);
    while (!line.empty() && line.back() == ' ')
        line.pop_back();
    return line;
}

} // namespace cs::core::advice
