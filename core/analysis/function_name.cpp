#include "core/analysis/function_name.h"

#include <cctype>

namespace cs::core {

namespace {

constexpr std::string_view kResumePrefix = "torch_dynamo_resume_in_";

// Splits "<inner>_at_<digits>" into inner and the line; false when it does not end so.
bool splitLine(std::string_view s, std::string_view& inner, int& line) {
    const size_t at = s.rfind("_at_");
    if (at == std::string_view::npos || at + 4 >= s.size())
        return false;
    int value = 0;
    for (char c : s.substr(at + 4)) {
        if (std::isdigit(static_cast<unsigned char>(c)) == 0 || value > 100'000'000)
            return false;
        value = value * 10 + (c - '0');
    }
    inner = s.substr(0, at);
    line = value;
    return !inner.empty();
}

} // namespace

UserFunction userFunction(std::string_view raw) {
    // Python 3.11+ qualnames may prefix the class: "Net.torch_dynamo_resume_in_forward_at_14".
    std::string_view qualifier;
    std::string_view name = raw;
    if (const size_t dot = raw.rfind('.'); dot != std::string_view::npos) {
        qualifier = raw.substr(0, dot + 1);
        name = raw.substr(dot + 1);
    }
    UserFunction out;
    // A resume function of a resume function nests the prefix; the outermost
    // line is the latest break.
    while (name.substr(0, kResumePrefix.size()) == kResumePrefix) {
        std::string_view inner;
        int line = 0;
        if (!splitLine(name.substr(kResumePrefix.size()), inner, line))
            break;
        if (out.afterLine == 0)
            out.afterLine = line;
        name = inner;
    }
    out.name = std::string(qualifier) + std::string(name);
    return out;
}

std::string functionLabel(std::string_view raw) {
    const UserFunction f = userFunction(raw);
    if (f.afterLine <= 0)
        return f.name;
    return f.name + " (after the break at line " + std::to_string(f.afterLine) + ")";
}

std::string functionName(std::string_view raw) {
    return userFunction(raw).name;
}

bool namesFunction(std::string_view name, std::string_view function) {
    return name == function ||
           (name.size() > function.size() && name[name.size() - function.size() - 1] == '.' &&
            name.substr(name.size() - function.size()) == function);
}

std::string frameId(const std::string& reason) {
    const size_t colon = reason.find(':');
    const size_t slash = reason.find('/');
    if (colon == std::string::npos || slash == std::string::npos || slash > colon)
        return {};
    std::string id = reason.substr(0, slash);
    if (!id.empty() && id.front() == '[')
        id.erase(0, 1);
    return id;
}

std::string recompiledFunction(const Run& run, const Recompile& recompile) {
    if (!recompile.function.empty() || !recompile.limitHit)
        return recompile.function;
    const std::string frame = frameId(recompile.reason);
    std::string found;
    for (const auto& rc : run.recompiles) {
        if (rc.function.empty() || frame.empty() || frameId(rc.reason) != frame)
            continue;
        if (!found.empty() && found != rc.function)
            return {};
        found = rc.function;
    }
    return found;
}

} // namespace cs::core
