// Cold starts: each setting's first call after a fresh compile, with a warm
// Inductor cache and with torch's portable cache artifacts, and an aoti
// package's load beside them (compilescope-cli warmstart). Written only for a
// report that measured a start other than a fresh compile.
#include <cstdio>

#include "core/analysis/units.h"
#include "core/analysis/warm_start.h"
#include "core/html/html_sections.h"
#include "core/html/html_table.h"
#include "core/html/report_html.h"

namespace cs::core::html {

namespace {

void cell(HtmlTable& table, const ColdStart& c, bool withRatio) {
    if (c.firstCallNs < 0) {
        // Blank, never zero: the reason is the cell's tooltip (inline it widened
        // the table past the page).
        table.text("—", c.why);
        return;
    }
    std::string text = formatDuration(static_cast<double>(c.firstCallNs));
    if (withRatio && c.speedupOverFresh) {
        char ratio[32];
        std::snprintf(ratio, sizeof ratio, " (%.2f×)", *c.speedupOverFresh);
        text += ratio;
    }
    table.text(text, std::to_string(c.firstCallNs) + " ns");
}

const RunView* runOf(const ReportView& view, const ColdStart& c) {
    return c.run && *c.run < view.runs.size() ? &view.runs[*c.run] : nullptr;
}

} // namespace

void writeWarmStarts(std::ostream& out, const ReportView& view) {
    if (!hasWarmStarts(view.report))
        return;
    beginSection(out, "warm-starts", "Cold starts",
                 "What a program pays on its first call: after a fresh compile, with a warm "
                 "Inductor cache (a second start on the same machine), and with torch's portable "
                 "cache artifacts loaded first (their load included). (N×): how many times faster "
                 "than the fresh compile.");
    HtmlTable table(
        {{"setting", true},
         {"fresh compile", false, "first call in a fresh process with an empty compile cache"},
         {"warm cache", false,
          "first call after an unmeasured run filled torch's compile caches on this machine"},
         {"portable artifacts", false,
          "first call in a fresh cache after torch.compiler.load_cache_artifacts(), the load "
          "included"},
         {"artifacts load", false, "torch.compiler.load_cache_artifacts() and reading the file"},
         {"artifacts size", false, "the bytes torch.compiler.save_cache_artifacts() returned"},
         {"package load", false, "aoti: loading the AOTInductor package (part of its first call)"},
         {"steady median", false, "the fresh run's per-call median, for scale"}});
    for (const auto& row : warmStartTable(view.report)) {
        table.beginRow();
        if (const RunView* run = runOf(view, row.fresh))
            table.html(runLabelHtml(*run));
        else
            table.text(row.label);
        cell(table, row.fresh, false);
        cell(table, row.warmCache, true);
        cell(table, row.artifacts, true);
        table.text(row.artifactsLoadNs >= 0
                       ? formatDuration(static_cast<double>(row.artifactsLoadNs))
                       : "—");
        table.text(row.artifactsBytes >= 0 ? formatBytes(static_cast<double>(row.artifactsBytes))
                                           : "—");
        table.text(row.packageLoadNs >= 0 ? formatDuration(static_cast<double>(row.packageLoadNs))
                                          : "—");
        table.text(durationOrDash(row.medianNs));
    }
    out << table.str();
    out << "<p class=\"note\">docs/measuring.md, &ldquo;Cold starts&rdquo;, says how each is "
           "measured.</p>";
    endSection(out);
}

} // namespace cs::core::html
