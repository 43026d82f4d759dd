// First lines of torch's multi-line messages (break reasons, errors), shared
// by the report model, the trace import and the advice rules; and that text
// bounded for std::regex.
#pragma once

#include <algorithm>
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
// path's dots and "e.g. x" do not end it, nor a sentence quoted in
// parentheses ("(RuntimeError: No driver. Please check ...)"), whose
// parentheses count outside `code` only; the whole first line when none.
inline std::string firstSentence(std::string_view text) {
    std::string line = firstLine(text);
    int depth = 0;
    bool quoted = false; // `code` may hold unbalanced parentheses
    for (size_t i = 0; i + 2 < line.size(); ++i) {
        if (line[i] == '`')
            quoted = !quoted;
        else if (quoted)
            continue;
        else if (line[i] == '(')
            ++depth;
        else if (line[i] == ')' && depth > 0)
            --depth;
        else if (depth == 0 && line[i] == '.' && line[i + 1] == ' ' && line[i + 2] >= 'A' &&
                 line[i + 2] <= 'Z')
            return line.substr(0, i + 1);
    }
    return line;
}

// std::regex's matcher recurses once per character a match spans, so a long
// run in a report's text (a 40,000-character line) overflowed an 8 MiB stack
// and crashed the app. Text read from a report goes through one of these
// before a regex sees it.
inline constexpr size_t kRegexHead = 1024; // a guard, a break type, a message
inline constexpr size_t kRegexTail = 3072; // a stack trace's innermost frames
inline constexpr size_t kRegexLine = 1024;

// The text, or its head and tail where it is longer than both.
inline std::string regexInput(std::string_view text) {
    if (text.size() <= kRegexHead + kRegexTail)
        return std::string(text);
    return std::string(text.substr(0, kRegexHead)) + "\n" +
           std::string(text.substr(text.size() - kRegexTail));
}

// Calls visit(line) for each line of the text, each cut to kRegexLine: for a
// regex over a whole traceback, where any line may be the one it looks for.
template <typename Visit> void forEachRegexLine(std::string_view text, Visit visit) {
    while (!text.empty()) {
        const size_t end = std::min(text.find('\n'), text.size());
        visit(std::string(text.substr(0, std::min(end, kRegexLine))));
        text.remove_prefix(std::min(end + 1, text.size()));
    }
}

} // namespace cs::core
