// Settings: how each probe process compiled and measured the model, and how it ended.
#include "core/analysis/rank_divergence.h"
#include "core/analysis/units.h"
#include "core/html/html_sections.h"
#include "core/html/html_table.h"
#include "core/html/report_html.h"

namespace cs::core::html {

namespace {

// The sweep is asked for by default; whether it ran depends on the model.
std::string sweepText(const Run& run) {
    if (!run.setting.sweep)
        return "no";
    if (run.phase("sweep"))
        return "yes";
    return run.status == RunStatus::Ok ? "none defined" : "not reached";
}

// How the measured probe started: the cold start it measured.
std::string startText(const Setting& s) {
    if (s.warmCache())
        return "warm (kept)";
    if (s.cacheArtifacts())
        return "portable artifacts";
    return "fresh";
}

} // namespace

void writeSettings(std::ostream& out, const ReportView& view) {
    beginSection(
        out, "settings", "Settings",
        "One fresh probe process per setting, so no compile cache carries from one into the next.");
    if (view.runs.empty()) {
        out << "<p class=\"empty\">This report has no runs.</p>";
        endSection(out);
        return;
    }
    if (allRunsImported(view.report)) {
        // No probe ran: the log does not say which mode or settings the job used.
        out << importedNoDataNote(view, "settings a probe ran: its ranks are under Ranks");
        endSection(out);
        return;
    }
    HtmlTable table({{"setting", true},
                     {"mode", true},
                     {"backend", true},
                     {"dynamic", true},
                     {"fullgraph", true},
                     {"device", true, "asked for / what the probe used"},
                     {"autocast", true},
                     {"warmup calls"},
                     {"measured calls"},
                     {"input sweep", true},
                     {"compile cache", true},
                     {"status", true},
                     {"exit code"}});
    for (const auto& r : view.runs) {
        const Run& run = *r.run;
        const Setting& s = run.setting;
        const bool compiled = s.mode != "eager";
        table.beginRow(run.status == RunStatus::Ok ? "" : "bad");
        table.html(runLabelHtml(r));
        table.text(s.mode);
        table.text(compiled ? s.backend : "—");
        table.text(compiled ? s.dynamic : "—");
        table.text(compiled ? (s.fullgraph ? "yes" : "no") : "—");
        table.text(run.probe.device.empty() ? s.device : s.device + " / " + run.probe.device);
        table.text(s.autocast);
        table.text(formatCount(s.warmup));
        table.text(formatCount(s.iters));
        table.text(sweepText(run));
        table.text(startText(s));
        table.text(toString(run.status));
        table.text(run.exitCode ? std::to_string(*run.exitCode) : "—");
        if (run.error)
            table.wide("<span class=\"err\">" + htmlEscape(run.error->kind) + ": " +
                       htmlEscape(run.error->message) + "</span> <a href=\"#problems-" +
                       std::to_string(r.index) + "\">traceback</a>");
    }
    out << table.str();
    endSection(out);
}

} // namespace cs::core::html
