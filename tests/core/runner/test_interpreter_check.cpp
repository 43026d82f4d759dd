// What is wrong with an interpreter path, found before starting it or from
// its --version (core/runner/interpreter_check.h).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "core/runner/interpreter_check.h"

using namespace cs::core;
namespace fs = std::filesystem;

namespace {

struct TempDir {
    fs::path path;
    TempDir() {
        std::string tmpl = (fs::temp_directory_path() / "cs_interp_XXXXXX").string();
        path = ::mkdtemp(tmpl.data());
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
};

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

} // namespace

TEST(InterpreterCheck, AFolderIsNamedWithThePythonInsideIt) {
    TempDir dir;
    const auto plain = interpreterStartProblem(dir.path.string());
    EXPECT_TRUE(contains(plain, "is a folder, not a Python interpreter")) << plain;
    // A virtual environment's folder: its bin/python is what to pick.
    fs::create_directories(dir.path / "bin");
    fs::create_symlink("/bin/sh", dir.path / "bin" / "python");
    const auto venv = interpreterStartProblem(dir.path.string() + "/");
    EXPECT_TRUE(contains(venv, "\"" + (dir.path / "bin" / "python").string() + "\"")) << venv;
}

TEST(InterpreterCheck, AFileWithoutExecutePermissionSaysChmod) {
    TempDir dir;
    const auto path = (dir.path / "python").string();
    std::ofstream(path) << "#!/bin/sh\n";
    fs::permissions(path, fs::perms::owner_read | fs::perms::owner_write);
    const auto problem = interpreterStartProblem(path);
    EXPECT_TRUE(contains(problem, "is not executable")) << problem;
    EXPECT_TRUE(contains(problem, "chmod +x \"" + path + "\"")) << problem;
    fs::permissions(path, fs::perms::owner_all);
    EXPECT_EQ(interpreterStartProblem(path), "");
}

TEST(InterpreterCheck, MissingPathsAndNamesNotOnPath) {
    EXPECT_TRUE(contains(interpreterStartProblem("/no/such/python"), "does not exist"));
    EXPECT_TRUE(contains(interpreterStartProblem("no-such-python-here"), "is not on PATH"));
    EXPECT_EQ(interpreterStartProblem("sh"), "");
}

TEST(InterpreterCheck, PythonTwoAndOldPythonThreeAreRefused) {
    EXPECT_EQ(parsePythonVersion("Python 2.7.18\n"), (std::pair{2, 7}));
    EXPECT_EQ(parsePythonVersion("Python 3.12.1+"), (std::pair{3, 12}));
    EXPECT_FALSE(parsePythonVersion("bash: python: command not found"));
    const auto two = pythonTooOld("/usr/bin/python2", "Python 2.7.18");
    ASSERT_TRUE(two);
    EXPECT_TRUE(contains(*two, "\"/usr/bin/python2\" is Python 2.7")) << *two;
    EXPECT_TRUE(contains(*two, "3.9 or newer")) << *two;
    EXPECT_TRUE(pythonTooOld("p", "Python 3.8.10"));
    EXPECT_FALSE(pythonTooOld("p", "Python 3.9.0"));
    EXPECT_FALSE(pythonTooOld("p", "Python 3.13.0"));
    EXPECT_FALSE(pythonTooOld("p", "no version here"));
}
