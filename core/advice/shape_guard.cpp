#include "core/advice/shape_guard.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <limits>
#include <optional>
#include <regex>
#include <set>
#include <tuple>
#include <utility>

#include "core/advice/advice_text.h"
#include "core/report/text_lines.h"

namespace cs::core::advice {

namespace {

// The source torch names after a guard: "...  # if k not in self.cache:  #
// mp/m.py:304 in get" (the path cut by torch) gives the code and "m.py:304 in get".
// A guard line's compile id, "0/7: " (torch may bracket it), and the name of
// what it guards: "self.calls", "L['scale']", a module global "G['STEP']", a
// submodule's "self._modules['drop'].training".
constexpr const char* kGuardPrefix = R"(^(?:\[?\d+/\d+\]?: )?)";
// torch's comment on a duck-sizing guard (torch 2.15's words).
constexpr const char* kDuckSizing = "duck sizing added this equality";
constexpr const char* kGuardedName =
    R"((?:[A-Za-z_]\w*|[LG]\['[^'\n]+'\])(?:\.\w+|\[(?:'[^'\n]*'|\d+)\])*)";

void guardSource(const std::string& reason, std::string& code, std::string& where) {
    static const std::regex source(R"(^[^\n#]*#\s*([^\n#]*?)\s*#\s*(?:\S*/)?([^/\s]+:\d+ in \w+))");
    std::smatch src;
    if (std::regex_search(reason, src, source)) {
        code = src[1].str();
        where = src[2].str();
    }
}

// guardExpression without torch's compile id: "16 <= tokens.size()[1]".
std::string guardCondition(const std::string& line) {
    static const std::regex prefix(kGuardPrefix);
    return std::regex_replace(guardExpression(line), prefix, "",
                              std::regex_constants::format_first_only);
}

// Where the guard comes from in the user's code: torch names the innermost
// frame ("nn/modules/container.py:561 in __getitem__" for self.heads[task]),
// while the user stack trace's innermost frame outside installed packages
// is the line the user wrote. Replaces code and where with it when they differ.
void preferUserFrame(const std::string& reason, std::string& code, std::string& where) {
    static const std::regex frame(R"re(File "([^"\n]+)", line (\d+), in (\w+)\n[ \t]*([^\n]*))re");
    std::string userCode;
    std::string userWhere;
    for (auto it = std::sregex_iterator(reason.begin(), reason.end(), frame);
         it != std::sregex_iterator(); ++it) {
        const std::string file = (*it)[1].str();
        if (file.find("site-packages/") != std::string::npos ||
            file.find("dist-packages/") != std::string::npos)
            continue;
        const size_t slash = file.rfind('/');
        userCode = (*it)[4].str();
        userWhere = (slash == std::string::npos ? file : file.substr(slash + 1)) + ":" +
                    (*it)[2].str() + " in " + (*it)[3].str();
    }
    if (!userWhere.empty() && userWhere != where && !userCode.empty()) {
        code = userCode;
        where = userWhere;
    }
}

// The whole path of the guard's line ("poolers.py:309 in forward"), from the
// user stack trace torch adds below the guard; empty when it has none.
std::pair<std::string, int> guardFile(const std::string& reason, const std::string& where) {
    static const std::regex frame(R"re(File "([^"\n]+)", line (\d+), in (\w+))re");
    for (auto it = std::sregex_iterator(reason.begin(), reason.end(), frame);
         it != std::sregex_iterator(); ++it) {
        const std::string file = (*it)[1].str();
        const size_t slash = file.rfind('/');
        const std::string name = slash == std::string::npos ? file : file.substr(slash + 1);
        if (name + ":" + (*it)[2].str() + " in " + (*it)[3].str() == where)
            return {file, lineNumber((*it)[2].str())};
    }
    return {};
}

// A module global as the guard reads it: "G['__import___main__'].stats" and
// "G['stats']" are the model file's `stats`.
std::string globalName(const std::string& name) {
    static const std::regex imported(R"(^G\['__import_[^'\n]*'\]\.)");
    static const std::regex global(R"(^G\['([^'\n]+)'\])");
    std::string out = std::regex_replace(name, imported, "");
    return std::regex_replace(out, global, "$1");
}

} // namespace

std::optional<ShapeGuardFailure> parseShapeGuard(const std::string& reason) {
    const std::string bounded = regexInput(reason);
    // torch 2.x: "0/1: tensor 'tokens' size mismatch at index 1. expected 32, actual 16"
    static const std::regex mismatch(
        R"(tensor '(.+?)' (size|stride) mismatch at index (\d+)\. expected (\d+), actual (\d+))");
    std::smatch m;
    if (std::regex_search(bounded, m, mismatch)) {
        const auto dim = number(m[3].str(), std::numeric_limits<int>::max());
        const auto expected = number(m[4].str());
        const auto actual = number(m[5].str());
        if (!dim || !expected || !actual)
            return std::nullopt;
        return ShapeGuardFailure{m[1].str(), m[2].str(), static_cast<int>(*dim), *expected,
                                 *actual};
    }
    // Older guards print the failed check: "L['x'].size()[1] == 32".
    static const std::regex check(R"((\w+\['[^'\n]+'\])\.(size|stride)\(\)\[(\d+)\] == (\d+))");
    if (std::regex_search(bounded, m, check)) {
        const auto dim = number(m[3].str(), std::numeric_limits<int>::max());
        const auto expected = number(m[4].str());
        if (!dim || !expected)
            return std::nullopt;
        return ShapeGuardFailure{m[1].str(), m[2].str(), static_cast<int>(*dim), *expected, -1};
    }
    return std::nullopt;
}

std::optional<ValueGuardFailure> parseValueGuard(const std::string& reason) {
    const std::string bounded = regexInput(reason);
    // "0/7: self.calls == 7     # self.calls += 1  # counter.py:10 in forward (HINT: ...)";
    // a module global reads "G['STEP'] == 3", a submodule's mode
    // "self._modules['drop'].training == True"
    static const std::regex guard(
        std::string(kGuardPrefix) + "(" + kGuardedName +
        R"() == (-?[0-9][0-9.e+-]*|True|False|'[^'\n]*'|"[^"\n]*")(?:\s|$))");
    std::smatch m;
    if (!std::regex_search(bounded, m, guard))
        return std::nullopt;
    const std::string name = m[1].str();
    const bool global = name.rfind("G[", 0) == 0;
    // A submodule's attribute reads "self._modules['drop'].training": "self.drop.training".
    ValueGuardFailure out{
        global ? globalName(name) : modulePath(name), m[2].str(), {}, {}, {}, global};
    guardSource(bounded, out.code, out.where);
    preferUserFrame(bounded, out.code, out.where);
    static const std::regex hint(R"(\(HINT: ([^\n]*)\))");
    std::smatch h;
    if (std::regex_search(bounded, h, hint))
        out.hint = h[1].str();
    return out;
}

std::string modulePath(const std::string& name) {
    static const std::regex module(R"(\._modules\['([^'\n]+)'\])");
    std::string out;
    auto begin = std::sregex_iterator(name.begin(), name.end(), module);
    size_t last = 0;
    for (auto it = begin; it != std::sregex_iterator(); ++it) {
        const auto& m = *it;
        out += name.substr(last, static_cast<size_t>(m.position(0)) - last);
        const std::string part = m[1].str();
        const bool index = !part.empty() && std::all_of(part.begin(), part.end(), [](char c) {
            return std::isdigit(static_cast<unsigned char>(c)) != 0;
        });
        out += index ? "[" + part + "]" : "." + part;
        last = static_cast<size_t>(m.position(0) + m.length(0));
    }
    out += name.substr(last);
    if (out.rfind("L['self']", 0) == 0)
        out = "self" + out.substr(9);
    return out;
}

std::optional<DictKeyGuardFailure> parseDictKeyGuard(const std::string& reason) {
    const std::string bounded = regexInput(reason);
    // "0/0: not ___dict_contains('cpu', self._modules['a'].cache)  # if k not in
    // self.cache:  # m.py:304 in get (HINT: ...)"
    static const std::regex guard(
        std::string(kGuardPrefix) +
        R"((not )?___dict_contains\(('[^'\n]*'|"[^"\n]*"|-?\d+), ([^\s()]+)\))");
    std::smatch m;
    if (!std::regex_search(bounded, m, guard))
        return std::nullopt;
    DictKeyGuardFailure out;
    out.added = m[1].matched;
    out.key = m[2].str();
    out.dict = globalName(modulePath(m[3].str()));
    guardSource(bounded, out.code, out.where);
    return out;
}

namespace {

// "DispatchKeySet(CPU, BackendSelect, AutogradCPU)" → its keys.
std::set<std::string> dispatchKeys(const std::string& set) {
    static const std::regex key(R"(\w+)");
    std::set<std::string> keys;
    const size_t open = set.find('(');
    const std::string inside = open == std::string::npos ? set : set.substr(open + 1);
    for (auto it = std::sregex_iterator(inside.begin(), inside.end(), key);
         it != std::sregex_iterator(); ++it)
        keys.insert(it->str());
    return keys;
}

// The keys one set has and the other lacks: "AutogradCPU", "no AutogradCPU".
std::string keysDiffering(const std::set<std::string>& mine, const std::set<std::string>& other) {
    std::string has;
    std::string lacks;
    for (const auto& k : mine)
        if (other.count(k) == 0)
            has += (has.empty() ? "" : ", ") + k;
    for (const auto& k : other)
        if (mine.count(k) == 0)
            lacks += (lacks.empty() ? "no " : ", ") + k;
    return has.empty() ? lacks : lacks.empty() ? has : has + "; " + lacks;
}

} // namespace

std::optional<TensorKindGuardFailure> parseTensorKindGuard(const std::string& reason) {
    const std::string bounded = regexInput(reason);
    // An inference-mode tensor lacks the autograd keys: "tensor 'x' dispatch key set
    // mismatch. expected DispatchKeySet(CPU, …, AutogradCPU), actual DispatchKeySet(CPU, …)".
    static const std::regex keys(
        R"(tensor '(.+?)' dispatch key set mismatch\. expected (DispatchKeySet\([^)\n]*\)), actual (DispatchKeySet\([^)\n]*\)))");
    std::smatch k;
    if (std::regex_search(bounded, k, keys)) {
        const auto expected = dispatchKeys(k[2].str());
        const auto actual = dispatchKeys(k[3].str());
        return TensorKindGuardFailure{k[1].str(), "dispatch keys", keysDiffering(expected, actual),
                                      keysDiffering(actual, expected)};
    }
    static const std::regex guard(
        R"(tensor '(.+?)' (dtype|requires_grad|device|rank) mismatch\. expected ([^,\n]+?)(?:, actual ([^\n]+?))?\s*(?:\n|$))");
    std::smatch m;
    if (!std::regex_search(bounded, m, guard))
        return std::nullopt;
    TensorKindGuardFailure out{m[1].str(), m[2].str(), m[3].str(), m[4].str()};
    if (out.property == "requires_grad") { // "requires_grad=0": the other is the only other
        const bool had = out.expected.back() == '1';
        out.expected = had ? "True" : "False";
        out.actual = had ? "False" : "True";
    }
    return out;
}

std::optional<NoneGuardFailure> parseNoneGuard(const std::string& reason) {
    const std::string bounded = regexInput(reason);
    static const std::regex guard(std::string(kGuardPrefix) + "(" + kGuardedName +
                                  R"() is (not )?None(?:\s|$))");
    std::smatch m;
    if (!std::regex_search(bounded, m, guard) || m[1].str().rfind("___", 0) == 0)
        return std::nullopt;
    NoneGuardFailure out;
    out.name = globalName(modulePath(m[1].str()));
    out.compiledNone = !m[2].matched;
    guardSource(bounded, out.code, out.where);
    std::tie(out.file, out.line) = guardFile(bounded, out.where);
    return out;
}

std::optional<std::vector<std::string>> parseGlobalStateGuard(const std::string& reason) {
    const std::string bounded = regexInput(reason);
    static const std::regex guard(std::string(kGuardPrefix) + R"(GLOBAL_STATE changed: ([^\n]*))");
    std::smatch m;
    if (!std::regex_search(bounded, m, guard))
        return std::nullopt;
    std::vector<std::string> states;
    static const std::regex word(R"(\S+)");
    const std::string names = m[1].str();
    for (auto it = std::sregex_iterator(names.begin(), names.end(), word);
         it != std::sregex_iterator(); ++it)
        states.push_back(it->str());
    return states;
}

std::optional<TypeGuardFailure> parseTypeGuard(const std::string& reason) {
    const std::string bounded = regexInput(reason);
    static const std::regex guard(
        std::string(kGuardPrefix) +
        R"re(___check_type_id\(([^\s,()]+), \d+\)(?:, type=<class '([\w.]+)'>)?)re");
    std::smatch m;
    if (!std::regex_search(bounded, m, guard))
        return std::nullopt;
    TypeGuardFailure out;
    out.name = modulePath(m[1].str());
    out.type = m[2].str();
    if (const size_t dot = out.type.rfind('.'); dot != std::string::npos)
        out.type.erase(0, dot + 1);
    guardSource(bounded, out.code, out.where);
    return out;
}

std::optional<LengthGuardFailure> parseLengthGuard(const std::string& reason) {
    const std::string bounded = regexInput(reason);
    // "0/1: len(G['__import___main__'].stats) == 1  # stats.append(y)  # m.py:7 in record"
    static const std::regex length(std::string(kGuardPrefix) +
                                   R"(len\(([^\s()]+)\) == (\d+)(?:\s|$))");
    static const std::regex empty(std::string(kGuardPrefix) + R"(not ([^\s()]+)(?:\s|$))");
    std::smatch m;
    LengthGuardFailure out;
    if (std::regex_search(bounded, m, length)) {
        const auto count = number(m[2].str());
        if (!count)
            return std::nullopt;
        out.length = *count;
    } else if (std::regex_search(bounded, m, empty) && m[1].str().rfind("___", 0) != 0) {
        out.emptiness = true;
    } else {
        return std::nullopt;
    }
    out.container = globalName(modulePath(m[1].str()));
    guardSource(bounded, out.code, out.where);
    // The user stack trace's innermost frame: `File "/p/m.py", line 7, in record`.
    static const std::regex frame(R"re(File "([^"\n]+)", line (\d+))re");
    for (auto it = std::sregex_iterator(bounded.begin(), bounded.end(), frame);
         it != std::sregex_iterator(); ++it) {
        out.file = (*it)[1].str();
        out.line = lineNumber((*it)[2].str());
    }
    return out;
}

namespace {

// "[2, 17]" → {2, 17}; nullopt for anything else ("int", "[s0, 4]").
std::optional<std::vector<int64_t>> parseSizes(std::string_view text) {
    while (!text.empty() && text.front() == ' ')
        text.remove_prefix(1);
    if (text.size() < 2 || text.front() != '[' || text.back() != ']')
        return std::nullopt;
    text = text.substr(1, text.size() - 2);
    std::vector<int64_t> sizes;
    while (!text.empty()) {
        while (!text.empty() && text.front() == ' ')
            text.remove_prefix(1);
        int64_t value = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (ec != std::errc() || end == text.data())
            return std::nullopt;
        sizes.push_back(value);
        text.remove_prefix(static_cast<size_t>(end - text.data()));
        if (!text.empty()) {
            if (text.front() != ',')
                return std::nullopt;
            text.remove_prefix(1);
        }
    }
    return sizes;
}

} // namespace

InputSizes parseInputShapes(const std::string& text) {
    InputSizes out;
    if (text.empty())
        return out;
    // Split at the commas between inputs, not those inside a shape.
    int depth = 0;
    size_t start = 0;
    for (size_t i = 0; i <= text.size(); ++i) {
        if (i == text.size() || (text[i] == ',' && depth == 0)) {
            out.push_back(parseSizes(std::string_view(text).substr(start, i - start)));
            start = i + 1;
        } else if (text[i] == '[') {
            ++depth;
        } else if (text[i] == ']') {
            --depth;
        }
    }
    return out;
}

NamedInputs parseModelInputs(const std::vector<std::string>& inputs) {
    NamedInputs out;
    for (const auto& input : inputs) {
        const size_t colon = input.find(": ");
        out.names.push_back(colon == std::string::npos ? std::string() : input.substr(0, colon));
        const size_t open = input.find('[', colon == std::string::npos ? 0 : colon);
        out.sizes.push_back(open == std::string::npos
                                ? std::nullopt
                                : parseSizes(std::string_view(input).substr(open)));
    }
    return out;
}

std::optional<DuckSizeGuardFailure> parseDuckSizeGuard(const std::string& reason) {
    const std::string line = firstLine(regexInput(reason));
    if (line.find(kDuckSizing) == std::string::npos)
        return std::nullopt;
    const std::string expression = guardCondition(line);
    static const std::regex equality(
        R"(^(?:L\['(\w+)'\]|([A-Za-z_][\w.\[\]']*))\.size\(\)\[(\d+)\] == )"
        R"((?:L\['(\w+)'\]|([A-Za-z_][\w.\[\]']*))\.size\(\)\[(\d+)\]$)");
    std::smatch m;
    if (!std::regex_match(expression, m, equality))
        return std::nullopt;
    DuckSizeGuardFailure out;
    out.tensor = m[1].matched ? m[1].str() : m[2].str();
    out.dim = static_cast<int>(number(m[3].str(), std::numeric_limits<int>::max()).value_or(-1));
    out.otherTensor = m[4].matched ? m[4].str() : m[5].str();
    out.otherDim =
        static_cast<int>(number(m[6].str(), std::numeric_limits<int>::max()).value_or(-1));
    if (out.dim < 0 || out.otherDim < 0)
        return std::nullopt;
    static const std::regex size(R"(had the same size (\d+))");
    if (std::regex_search(line, m, size))
        out.size = number(m[1].str(), std::numeric_limits<int64_t>::max()).value_or(-1);
    out.expression = expression;
    return out;
}

std::optional<DerivedSizeGuardFailure> parseDerivedSizeGuard(const std::string& reason) {
    const std::string line = firstLine(regexInput(reason));
    // "2 <= x.size()[1]  # ... due to 0/1 specialization in the framework":
    // torch's own, not a branch of the code (torch 2.15's words).
    if (line.find("0/1 specialization") != std::string::npos ||
        line.find(kDuckSizing) != std::string::npos)
        return std::nullopt;
    const std::string expression = guardCondition(line);
    static const std::regex size(R"((?:L\['(\w+)'\]|([A-Za-z_]\w*))\.size\(\)\[(\d+)\])");
    std::smatch m;
    if (!std::regex_search(expression, m, size))
        return std::nullopt;
    DerivedSizeGuardFailure out;
    out.tensor = m[1].matched ? m[1].str() : m[2].str();
    out.dim = static_cast<int>(number(m[3].str(), std::numeric_limits<int>::max()).value_or(-1));
    if (out.dim < 0)
        return std::nullopt;
    out.expression = expression;
    std::string code;
    guardSource(line, code, out.where);
    static const std::regex convolution(R"(\(\S*_subclasses/fake_impls\.py:\d+ in conv\)\s*$)");
    out.convolutionBackend = std::regex_search(line, convolution);
    return out;
}

} // namespace cs::core::advice
