// Comparison: every setting side by side against eager — speedup with its
// confidence interval, break-even calls, warmup and peak memory.
#include <cstdio>

#include "core/analysis/comparison.h"
#include "core/analysis/comparison_text.h"
#include "core/analysis/rank_divergence.h"
#include "core/analysis/run_summary.h"
#include "core/analysis/units.h"
#include "core/html/html_sections.h"
#include "core/html/html_table.h"
#include "core/html/report_html.h"

namespace cs::core::html {

namespace {

std::string ratio(double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%.2f×", v);
    return text;
}

} // namespace

void writeComparison(std::ostream& out, const ReportView& view) {
    beginSection(
        out, "comparison", "Comparison",
        "Speedup is eager's median over the setting's median, with a conservative interval from "
        "the two medians' 95% confidence intervals; where each setting ran more than one probe "
        "(--repeat), the interval also spans the ratio of every round, and a speedup counts "
        "only when every round agrees. Warmup is the time until steady state "
        "and of any later warmup call that recompiled; "
        "break-even is the number of calls after which a setting's extra warmup cost (what those "
        "calls took beyond the steady-state median) over eager is paid back by the time it saves "
        "per call. "
        "Where a setting swept its inputs (get_input_sweep()), sweep is that sweep's wall time "
        "after the measured calls: its new shapes and the recompiles they cost, which warmup "
        "leaves out. "
        "Outputs holds each compiled setting's outputs against eager's on the same inputs "
        "after its timed calls: agree, or the largest difference over the output's scale "
        "(hover it for the value and the float64 verdict). "
        "Best value per column in green.");
    const Report& report = view.report;
    if (view.runs.empty()) {
        out << "<p class=\"empty\">No runs.</p>";
        endSection(out);
        return;
    }
    if (allRunsImported(view.report)) {
        out << importedNoDataNote(view, "timed calls to compare");
        endSection(out);
        return;
    }
    // The same comparison the Compare tab and the advice rules read, so the
    // table and the findings above it never disagree.
    const Comparison comparison = compareRuns(report);
    const int baseline = comparison.baseline;
    auto mark = [](const ComparisonRow* row, CompareColumn column) {
        return row && row->isBest(column) ? "best" : "";
    };

    const bool swept = comparison.swept();
    std::vector<Column> columns(
        {{"setting", true},
         {"status", true},
         {"graphs"},
         {"breaks", false, "graph breaks: places where torch.compile split the model"},
         {"recompiles"},
         {"first call", false, "the call where torch compiles"},
         {"warmup", false,
          "time until steady state and of later warmup calls that recompiled; hover a value for "
          "what those calls cost beyond it, which "
          "break-even pays back"},
         {"median"},
         {"p99"},
         {"speedup vs eager", false,
          "eager median / this median, and under it the conservative 95% interval (over "
          "repeated probes, every round's ratio too)"},
         {"outputs", false,
          "the setting's outputs against eager's on the same inputs, after its timed calls"},
         {"break-even", false, "calls until the extra warmup over eager is paid back"},
         {"peak memory"}});
    if (swept)
        columns.insert(columns.begin() + 7,
                       Column("sweep", false,
                              "wall time of the input sweep after measuring "
                              "(get_input_sweep()): each new shape, and the recompiles it "
                              "costs, which warmup leaves out"));
    HtmlTable table(std::move(columns));
    for (const RunView& rv : view.runs) {
        const Run& run = *rv.run;
        const RunSummary s = summarizeRun(run);
        const ComparisonRow* row = comparison.row(rv.index);
        // Graphs, breaks and recompiles are Dynamo's: eager and aoti have none to count.
        const bool compiled = row && row->dynamo;
        table.beginRow(run.status == RunStatus::Ok ? "" : "bad");
        table.html(runLabelHtml(rv));
        table.text(toString(run.status));
        table.text(compiled ? formatCount(s.graphs) : "—");
        table.text(compiled ? formatCount(s.breaks) : "—", {}, s.breaks > 0 ? "warn" : "");
        table.text(compiled ? formatCount(s.recompiles) : "—", {}, s.recompiles > 0 ? "warn" : "");
        table.text(durationOrDash(s.firstCallNs >= 0 ? std::optional<double>(s.firstCallNs)
                                                     : std::nullopt));
        // As in the Compare tab: time until steady state, the cost beyond it in the tooltip.
        const auto wall = row && row->warmupWallNs
                              ? std::optional<double>(static_cast<double>(*row->warmupWallNs))
                              : std::nullopt;
        table.text(durationOrDash(wall),
                   row && row->warmupNs ? formatDuration(*row->warmupNs) +
                                              " beyond what those calls cost in steady state"
                                        : "",
                   mark(row, CompareColumn::Warmup));
        if (swept)
            table.text(
                durationOrDash(row && row->sweepWallNs
                                   ? std::optional<double>(static_cast<double>(*row->sweepWallNs))
                                   : std::nullopt),
                row ? sweepText(*row) : "", mark(row, CompareColumn::Sweep));
        const auto& stats = s.latency;
        table.text(durationOrDash(stats ? std::optional<double>(stats->median) : std::nullopt),
                   stats ? "95% CI " + formatDuration(stats->medianCiLow) + " – " +
                               formatDuration(stats->medianCiHigh)
                         : "",
                   mark(row, CompareColumn::Median));
        table.text(durationOrDash(stats ? std::optional<double>(stats->p99) : std::nullopt), {},
                   mark(row, CompareColumn::P99));
        if (rv.index == baseline) {
            table.text("baseline");
        } else if (row && row->speedup) {
            const Speedup& sp = *row->speedup;
            // The interval under the ratio, so the table fits a 1280-pixel window.
            table.html("<span title=\"" + htmlEscape(speedupBasis(sp)) + "\">" +
                           htmlEscape(ratio(sp.value)) + "<small class=\"ci\">" +
                           htmlEscape(ratio(sp.low) + " – " + ratio(sp.high)) + "</small></span>",
                       mark(row, CompareColumn::Speedup));
        } else {
            table.text(baseline >= 0 ? "—" : "no eager run");
        }
        if (row && !row->outputs.empty())
            table.text(row->outputs, row->outputsDetail, row->outputsDiffer ? "warn wrap" : "wrap");
        else
            table.text("—");
        // The same words as the Compare tab and the CLI; the raw figure goes in the title.
        const std::string breakEven =
            row && !row->isBaseline && rv.index != baseline ? breakEvenText(*row) : "—";
        std::string title = row ? breakEvenDetail(*row) : "";
        if (breakEven == "never")
            title = "it saves no time per call";
        // Words ("no significant gain") wrap, so the table fits a 1280-pixel window.
        const std::string best = mark(row, CompareColumn::BreakEven);
        table.text(breakEven, title, best.empty() ? "wrap" : best + " wrap");
        table.text(row && row->peakMemoryBytes
                       ? formatBytes(static_cast<double>(*row->peakMemoryBytes))
                       : "—",
                   row ? row->memoryKind : "", mark(row, CompareColumn::Memory));
    }
    out << table.str();
    // What torch did differently from the setting, and what the row leaves out.
    for (const RunView& rv : view.runs) {
        if (const ComparisonRow* row = comparison.row(rv.index))
            for (const auto& note : row->notes)
                out << "<p class=\"note\">" << runLabelHtml(rv) << ": " << htmlEscape(note)
                    << "</p>";
    }
    endSection(out);
}

} // namespace cs::core::html
