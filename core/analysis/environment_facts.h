// What ran where: the report's model and the machine the probes found, as
// name and value, so the HTML's Environment section and the GUI's Environment
// tab say the same things in the same order.
#pragma once

#include <string>
#include <vector>

#include "core/report/session.h"

namespace cs::core {

struct EnvironmentFact {
    std::string name;
    std::string value; // "" when the report does not say
};

std::vector<EnvironmentFact> environmentFacts(const Report& report);
// One probe's own account of where it ran (its hello), a row per measured
// run that said hello: which interpreter a setting really used, and on which
// CPUs, is where "my venv" and "that node" go wrong.
struct ProbeFacts {
    int run = -1; // index into Report::runs
    std::string setting;
    std::string interpreter; // python_executable
    std::string python;
    std::string torch;
    std::string device; // "cuda:0 (NVIDIA H200)", "cpu"
    std::string host;
    std::string threads; // "2 intra-op threads on CPUs 0-1"; "" unknown
    // What must match for runs to compare, in this order: interpreter, python,
    // torch, device, host (threads may differ by setting, on purpose).
    std::vector<std::string> compared() const { return {interpreter, python, torch, device, host}; }
    // For each of compared(): unlike the first probe's.
    std::vector<bool> unlikeFirst;
};
std::vector<ProbeFacts> probeFacts(const Report& report);
// "0-3, 6, 8-9": CPU numbers as ranges.
std::string cpuListText(std::vector<int> cpus);

// The torch versions of the runs when they differ (a report merged
// by hand), in order; empty when all ran one.
std::vector<std::string> differingTorchVersions(const Report& report);

} // namespace cs::core
