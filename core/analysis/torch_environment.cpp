#include "core/analysis/torch_environment.h"

#include <algorithm>
#include <tuple>

#include <unistd.h> // environ

namespace cs::core {

namespace {

bool startsWith(const std::string& text, const char* prefix) {
    return text.rfind(prefix, 0) == 0;
}

// torch reads its switches as "1" on, "0" off (torch/utils/_config_module.py).
bool on(const std::string& value) {
    return value == "1";
}

bool isCacheSwitch(const std::string& name) {
    return name == "TORCHINDUCTOR_FORCE_DISABLE_CACHES" ||
           name == "TORCH_COMPILE_FORCE_DISABLE_CACHES";
}

// compilescope gives each probe its own compile cache: the shell's folders
// are replaced, not news.
bool isCacheFolder(const std::string& name) {
    return name == "TORCHINDUCTOR_CACHE_DIR" || name == "TRITON_CACHE_DIR";
}

} // namespace

VariableEffect variableEffect(const std::string& name, const std::string& value) {
    if ((name == "TORCH_COMPILE_DISABLE" || name == "TORCHDYNAMO_DISABLE") && on(value))
        return VariableEffect::DisablesCompile;
    if (name == "CUDA_LAUNCH_BLOCKING" && on(value))
        return VariableEffect::LaunchBlocking;
    if (isCacheSwitch(name) && on(value))
        return VariableEffect::DisablesCaches;
    if (isCacheFolder(name) || value.empty())
        return VariableEffect::Other;
    for (const char* prefix : {"TORCHINDUCTOR_", "TORCHDYNAMO_", "TORCH_COMPILE_", "TORCH_LOGS",
                               "TORCH_TRACE", "TRITON_", "PYTORCH_", "NVIDIA_TF32_"}) {
        if (startsWith(name, prefix))
            return VariableEffect::CompileOption;
    }
    return VariableEffect::Other;
}

std::string variableEffectText(const std::string& name, const std::string& value) {
    switch (variableEffect(name, value)) {
    case VariableEffect::DisablesCompile:
        return "turns torch.compile off, so every call runs eager";
    case VariableEffect::LaunchBlocking:
        return "makes every CUDA launch wait until its kernel has finished";
    case VariableEffect::DisablesCaches:
        return "turns every compile cache off";
    case VariableEffect::CompileOption:
        break;
    case VariableEffect::Other:
        return "";
    }
    if (name == "TORCH_COMPILE_DEBUG")
        return on(value) ? "writes a debug dump of every compile" : "";
    if (startsWith(name, "TORCH_LOGS"))
        return "turns torch's compile logging on";
    if (name == "TORCH_TRACE")
        return "writes torch's structured trace of every compile";
    if (name == "TORCH_COMPILE_CPROFILE")
        return "runs cProfile over every compile";
    if (name == "PYTORCH_NO_CUDA_MEMORY_CACHING")
        return on(value) ? "turns the CUDA caching allocator off: a cudaMalloc for every tensor"
                         : "";
    if (name == "PYTORCH_CUDA_ALLOC_CONF")
        return "tunes the CUDA caching allocator";
    if (name == "NVIDIA_TF32_OVERRIDE")
        return value == "0" ? "turns TF32 off in cuBLAS and cuDNN" : "";
    if (startsWith(name, "TORCHINDUCTOR_"))
        return "sets an Inductor option";
    if (startsWith(name, "TORCHDYNAMO_"))
        return "sets a Dynamo option";
    if (startsWith(name, "TORCH_COMPILE_"))
        return "sets a torch.compile option";
    if (startsWith(name, "TRITON_"))
        return "sets a Triton option";
    return "";
}

std::vector<TorchVariable> torchVariables(const Run& run, const Environment& environment) {
    std::vector<TorchVariable> variables;
    for (const auto& [name, value] : run.probe.torchEnvironment) {
        const bool ours =
            environment.probeEnvironment.count(name) > 0 || run.setting.environment.count(name) > 0;
        variables.push_back({name, value, variableEffect(name, value), !ours});
    }
    return variables;
}

std::vector<TorchVariable> inheritedVariables(const Run& run, const Environment& environment) {
    auto variables = torchVariables(run, environment);
    variables.erase(std::remove_if(variables.begin(), variables.end(),
                                   [](const TorchVariable& v) { return !v.inherited; }),
                    variables.end());
    return variables;
}

const char* toString(VariableOrigin origin) {
    switch (origin) {
    case VariableOrigin::Inherited:
        return "inherited from the shell";
    case VariableOrigin::SessionEnv:
        return "--env";
    case VariableOrigin::SettingEnv:
        return "the setting's env=";
    }
    return "";
}

VariableOrigin originOf(const TorchVariable& variable, const Run& run) {
    if (variable.inherited)
        return VariableOrigin::Inherited;
    return run.setting.environment.count(variable.name) > 0 ? VariableOrigin::SettingEnv
                                                            : VariableOrigin::SessionEnv;
}

size_t runsWithEnvironment(const Report& report) {
    return static_cast<size_t>(
        std::count_if(report.runs.begin(), report.runs.end(), [](const Run& r) {
            return r.status != RunStatus::Imported &&
                   (r.probe.torchEnvironmentKnown || !r.probe.torchEnvironment.empty());
        }));
}

std::vector<VariableAcrossRuns> variablesAcrossRuns(const Report& report) {
    std::map<std::tuple<std::string, std::string, VariableOrigin>, VariableAcrossRuns> found;
    for (const auto& run : report.runs) {
        if (run.status == RunStatus::Imported)
            continue;
        for (auto& v : torchVariables(run, report.environment)) {
            const VariableOrigin origin = originOf(v, run);
            auto& entry = found[{v.name, v.value, origin}];
            entry.origin = origin;
            entry.settings.push_back(run.setting.label());
            entry.variable = std::move(v);
        }
    }
    const size_t runs = runsWithEnvironment(report);
    std::vector<VariableAcrossRuns> list;
    for (auto& [key, entry] : found) {
        entry.everyRun = entry.settings.size() >= runs;
        list.push_back(std::move(entry));
    }
    return list;
}

std::map<std::string, std::string> processEnvironment() {
    std::map<std::string, std::string> variables;
    for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
        const std::string assignment(*entry);
        const auto equals = assignment.find('=');
        if (equals != std::string::npos && equals > 0)
            variables.emplace(assignment.substr(0, equals), assignment.substr(equals + 1));
    }
    return variables;
}

