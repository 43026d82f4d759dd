#include "core/runner/probe_command.h"

#include <algorithm>
#include <cctype>

#include "core/analysis/units.h"

namespace cs::core {

const std::vector<std::string>& knownModes() {
    static const std::vector<std::string> modes{
        "eager", "default",   "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs",
        "aoti",  "as-written"};
    return modes;
}
const std::vector<std::string>& knownBackends() {
    static const std::vector<std::string> backends{"inductor", "aot_eager", "eager"};
    return backends;
}
const std::vector<std::string>& knownDynamic() {
    static const std::vector<std::string> values{"auto", "true", "false"};
    return values;
}
const std::vector<std::string>& knownDevices() {
    static const std::vector<std::string> values{"auto", "cpu", "cuda"};
    return values;
}
const std::vector<std::string>& knownAutocast() {
    static const std::vector<std::string> values{"none", "bf16", "fp16"};
    return values;
}

namespace {

bool contains(const std::vector<std::string>& values, const std::string& value) {
    return std::find(values.begin(), values.end(), value) != values.end();
}

// Set by compilescope for every probe: a user's value would be overridden, or
// would break the measurement (each run's fresh compile cache).
std::optional<std::string> reservedVariable(const std::string& name) {
    if (name == "PYTHONPATH" || name == "PYTHONUNBUFFERED" || name.rfind("COMPILESCOPE_", 0) == 0)
        return name + " is set by compilescope for its probe";
    if (name == "TORCHINDUCTOR_CACHE_DIR" || name == "TRITON_CACHE_DIR")
        return name + " is the probe's: each run compiles into a fresh cache (--warm-cache "
                      "measures a warm one)";
    if (name == "TORCH_TRACE")
        return "TORCH_TRACE is set with --torch-trace DIR (one log per setting)";
    return std::nullopt;
}

// `text` cut at each `separator` outside double quotes, the quotes kept for
// the next cut: so env=PYTORCH_CUDA_ALLOC_CONF="expandable_segments:True,…"
// stays one option of one setting. False when a quote is not closed.
bool splitOutsideQuotes(const std::string& text, char separator, std::vector<std::string>& parts) {
    parts.assign(1, std::string());
    bool quoted = false;
    for (const char c : text) {
        if (c == '"')
            quoted = !quoted;
        if (c == separator && !quoted)
            parts.emplace_back();
        else
            parts.back() += c;
    }
    return !quoted;
}

std::string withoutQuotes(std::string text) {
    text.erase(std::remove(text.begin(), text.end(), '"'), text.end());
    return text;
}

// "dynamic=true:fullgraph=true": the options one setting of a list sets apart
// from the shared ones, so that a list can hold the same mode twice.
std::optional<std::string> applySettingOptions(const std::string& text, Setting& s) {
    std::vector<std::string> options;
    splitOutsideQuotes(text, ':', options); // the caller checked the quotes
    for (const std::string& quotedOption : options) {
        const std::string option = withoutQuotes(quotedOption);
        if (option.empty()) // "default:" or "a::b", as before quoting
            continue;
        const auto equals = option.find('=');
        const std::string key = option.substr(0, equals);
        const std::string value = equals == std::string::npos ? "" : option.substr(equals + 1);
        if (value.empty())
            return "option \"" + option +
                   "\" needs a value (dynamic=, fullgraph=, autocast= or env=NAME=VALUE)";
        if (key == "env") {
            if (auto problem = addEnvironmentAssignment(value, s.environment))
                return *problem;
        } else if (key == "autocast") { // eager too: bf16 alone, beside bf16 compiled
            s.autocast = value;
        } else if (s.mode == "eager") {
            return "eager takes only autocast= and env=NAME=VALUE: it compiles nothing";
        } else if (s.mode == kAsWritten) {
            return "as-written takes only autocast= and env=NAME=VALUE: it compiles as the "
                   "model file's own torch.compile calls do";
        } else if (key == "dynamic")
            s.dynamic = value;
        else if (key == "fullgraph" && (value == "true" || value == "false"))
            s.fullgraph = value == "true";
        else if (key == "fullgraph")
            return "fullgraph takes true or false, not \"" + value + "\"";
        else
            return "unknown option \"" + key + "\" (known: dynamic, fullgraph, autocast, env)";
    }
    return std::nullopt;
}

} // namespace

std::optional<std::string> addEnvironmentAssignments(const std::string& text,
                                                     std::map<std::string, std::string>& out) {
    std::string blanksAsSpaces = text;
    std::replace_if(
        blanksAsSpaces.begin(), blanksAsSpaces.end(),
        [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }, ' ');
    std::vector<std::string> words;
    if (!splitOutsideQuotes(blanksAsSpaces, ' ', words))
        return "a \" is not closed (a value holding a blank is written NAME=\"A B\")";
    for (const std::string& word : words) {
        if (word.empty())
            continue;
        if (auto problem = addEnvironmentAssignment(withoutQuotes(word), out))
            return problem;
    }
    return std::nullopt;
}

std::optional<std::string> addEnvironmentAssignment(const std::string& text,
                                                    std::map<std::string, std::string>& out) {
    const auto equals = text.find('=');
    const std::string name = text.substr(0, equals);
    if (equals == std::string::npos || name.empty())
        return "\"" + text + "\" is not NAME=VALUE";
    const bool shellName = !std::isdigit(static_cast<unsigned char>(name.front())) &&
                           std::all_of(name.begin(), name.end(), [](char c) {
                               return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
                           });
    if (!shellName)
        return "\"" + name + "\" is not a variable name (letters, digits and _, not first a digit)";
    if (auto problem = reservedVariable(name))
        return *problem;
    out[name] = text.substr(equals + 1);
    return std::nullopt;
}

std::optional<std::string> validateSetting(const Setting& s) {
    if (!contains(knownModes(), s.mode))
        return "unknown mode \"" + s.mode + "\" (known: " + joinList(knownModes()) + ")";
    if (!contains(knownBackends(), s.backend))
        return "unknown backend \"" + s.backend + "\" (known: " + joinList(knownBackends()) + ")";
    if (!contains(knownDynamic(), s.dynamic))
        return "unknown dynamic \"" + s.dynamic + "\" (known: " + joinList(knownDynamic()) + ")";
    if (!contains(knownDevices(), s.device))
        return "unknown device \"" + s.device + "\" (known: " + joinList(knownDevices()) + ")";
    if (!contains(knownAutocast(), s.autocast))
        return "unknown autocast \"" + s.autocast + "\" (known: " + joinList(knownAutocast()) + ")";
    if (s.warmup < 1)
        return "warmup must be at least 1 (the first call is where torch compiles)";
    if (s.iters < 1)
        return "iters must be at least 1";
    return std::nullopt;
}

std::optional<std::string> parseSettingsList(const std::string& text, const Setting& base,
                                             std::vector<Setting>& out) {
    out.clear();
    std::vector<std::string> items;
    if (!splitOutsideQuotes(text, ',', items))
        return "a \" in \"" + text +
               "\" is not closed (a value holding , or : is written env=NAME=\"VALUE\")";
    for (std::string item : items) {
        item.erase(0, item.find_first_not_of(" \t"));
        item.erase(item.find_last_not_of(" \t") + 1);
        if (item.empty())
            continue;
        Setting s = base;
        const auto colon = item.find(':');
        const std::string head = item.substr(0, colon);
        const auto slash = head.find('/');
        s.mode = head.substr(0, slash);
        if (slash != std::string::npos)
            s.backend = head.substr(slash + 1);
        if (colon != std::string::npos)
            if (auto problem = applySettingOptions(item.substr(colon + 1), s))
                return "setting \"" + item + "\": " + *problem;
        if (auto problem = validateSetting(s))
            return "setting \"" + item + "\": " + *problem;
        // Runs are told apart by their labels in every table and legend.
        const bool twice = std::any_of(out.begin(), out.end(), [&](const Setting& other) {
            return other.label() == s.label();
        });
        if (twice)
            return "setting \"" + item + "\" is listed twice (as " + s.label() + ")";
        out.push_back(s);
    }
    if (out.empty())
        return "no settings given (e.g. --settings eager,default)";
    return std::nullopt;
}

std::vector<Setting> dynamicVariants(const std::vector<Setting>& settings) {
    std::vector<Setting> out;
    for (const Setting& s : settings) {
        // eager compiles nothing; aoti exports with its own shapes; as-written
        // compiles with the model file's own dynamic=.
        if (s.mode == "eager" || s.mode == "aoti" || s.mode == kAsWritten) {
            out.push_back(s);
            continue;
        }
        for (const auto& dynamic : knownDynamic()) {
            Setting variant = s;
            variant.dynamic = dynamic;
            out.push_back(variant);
        }
    }
    return out;
}

std::vector<Setting> autocastVariants(const std::vector<Setting>& settings,
                                      const std::string& autocast) {
    std::vector<Setting> out;
    for (const Setting& s : settings) {
        if (s.mode == "aoti") { // the runner times the exported package as it is
            out.push_back(s);
            continue;
        }
        for (const std::string& choice : {std::string("none"), autocast}) {
            Setting variant = s;
            variant.autocast = choice;
            out.push_back(variant);
        }
    }
    return out;
}

ProbeLaunch buildProbeLaunch(const std::string& modelSpec, const Setting& s,
                             const ProbeOptions& options) {
    ProbeLaunch launch;
    launch.program = options.python;
    auto& a = launch.arguments;
    a = {"-u",
         "-m",
         "compilescope_probe",
         "--model",
         modelSpec,
         "--mode",
         s.mode,
         "--backend",
         s.backend,
         "--dynamic",
         s.dynamic,
         "--device",
         s.device,
         "--autocast",
         s.autocast,
         "--warmup",
         std::to_string(s.warmup),
         "--iters",
         std::to_string(s.iters)};
    if (s.fullgraph)
        a.push_back("--fullgraph");
    if (s.sweep)
        a.push_back("--sweep");
    if (s.warmCache())
        a.push_back("--warm-cache");
    if (s.strictExport)
        a.push_back("--export-strict");
    if (s.threads > 0) {
        a.push_back("--threads");
        a.push_back(std::to_string(s.threads));
    }
    if (!options.cacheDir.empty()) {
        a.push_back("--cache-dir");
        a.push_back(options.cacheDir);
    }
    if (!options.cupti)
        a.push_back("--no-cupti");
    if (!options.keepCode)
        a.push_back("--no-code");
    if (options.profileCalls >= 0) {
        a.push_back("--profile-calls");
        a.push_back(std::to_string(options.profileCalls));
    }
    if (!options.torchTraceDir.empty()) {
        a.push_back("--torch-trace");
        a.push_back(options.torchTraceDir);
    }
    if (!options.cacheArtifacts.empty()) {
        a.push_back("--cache-artifacts");
        a.push_back(options.cacheArtifacts);
    }
    if (!options.batchSizes.empty()) {
        a.push_back("--batch-sizes");
        a.push_back(options.batchSizes);
        if (options.budgetSeconds > 0) {
            a.push_back("--budget-s");
            a.push_back(std::to_string(options.budgetSeconds));
        }
        if (options.memoryCapMb > 0) {
            a.push_back("--memory-cap-mb");
            a.push_back(std::to_string(options.memoryCapMb));
        }
    }
    launch.environment.emplace_back("PYTHONPATH", options.probeRoot);
    launch.environment.emplace_back("PYTHONUNBUFFERED", "1");
    if (!options.cuptiLibrary.empty())
        launch.environment.emplace_back("COMPILESCOPE_CUPTI_LIB", options.cuptiLibrary);
    if (!options.aotiRunner.empty())
        launch.environment.emplace_back("COMPILESCOPE_AOTI_RUNNER", options.aotiRunner);
    // The session's, then the setting's: applied in order, the setting's win.
    for (const auto& assignment : {options.environment, s.environment}) {
        for (const auto& [name, value] : assignment)
            launch.environment.emplace_back(name, value);
    }
    return launch;
}

} // namespace cs::core
