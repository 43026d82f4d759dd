#include "core/runner/app_paths.h"

#include <cstdlib>
#include <filesystem>
#include <set>
#include <sstream>
#include <system_error>
#include <unistd.h>

namespace fs = std::filesystem;

namespace cs::core {

namespace {

fs::path executableDir() {
    std::error_code ec;
    auto exe = fs::read_symlink("/proc/self/exe", ec);
    return ec ? fs::current_path() : exe.parent_path();
}

std::string env(const char* name) {
    const char* value = std::getenv(name);
    return value ? value : "";
}

// First existing path among: the source tree (build-time), then the install
// tree relative to the binary (bin/../share/compilescope/...).
std::string firstExisting(const std::vector<fs::path>& candidates) {
    for (const auto& p : candidates) {
        std::error_code ec;
        if (!p.empty() && fs::exists(p, ec))
            return p.string();
    }
    return {};
}

bool isExecutable(const fs::path& p) {
    std::error_code ec;
    return fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
}

} // namespace

std::string probeRoot() {
    if (auto e = env("COMPILESCOPE_PROBE_ROOT"); !e.empty())
        return e;
    return firstExisting({fs::path(COMPILESCOPE_SOURCE_DIR) / "probe",
                          executableDir() / "../share/compilescope/probe"});
}

std::string galleryDir() {
    return firstExisting({fs::path(COMPILESCOPE_SOURCE_DIR) / "resources/models",
                          executableDir() / "../share/compilescope/models"});
}

std::string demoModelPath() {
    auto dir = galleryDir();
    return dir.empty() ? std::string() : (fs::path(dir) / "mlp.py").string();
}

std::string cuptiLibraryPath() {
    if (auto e = env("COMPILESCOPE_CUPTI_LIB"); !e.empty())
        return e;
    return firstExisting(
        {fs::path(COMPILESCOPE_BINARY_DIR) / "probe/cupti/libcompilescope_cupti.so",
         executableDir() / "../lib/compilescope/libcompilescope_cupti.so"});
}

std::string findOnPath(const std::string& program) {
    std::stringstream path(env("PATH"));
    std::string dir;
    while (std::getline(path, dir, ':')) {
        if (dir.empty())
            continue;
        fs::path candidate = fs::path(dir) / program;
        if (isExecutable(candidate))
            return candidate.string();
    }
    return {};
}

std::string defaultPython() {
    if (auto e = env("COMPILESCOPE_PYTHON"); !e.empty())
        return e;
    fs::path venv = fs::path(COMPILESCOPE_SOURCE_DIR) / ".venv/bin/python";
    if (isExecutable(venv))
        return venv.string();
    auto onPath = findOnPath("python3");
    return onPath.empty() ? "python3" : onPath;
}

std::vector<std::string> candidatePythons() {
    std::vector<std::string> out;
    std::set<std::string> seen;
    auto add = [&](const fs::path& p) {
        if (isExecutable(p) && seen.insert(p.string()).second)
            out.push_back(p.string());
    };
    add(fs::path(COMPILESCOPE_SOURCE_DIR) / ".venv/bin/python");
    if (auto v = env("VIRTUAL_ENV"); !v.empty())
        add(fs::path(v) / "bin/python");
    if (auto c = env("CONDA_PREFIX"); !c.empty())
        add(fs::path(c) / "bin/python");
    for (const char* root : {"miniconda3", "anaconda3", "miniforge3", "mambaforge"}) {
        fs::path envs = fs::path(env("HOME")) / root / "envs";
        std::error_code ec;
        if (!fs::is_directory(envs, ec))
            continue;
        add(fs::path(env("HOME")) / root / "bin/python");
        for (const auto& entry : fs::directory_iterator(envs, ec))
            add(entry.path() / "bin/python");
    }
    if (auto p = findOnPath("python3"); !p.empty())
        add(p);
    return out;
}

} // namespace cs::core
