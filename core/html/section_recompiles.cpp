// Recompiles: each time a guard failed and torch compiled the function again.
#include "core/advice/advice_text.h"
#include "core/analysis/function_name.h"
#include "core/analysis/measurement_check.h"
#include "core/html/html_sections.h"
#include "core/html/html_table.h"
#include "core/html/report_html.h"

namespace cs::core::html {

void writeRecompiles(std::ostream& out, const ReportView& view) {
    beginSection(
        out, "recompiles", "Recompiles",
        "A recompile happens when a guard of a compiled graph fails (a new input shape, dtype or "
        "Python value); past the cache limit torch runs the function eagerly.");
    HtmlTable table(
        {{"setting", true},
         {"function", true},
         {"guard that failed", true},
         {"cache entries", false, "compiled versions of this function after recompiling"},
         {"input shapes", true},
         {"when", true, "the call it happened in, numbered as the charts number calls"},
         {"limit", true}});
    for (const auto& r : view.runs) {
        for (const auto& rc : r.run->recompiles) {
            table.beginRow(rc.limitHit ? "bad" : "");
            table.html(runLabelHtml(r));
            table.text(functionLabel(rc.function));
            // The guard; torch's source comment and hint folded away under it.
            const std::string guard = advice::guardExpression(rc.reason);
            std::string reason =
                "<code>" + htmlEscape(guard.empty() ? rc.reason : guard) + "</code>";
            if (!guard.empty() && guard != rc.reason)
                reason += "<details><summary>torch's full text</summary><pre>" +
                          htmlEscape(rc.reason) + "</pre></details>";
            table.html(reason);
            table.text(std::to_string(rc.cacheSize));
            table.text(rc.inputShapes.empty() ? "—" : rc.inputShapes);
            const std::string when = recompileWhenText(*r.run, rc);
            table.text(when.empty() ? "—" : when);
            if (!rc.limitHit)
                table.text("");
            else if (rc.limit > 0)
                table.text("limit " + std::to_string(rc.limit) + " hit: runs eagerly from here");
            else
                table.text("limit hit: runs eagerly from here");
        }
    }
    if (table.rows() == 0)
        out << "<p class=\"note\">No recompiles in any setting.</p>";
    else
        out << table.str();
    endSection(out);
}

} // namespace cs::core::html
