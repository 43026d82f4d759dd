#include "core/trace/graph_text.h"

#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <utility>

namespace cs::core::trace {
namespace {

bool isIdentStart(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

bool isIdentChar(char c) {
    return isIdentStart(c) || (c >= '0' && c <= '9');
}

std::string_view trim(std::string_view text) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t'))
        text.remove_prefix(1);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\r'))
        text.remove_suffix(1);
    return text;
}

size_t indentOf(std::string_view line) {
    size_t n = 0;
    while (n < line.size() && line[n] == ' ')
        ++n;
    return n;
}

bool isIdentifier(std::string_view text) {
    return !text.empty() && isIdentStart(text.front()) &&
           std::all_of(text.begin(), text.end(), isIdentChar);
}

// Positions of `separator` outside quotes and brackets.
std::vector<size_t> topLevel(std::string_view text, char separator) {
    std::vector<size_t> at;
    int depth = 0;
    char quote = 0;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (quote != 0) {
            if (c == '\\')
                ++i;
            else if (c == quote)
                quote = 0;
        } else if (c == '"' || c == '\'') {
            quote = c;
        } else if (c == '(' || c == '[' || c == '{') {
            ++depth;
        } else if (c == ')' || c == ']' || c == '}') {
            --depth;
        } else if (c == separator && depth == 0) {
            at.push_back(i);
        }
    }
    return at;
}

std::vector<std::string_view> splitTopLevel(std::string_view text, char separator) {
    std::vector<std::string_view> parts;
    size_t start = 0;
    for (size_t at : topLevel(text, separator)) {
        parts.push_back(trim(text.substr(start, at - start)));
        start = at + 1;
    }
    parts.push_back(trim(text.substr(start)));
    return parts;
}

const std::map<std::string_view, std::string_view>& dtypeNames() {
    static const std::map<std::string_view, std::string_view> names{{"f64", "float64"},
                                                                    {"f32", "float32"},
                                                                    {"f16", "float16"},
                                                                    {"bf16", "bfloat16"},
                                                                    {"i64", "int64"},
                                                                    {"i32", "int32"},
                                                                    {"i16", "int16"},
                                                                    {"i8", "int8"},
                                                                    {"u8", "uint8"},
                                                                    {"u16", "uint16"},
                                                                    {"u32", "uint32"},
                                                                    {"u64", "uint64"},
                                                                    {"b8", "bool"},
                                                                    {"c64", "complex64"},
                                                                    {"c128", "complex128"},
                                                                    {"c32", "complex32"},
                                                                    {"f8e4m3fn", "float8_e4m3fn"},
                                                                    {"f8e5m2", "float8_e5m2"}};
    return names;
}

// Infix operators as torch's FX prints them, longest first.
constexpr std::array<std::pair<std::string_view, std::string_view>, 12> kInfix{{
    {" // ", "floordiv"},
    {" ** ", "pow"},
    {" @ ", "matmul"},
    {" + ", "add"},
    {" - ", "sub"},
    {" * ", "mul"},
    {" / ", "truediv"},
    {" % ", "mod"},
    {" < ", "lt"},
    {" > ", "gt"},
    {" == ", "eq"},
    {" & ", "and_"},
}};

struct Source {
    std::string file;
    int line = 0;
};

class GraphTextParser {
  public:
    std::vector<GraphNode> run(std::string_view text) {
        size_t start = 0;
        std::string signature; // the forward's parameters, perhaps over several lines
        bool inSignature = false;
        while (start <= text.size()) {
            size_t end = text.find('\n', start);
            if (end == std::string_view::npos)
                end = text.size();
            const std::string_view line = text.substr(start, end - start);
            start = end + 1;
            if (inSignature) {
                signature += trim(line);
                if (endsSignature(line)) {
                    placeholders(signature);
                    inSignature = false;
                }
                continue;
            }
            const std::string_view body = trim(line);
            if (bodyIndent_ == 0) {
                if (body.rfind("def forward(", 0) == 0 && indentOf(line) == 4) {
                    bodyIndent_ = 8;
                    signature = std::string(body.substr(std::string_view("def forward(").size()));
                    inSignature = !endsSignature(line);
                    if (!inSignature)
                        placeholders(signature);
                }
                continue;
            }
            if (body.empty()) {
                source_ = {}; // a blank line ends a "# File:" group
                continue;
            }
            const size_t indent = indentOf(line);
            if (indent < bodyIndent_)
                break; // the forward ended; what follows is another method or class
            if (indent > bodyIndent_)
                continue; // a nested submodule's body
            statement(body);
        }
        return std::move(nodes_);
    }

