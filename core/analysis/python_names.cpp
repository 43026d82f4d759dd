#include "core/analysis/python_names.h"

#include <algorithm>
#include <cctype>
#include <string_view>

namespace cs::core {

namespace {

constexpr std::string_view kCompileCall = "torch.compile(";

bool isIndex(const std::string& part) {
    return !part.empty() && std::all_of(part.begin(), part.end(),
                                        [](unsigned char c) { return std::isdigit(c) != 0; });
}

// The arguments of "torch.compile(mode=...)"; "" for a call of another shape.
std::string compileArguments(const std::string& call) {
    if (call.rfind(kCompileCall, 0) != 0 || call.back() != ')')
        return "";
    return call.substr(kCompileCall.size(), call.size() - kCompileCall.size() - 1);
}

// "torch.compile(model.forward, mode=...)": the call with what it compiled.
std::string compiling(const std::string& target, const std::string& call) {
    const std::string arguments = compileArguments(call);
    return std::string(kCompileCall) + target + (arguments.empty() ? "" : ", " + arguments) + ")";
}

} // namespace

std::string pythonAccess(const std::string& path) {
    std::string out = "model";
    if (path.empty())
        return out;
    size_t from = 0;
    while (from <= path.size()) {
        const size_t dot = std::min(path.find('.', from), path.size());
        const std::string part = path.substr(from, dot - from);
        out += isIndex(part) ? "[" + part + "]" : "." + part;
        from = dot + 1;
    }
    return out;
}

std::string moduleName(const std::string& path) {
    return isIndex(path.substr(0, path.find('.'))) ? pythonAccess(path) : path;
}

std::string ownCompileText(const OwnCompile& call) {
    if (call.how == "Module.compile") // takes torch.compile's arguments
        return pythonAccess(call.where) + ".compile(" + compileArguments(call.call) + ")";
    if (call.how == "attribute") {
        const std::string target = pythonAccess(call.where);
        return target + " = " + compiling(target, call.call);
    }
    if (call.how == "decorator")
        return "@" + call.call + " on " + call.where;
    return call.where + " returns " + compiling("model", call.call);
}

} // namespace cs::core
