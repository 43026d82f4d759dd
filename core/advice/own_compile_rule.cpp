// The model file's own torch.compile calls (ModelInfo::ownCompiles). The
// probe undid them on load, so that eager timed eager code and each compiled
// setting compiled the whole model under its own mode, as its name says; only
// mode as-written runs them as the file makes them. Say what the calls were,
// and which setting is the user's program as it compiles today.
#include "core/advice/advice_rules.h"
#include "core/advice/advice_text.h"

namespace cs::core::advice {

namespace {

constexpr size_t kCallsListed = 4;

// The mode of the setting that compiles as `call` does: another backend takes none.
std::string settingMode(const OwnCompile& call) {
    return call.backend == "inductor" ? call.mode : "default";
}

// The setting list entry that compiles as `call` does: "max-autotune:dynamic=true".
std::string settingSpec(const OwnCompile& call) {
    std::string spec = settingMode(call);
    if (call.dynamic != "auto")
        spec += ":dynamic=" + call.dynamic;
    if (call.fullgraph)
        spec += ":fullgraph=true";
    return spec;
}

bool sameCompile(const Setting& s, const OwnCompile& call) {
    return s.mode == settingMode(call) && s.backend == call.backend && s.dynamic == call.dynamic &&
           s.fullgraph == call.fullgraph && s.autocast == "none" && s.environment.empty();
}

// The row of the measured setting that compiles the whole model as the
// user's get_model() call did; null when none does.
const ComparisonRow* userCallRow(const AdviceInput& input, const OwnCompile& call) {
    for (const auto& row : input.comparison.rows) {
        const Run& run = input.report.runs.at(static_cast<size_t>(row.run));
        if (row.status == RunStatus::Ok && sameCompile(run.setting, call))
            return &row;
    }
    return nullptr;
}

// One line per call as the file wrote it, but the Module.compile() calls
// with the same arguments in one: "model[0], model[1] and 11 more call
// .compile()".
std::vector<std::string> callLines(const std::vector<OwnCompile>& calls) {
    std::vector<std::string> lines;
    std::vector<bool> done(calls.size(), false);
    for (size_t i = 0; i < calls.size(); ++i) {
        if (done[i])
            continue;
        std::vector<std::string> modules;
        for (size_t j = i; j < calls.size() && calls[i].how == "Module.compile"; ++j) {
            if (!done[j] && calls[j].how == calls[i].how && calls[j].call == calls[i].call) {
                done[j] = true;
                modules.push_back(pythonAccess(calls[j].where));
            }
        }
        if (modules.size() <= 1) {
            lines.push_back(ownCompileText(calls[i]));
            continue;
        }
        const size_t more = modules.size() > kCallsListed ? modules.size() - kCallsListed : 0;
        modules.resize(modules.size() - more);
        if (more > 0)
            modules.push_back(plural(static_cast<long long>(more), "more", "more"));
        const std::string one = ownCompileText(calls[i]);
        lines.push_back(joinWords(modules) + " call " + one.substr(one.find(".compile(")));
    }
    return lines;
}

// The measured as-written setting, which kept the calls; null when none.
const ComparisonRow* asWrittenRow(const AdviceInput& input) {
    for (const auto& row : input.comparison.rows) {
        const Run& run = input.report.runs.at(static_cast<size_t>(row.run));
        if (row.status == RunStatus::Ok && run.setting.mode == kAsWritten)
            return &row;
    }
    return nullptr;
}

std::vector<std::string> compiledLabels(const Report& report) {
    std::vector<std::string> labels;
    for (const Run& run : report.runs) {
        if (run.setting.mode != "eager" && run.setting.mode != kAsWritten &&
            run.status != RunStatus::Imported)
            labels.push_back(run.setting.label());
    }
    return labels;
}

std::string speedText(const ComparisonRow& row) {
    return row.speedup ? " (" + formatRatio(row.speedup->value) + " eager's speed)" : "";
}

std::string ranWithout(const Report& report, size_t calls, bool asWritten) {
    const auto compiled = compiledLabels(report);
    const std::string them = calls == 1 ? "it" : "them";
    std::string text = std::string(asWritten ? "every setting but as-written" : "the probe") +
                       " undid " + them + " on load: eager ran " + them + " uncompiled";
    if (!compiled.empty())
        text += ", and " + joinWords(compiled) + " compiled the whole model under " +
                (compiled.size() == 1 ? "its own mode" : "their own modes") + " alone";
    return text + " (Environment tab)";
}

std::string userCallRemedy(const AdviceInput& input, const OwnCompile& call) {
    if (const ComparisonRow* row = userCallRow(input, call)) {
        std::string text = "Setting " + row->label +
                           " compiles as your own call does: its row in "
                           "the Compare tab is what your torch.compile "
                           "call gives";
        return text + speedText(*row) + ", beside eager and the other settings.";
    }
    return "To measure your own call, add the setting that compiles as it does: --settings "
           "eager," +
           settingSpec(call) +
           (call.backend == "inductor" ? "" : " with --backend " + call.backend) +
           " (GUI: the same mode and options in the settings panel).";
}

} // namespace

void ownCompileRule(const AdviceInput& input, std::vector<Finding>& out) {
    const Report& report = input.report;
    const auto& calls = report.model.ownCompiles;
    if (calls.empty())
        return;
    Finding f;
    f.rule = "compile.own_calls";
    f.severity = Severity::Warning;
    f.tab = EvidenceTab::Environment;
    const ComparisonRow* asWritten = asWrittenRow(input);
    f.title = "The model file calls torch.compile itself (" +
              plural(static_cast<long long>(calls.size()), "place", "places") + "); " +
              (asWritten ? "only setting as-written" : "no setting here") + " ran those calls";
    const auto lines = callLines(calls);
    for (size_t i = 0; i < lines.size() && i < kCallsListed; ++i)
        f.evidence.push_back(lines[i]);
    if (lines.size() > kCallsListed)
        f.evidence.push_back(
            "and " + plural(static_cast<long long>(lines.size() - kCallsListed), "more", "more"));
    f.evidence.push_back(ranWithout(report, calls.size(), asWritten != nullptr));
    if (asWritten) {
        f.remedy = "Setting as-written ran " + std::string(calls.size() == 1 ? "it" : "them") +
                   " as your file makes " + (calls.size() == 1 ? "it" : "them") +
                   speedText(*asWritten) +
                   ": it is your program as it compiles today, and the other settings are the "
                   "alternatives to it, each measured without those calls (Compare tab).";
        f.confidence = 0.9;
        out.push_back(std::move(f));
        return;
    }
    const OwnCompile* whole = nullptr;
    for (const auto& call : calls) {
        if (call.where == "get_model()")
            whole = &call;
    }
    if (whole)
        f.remedy = userCallRemedy(input, *whole);
    std::vector<std::string> parts;
    for (const auto& call : calls) {
        if (&call != whole)
            parts.push_back(call.how == "Module.compile" || call.how == "attribute"
                                ? pythonAccess(call.where)
                                : call.where);
    }
    if (!parts.empty()) {
        const size_t more = parts.size() > kCallsListed ? parts.size() - kCallsListed : 0;
        parts.resize(parts.size() - more);
        if (more > 0)
            parts.push_back(plural(static_cast<long long>(more), "more", "more"));
        f.remedy += std::string(f.remedy.empty() ? "" : " ") +
                    (whole ? "Your code also compiles" : "Your code compiles") +
                    " parts of the model on their own (" + joinWords(parts) +
                    "): add setting as-written to measure your file's calls as it makes them "
                    "(--settings eager,as-written; GUI: tick as-written).";
    }
    f.confidence = 0.9;
    out.push_back(std::move(f));
}

} // namespace cs::core::advice
