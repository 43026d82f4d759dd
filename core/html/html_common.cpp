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

namespace {

// A label with a setting's env= ("default TORCHINDUCTOR_MAX_AUTOTUNE_POINTWISE=1")
// is one long word: let it break after _ = , : where a table has no room, so
// its first column does not push the figures off the page.
std::string breakableLabel(const std::string& label) {
    std::string out;
    for (size_t start = 0; start < label.size();) {
        const size_t at = label.find_first_of("_=,:", start);
        const size_t end = at == std::string::npos ? label.size() : at + 1;
        out += htmlEscape(std::string_view(label).substr(start, end - start));
        if (at != std::string::npos && end < label.size())
            out += "<wbr>";
        start = end;
    }
    return out;
}

} // namespace

// The swatch stays on the line of the label's first word: a narrow column
// breaks the label after it, never between the swatch and the label.
std::string runLabelHtml(const RunView& run) {
    const std::string& label = run.label;
    const size_t at = label.find_first_of(" _=,:-");
    // A space stays outside, where the line may break; _ = , : - end the word.
    const size_t lead = at == std::string::npos ? label.size() : at + (label[at] == ' ' ? 0 : 1);
    std::string html = "<span class=\"run\"><span class=\"lead\"><span class=\"swatch\" "
                       "style=\"background:" +
                       htmlEscape(run.color) + "\"></span>" +
                       htmlEscape(std::string_view(label).substr(0, lead)) + "</span>";
    if (lead < label.size())
        html += (label[lead] == ' ' ? "" : "<wbr>") + breakableLabel(label.substr(lead));
    return html + "</span>";
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
