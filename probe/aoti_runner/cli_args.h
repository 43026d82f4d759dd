// The runner's command line (docs/protocol.md, "The AOTInductor runner").
// No torch here, so the parsing is tested without libtorch.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace cs::aoti {

struct RunnerArgs {
    bool version = false; // --version: one JSON line on stdout, nothing else
    std::string package;  // --package FILE.pt2
    std::string inputs;   // --inputs FILE.pt (torch.save of a list of tensors)
    std::string device;   // --device cpu|cuda|cuda:N
    int warmup = 10;      // calls before the measured ones, the first call included
    int iters = 100;
    int eventsFd = 1;
    bool continueStream = false; // the probe writes hello and done itself
    int threads = 0;             // 0: torch's default
    std::vector<std::pair<std::string, double>> priorPhases; // --prior-phase NAME=SECONDS
    std::string cupti;                                       // --cupti LIB.so
};

struct ParseResult {
    std::optional<RunnerArgs> args;
    std::string error; // why they did not parse (plain words), when args is empty
};

ParseResult parseArgs(const std::vector<std::string>& argv);

// The usage text for stderr.
std::string usage();

} // namespace cs::aoti
