// Advice: findings derived from what a report measured, each with the evidence
// it rests on, where in the user's code, what to change and how sure we are.
// Situations no rule recognises produce no finding rather than generic advice.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/advice/advice_options.h"
#include "core/advice/evidence_tab.h"
#include "core/report/session.h"

namespace cs::core {

enum class Severity { Critical, Warning, Info };
const char* toString(Severity severity);

struct Finding {
    std::string rule; // stable id: "graph_break.print", "recompile.shape", "memory.cost", ...
    Severity severity = Severity::Info;
    std::string title;                   // one line
    std::vector<std::string> evidence;   // measured facts, numbers with units
    EvidenceTab tab = EvidenceTab::None; // where the evidence is shown
    int run = -1;                        // index into Report::runs; -1 for the whole report
    std::string setting;                 // that run's Setting::label()
    std::string file;                    // the user's source, when the finding has a location
    int line = 0;
    std::string code;      // that source line, when the probe sent it
    int graphBreak = -1;   // index into Run::graphBreaks the finding rests on
    int graph = -1;        // index into Run::graphs
    int graphsSplit = 0;   // graphs this break cause splits the function into
    std::string remedy;    // what to change
    std::string gain;      // what to expect from the remedy, only when evidence supports it
    double confidence = 0; // 0..1
    bool operator==(const Finding&) const = default;
};

// All findings, most severe first (then by run, then by location).
std::vector<Finding> advise(const Report& report, const AdviceOptions& options);
// With the options saved in the report.
std::vector<Finding> advise(const Report& report);

nlohmann::json findingToJson(const Finding& finding);
// One line per finding and its details, for the CLI and logs.
std::string formatFindingText(const Finding& finding);

} // namespace cs::core