std::vector<TorchVariable> notableVariables(const std::map<std::string, std::string>& environ,
                                            const std::map<std::string, std::string>& overridden) {
    std::vector<TorchVariable> notable;
    for (const auto& [name, value] : environ) {
        const VariableEffect effect = variableEffect(name, value);
        if (effect != VariableEffect::Other && overridden.count(name) == 0)
            notable.push_back({name, value, effect, true});
    }
    return notable;
}

std::string notableVariablesText(const std::vector<TorchVariable>& variables) {
    std::string text;
    for (const auto& v : variables) {
        const std::string effect = variableEffectText(v.name, v.value);
        text += (text.empty() ? "" : "; ") + v.name + "=" + v.value +
                (effect.empty() ? "" : " (" + effect + ")");
    }
    return text;
}

bool voidsMeasurement(const TorchVariable& variable) {
    return variable.effect == VariableEffect::DisablesCompile ||
           variable.effect == VariableEffect::LaunchBlocking;
}

std::optional<TorchVariable> compileDisabledBy(const Run& run, const Environment& environment) {
    for (auto& variable : torchVariables(run, environment)) {
        if (variable.effect == VariableEffect::DisablesCompile)
            return variable;
    }
    return std::nullopt;
}

bool compiledNothing(const Run& run) {
    if (run.status != RunStatus::Ok || run.setting.mode == "eager" || run.setting.mode == "aoti")
        return false;
    if (!run.graphs.empty() || !run.graphBreaks.empty())
        return false;
    // "none": the probe asked torch for its compile metrics and there were none.
    return run.compilePhasesSource == "none" || !run.dynamoOff.empty() ||
           compileDisabledBy(run).has_value();
}

} // namespace cs::core
