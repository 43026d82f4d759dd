// Advice, first: what to change, most severe first, each finding with its
// evidence, where in the user's code, the remedy and how sure the rule is.
#include <cstdio>

#include "core/advice/advice.h"
#include "core/html/html_sections.h"
#include "core/html/report_html.h"

namespace cs::core::html {

namespace {

// The section of this page that shows what a finding's GUI tab shows.
std::string anchorFor(EvidenceTab tab) {
    switch (tab) {
    case EvidenceTab::None:
        return {};
    case EvidenceTab::Breaks:
        return "breaks";
    case EvidenceTab::Graph:
        return "graphs";
    case EvidenceTab::Compare:
        return "comparison";
    case EvidenceTab::Warmup:
        return "warmup";
    case EvidenceTab::Latency:
        return "latency";
    case EvidenceTab::Memory:
        return "memory";
    case EvidenceTab::Kernels:
        return "kernels";
    case EvidenceTab::Console:
        return "problems";
    case EvidenceTab::Ranks:
        return "ranks";
    case EvidenceTab::Scaling:
        return "scaling";
    case EvidenceTab::Code:
        return "costs";
    case EvidenceTab::Environment:
        return "environment";
    }
    return {};
}

} // namespace

void writeAdvice(std::ostream& out, const ReportView& view) {
    beginSection(
        out, "advice", "Advice",
        "What to change, most important first. Each finding rests on the measurements below it; "
        "situations no rule recognises get no advice rather than generic advice.");
    const std::vector<Finding> findings = advise(view.report);
    if (findings.empty()) {
        out << "<p class=\"note\">No findings: nothing measured here calls for a change.</p>";
        endSection(out);
        return;
    }
    for (const auto& f : findings) {
        const std::string severity = toString(f.severity);
        out << "<div class=\"finding\"><p class=\"ftitle\"><span class=\"sev sev-"
            << htmlEscape(severity) << "\">" << htmlEscape(severity) << "</span> "
            << htmlEscape(f.title);
        if (f.run >= 0 && f.run < static_cast<int>(view.runs.size()))
            out << " <small>" << runLabelHtml(view.runs[static_cast<size_t>(f.run)]) << "</small>";
        out << "</p>";
        if (!f.file.empty()) {
            out << "<p class=\"floc\">at <span title=\"" << htmlEscape(f.file) << "\">"
                << htmlEscape(f.file.substr(f.file.find_last_of('/') + 1))
                << (f.line > 0 ? ":" + std::to_string(f.line) : "") << "</span>";
            if (!f.code.empty())
                out << " <code>" << htmlEscape(f.code) << "</code>";
            out << "</p>";
        }
        if (!f.evidence.empty()) {
            out << "<ul class=\"evidence\">";
            for (const auto& e : f.evidence)
                out << "<li>" << htmlEscape(e) << "</li>";
            out << "</ul>";
        }
        if (!f.remedy.empty())
            out << "<p><b>Change:</b> " << htmlEscape(f.remedy) << "</p>";
        if (!f.gain.empty())
            out << "<p><b>Expect:</b> " << htmlEscape(f.gain) << "</p>";
        char confidence[32];
        std::snprintf(confidence, sizeof confidence, "%.0f%%", f.confidence * 100);
        out << "<p class=\"note\">confidence " << confidence << " · rule <code>"
            << htmlEscape(f.rule) << "</code>";
        if (const std::string anchor = anchorFor(f.tab); !anchor.empty())
            out << " · evidence in <a href=\"#" << anchor << "\">" << htmlEscape(toString(f.tab))
                << "</a>";
        out << "</p></div>";
    }
    endSection(out);
}

} // namespace cs::core::html
