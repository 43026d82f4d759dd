#include "widgets/code/python_highlighter.h"

#include <QGuiApplication>
#include <QPalette>
#include <QRegularExpression>
#include <QSet>
#include <QTextDocument>

namespace cs::widgets {

namespace {

const QSet<QString>& pythonKeywords() {
    static const QSet<QString> words = {
        "False", "None",     "True",  "and",    "as",   "assert", "async",  "await",    "break",
        "class", "continue", "def",   "del",    "elif", "else",   "except", "finally",  "for",
        "from",  "global",   "if",    "import", "in",   "is",     "lambda", "nonlocal", "not",
        "or",    "pass",     "raise", "return", "try",  "while",  "with",   "yield"};
    return words;
}

const QSet<QString>& cppKeywords() {
    static const QSet<QString> words = {
        "auto",     "bool",     "break",       "case",     "char",   "const",    "constexpr",
        "continue", "default",  "do",          "double",   "else",   "enum",     "extern",
        "false",    "float",    "for",         "if",       "inline", "int",      "int32_t",
        "int64_t",  "long",     "namespace",   "nullptr",  "return", "short",    "signed",
        "sizeof",   "static",   "static_cast", "struct",   "switch", "template", "true",
        "typedef",  "typename", "uint8_t",     "unsigned", "using",  "void",     "volatile",
        "while",    "half",     "bfloat16"};
    return words;
}

const QSet<QString>& builtins() {
    static const QSet<QString> words = {"tl",
                                        "triton",
                                        "torch",
                                        "aten",
                                        "extern_kernels",
                                        "async_compile",
                                        "empty_strided_cpu",
                                        "empty_strided_cuda",
                                        "reinterpret_tensor",
                                        "self",
                                        "len",
                                        "range",
                                        "print",
                                        "int",
                                        "float",
                                        "str"};
    return words;
}

QTextCharFormat colour(const QColor& color, bool bold = false, bool italic = false) {
    QTextCharFormat f;
    f.setForeground(color);
    if (bold)
        f.setFontWeight(QFont::Bold);
    f.setFontItalic(italic);
    return f;
}

// The triple quote that opens or closes a string at or after `from`; -1 when none.
int tripleQuote(const QString& text, int from, QString* quote) {
    const auto single = static_cast<int>(text.indexOf(QStringLiteral("'''"), from));
    const auto dbl = static_cast<int>(text.indexOf(QStringLiteral("\"\"\""), from));
    if (single < 0 && dbl < 0)
        return -1;
    const bool isSingle = dbl < 0 || (single >= 0 && single < dbl);
    if (quote)
        *quote = isSingle ? QStringLiteral("'''") : QStringLiteral("\"\"\"");
    return isSingle ? single : dbl;
}

} // namespace

PythonHighlighter::PythonHighlighter(QTextDocument* document) : QSyntaxHighlighter(document) {
    const QPalette palette = QGuiApplication::palette();
    const bool dark = palette.color(QPalette::Base).lightness() < 128;
    keyword_ = colour(dark ? QColor(0xc6, 0x78, 0xdd) : QColor(0x7b, 0x1f, 0xa2), true);
    builtin_ = colour(dark ? QColor(0x61, 0xaf, 0xef) : QColor(0x15, 0x65, 0xc0));
    string_ = colour(dark ? QColor(0x98, 0xc3, 0x79) : QColor(0x2e, 0x7d, 0x32));
    comment_ = colour(dark ? QColor(0x7f, 0x84, 0x8e) : QColor(0x75, 0x75, 0x75), false, true);
    number_ = colour(dark ? QColor(0xd1, 0x9a, 0x66) : QColor(0xbf, 0x36, 0x0c));
    decorator_ = colour(dark ? QColor(0xe5, 0xc0, 0x7b) : QColor(0x9e, 0x6a, 0x03));
    preprocessor_ = colour(dark ? QColor(0x56, 0xb6, 0xc2) : QColor(0x00, 0x83, 0x8f));
}

void PythonHighlighter::highlightCode(const QString& text, int from, int to, bool cpp) {
    static const QRegularExpression word(QStringLiteral("[A-Za-z_][A-Za-z0-9_]*"));
    static const QRegularExpression number(
        QStringLiteral("\\b(0x[0-9a-fA-F]+|[0-9]+\\.?[0-9]*([eE][-+]?[0-9]+)?[fFlLuU]*)\\b"));
    if (from >= to)
        return;
    const QString part = text.mid(from, to - from);
    // Numbers and words first; strings and comments paint over them.
    for (auto it = number.globalMatch(part); it.hasNext();) {
        const auto m = it.next();
        setFormat(from + static_cast<int>(m.capturedStart()), static_cast<int>(m.capturedLength()),
                  number_);
    }
    const auto& keywords = cpp ? cppKeywords() : pythonKeywords();
    for (auto it = word.globalMatch(part); it.hasNext();) {
        const auto m = it.next();
        const QString w = m.captured();
        if (keywords.contains(w))
            setFormat(from + static_cast<int>(m.capturedStart()),
                      static_cast<int>(m.capturedLength()), keyword_);
        else if (builtins().contains(w))
            setFormat(from + static_cast<int>(m.capturedStart()),
                      static_cast<int>(m.capturedLength()), builtin_);
    }
    const QString trimmed = part.trimmed();
    if (cpp && trimmed.startsWith('#')) {
        setFormat(from, static_cast<int>(part.size()), preprocessor_);
        return;
    }
    if (!cpp && trimmed.startsWith('@')) {
        setFormat(from + static_cast<int>(part.indexOf('@')),
                  static_cast<int>(part.size() - part.indexOf('@')), decorator_);
        return;
    }
    // Single-line strings and the comment that ends the line, in one left-to-right pass.
    for (int i = 0; i < part.size(); ++i) {
        const QChar c = part[i];
        if (c == '"' || c == '\'') {
            int j = i + 1;
            while (j < part.size() && part[j] != c) {
                if (part[j] == '\\')
                    ++j;
                ++j;
            }
            const int end = std::min<int>(j + 1, static_cast<int>(part.size()));
            setFormat(from + i, end - i, string_);
            i = end - 1;
        } else if ((!cpp && c == '#') ||
                   (cpp && c == '/' && i + 1 < part.size() && part[i + 1] == '/')) {
            setFormat(from + i, static_cast<int>(part.size()) - i, comment_);
            return;
        } else if (cpp && c == '/' && i + 1 < part.size() && part[i + 1] == '*') {
            const int end = static_cast<int>(part.indexOf(QStringLiteral("*/"), i + 2));
            const int stop = end < 0 ? static_cast<int>(part.size()) : end + 2;
            setFormat(from + i, stop - i, comment_);
            i = stop - 1;
        }
    }
}

void PythonHighlighter::highlightBlock(const QString& text) {
    int state = std::max(0, previousBlockState());
    int pos = 0;
    const int size = static_cast<int>(text.size());
    while (pos <= size) {
        if (state == CppSource || state == PythonSource || state == TextString) {
            // Inside a triple-quoted string: until its closing quote.
            auto close = static_cast<int>(text.indexOf(QStringLiteral("'''"), pos));
            const auto closeDouble = static_cast<int>(text.indexOf(QStringLiteral("\"\"\""), pos));
            if (close < 0 || (closeDouble >= 0 && closeDouble < close))
                close = closeDouble;
            const int end = close < 0 ? size : close;
            if (state == TextString) {
                setFormat(pos, end - pos, string_);
            } else {
                highlightCode(text, pos, end, state == CppSource);
            }
            if (close < 0)
                break;
            setFormat(close, 3, string_);
            pos = close + 3;
            state = Plain;
            continue;
        }
        // Python wrapper code until a triple quote opens.
        QString quote;
        const int open = tripleQuote(text, pos, &quote);
        // A '#' before the quote makes the rest of the line a comment.
        int hash = -1;
        for (int i = pos; i < (open < 0 ? size : open); ++i) {
            if (text[i] == '#') {
                hash = i;
                break;
            }
            if (text[i] == '"' || text[i] == '\'') {
                const QChar q = text[i];
                for (++i; i < size && text[i] != q; ++i) {
                    if (text[i] == '\\')
                        ++i;
                }
            }
        }
        if (hash >= 0) {
            highlightCode(text, pos, size, false);
            break;
        }
        const int end = open < 0 ? size : open;
        highlightCode(text, pos, end, false);
        if (open < 0)
            break;
        setFormat(open, 3, string_);
        const QString before = text.left(open);
        // Kernel sources: Inductor passes them as the string argument of its compile calls.
        if (before.contains(QStringLiteral("cpp")))
            state = CppSource;
        else if (before.contains(QStringLiteral("triton")) ||
                 before.contains(QStringLiteral("compile")))
            state = PythonSource;
        else
            state = TextString;
        pos = open + 3;
        // Text after the opening quote on the same line is inside the string.
    }
    setCurrentBlockState(state);
}

} // namespace cs::widgets
