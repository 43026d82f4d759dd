// Scaling: a batch-size walk (compilescope-cli scale). Throughput, speedup
// over eager and peak memory against batch size, one line per setting, then
// the same figures in a table. Written only for a report with a walk.
#include <algorithm>
#include <cmath>

#include "core/analysis/scaling.h"
#include "core/analysis/units.h"
#include "core/html/html_sections.h"
#include "core/html/html_table.h"
#include "core/html/report_html.h"
#include "core/html/svg_chart.h"

namespace cs::core::html {

namespace {

const RunView& viewOf(const ReportView& view, const ScaleCurve& curve) {
    return view.runs[curve.runIndex];
}

std::string stopText(const ScaleCurve& curve) {
    if (!curve.stop)
        return "the walk did not finish (the probe ended first)";
    const ScaleStop& s = *curve.stop;
    if (s.reason == "done")
        return "every size measured";
    std::string text = s.reason == "oom"          ? "out of memory"
                       : s.reason == "memory_cap" ? "host-memory cap reached"
                       : s.reason == "budget"     ? "time budget"
                                                  : s.reason;
    // A budget stop is decided before the size begins (docs/measuring.md).
    if (s.batchSize > 0)
        text +=
            (s.reason == "budget" ? " before batch " : " at batch ") + std::to_string(s.batchSize);
    if (!s.message.empty())
        text += ": " + s.message;
    return text;
}

void writeCharts(std::ostream& out, const ReportView& view, const std::vector<ScaleCurve>& curves) {
    SvgChart throughput("Throughput against batch size");
    throughput.setXAxis({"batch size", AxisUnit::Plain, true});
    throughput.setYAxis({"samples per second", AxisUnit::Plain, false});
    SvgChart speedup("Speedup over eager against batch size");
    speedup.setXAxis({"batch size", AxisUnit::Plain, true});
    // Log: a slowdown sits as far below 1× as the same speedup above (as in the GUI).
    speedup.setYAxis({"speedup over eager (×)", AxisUnit::Plain, true});
    SvgChart memory("Peak memory against batch size");
    memory.setXAxis({"batch size", AxisUnit::Plain, true});
    memory.setYAxis({"peak memory", AxisUnit::Bytes, false});
    double lowBatch = 0, highBatch = 0;
    bool anySpeedup = false;
    for (const auto& curve : curves) {
        const RunView& run = viewOf(view, curve);
        std::vector<Point> thr, sp, mem;
        std::vector<std::string> thrTips, spTips, memTips;
        for (const auto& row : curve.rows) {
            const double b = static_cast<double>(row.batchSize);
            lowBatch = lowBatch == 0 ? b : std::min(lowBatch, b);
            highBatch = std::max(highBatch, b);
            if (row.throughput > 0) {
                thr.emplace_back(b, row.throughput);
                thrTips.push_back(run.label + ", batch " + std::to_string(row.batchSize) + ": " +
                                  formatCount(row.throughput) + " samples/s (" +
                                  formatCount(row.throughputLow) + "–" +
                                  formatCount(row.throughputHigh) + ")");
                throughput.addSegment({b, row.throughputLow}, {b, row.throughputHigh}, run.color);
            }
            if (row.speedup) {
                sp.emplace_back(b, *row.speedup);
                char text[32];
                std::snprintf(text, sizeof text, "%.3g×", *row.speedup);
                spTips.push_back(run.label + ", batch " + std::to_string(row.batchSize) + ": " +
                                 text);
            }
            if (row.peakMemoryBytes >= 0) {
                mem.emplace_back(b, static_cast<double>(row.peakMemoryBytes));
                memTips.push_back(run.label + ", batch " + std::to_string(row.batchSize) + ": " +
                                  formatBytes(static_cast<double>(row.peakMemoryBytes)));
            }
        }
        if (!thr.empty()) {
            throughput.addLine(run.label, run.color, thr, true, thrTips);
            throughput.addLegend(run.label, run.color);
        }
        if (!sp.empty()) {
            anySpeedup = true;
            speedup.addLine(run.label, run.color, sp, true, spTips);
            speedup.addLegend(run.label, run.color);
        }
        if (!mem.empty()) {
            memory.addLine(run.label, run.color, mem, true, memTips);
            memory.addLegend(run.label, run.color);
        }
        // Where memory ran out: a band at the size that did not fit.
        if (curve.stop && (curve.stop->reason == "oom" || curve.stop->reason == "memory_cap") &&
            curve.stop->batchSize > 0) {
            const double b = static_cast<double>(curve.stop->batchSize);
            highBatch = std::max(highBatch, b);
            memory.addBand(
                b / 1.2, b * 1.2,
                run.label +
                    (curve.stop->reason == "oom" ? ": out of memory at " : ": memory cap at ") +
                    std::to_string(curve.stop->batchSize));
        }
    }
    if (anySpeedup && highBatch > 0) {
        speedup.addSegment({lowBatch, 1.0}, {highBatch, 1.0}, "#888888", 1.0,
                           "1×: as fast as eager");
        speedup.addLegend("1× (eager)", "#888888");
    }
    out << "<h3>Throughput (samples/s; bars: the median's 95% interval)</h3>"
        << throughput.render();
    if (anySpeedup)
        out << "<h3>Speedup over eager at the same batch size</h3>" << speedup.render();
    else
        out << "<p class=\"note\">No speedup chart: the walk has no eager setting to compare "
               "with (add eager to --settings).</p>";
    if (!memory.empty())
        out << "<h3>Peak memory</h3>" << memory.render();
}

void writeTable(std::ostream& out, const ReportView& view, const std::vector<ScaleCurve>& curves) {
    HtmlTable table({{"setting", true},
                     {"batch", false},
                     {"median (95% CI)", false, "median per-call latency at this batch size"},
                     {"samples/s", false, "batch size / median latency"},
                     {"speedup", false, "eager median / this median, same batch size"},
                     {"peak memory", false, "CUDA allocated on GPU, resident set on CPU"},
                     {"first call", false, "the first call at this size: its compile included"}});
    for (const auto& curve : curves) {
        for (const auto& row : curve.rows) {
            table.beginRow();
            table.html(runLabelHtml(viewOf(view, curve)));
            table.text(std::to_string(row.batchSize));
            table.text(row.latency ? formatDuration(row.latency->median) + " (" +
                                         formatDuration(row.latency->medianCiLow) + "–" +
                                         formatDuration(row.latency->medianCiHigh) + ")"
                                   : "—");
            table.text(row.throughput > 0 ? formatCount(row.throughput) : "—");
            char sp[32] = "—";
            if (row.speedup)
                std::snprintf(sp, sizeof sp, "%.3g×", *row.speedup);
            table.text(sp);
            table.text(row.peakMemoryBytes >= 0
                           ? formatBytes(static_cast<double>(row.peakMemoryBytes))
                           : "—");
            table.text(row.firstCallNs >= 0 ? formatDuration(static_cast<double>(row.firstCallNs))
                                            : "—");
        }
    }
    out << table.str();
    out << "<ul class=\"note\">";
    for (const auto& curve : curves)
        out << "<li>" << runLabelHtml(viewOf(view, curve)) << ": " << htmlEscape(stopText(curve))
            << "</li>";
    out << "</ul>";
}

} // namespace

void writeScaling(std::ostream& out, const ReportView& view) {
    const auto curves = scaleCurves(view.report);
    if (curves.empty())
        return;
    beginSection(out, "scaling", "Scaling",
                 "Each setting walked the batch sizes in one fresh probe, compiling and measuring "
                 "each size: where compile starts to pay, where throughput stops growing, and "
                 "where memory runs out.");
    writeCharts(out, view, curves);
    writeTable(out, view, curves);
    endSection(out);
}

} // namespace cs::core::html
