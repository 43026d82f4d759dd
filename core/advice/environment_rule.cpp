// The environment the probes started in (core/analysis/torch_environment.h).
// A compiled setting that compiled nothing measured eager under another name:
// say so, and name the variable that turned compile off, before any rule
// judges its speed. Variables inherited from the user's shell that change
// what torch does are listed; the two that skew a measurement outright
// (launches made blocking, caches off under a warm start) are warnings.
#include <algorithm>
#include <map>
#include <optional>

#include "core/advice/advice_rules.h"
#include "core/advice/advice_text.h"
#include "core/advice/perf_scope.h"
#include "core/analysis/torch_environment.h"
#include "core/analysis/units.h"

namespace cs::core::advice {

namespace {

constexpr const char* kInheritedFrom =
    "inherited from the environment compilescope started the probe in";

std::string assignment(const TorchVariable& v) {
    return v.name + "=" + v.value;
}

// Where a variable of this run came from, as a finding says it.
std::string origin(const TorchVariable& v, const Run& run) {
    switch (originOf(v, run)) {
    case VariableOrigin::Inherited:
        return kInheritedFrom;
    case VariableOrigin::SettingEnv:
        return "set by this setting's env=";
    case VariableOrigin::SessionEnv:
        break;
    }
    return "set by --env for every probe";
}

std::string withEffect(const TorchVariable& v) {
    const std::string effect = variableEffectText(v.name, v.value);
    return assignment(v) + (effect.empty() ? "" : ": " + effect);
}

using Inherited = VariableAcrossRuns;

// The inherited variables of one effect, over every run.
std::vector<Inherited> inheritedAcrossRuns(const Report& report, VariableEffect effect) {
    std::vector<Inherited> list;
    for (auto& entry : variablesAcrossRuns(report)) {
        if (entry.origin == VariableOrigin::Inherited && entry.variable.effect == effect)
            list.push_back(std::move(entry));
    }
    return list;
}

// "TORCH_LOGS=+dynamo: turns torch's compile logging on (default, max-autotune only)"
std::string inheritedText(const Inherited& entry) {
    std::string text = withEffect(entry.variable);
    if (!entry.everyRun)
        text += " (" + joinWords(entry.settings) + " only)";
    return text;
}

std::vector<std::string> namesOf(const std::vector<Inherited>& entries) {
    std::vector<std::string> names;
    for (const auto& e : entries)
        names.push_back(e.variable.name);
    return names;
}

// "unset TORCH_LOGS where compilescope starts (...), then measure again."
std::string unsetRemedy(const std::vector<std::string>& names) {
    const std::string example = names.size() == 1 ? names.front() : "NAME";
    return "unset " + joinWords(names) + " where compilescope starts (unset " + example +
           " in the shell, or start it with env -u " + example + "), then measure again.";
}

std::string sentence(std::string text) {
    if (!text.empty() && text[0] >= 'a' && text[0] <= 'z')
        text[0] = static_cast<char>(text[0] - 'a' + 'A');
    return text;
}

// A variable that skews what was measured outright: a warning with the
// variables, what they touched, and how to be rid of them.
struct Skew {
    const char* rule;
    EvidenceTab tab;
    std::string title;
    std::string affected; // evidence: the settings it touched
    std::string why;      // after the remedy: what it did to the figures
};

Finding skewWarning(const Skew& skew, const std::vector<Inherited>& entries) {
    Finding f;
    f.rule = skew.rule;
    f.severity = Severity::Warning;
    f.tab = skew.tab;
    f.title = skew.title;
    for (const auto& e : entries)
        f.evidence.push_back(inheritedText(e) + "; " + kInheritedFrom);
    f.evidence.push_back(skew.affected);
    f.remedy = sentence(unsetRemedy(namesOf(entries))) + " " + skew.why;
    f.confidence = 0.9;
    return f;
}

} // namespace

void compiledNothingRule(const AdviceInput& input, std::vector<Finding>& out) {
    const Report& report = input.report;
    const ComparisonRow* base = input.baselineRow();
    // Settings that compiled nothing for the same reason are one finding: a
    // variable in the shell turns every setting off alike.
    struct Group {
        std::optional<TorchVariable> cause;
        std::string origin;
        std::string dynamoOff; // the switch in the model's code, without a variable
        std::vector<const ComparisonRow*> rows;
    };
    std::vector<Group> groups;
    for (const auto& row : input.comparison.rows) {
        if (!row.compiledNothing)
            continue;
        const Run& run = report.runs[static_cast<size_t>(row.run)];
        auto cause = compileDisabledBy(run, report.environment);
        const std::string from = cause ? origin(*cause, run) : "";
        // A variable explains the switch it sets (TORCH_COMPILE_DISABLE sets config.disable).
        const std::string off = cause ? "" : run.dynamoOff;
        auto same = [&](const Group& g) {
            return g.cause.has_value() == cause.has_value() && g.origin == from &&
                   g.dynamoOff == off && (!cause || assignment(*g.cause) == assignment(*cause));
        };
        auto it = std::find_if(groups.begin(), groups.end(), same);
        if (it == groups.end())
            it = groups.insert(groups.end(), {std::move(cause), from, off, {}});
        it->rows.push_back(&row);
    }

    for (const auto& group : groups) {
        const auto& cause = group.cause;
        std::vector<std::string> labels;
        std::vector<std::string> medians;
        size_t calls = 0;
        for (const ComparisonRow* row : group.rows) {
            labels.push_back(row->label);
            if (row->stats) {
                calls = std::max(calls, row->stats->count);
                if (row->speedup)
                    medians.push_back(row->label + " " + formatDuration(row->stats->median) + " (" +
                                      formatRatio(row->speedup->value) + ")");
            }
        }
        const bool one = group.rows.size() == 1;
        const Run& first = report.runs[static_cast<size_t>(group.rows.front()->run)];
        Finding f;
        const std::string& off = group.dynamoOff;
        f.rule = cause         ? "env.compile_disabled"
                 : off.empty() ? "compile.no_graph"
                               : "compile.dynamo_off";
        f.severity = Severity::Critical;
        f.tab = EvidenceTab::Compare;
        f.run = one ? group.rows.front()->run : -1;
        f.setting = one ? labels.front() : "";
        f.title = joinWords(labels) + " compiled nothing: " +
                  (cause ? assignment(*cause) + " turned torch.compile off, so " +
                               (one ? "it" : "they") + " measured eager"
                   : off.empty() ? std::string("no graph, no graph break, no compile")
                                 : off + " held Dynamo off");
        f.evidence.push_back("0 graphs and 0 graph breaks" +
                             (calls > 0 ? " over " + plural(static_cast<long long>(calls),
                                                            "measured call", "measured calls")
                                        : std::string()) +
                             (first.compilePhasesSource == "none"
                                  ? "; torch recorded no compile (Warmup tab)"
                                  : ""));
        if (cause)
            f.evidence.push_back(withEffect(*cause) + "; " + group.origin);
        else if (!off.empty())
            f.evidence.push_back("after the first call the probe found " + off +
                                 ", set by the model's code or what it imports");
        if (!medians.empty() && base && base->stats)
            f.evidence.push_back("median " + joinWords(medians) + " against eager's " +
                                 formatDuration(base->stats->median) +
                                 ": the same eager code (Compare tab)");
        if (!off.empty()) {
            const std::string undo = off.find("set_stance") != std::string::npos
                                         ? "torch.compiler.set_stance(\"default\")"
                                         : "torch._dynamo.config.disable = False";
            f.remedy = "Remove " + off + " from the model's code, or undo it (" + undo +
                       ") before the calls you mean to compile, then measure again. Deployed as "
                       "it is, torch.compile does nothing there either.";
            f.confidence = 0.9;
        } else if (!cause) {
            f.remedy = "Something turned Dynamo off without a graph break: look for "
                       "torch._dynamo.config.disable = True or "
                       "torch.compiler.set_stance(\"force_eager\") in the model's code, and for a "
                       "forward that makes no tensor operation. Then measure again.";
            f.confidence = 0.8;
        } else if (cause->inherited) {
            f.remedy = sentence(unsetRemedy({cause->name})) +
                       " If your deployment sets it too, torch.compile does nothing there "
                       "either.";
            f.confidence = 0.95;
        } else {
            f.remedy =
                "Drop " + assignment(*cause) +
                (first.setting.environment.count(cause->name) > 0 ? " from the setting's env="
                                                                  : " from --env") +
                " to measure the compiled model.";
            f.confidence = 0.95;
        }
        out.push_back(std::move(f));
    }
}

void inheritedEnvironmentRule(const AdviceInput& input, std::vector<Finding>& out) {
    const Report& report = input.report;

    auto blocking = inheritedAcrossRuns(report, VariableEffect::LaunchBlocking);
    std::vector<std::string> onGpu;
    for (const auto& run : report.runs) {
        if (onCuda(run) && run.status == RunStatus::Ok)
            onGpu.push_back(run.setting.label());
    }
    const bool judgeBlocking = !blocking.empty() && !onGpu.empty();
    if (judgeBlocking)
        out.push_back(skewWarning(
            {"env.launch_blocking", EvidenceTab::Latency,
             "CUDA launches were blocking: the GPU figures understate what compile gains",
             "on the GPU: " + joinWords(onGpu),
             "With every launch waiting for its kernel, the CPU cannot queue work ahead of the "
             "GPU: each call pays every launch's latency, which is what fused kernels and CUDA "
             "graphs save."},
            blocking));

    auto cachesOff = inheritedAcrossRuns(report, VariableEffect::DisablesCaches);
    std::vector<std::string> warmStarts;
    for (const auto& run : report.runs) {
        if (run.status == RunStatus::Ok &&
            (run.setting.warmCache() || run.setting.cacheArtifacts()))
            warmStarts.push_back(
                run.setting.label() +
                (run.firstCallNs > 0
                     ? " (first call " + formatDuration(static_cast<double>(run.firstCallNs)) + ")"
                     : ""));
    }
    const bool judgeCaches = !cachesOff.empty() && !warmStarts.empty();
    if (judgeCaches)
        out.push_back(skewWarning(
            {"env.caches_disabled", EvidenceTab::Warmup,
             "Compile caches were off: the warm starts compiled from scratch",
             "warm starts measured: " + joinWords(warmStarts),
             "A warm start reads the cache a priming run filled; with caches off there is none, "
             "and its first call is a fresh compile."},
            cachesOff));

    // The rest: options the settings do not show, listed so nobody reads a
    // figure without them.
    std::vector<Inherited> listed = inheritedAcrossRuns(report, VariableEffect::CompileOption);
    if (!judgeBlocking)
        listed.insert(listed.end(), blocking.begin(), blocking.end());
    if (!judgeCaches)
        listed.insert(listed.end(), cachesOff.begin(), cachesOff.end());
    if (listed.empty())
        return;
    Finding f;
    f.rule = "env.inherited";
    f.severity = Severity::Info;
    f.tab = EvidenceTab::Environment;
    constexpr size_t kNamedInTitle = 3;
    auto names = namesOf(listed);
    if (names.size() > kNamedInTitle) {
        const size_t more = names.size() - kNamedInTitle;
        names.resize(kNamedInTitle);
        names.push_back(std::to_string(more) + " more");
    }
    f.title = "The probes inherited torch variables no setting shows (" + joinWords(names) +
              "): the figures hold where they are set too";
    for (const auto& e : listed)
        f.evidence.push_back(inheritedText(e));
    f.evidence.push_back("inherited from the environment compilescope started the probes in "
                         "(your shell; on a --target host, its login), not set by --env or "
                         "a setting's env= (Environment tab)");
    f.remedy = "Keep them if your deployment sets them too; where it does not, " +
               unsetRemedy(namesOf(listed)) +
               " To weigh one, measure a setting with and without it in one report: "
               "default,default:env=NAME=VALUE once it is unset.";
    f.confidence = 0.6;
    out.push_back(std::move(f));
}

} // namespace cs::core::advice
