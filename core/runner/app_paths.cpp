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

// First existing path among the candidates (empty ones are skipped).
std::string firstExisting(const std::vector<fs::path>& candidates) {
    for (const auto& p : candidates) {
        std::error_code ec;
        if (!p.empty() && fs::exists(p, ec))
            return p.string();
    }
    return {};
}

// The prefix this binary is installed under (PREFIX/bin/compilescope with the
// probe in PREFIX/share/compilescope/probe), else empty: a build tree. An
// installed binary uses only its own tree, never the source tree it was built
// from, which may be a different version or gone.
const fs::path& installPrefix() {
    static const fs::path prefix = [] {
        fs::path p = executableDir();
        for (const auto& part : fs::path(COMPILESCOPE_INSTALL_BINDIR)) {
            (void)part;
            p = p.parent_path();
        }
        std::error_code ec;
        const auto probe =
            p / COMPILESCOPE_INSTALL_DATADIR / "compilescope/probe/compilescope_probe";
        return fs::is_directory(probe, ec) ? p : fs::path();
    }();
    return prefix;
}

bool installed() {
    return !installPrefix().empty();
}

fs::path installedData(const char* relative) {
    return installPrefix() / COMPILESCOPE_INSTALL_DATADIR / "compilescope" / relative;
}

bool isExecutable(const fs::path& p) {
    std::error_code ec;
    return fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
}

} // namespace

std::string probeRoot() {
    if (auto e = env("COMPILESCOPE_PROBE_ROOT"); !e.empty())
        return e;
    if (installed())
        return firstExisting({installedData("probe")});
    return firstExisting({fs::path(COMPILESCOPE_SOURCE_DIR) / "probe"});
}

std::string galleryDir() {
    if (installed())
        return firstExisting({installedData("models")});
    return firstExisting({fs::path(COMPILESCOPE_SOURCE_DIR) / "resources/models"});
}

std::string demoModelPath() {
    auto dir = galleryDir();
    return dir.empty() ? std::string() : (fs::path(dir) / "mlp.py").string();
}

std::string cuptiLibraryPath() {
    if (auto e = env("COMPILESCOPE_CUPTI_LIB"); !e.empty())
        return e;
    if (installed())
        return firstExisting(
            {installPrefix() / COMPILESCOPE_INSTALL_CUPTIDIR / "libcompilescope_cupti.so"});
    return firstExisting(
        {fs::path(COMPILESCOPE_BINARY_DIR) / "probe/cupti/libcompilescope_cupti.so"});
}

std::string aotiRunnerPath() {
    if (auto e = env("COMPILESCOPE_AOTI_RUNNER"); !e.empty())
        return e;
    if (installed())
        return firstExisting(
            {installPrefix() / COMPILESCOPE_INSTALL_CUPTIDIR / "compilescope-aoti-runner"});
    return firstExisting(
        {fs::path(COMPILESCOPE_BINARY_DIR) / "probe/aoti_runner/compilescope-aoti-runner"});
}

std::string cuptiSourceDir() {
    if (installed())
        return {};
    return firstExisting({fs::path(COMPILESCOPE_SOURCE_DIR) / "probe/cupti"});
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
    // The source tree's venv only for a build-tree binary.
    fs::path venv = fs::path(COMPILESCOPE_SOURCE_DIR) / ".venv/bin/python";
    if (!installed() && isExecutable(venv))
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
    if (!installed())
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
