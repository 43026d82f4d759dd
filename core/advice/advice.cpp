#include "core/advice/advice.h"

#include <algorithm>
#include <cmath>

#include "core/advice/advice_rules.h"
#include "core/advice/advice_text.h"
#include "core/analysis/rank_divergence.h"

namespace cs::core {

namespace {

// The ranks of an imported job run the same code: each rank's break or
// recompile finding repeats the others'. Keep the first, name every rank on it.
void mergeAcrossRanks(const Report& report, std::vector<Finding>& findings) {
    auto imported = [&](const Finding& f) {
        return f.run >= 0 && f.run < static_cast<int>(report.runs.size()) &&
               isImported(report.runs[static_cast<size_t>(f.run)]);
    };
    auto same = [](const Finding& a, const Finding& b) {
        return a.rule == b.rule && a.title == b.title && a.file == b.file && a.line == b.line;
    };
    std::vector<Finding> kept;
    std::vector<std::vector<std::string>> ranks; // per kept finding, when imported
    for (auto& f : findings) {
        if (!imported(f)) {
            kept.push_back(std::move(f));
            ranks.emplace_back();
            continue;
        }
        const std::string rank = rankLabel(report.runs[static_cast<size_t>(f.run)], f.run);
        size_t k = 0;
        while (k < kept.size() && !(imported(kept[k]) && same(kept[k], f)))
            ++k;
        if (k < kept.size()) {
            ranks[k].push_back(rank);
            continue;
        }
        f.setting = rank;
        kept.push_back(std::move(f));
        ranks.push_back({rank});
    }
    for (size_t k = 0; k < kept.size(); ++k) {
        if (ranks[k].size() > 1) {
            kept[k].run = -1; // more than one run: the whole report
            kept[k].evidence.push_back("the same on " + std::to_string(ranks[k].size()) +
                                       " ranks: " + advice::joinWords(ranks[k]));
        }
    }
    findings = std::move(kept);
}

} // namespace

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
    advice::compiledNothingRule(input, findings);
    advice::ownCompileRule(input, findings);
    advice::graphBreakRule(input, findings);
    advice::libraryBreakRule(input, findings);
    advice::uncompiledModulesRule(input, findings);
    advice::recompileRule(input, findings);
    advice::rankDivergenceRule(input, findings);
    advice::noGainRule(input, findings);
    advice::autocastRule(input, findings);
    advice::pageFaultRule(input, findings);
    advice::warmupRule(input, findings);
    advice::compileTimeRule(input, findings);
    advice::memoryRule(input, findings);
    advice::growthRule(input, findings);
    advice::outputsRule(input, findings);
    advice::disturbedRule(input, findings);
    advice::inheritedEnvironmentRule(input, findings);
    advice::busyMachineRule(input, findings);
    advice::hostDriftRule(input, findings);
    advice::inputsChangedRule(input, findings);
    advice::trainingModeRule(input, findings);
    advice::unsettledRule(input, findings);
    advice::scalingRule(input, findings);
    advice::warmStartRule(input, findings);
    advice::kernelRule(input, findings);
    advice::exportRule(input, findings);
    std::vector<Finding> unexplained;
    advice::unexplainedFailureRule(input, findings, unexplained);
    findings.insert(findings.end(), unexplained.begin(), unexplained.end());
    advice::loadCaveat(input, findings);
    mergeAcrossRanks(report, findings);
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
    case EvidenceTab::Scaling:
        return "Scaling";
    case EvidenceTab::Code:
        return "Code";
    case EvidenceTab::Environment:
        return "Environment";
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
