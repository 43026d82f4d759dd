// First lines of torch's multi-line messages (break reasons, errors), shared
// by the report model, the trace import and the advice rules.
#pragma once

#include <string>
#include <string_view>

namespace cs::core {

// Up to the first newline, as is.
inline std::string firstLine(std::string_view text) {
    return std::string(text.substr(0, text.find('\n')));
}

// The first line with text on it, without its surrounding blanks: a break
// type when torch's reason starts with a newline or an indent.
inline std::string firstNonBlankLine(std::string_view text) {
    const size_t start = text.find_first_not_of(" \t\n");
    if (start == std::string_view::npos)
        return {};
    std::string_view line = text.substr(start);
    line = line.substr(0, line.find('\n'));
    while (!line.empty() && (line.back() == ' ' || line.back() == '\r'))
        line.remove_suffix(1);
    return std::string(line);
}

// The first line up to its first sentence's end: a '.' followed by a space
// and a capital letter ("... at boxes.py:86 (`...`). GuardOnData..."), so a
// path's dots and "e.g. x" do not end it; the whole first line when none.
inline std::string firstSentence(std::string_view text) {
    std::string line = firstLine(text);
    for (size_t dot = line.find(". "); dot != std::string::npos; dot = line.find(". ", dot + 1)) {
        const char next = dot + 2 < line.size() ? line[dot + 2] : '\0';
        if (next >= 'A' && next <= 'Z')
            return line.substr(0, dot + 1);
    }
    return line;
}

} // namespace cs::core
