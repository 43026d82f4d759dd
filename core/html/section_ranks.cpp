// Ranks and compiles of an imported TORCH_TRACE log: the ranks side by side
// with the cells where a rank diverges marked (core/analysis/rank_divergence.h),
// and each rank's compiles. Neither section is written for a probe's report.
#include <algorithm>

#include "core/analysis/rank_divergence.h"
#include "core/analysis/units.h"
#include "core/html/html_sections.h"
#include "core/html/html_table.h"
#include "core/html/report_html.h"

namespace cs::core::html {

namespace {

// Compiles shown open per rank; the rest fold into a <details>, so a log of
// hundreds of compiles keeps the page short.
constexpr size_t kOpenCompiles = 20;

std::string secondsText(double s) {
    return s > 0 ? formatDuration(s * 1e9) : std::string("—");
}

// The sentences of the divergences of one kind naming a run, for a tooltip.
std::string why(const RankComparison& ranks, int run, DivergenceKind kind) {
    std::string text;
    for (const Divergence* d : ranks.of(run, kind))
        text += (text.empty() ? "" : " ") + d->text;
    return text;
}

void countCell(HtmlTable& table, const std::string& value, const std::string& tip) {
    table.text(value, tip, tip.empty() ? "" : "bad");
}

void writeRankTable(std::ostream& out, const ReportView& view, const RankComparison& ranks) {
    HtmlTable table(
        {{"rank", true},
         {"compiles", false, "compile ids in the rank's log (compilation_metrics records)"},
         {"graphs", false, "graphs Dynamo captured"},
         {"breaks", false, "graph breaks"},
         {"recompiles", false, "guard failures that made torch compile a function again"},
         {"compile time", false, "sum of the compiles' entire_frame_compile_time_s"},
         {"cache hit / miss / bypass", false, "FX graph and AOTAutograd cache lookups"},
         {"failures", false, "compiles that failed"},
         {"restarts", false, "times torch restarted an analysis"}});
    for (const RankRow& row : ranks.rows) {
        const std::string graphs = why(ranks, row.run, DivergenceKind::Graphs);
        table.beginRow();
        table.html(runLabelHtml(view.runs[static_cast<size_t>(row.run)]));
        table.text(std::to_string(row.compiles));
        countCell(table, std::to_string(row.graphs), graphs);
        table.text(std::to_string(row.graphBreaks));
        countCell(table, std::to_string(row.recompiles),
                  why(ranks, row.run, DivergenceKind::Recompiles));
        countCell(table, secondsText(row.compileSeconds),
                  why(ranks, row.run, DivergenceKind::CompileTime));
        countCell(table,
                  std::to_string(row.cacheHits) + " / " + std::to_string(row.cacheMisses) + " / " +
                      std::to_string(row.cacheBypasses),
                  why(ranks, row.run, DivergenceKind::Cache));
        table.text(std::to_string(row.failures), {}, row.failures > 0 ? "bad" : "");
        table.text(std::to_string(row.restarts));
    }
    out << table.str();
}

// The cache outcomes of one compile: "fx_graph hit, aotautograd miss".
std::string cacheText(const Run& run, const std::string& compileId) {
    std::string text;
    for (const auto& lookup : run.cacheLookups) {
        if (lookup.compileId == compileId)
            text += (text.empty() ? "" : ", ") + lookup.cache + " " + lookup.outcome;
    }
    return text.empty() ? "—" : text;
}

std::string phasesText(const CompileRecord& c) {
    std::string text;
    for (const auto& p : c.phases) {
        if (p.seconds > 0)
            text += (text.empty() ? "" : ", ") + p.name + " " + secondsText(p.seconds);
    }
    return text;
}

std::string compileTable(const Run& run, size_t from, size_t to) {
    HtmlTable table({{"compile", true},
                     {"function", true},
                     {"where", true},
                     {"time", false, "entire_frame_compile_time_s"},
                     {"phases", true},
                     {"failed / restarted", true},
                     {"cache", true}});
    for (size_t i = from; i < to; ++i) {
        const CompileRecord& c = run.compiles[i];
        const bool failed = !c.failType.empty();
        table.beginRow(failed ? "bad" : "");
        table.text(c.compileId);
        table.text(c.function);
        table.text(c.file.empty() ? std::string("—")
                                  : c.file + (c.line > 0 ? ":" + std::to_string(c.line) : ""));
        table.text(secondsText(c.seconds));
        table.text(phasesText(c));
        std::string trouble;
        if (failed)
            trouble = c.failType + (c.failReason.empty() ? "" : ": " + c.failReason);
        for (const auto& reason : c.restartReasons)
            trouble += (trouble.empty() ? "restart: " : "; restart: ") + reason;
        if (!c.recompileReason.empty())
            trouble += (trouble.empty() ? "recompile: " : "; recompile: ") + c.recompileReason;
        table.html(trouble.empty() ? "" : "<code>" + htmlEscape(trouble) + "</code>");
        table.text(cacheText(run, c.compileId));
    }
    return table.str();
}

void writeCompileTables(std::ostream& out, const ReportView& view) {
    for (const auto& r : view.runs) {
        const Run& run = *r.run;
        if (!isImported(run))
            continue;
        out << "<h3>" << runLabelHtml(r) << ": " << run.compiles.size()
            << (run.compiles.size() == 1 ? " compile" : " compiles");
        if (run.trace && !run.trace->path.empty())
            out << " <small class=\"note\">" << htmlEscape(run.trace->path) << "</small>";
        out << "</h3>";
        if (run.compiles.empty()) {
            out << "<p class=\"empty\">The log of this rank holds no compilation_metrics "
                   "records.</p>";
            continue;
        }
        const size_t open = std::min(run.compiles.size(), kOpenCompiles);
        out << compileTable(run, 0, open);
        if (open < run.compiles.size()) {
            out << "<details><summary>" << run.compiles.size() - open << " more compiles of "
                << htmlEscape(r.label) << "</summary>"
                << compileTable(run, open, run.compiles.size()) << "</details>";
        }
    }
}

} // namespace

void writeRanks(std::ostream& out, const ReportView& view) {
    if (importedRunCount(view.report) == 0)
        return;
    const RankComparison ranks = compareRanks(view.report);
    if (ranks.comparable()) {
        beginSection(out, "ranks", "Ranks",
                     "The ranks of one distributed job run the same program: a rank that "
                     "compiles other graphs, recompiles more, misses a cache the others hit or "
                     "compiles far longer makes the others wait at the next collective, or hangs "
                     "it. Marked cells differ from the other ranks; hover for why.");
        writeRankTable(out, view, ranks);
        if (ranks.divergences.empty()) {
            out << "<p class=\"note\">The ranks compiled alike: same graphs, no extra "
                   "recompiles or cache misses, no rank far slower.</p>";
        } else {
            out << "<ul class=\"evidence\">";
            for (const auto& d : ranks.divergences)
                out << "<li>" << htmlEscape(d.text) << "</li>";
            out << "</ul>";
        }
        endSection(out);
    }
    beginSection(out, "compiles", "Compiles",
                 "Each compile in the TORCH_TRACE log, per rank, from its compilation_metrics "
                 "record: compile id (frame/attempt), the function, how long it took and in "
                 "which phases, why it failed or restarted, and the compile caches' answers.");
    writeCompileTables(out, view);
    endSection(out);
}

std::string importedNoDataNote(const ReportView& view, const std::string& what) {
    const int imported = importedRunCount(view.report);
    if (imported == 0)
        return {};
    std::string who = imported == static_cast<int>(view.report.runs.size())
                          ? std::string("This report was imported from a TORCH_TRACE log")
                          : std::to_string(imported) + " of its runs were imported from a "
                                                       "TORCH_TRACE log";
    return "<p class=\"note\">" + htmlEscape(who + ", which holds no " + what + ".") + "</p>";
}

} // namespace cs::core::html