  private:
    static bool endsSignature(std::string_view line) {
        const std::string_view t = trim(line);
        return t.size() >= 2 && t.substr(t.size() - 2) == "):";
    }

    void placeholders(std::string_view signature) {
        // "self, L_x_: "f32[2, 5][5, 1]cpu", L_y_: ...):" without the final "):"
        const size_t close = signature.rfind("):");
        if (close != std::string_view::npos)
            signature = signature.substr(0, close);
        for (std::string_view param : splitTopLevel(signature, ',')) {
            std::string_view name = param;
            std::string_view annotation;
            if (const size_t colon = param.find(':'); colon != std::string_view::npos) {
                name = trim(param.substr(0, colon));
                annotation = trim(param.substr(colon + 1));
            }
            if (const size_t eq = name.find('='); eq != std::string_view::npos)
                name = trim(name.substr(0, eq));
            if (name.empty() || name == "self" || !isIdentifier(name))
                continue;
            GraphNode node;
            node.name = std::string(name);
            node.op = "placeholder";
            node.target = node.name;
            annotate(node, annotation);
            add(std::move(node));
        }
    }

    void statement(std::string_view body) {
        if (body.front() == '#') {
            comment(body);
            return;
        }
        if (body.rfind("return", 0) == 0) {
            GraphNode node;
            node.name = "output";
            node.op = "output";
            node.target = "output";
            node.inputs = references(body.substr(std::string_view("return").size()));
            add(std::move(node));
            return;
        }
        // Drop "; a = b = None" (FX freeing the values it no longer needs).
        if (const auto semicolons = topLevel(body, ';'); !semicolons.empty())
            body = trim(body.substr(0, semicolons.front()));
        const auto equals = topLevel(body, '=');
        const size_t assign = firstAssignment(body, equals);
        if (assign == std::string_view::npos)
            return;
        std::string_view left = trim(body.substr(0, assign));
        const std::string_view right = trim(body.substr(assign + 1));
        std::string_view annotation;
        if (const size_t colon = left.find(':'); colon != std::string_view::npos) {
            annotation = trim(left.substr(colon + 1));
            left = trim(left.substr(0, colon));
        }
        if (!isIdentifier(left))
            return;
        if (annotation.empty() && isIdentifier(right) && index_.count(std::string(right)) > 0) {
            alias(std::string(left), std::string(right));
            return;
        }
        GraphNode node;
        node.name = std::string(left);
        classify(node, right);
        annotate(node, annotation);
        node.file = source_.file;
        node.line = source_.line;
        node.inputs = references(right);
        add(std::move(node));
    }

    // The '=' that assigns: not part of "==", "<=", ">=", "!=" or a keyword argument.
    static size_t firstAssignment(std::string_view body, const std::vector<size_t>& equals) {
        for (size_t at : equals) {
            const char before = at > 0 ? body[at - 1] : ' ';
            const char after = at + 1 < body.size() ? body[at + 1] : ' ';
            if (after == '=' || before == '=' || before == '<' || before == '>' || before == '!')
                continue;
            return at;
        }
        return std::string_view::npos;
    }

    void comment(std::string_view body) {
        // "# File: /path/m.py:3 in f, code: y = x.sin()"
        constexpr std::string_view kFile = "# File: ";
        if (body.rfind(kFile, 0) != 0) {
            if (body.find("No stacktrace found") != std::string_view::npos)
                source_ = {};
            return;
        }
        std::string_view rest = body.substr(kFile.size());
        const size_t in = rest.find(" in ");
        const std::string_view where = in == std::string_view::npos ? rest : rest.substr(0, in);
        const size_t colon = where.rfind(':');
        if (colon == std::string_view::npos)
            return;
        int line = 0;
        for (char c : where.substr(colon + 1)) {
            // Not digits, or more than an int holds: not a source line.
            if (c < '0' || c > '9' || line > (std::numeric_limits<int>::max() - 9) / 10)
                return;
            line = line * 10 + (c - '0');
        }
        source_ = {std::string(where.substr(0, colon)), line};
    }

