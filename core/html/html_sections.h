// The sections of the HTML report, one file each. Each writes a <section>
// with an id the table of contents links to; all text goes through htmlEscape.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "core/analysis/stats.h"
#include "core/report/session.h"

namespace cs::core::html {

// What every section needs about one run, computed once.
struct RunView {
    const Run* run = nullptr;
    int index = 0;
    std::string label;
    std::string color; // "#rrggbb", the run's colour everywhere
    std::optional<LatencyStats> stats;
};

struct ReportView {
    const Report& report;
    std::vector<RunView> runs;
};

ReportView makeReportView(const Report& report);
// The run's colour swatch and its escaped label.
std::string runLabelHtml(const RunView& run);
std::string durationOrDash(std::optional<double> ns);
// Opens a section with its heading and an optional one-line explanation.
void beginSection(std::ostream& out, const std::string& id, const std::string& title,
                  const std::string& intro = {});
void endSection(std::ostream& out);

// In the order the page shows them.
void writeAdvice(std::ostream& out, const ReportView& view);
void writeEnvironment(std::ostream& out, const ReportView& view);
void writeSettings(std::ostream& out, const ReportView& view);
void writeComparison(std::ostream& out, const ReportView& view);
// Only for imported TORCH_TRACE runs: the ranks side by side (two or more) and their compiles.
void writeRanks(std::ostream& out, const ReportView& view);
// Only for a batch-size walk (compilescope-cli scale).
void writeScaling(std::ostream& out, const ReportView& view);
void writeBreaks(std::ostream& out, const ReportView& view);
void writeRecompiles(std::ostream& out, const ReportView& view);
// Only for a report that measured a warm or artifacts start (compilescope-cli warmstart).
void writeWarmStarts(std::ostream& out, const ReportView& view);
void writeWarmup(std::ostream& out, const ReportView& view);
void writeLatency(std::ostream& out, const ReportView& view);
void writeMemory(std::ostream& out, const ReportView& view);
void writeKernels(std::ostream& out, const ReportView& view);
// Only for a report with a profiled kernel window: top kernels and hot lines per setting.
void writeCosts(std::ostream& out, const ReportView& view);
void writeGraphs(std::ostream& out, const ReportView& view);
void writeProblems(std::ostream& out, const ReportView& view);

// A note that imported runs hold no `what` ("latency"); empty without imported runs.
std::string importedNoDataNote(const ReportView& view, const std::string& what);

// The page's stylesheet (inline: the report fetches nothing).
const char* reportStyle();

} // namespace cs::core::html
