// Where the app finds its probe, gallery, report template and interpreter,
// both in a build tree and in an installed tree.
#pragma once

#include <string>
#include <vector>

namespace cs::core {

// Folder that holds the compilescope_probe package.
std::string probeRoot();
// Folder of the built-in model gallery (resources/models).
std::string galleryDir();
std::string demoModelPath();
// The CUPTI collector if it was built, else empty.
std::string cuptiLibraryPath();
// compilescope-aoti-runner (the AOTInductor package runner) if it was built,
// else empty: COMPILESCOPE_AOTI_RUNNER, the installed one beside the
// collector, or the build tree's.
std::string aotiRunnerPath();
// The collector's sources (probe/cupti), sent to a remote host to build it
// there; empty in an installed tree, which ships the built library only.
std::string cuptiSourceDir();
// COMPILESCOPE_PYTHON, else the project venv, else python3 on PATH.
std::string defaultPython();
// Candidate interpreters for the picker: the project venv, $VIRTUAL_ENV, conda envs, python3.
std::vector<std::string> candidatePythons();
std::string findOnPath(const std::string& program);

} // namespace cs::core
