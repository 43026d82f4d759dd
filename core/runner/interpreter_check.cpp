#include "core/runner/interpreter_check.h"

#include <cerrno>
#include <cstdlib>
#include <regex>
#include <string_view>

#include <sys/stat.h>
#include <unistd.h>

#include "core/report/text_lines.h"

namespace cs::core {

namespace {

bool isExecutableFile(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
           ::access(path.c_str(), X_OK) == 0;
}

// A bare name ("python3") is looked up on PATH, as the process start does.
bool onPath(const std::string& name) {
    const char* path = std::getenv("PATH");
    if (!path)
        return false;
    std::string_view rest(path);
    while (true) {
        const auto colon = rest.find(':');
        std::string dir(rest.substr(0, colon));
        if (dir.empty())
            dir = ".";
        if (isExecutableFile(dir + "/" + name))
            return true;
        if (colon == std::string_view::npos)
            return false;
        rest.remove_prefix(colon + 1);
    }
}

} // namespace

std::string interpreterStartProblem(const std::string& path) {
    const std::string quoted = "\"" + path + "\"";
    if (path.empty())
        return "No Python interpreter was given: pick one (a virtual environment's bin/python, "
               "or python3).";
    if (path.find('/') == std::string::npos) {
        if (onPath(path))
            return {};
        return quoted + " is not on PATH: give the interpreter's full path (e.g. "
                        "/path/to/venv/bin/python), or pick another interpreter.";
    }
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        if (errno == EACCES)
            return quoted + " cannot be reached: a folder on its path is not readable "
                            "(permission denied). Pick another interpreter.";
        return quoted + " does not exist. Check the path, or pick another interpreter.";
    }
    if (S_ISDIR(st.st_mode)) {
        std::string inside = path;
        while (inside.size() > 1 && inside.back() == '/')
            inside.pop_back();
        for (const char* name : {"/bin/python", "/bin/python3", "/python", "/python3"}) {
            if (isExecutableFile(inside + name))
                return quoted +
                       " is a folder, not a Python interpreter: pick the Python inside "
                       "it, \"" +
                       inside + name + "\".";
        }
        return quoted + " is a folder, not a Python interpreter: pick the python program itself "
                        "(for a virtual environment, its bin/python).";
    }
    if (!S_ISREG(st.st_mode))
        return quoted + " is not a regular file, so it cannot be a Python interpreter. Pick "
                        "another interpreter.";
    if (::access(path.c_str(), X_OK) != 0)
        return quoted +
               " is not executable (it lacks execute permission): make it so with "
               "chmod +x " +
               quoted + ", or pick another interpreter.";
    return {};
}

std::optional<std::pair<int, int>> parsePythonVersion(const std::string& versionOutput) {
    static const std::regex version(R"(Python\s+(\d+)\.(\d+))");
    const std::string text = regexInput(versionOutput); // an interpreter may print anything
    std::smatch match;
    if (!std::regex_search(text, match, version))
        return std::nullopt;
    return std::pair{std::stoi(match[1].str()), std::stoi(match[2].str())};
}

std::optional<std::string> pythonTooOld(const std::string& path, const std::string& versionOutput) {
    const auto version = parsePythonVersion(versionOutput);
    if (!version || *version >= std::pair{kMinPythonMajor, kMinPythonMinor})
        return std::nullopt;
    const std::string named =
        "Python " + std::to_string(version->first) + "." + std::to_string(version->second);
    return "\"" + path + "\" is " + named + "; compilescope's probe (and torch.compile) needs " +
           "Python " + std::to_string(kMinPythonMajor) + "." + std::to_string(kMinPythonMinor) +
           " or newer. Pick a Python 3 interpreter: python3, or the bin/python of a virtual "
           "environment that has torch.";
}

} // namespace cs::core
