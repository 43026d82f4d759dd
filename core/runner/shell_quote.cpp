#include "core/runner/shell_quote.h"

namespace cs::core {

std::string shellQuote(std::string_view word) {
    std::string quoted = "'";
    for (char c : word) {
        if (c == '\'')
            quoted += "'\\''"; // close, an escaped quote, reopen
        else
            quoted += c;
    }
    quoted += '\'';
    return quoted;
}

std::string shellJoin(const std::vector<std::string>& words) {
    std::string line;
    for (const auto& word : words) {
        if (!line.empty())
            line += ' ';
        line += shellQuote(word);
    }
    return line;
}

} // namespace cs::core
