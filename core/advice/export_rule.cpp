// Rule: torch.export refused the model (the aoti setting). Found like a graph
// break: torch's reason, the user's line, the remedy; and, when torch.compile
// ran the same model, what it did at that line, side by side.
#include "core/advice/advice_rules.h"
#include "core/advice/advice_text.h"

namespace cs::core::advice {

namespace {

std::string categoryWords(const std::string& category) {
    if (category == "data_dependent")
        return "control flow on a tensor's values";
    if (category == "item")
        return "a Python number read from a tensor";
    if (category == "unsupported")
        return "a call export cannot trace";
    if (category == "dynamic_shape")
        return "the dynamic shapes it was given";
    if (category == "pytree_type")
        return "a value that is not tensors";
    return "an error";
}

bool compiles(const Run& run) {
    return run.setting.mode != "eager" && run.setting.mode != "aoti" &&
           run.status != RunStatus::Pending && run.status != RunStatus::Running;
}

// What torch.compile did with the same model, for the finding's evidence.
std::vector<std::string> compileSideBySide(const Report& report, const ExportFailure& failure) {
    std::vector<std::string> lines;
    for (const Run& other : report.runs) {
        if (!compiles(other))
            continue;
        const std::string label = other.setting.label();
        const GraphBreak* sameLine = nullptr;
        for (const auto& gb : other.graphBreaks) {
            const SourceFrame* frame = gb.location();
            if (frame && !failure.file.empty() && frame->file == failure.file &&
                frame->line == failure.line) {
                sameLine = &gb;
                break;
            }
        }
        if (sameLine) {
            lines.push_back(label + " breaks the graph at the same line (" + sameLine->cause() +
                            ") and runs it in Python; an exported program has no Python to fall "
                            "back to (Breaks tab)");
        } else if (!other.graphBreaks.empty()) {
            lines.push_back(label + " compiles with " + std::to_string(other.graphBreaks.size()) +
                            " graph break(s)" +
                            (failure.file.empty() ? "" : ", none at this line") + " (Breaks tab)");
        } else if (other.status == RunStatus::Ok) {
            lines.push_back(label + " compiles the model without a graph break: torch.compile "
                                    "traces what torch.export refuses here, because it can "
                                    "guard on the values and recompile");
        }
        break; // one compiled setting says it; the others would repeat it
    }
    return lines;
}

} // namespace

void exportRule(const AdviceInput& input, std::vector<Finding>& out) {
    const auto& runs = input.report.runs;
    for (size_t r = 0; r < runs.size(); ++r) {
        const Run& run = runs[r];
        if (!run.exportFailure)
            continue;
        const ExportFailure& e = *run.exportFailure;
        Finding f;
        f.rule = "export." + (e.category.empty() ? std::string("other") : e.category);
        f.severity = Severity::Critical;
        f.run = static_cast<int>(r);
        f.setting = run.setting.label();
        f.tab = EvidenceTab::Compare; // where the failed aoti row is; the line is in the finding
        const std::string package = installedPackage(e.file);
        f.title = "torch.export cannot export the model: " + categoryWords(e.category) +
                  (e.file.empty() ? std::string() : " at " + shortLocation(e.file, e.line)) +
                  (package.empty() ? std::string() : " in " + package + "'s code");
        f.file = e.file;
        f.line = e.line;
        f.code = e.code;
        f.evidence.push_back(std::string(e.strict ? "strict" : "non-strict") +
                             " export: " + firstLine(e.reason));
        for (auto& line : compileSideBySide(input.report, e))
            f.evidence.push_back(std::move(line));
        f.remedy = e.remedy;
        f.confidence = e.category == "other" ? 0.5 : 0.85;
        out.push_back(std::move(f));
    }
}

} // namespace cs::core::advice
