// Errors and console: each failed setting's error with its traceback, the
// probe's warnings, unreadable stream lines, and what the model printed.
#include "core/html/html_sections.h"
#include "core/html/html_table.h"
#include "core/html/report_html.h"

namespace cs::core::html {

namespace {

// A console can hold megabytes of compiler output; show its start and end.
constexpr size_t kConsoleHead = size_t{48} * 1024;
constexpr size_t kConsoleTail = size_t{48} * 1024;

std::string consoleHtml(const std::string& text) {
    if (text.size() <= kConsoleHead + kConsoleTail)
        return htmlEscape(text);
    return htmlEscape(std::string_view(text).substr(0, kConsoleHead)) +
           "\n<span class=\"note\">… " + std::to_string(text.size() - kConsoleHead - kConsoleTail) +
           " bytes not shown here; the JSON report keeps all of them …</span>\n" +
           htmlEscape(std::string_view(text).substr(text.size() - kConsoleTail));
}

} // namespace

void writeProblems(std::ostream& out, const ReportView& view) {
    beginSection(out, "problems", "Errors, warnings and console",
                 "What went wrong in each setting, in the probe's words, and what the model and "
                 "torch printed.");
    bool any = false;
    for (const auto& r : view.runs) {
        const Run& run = *r.run;
        std::vector<const LogLine*> logs;
        for (const auto& l : run.logs) {
            if (l.level == "warning" || l.level == "error")
                logs.push_back(&l);
        }
        if (!run.error && logs.empty() && run.parseProblems.empty() && run.console.empty())
            continue;
        any = true;
        out << "<h3 id=\"problems-" << r.index << "\">" << runLabelHtml(r) << " — "
            << toString(run.status) << "</h3>";
        if (run.error) {
            out << "<p class=\"err\"><b>" << htmlEscape(run.error->kind)
                << "</b>: " << htmlEscape(run.error->message) << "</p>";
            if (!run.error->traceback.empty())
                out << "<details><summary>traceback</summary><pre>"
                    << htmlEscape(run.error->traceback) << "</pre></details>";
        }
        if (!logs.empty()) {
            HtmlTable table({{"level", true}, {"message", true}});
            for (const auto* l : logs) {
                table.beginRow(l->level == "error" ? "bad" : "");
                table.text(l->level);
                table.text(l->message);
            }
            out << table.str();
        }
        if (!run.parseProblems.empty()) {
            HtmlTable table({{"stream line"}, {"problem", true}});
            for (const auto& p : run.parseProblems) {
                table.beginRow();
                table.text(std::to_string(p.line));
                table.text(p.message);
            }
            out << "<p>Lines of the probe's event stream that could not be read:</p>"
                << table.str();
        }
        if (!run.console.empty())
            out << "<details><summary>console (" << run.console.size() << " bytes)</summary><pre>"
                << consoleHtml(run.console) << "</pre></details>";
    }
    if (!any)
        out << "<p class=\"note\">No errors, warnings or console output.</p>";
    endSection(out);
}

} // namespace cs::core::html
