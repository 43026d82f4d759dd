// What is wrong with a Python interpreter the user picked, found without
// starting it (a folder, no execute permission, not there) or from its
// `--version` answer (Python 2, or a Python 3 older than the probe needs).
// Qt-free: the runner, the interpreter picker and the CLI share the words.
#pragma once

#include <optional>
#include <string>

namespace cs::core {

// The oldest Python the probe parses (pyproject.toml).
inline constexpr int kMinPythonMajor = 3;
inline constexpr int kMinPythonMinor = 9;

// Why `path` cannot be started as a program, in words with what to do; empty
// when nothing is visibly wrong (it exists and is executable, or is a bare
// name found on PATH).
std::string interpreterStartProblem(const std::string& path);

// The version in a `python --version` answer ("Python 2.7.18" on stdout or
// stderr): {major, minor}; nullopt when it names none.
std::optional<std::pair<int, int>> parsePythonVersion(const std::string& versionOutput);

// When `versionOutput` names a Python older than the probe needs: why, and
// what to pick instead; nullopt otherwise.
std::optional<std::string> pythonTooOld(const std::string& path, const std::string& versionOutput);

} // namespace cs::core
