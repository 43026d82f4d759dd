// Shared pieces of the HTML report's sections: the per-run view and headings.
#include "core/html/html_sections.h"

#include "core/analysis/palette.h"
#include "core/analysis/rank_divergence.h"
#include "core/analysis/units.h"
#include "core/html/report_html.h"

namespace cs::core::html {

ReportView makeReportView(const Report& report) {
    ReportView view{report, {}};
    for (size_t i = 0; i < report.runs.size(); ++i) {
        const Run& run = report.runs[i];
        const int index = static_cast<int>(i);
        // An imported run is a rank of a TORCH_TRACE log, not a setting.
        const std::string label = isImported(run) ? rankLabel(run, index) : run.setting.label();
        view.runs.push_back(
            {&run, index, label, runColor(report, index), computeStats(run.measuredLatencies())});
    }
    return view;
}

std::string runLabelHtml(const RunView& run) {
    return "<span class=\"run\"><span class=\"swatch\" style=\"background:" +
           htmlEscape(run.color) + "\"></span>" + htmlEscape(run.label) + "</span>";
}

std::string durationOrDash(std::optional<double> ns) {
    return ns ? formatDuration(*ns) : std::string("—");
}

void beginSection(std::ostream& out, const std::string& id, const std::string& title,
                  const std::string& intro) {
    out << "<section id=\"" << htmlEscape(id) << "\"><h2>" << htmlEscape(title) << "</h2>";
    if (!intro.empty())
        out << "<p class=\"intro\">" << htmlEscape(intro) << "</p>";
}

void endSection(std::ostream& out) {
    out << "</section>\n";
}

} // namespace cs::core::html
