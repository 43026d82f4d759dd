// The variables that change torch which a probe started with (hello's
// torch_env), split by where they came from: compilescope's --env, the
// setting's env=, or the environment the probe inherited (the shell that
// started compilescope; on a --target host, its login). A variable the user
// forgot in their shell changes what every setting measures, and no setting
// says so: the Environment section lists them, the env.* advice judges them.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/report/session.h"

namespace cs::core {

enum class VariableEffect {
    DisablesCompile, // TORCH_COMPILE_DISABLE=1, TORCHDYNAMO_DISABLE=1
    LaunchBlocking,  // CUDA_LAUNCH_BLOCKING=1
    DisablesCaches,  // TORCHINDUCTOR_FORCE_DISABLE_CACHES=1
    CompileOption,   // an Inductor, Dynamo, Triton, allocator or debug option
    Other,           // thread pools, devices, preloads: shown, not judged
};

struct TorchVariable {
    std::string name;
    std::string value;
    VariableEffect effect = VariableEffect::Other;
    bool inherited = false; // not set by compilescope (--env, env=)
};

VariableEffect variableEffect(const std::string& name, const std::string& value);
// What the variable does, for a finding's evidence: "turns torch.compile off";
// "" for one compilescope knows nothing particular of.
std::string variableEffectText(const std::string& name, const std::string& value);

// The run's torch_env, each marked inherited unless the session's --env or the
// setting's env= set that name; empty for a report from before torch_env.
std::vector<TorchVariable> torchVariables(const Run& run, const Environment& environment);
std::vector<TorchVariable> inheritedVariables(const Run& run, const Environment& environment);

// Where a probe's variable came from.
enum class VariableOrigin {
    Inherited,  // the environment compilescope started the probe in
    SessionEnv, // --env, for every probe of the session
    SettingEnv, // the setting's env=
};
// "inherited from the shell", "--env", "the setting's env=".
const char* toString(VariableOrigin origin);
// Where `variable`, one of the run's torchVariables(), came from.
VariableOrigin originOf(const TorchVariable& variable, const Run& run);

// One variable as the probes had it, over a report's measured runs (not the
// imported ones): each name, value and origin once, with the settings whose
// probe started with it.
struct VariableAcrossRuns {
    TorchVariable variable;
    VariableOrigin origin = VariableOrigin::Inherited;
    std::vector<std::string> settings;
    bool everyRun = false; // every probe that said what it started with had it
};
// Ordered by name, then value.
std::vector<VariableAcrossRuns> variablesAcrossRuns(const Report& report);
// How many of the report's measured runs said what they started with (torch_env).
size_t runsWithEnvironment(const Report& report);

// This process's environment: what a local probe inherits.
std::map<std::string, std::string> processEnvironment();

// Before a run: the variables of `environ` (this process's environment) a probe
// would inherit that compilescope judges (any effect but Other), less those
// `overridden` (--env) sets; so the CLI and the GUI can say so up front.
std::vector<TorchVariable> notableVariables(const std::map<std::string, std::string>& environ,
                                            const std::map<std::string, std::string>& overridden);
// "TORCH_LOGS=+dynamo (turns torch's compile logging on)", joined by "; ".
std::string notableVariablesText(const std::vector<TorchVariable>& variables);
// A variable that skews or voids the measurement (compile off, blocking launches).
bool voidsMeasurement(const TorchVariable& variable);

// The variable that turned torch.compile off in this run, wherever it came
// from; `environment` only decides whether it counts as inherited.
std::optional<TorchVariable> compileDisabledBy(const Run& run, const Environment& environment = {});

// A compiled setting (not eager, not aoti) that ran and compiled nothing:
// no graph, no graph break, and torch recorded no compile (or a variable,
// or the model's code, turned compile off). Breaks without a graph are a different story: every
// frame was skipped for them (perf.no_gain says so).
bool compiledNothing(const Run& run);

} // namespace cs::core