    void classify(GraphNode& node, std::string_view expr) {
        const size_t paren = expr.find('(');
        const std::string_view callee =
            paren == std::string_view::npos ? "" : expr.substr(0, paren);
        const bool plainCallee =
            !callee.empty() && std::all_of(callee.begin(), callee.end(),
                                           [](char c) { return isIdentChar(c) || c == '.'; });
        if (expr.rfind("self.", 0) == 0) {
            node.op = plainCallee ? "call_module" : "get_attr";
            node.target = std::string(plainCallee ? callee.substr(5) : expr.substr(5));
            return;
        }
        if (plainCallee) {
            const size_t dot = callee.find('.');
            const std::string receiver(callee.substr(0, dot));
            if (dot != std::string_view::npos && index_.count(resolve(receiver)) > 0) {
                node.op = "call_method";
                node.target = std::string(callee.substr(dot + 1));
            } else {
                node.op = "call_function";
                node.target = std::string(callee);
            }
            return;
        }
        node.op = "call_function";
        for (const auto& [symbol, name] : kInfix) {
            if (!topLevelFind(expr, symbol))
                continue;
            node.target = "operator." + std::string(name);
            return;
        }
        if (expr.find('[') != std::string_view::npos)
            node.target = "operator.getitem";
        else if (!expr.empty() && expr.front() == '-')
            node.target = "operator.neg";
        else
            node.target = std::string(expr.substr(0, 40));
    }

    static bool topLevelFind(std::string_view expr, std::string_view symbol) {
        size_t at = expr.find(symbol);
        while (at != std::string_view::npos) {
            int depth = 0;
            for (size_t i = 0; i < at; ++i) {
                if (expr[i] == '(' || expr[i] == '[')
                    ++depth;
                else if (expr[i] == ')' || expr[i] == ']')
                    --depth;
            }
            if (depth == 0)
                return true;
            at = expr.find(symbol, at + 1);
        }
        return false;
    }

    static void annotate(GraphNode& node, std::string_view annotation) {
        if (annotation.size() >= 2 && annotation.front() == '"' && annotation.back() == '"')
            annotation = annotation.substr(1, annotation.size() - 2);
        parseTypeAnnotation(annotation, node.shape, node.dtype);
    }

    // Names of earlier nodes the expression reads, each once, in order.
    std::vector<std::string> references(std::string_view expr) const {
        std::vector<std::string> found;
        char quote = 0;
        for (size_t i = 0; i < expr.size();) {
            const char c = expr[i];
            if (quote != 0) {
                if (c == quote)
                    quote = 0;
                ++i;
                continue;
            }
            if (c == '"' || c == '\'') {
                quote = c;
                ++i;
                continue;
            }
            if (!isIdentStart(c) || (i > 0 && (isIdentChar(expr[i - 1]) || expr[i - 1] == '.'))) {
                ++i;
                continue;
            }
            size_t end = i;
            while (end < expr.size() && isIdentChar(expr[end]))
                ++end;
            const std::string name = resolve(std::string(expr.substr(i, end - i)));
            if (index_.count(name) > 0 &&
                std::find(found.begin(), found.end(), name) == found.end())
                found.push_back(name);
            i = end;
        }
        return found;
    }

    std::string resolve(const std::string& name) const {
        const auto it = aliases_.find(name);
        return it == aliases_.end() ? name : it->second;
    }

    // "l_x_ = L_x_": FX names the placeholder l_x_ and keeps L_x_ as its target.
    void alias(const std::string& name, const std::string& of) {
        const std::string resolved = resolve(of);
        const auto it = index_.find(resolved);
        GraphNode& node = nodes_[it->second];
        if (node.op == "placeholder" && node.name == node.target) {
            index_.erase(it);
            node.name = name;
            index_[name] = static_cast<size_t>(&node - nodes_.data());
            aliases_[of] = name;
            return;
        }
        aliases_[name] = resolved;
    }

    void add(GraphNode node) {
        index_[node.name] = nodes_.size();
        nodes_.push_back(std::move(node));
    }

    std::vector<GraphNode> nodes_;
    std::map<std::string, size_t> index_;
    std::map<std::string, std::string> aliases_;
    Source source_;
    size_t bodyIndent_ = 0;
};

} // namespace

bool parseTypeAnnotation(std::string_view annotation, std::string& shape, std::string& dtype) {
    annotation = trim(annotation);
    if (annotation.rfind("Sym(", 0) == 0) {
        shape = std::string(annotation);
        dtype.clear();
        return true;
    }
    const size_t bracket = annotation.find('[');
    if (bracket == std::string_view::npos || bracket == 0)
        return false;
    const size_t close = annotation.find(']', bracket);
    if (close == std::string_view::npos)
        return false;
    const std::string_view shortType = annotation.substr(0, bracket);
    const auto& names = dtypeNames();
    const auto it = names.find(shortType);
    if (it == names.end())
        return false;
    dtype = std::string(it->second);
    shape = std::string(annotation.substr(bracket, close - bracket + 1));
    return true;
}

std::vector<GraphNode> parseGraphText(std::string_view text) {
    return GraphTextParser().run(text);
}

} // namespace cs::core::trace
