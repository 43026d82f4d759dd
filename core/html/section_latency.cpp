// Steady-state latency: every measured call over time, the distribution
// (histogram and box plot), and the statistics — never a mean alone.
#include <algorithm>
#include <cmath>
#include <limits>

#include "core/analysis/measurement_check.h"
#include "core/analysis/page_faults.h"
#include "core/analysis/rank_divergence.h"
#include "core/analysis/units.h"
#include "core/html/html_sections.h"
#include "core/html/html_table.h"
#include "core/html/report_html.h"
#include "core/html/svg_chart.h"

namespace cs::core::html {

namespace {

void writeSeries(std::ostream& out, const ReportView& view) {
    SvgChart chart("Latency of every measured call per setting");
    chart.setXAxis({"measured call number", AxisUnit::Plain});
    chart.setYAxis({"latency per call", AxisUnit::DurationNs});
    bool recompiled = false;
    for (const auto& r : view.runs) {
        std::vector<Point> points;
        const auto samples = r.run->measuredLatencies();
        // Dropped unsettled calls keep their numbers: the advice names calls by them.
        const int dropped = r.run->droppedUnsettled;
        for (size_t i = 0; i < samples.size(); ++i)
            points.emplace_back(static_cast<double>(dropped + static_cast<int>(i) + 1),
                                static_cast<double>(samples[i]));
        if (points.empty())
            continue;
        chart.addLine(r.label, r.color, std::move(points));
        chart.addLegend(r.label, r.color);
        for (const auto& call : recompiledMeasuredCalls(*r.run)) {
            if (call.measuredCall <= dropped)
                continue;
            const Recompile& rc = r.run->recompiles[call.recompile];
            chart.addMarker(
                {static_cast<double>(call.measuredCall), static_cast<double>(call.latencyNs)},
                r.color,
                r.label + ": measured call " + std::to_string(call.measuredCall) + " recompiled " +
                    rc.function + " (" + formatDuration(static_cast<double>(call.latencyNs)) + ")");
            recompiled = true;
        }
    }
    if (recompiled)
        chart.addLegend("▼ a measured call that recompiled", "#222");
    out << (chart.empty() ? "<p class=\"empty\">No measured calls to chart.</p>" : chart.render());
}

void writeHistogram(std::ostream& out, const ReportView& view) {
    double low = std::numeric_limits<double>::infinity();
    double high = -std::numeric_limits<double>::infinity();
    for (const auto& r : view.runs) {
        if (r.stats)
            low = std::min(low, r.stats->min), high = std::max(high, r.stats->max);
    }
    if (!(low <= high))
        return;
    constexpr int kBins = 40;
    const double width = high > low ? (high - low) / kBins : 1;
    SvgChart chart("Distribution of measured latency per setting", 560, 280);
    chart.setXAxis({"latency per call", AxisUnit::DurationNs, false, false});
    chart.setYAxis({"calls per bin", AxisUnit::Plain});
    for (const auto& r : view.runs) {
        const auto samples = r.run->measuredLatencies();
        if (samples.empty())
            continue;
        std::vector<int> counts(kBins, 0);
        for (auto v : samples) {
            const int bin =
                std::clamp(static_cast<int>((static_cast<double>(v) - low) / width), 0, kBins - 1);
            ++counts[static_cast<size_t>(bin)];
        }
        // A step outline per setting, so overlapping distributions stay readable.
        std::vector<Point> step{{low, 0}};
        for (int b = 0; b < kBins; ++b) {
            const double x0 = low + b * width, x1 = x0 + width;
            step.emplace_back(x0, counts[static_cast<size_t>(b)]);
            step.emplace_back(x1, counts[static_cast<size_t>(b)]);
        }
        step.emplace_back(low + kBins * width, 0);
        chart.addLine(r.label, r.color, std::move(step));
        chart.addLegend(r.label, r.color);
    }
    out << chart.render();
}

void writeBoxPlot(std::ostream& out, const ReportView& view) {
    std::vector<const RunView*> rows;
    for (const auto& r : view.runs) {
        if (r.stats)
            rows.push_back(&r);
    }
    if (rows.empty())
        return;
    SvgChart chart("Box plot of measured latency per setting", 560,
                   80 + 34.0 * static_cast<double>(rows.size()));
    chart.setXAxis({"latency per call (box: quartiles, bar: median, whiskers: 1.5 IQR)",
                    AxisUnit::DurationNs});
    std::vector<std::string> categories;
    for (size_t row = 0; row < rows.size(); ++row) {
        const RunView& r = *rows[row];
        const LatencyStats& s = *r.stats;
        const double y = static_cast<double>(row);
        categories.push_back(r.label);
        const double iqr = s.q3 - s.q1;
        const double fenceLow = s.q1 - 1.5 * iqr, fenceHigh = s.q3 + 1.5 * iqr;
        double whiskerLow = s.q1, whiskerHigh = s.q3;
        std::vector<Point> outliers;
        for (auto v : r.run->measuredLatencies()) {
            const double d = static_cast<double>(v);
            if (d < fenceLow || d > fenceHigh) {
                if (outliers.size() < 300)
                    outliers.emplace_back(d, y);
            } else {
                whiskerLow = std::min(whiskerLow, d);
                whiskerHigh = std::max(whiskerHigh, d);
            }
        }
        const std::string tip = r.label + ": median " + formatDuration(s.median) + ", quartiles " +
                                formatDuration(s.q1) + " – " + formatDuration(s.q3);
        chart.addSegment({whiskerLow, y}, {whiskerHigh, y}, r.color, 1.5,
                         "whiskers " + formatDuration(whiskerLow) + " – " +
                             formatDuration(whiskerHigh));
        chart.addRect(s.q1, y - 0.3, s.q3, y + 0.3, r.color, tip, 0.35);
        chart.addSegment({s.median, y - 0.3}, {s.median, y + 0.3}, r.color, 3, tip);
        for (const auto& p : outliers)
            chart.addRect(p.first, y - 0.06, p.first, y + 0.06, r.color,
                          "outlier " + formatDuration(p.first));
    }
    chart.setYCategories(categories);
    out << chart.render();
}

void writeStatsTable(std::ostream& out, const ReportView& view) {
    HtmlTable table(
        {{"setting", true},
         {"calls"},
         {"min"},
         {"median"},
         {"median 95% CI", false, "distribution-free confidence interval of the median"},
         {"mean"},
         {"p90"},
         {"p99"},
         {"max"},
         {"std"},
         {"outliers", false, "outside 1.5 IQR beyond the quartiles"},
         {"harness overhead", false, "the timing loop's own cost per call (an empty function)"}});
    for (const auto& r : view.runs) {
        table.beginRow();
        table.html(runLabelHtml(r));
        if (!r.stats) {
            table.text("0");
            for (int i = 0; i < 9; ++i)
                table.text("—");
        } else {
            const LatencyStats& s = *r.stats;
            table.text(std::to_string(s.count));
            for (double v : {s.min, s.median})
                table.text(formatDuration(v));
            table.text(formatDuration(s.medianCiLow) + " – " + formatDuration(s.medianCiHigh));
            for (double v : {s.mean, s.p90, s.p99, s.max, s.std})
                table.text(formatDuration(v));
            table.text(std::to_string(s.outliers));
        }
        table.text(r.run->harnessOverheadNs >= 0
                       ? formatDuration(static_cast<double>(r.run->harnessOverheadNs))
                       : "—");
    }
    out << table.str();
}

// The measurement's own checks, one line per run that has one (docs/measuring.md).
void writeMeasurementChecks(std::ostream& out, const ReportView& view) {
    std::string items;
    for (const auto& r : view.runs) {
        std::string line;
        if (const auto check = crosscheck(*r.run))
            line = "cross-check: " + crosscheckText(*check) + " — " + crosscheckVerdict(*check);
        if (const auto load = machineLoad(*r.run, view.report.environment))
            line += (line.empty() ? "" : "; ") + std::string("the rest of the machine: ") +
                    machineLoadText(*load) + " — " + machineLoadVerdict(*load);
        if (const std::string reference = hostReferenceText(*r.run); !reference.empty())
            line += (line.empty() ? "" : "; ") + std::string("host reference: ") + reference;
        if (const auto faults = pageFaults(*r.run))
            line += (line.empty() ? "" : "; ") +
                    std::string(faults->costly() ? "page faults, costly (see Advice): "
                                                 : "page faults: ") +
                    pageFaultsText(*faults);
        if (r.run->droppedUnsettled > 0)
            line += (line.empty() ? "" : "; ") + std::to_string(r.run->droppedUnsettled) +
                    " unsettled measured calls left out of the statistics";
        if (!line.empty())
            items += "<li>" + runLabelHtml(r) + " " + htmlEscape(line) + "</li>";
    }
    if (!items.empty())
        out << "<ul class=\"crosscheck\">" << items << "</ul>";
}

} // namespace

void writeLatency(std::ostream& out, const ReportView& view) {
    beginSection(out, "latency", "Steady-state latency",
                 "Calls after warmup: wall clock on CPU, CUDA events on GPU. Hover a line or box "
                 "for its values.");
    out << importedNoDataNote(view, "latency: it records compiles, not calls");
    if (allRunsImported(view.report)) {
        endSection(out);
        return;
    }
    writeStatsTable(out, view);
    writeMeasurementChecks(out, view);
    writeSeries(out, view);
    out << "<div class=\"grid2\">";
    writeHistogram(out, view);
    writeBoxPlot(out, view);
    out << "</div>";
    endSection(out);
}

} // namespace cs::core::html
