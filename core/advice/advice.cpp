#include "core/advice/advice.h"

#include <algorithm>
#include <cmath>

#include "core/advice/advice_rules.h"
#include "core/advice/advice_text.h"

namespace cs::core {

const char* toString(Severity severity) {
    switch (severity) {
    case Severity::Critical:
        return "critical";
    case Severity::Warning:
        return "warning";
    case Severity::Info:
        return "info";
    }
    return "info";
}

std::vector<Finding> advise(const Report& report, const AdviceOptions& options) {
    const auto input = advice::makeAdviceInput(report, options);
    std::vector<Finding> findings;
    // Rules in order of how much they matter within one severity.
    advice::failureRule(input, findings);
    advice::graphBreakRule(input, findings);
    advice::recompileRule(input, findings);
    advice::rankDivergenceRule(input, findings);
    advice::noGainRule(input, findings);
    advice::warmupRule(input, findings);
    advice::compileTimeRule(input, findings);
    advice::memoryRule(input, findings);
    advice::disturbedRule(input, findings);
    advice::unsettledRule(input, findings);
    std::stable_sort(findings.begin(), findings.end(), [](const Finding& a, const Finding& b) {
        return static_cast<int>(a.severity) < static_cast<int>(b.severity);
    });
    return findings;
}

std::vector<Finding> advise(const Report& report) {
    return advise(report, report.adviceOptions);
}

const char* toString(EvidenceTab tab) {
    switch (tab) {
    case EvidenceTab::None:
        return "";
    case EvidenceTab::Breaks:
        return "Breaks";
    case EvidenceTab::Graph:
        return "Graph";
    case EvidenceTab::Compare:
        return "Compare";
    case EvidenceTab::Warmup:
        return "Warmup";
    case EvidenceTab::Latency:
        return "Latency";
    case EvidenceTab::Memory:
        return "Memory";
    case EvidenceTab::Kernels:
        return "Kernels";
    case EvidenceTab::Console:
        return "Console";
    case EvidenceTab::Ranks:
        return "Ranks";
    }
    return "";
}

nlohmann::json findingToJson(const Finding& f) {
    nlohmann::json j = {{"rule", f.rule},
                        {"severity", toString(f.severity)},
                        {"title", f.title},
                        {"evidence", f.evidence},
                        {"tab", toString(f.tab)},
                        {"run", f.run},
                        {"setting", f.setting},
                        {"file", f.file},
                        {"line", f.line},
                        {"code", f.code},
                        {"graph_break", f.graphBreak},
                        {"graph", f.graph},
                        {"graphs_split", f.graphsSplit},
                        {"remedy", f.remedy},
                        {"gain", f.gain},
                        {"confidence", f.confidence}};
    return j;
}

std::string formatFindingText(const Finding& f) {
    std::string text = "[" + std::string(toString(f.severity)) + "] " + f.title + "\n";
    if (!f.file.empty()) {
        text += "    at " + f.file + (f.line > 0 ? ":" + std::to_string(f.line) : std::string());
        if (!f.code.empty())
            text += ": " + f.code;
        text += "\n";
    }
    for (const auto& e : f.evidence)
        text += "    - " + e + "\n";
    if (!f.remedy.empty())
        text += "    fix: " + f.remedy + "\n";
    if (!f.gain.empty())
        text += "    gain: " + f.gain + "\n";
    text += "    confidence " + std::to_string(std::lround(f.confidence * 100)) + "% · rule " +
            f.rule + "\n";
    return text;
}

} // namespace cs::core
