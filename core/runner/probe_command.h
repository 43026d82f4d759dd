// Builds the probe's command line and environment: an argument list, never a
// shell string, so model paths with spaces or quotes pass through unchanged.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/report/session.h"
#include "core/runner/ssh_target.h"

namespace cs::core {

struct ProbeLaunch {
    std::string program; // the Python interpreter
    std::vector<std::string> arguments;
    std::vector<std::pair<std::string, std::string>> environment; // added to the parent's
    // Set when `program` is ssh running the probe on another machine.
    struct Remote {
        SshTarget target; // where it runs: messages name it, ssh's failures are explained for it
        // ssh's argv over the same connection, less the command: cancel
        // appends a kill of the probe's process group there.
        std::vector<std::string> controlCommand;
        // Exits 0 while the shared connection is up: a probe's ssh that
        // ends with 255 over a dead connection was cut off, not crashed.
        std::vector<std::string> checkCommand;
        std::string connectionLog; // what the shared connection's ssh said
    };
    std::optional<Remote> remote;
};

struct ProbeOptions {
    std::string python;       // interpreter path
    std::string probeRoot;    // the folder holding compilescope_probe/ (goes on PYTHONPATH)
    std::string cuptiLibrary; // libcompilescope_cupti.so, empty if not built
    std::string aotiRunner;   // compilescope-aoti-runner (setting aoti), empty if not built
    std::string cacheDir;     // empty: the probe makes a fresh one
    bool cupti = true;
    // torch writes its structured trace (TORCH_TRACE) here, one file per probe
    // process; empty: none. Session-wide, not part of a Setting.
    std::string torchTraceDir;
    // A batch-size walk (compilescope-cli scale): "1,4,16" or "auto"; empty: none.
    std::string batchSizes;
    double budgetSeconds = 0; // auto's time budget per setting; 0: the probe's default
    int64_t memoryCapMb = 0;  // CPU host-memory cap; 0: the probe's default
    // torch's portable cache artifacts: "save:PATH" (a priming run) or
    // "load:PATH" (the measured run); empty: neither. Set by SessionRunner.
    std::string cacheArtifacts;
    // Inductor's generated code: false sends kernel names, nodes and lines
    // but no code text (--no-code, for code that must not leave the machine).
    bool keepCode = true;
    // Calls in the profiled kernel window after measuring; -1: the probe's
    // default, 0: no window (docs/kernel-cost.md).
    int profileCalls = -1;
    // Variables set in every probe (--env NAME=VALUE); a setting's own
    // (Setting::environment) win over these.
    std::map<std::string, std::string> environment;
};

ProbeLaunch buildProbeLaunch(const std::string& modelSpec, const Setting& setting,
                             const ProbeOptions& options);

// Valid values, for argument checks and for the GUI's choices.
const std::vector<std::string>& knownModes();
const std::vector<std::string>& knownBackends();
const std::vector<std::string>& knownDynamic();
const std::vector<std::string>& knownDevices();
const std::vector<std::string>& knownAutocast();

// Parses "eager,default,max-autotune" into settings sharing `base`; a mode may
// carry a backend as "default/aot_eager" and options of its own after colons,
// "default:dynamic=true:fullgraph=true:autocast=bf16", so that one list
// compares the same mode under two dynamic choices. Returns an error message
// on bad input.
std::optional<std::string> parseSettingsList(const std::string& text, const Setting& base,
                                             std::vector<Setting>& out);
// Each compiled setting three times, dynamic auto, true and false (eager and
// aoti once): one report that answers "should this be dynamic?".
std::vector<Setting> dynamicVariants(const std::vector<Setting>& settings);
// Each setting twice, without autocast and under `autocast` (aoti once), eager
// included: what the narrower type buys alone and compiled, in one report.
std::vector<Setting> autocastVariants(const std::vector<Setting>& settings,
                                      const std::string& autocast);
// Checks one setting's values; returns what is wrong.
std::optional<std::string> validateSetting(const Setting& setting);
// "NAME=VALUE" into `out` (a later NAME replaces an earlier one); returns what
// is wrong: a NAME a shell would refuse, or one the probe sets itself.
std::optional<std::string> addEnvironmentAssignment(const std::string& text,
                                                    std::map<std::string, std::string>& out);
// "A=1 B=\"x y\"": assignments split at blanks outside double quotes, as
// environmentText writes them (the GUI's environment field); returns what is
// wrong with the first that cannot be set, or an unclosed quote.
std::optional<std::string> addEnvironmentAssignments(const std::string& text,
                                                     std::map<std::string, std::string>& out);

} // namespace cs::core
