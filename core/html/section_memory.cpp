// Memory: per setting, bytes held over the run with its phases shaded
// (device memory from CUPTI on GPU, resident host memory on CPU), peaks per
// phase, and torch's allocator counters at phase boundaries.
#include <algorithm>
#include <cmath>
#include <set>

#include "core/analysis/kept_memory.h"
#include "core/analysis/rank_divergence.h"
#include "core/analysis/units.h"
#include "core/html/html_sections.h"
#include "core/html/html_table.h"
#include "core/html/report_html.h"
#include "core/html/svg_chart.h"

namespace cs::core::html {

namespace {

const char* kindTitle(const std::string& kind) {
    if (kind == "device")
        return "device memory held (CUPTI allocation records)";
    if (kind == "host_rss")
        return "host resident memory (RSS)";
    return "memory";
}

void writeTimeline(std::ostream& out, const RunView& r, const MemorySeries& series) {
    const Run& run = *r.run;
    int64_t origin = run.firstEventNs >= 0 ? run.firstEventNs : series.samples.front().first;
    origin = std::min(origin, series.samples.front().first);
    auto seconds = [origin](int64_t t) { return static_cast<double>(t - origin) / 1e9; };
    SvgChart chart(r.label + ": " + kindTitle(series.kind) + " over time", 760, 220);
    chart.setXAxis({"time since the probe started (s)", AxisUnit::Seconds});
    chart.setYAxis({"bytes held", AxisUnit::Bytes});
    std::vector<Point> points;
    for (const auto& [t, bytes] : series.samples)
        points.emplace_back(seconds(t), static_cast<double>(bytes));
    const int64_t last = series.samples.back().first;
    for (const auto& p : run.phases) {
        if (p.beginNs < 0)
            continue;
        const int64_t end = p.endNs >= 0 ? p.endNs : std::max(last, p.beginNs);
        chart.addBand(seconds(p.beginNs), seconds(end), p.name);
    }
    chart.addLine(r.label + " " + series.kind, r.color, std::move(points));
    out << "<h3>" << runLabelHtml(r) << ": " << htmlEscape(kindTitle(series.kind)) << "</h3>"
        << chart.render();
}

void writePeaks(std::ostream& out, const ReportView& view) {
    std::set<std::string> phaseSet;
    for (const auto& r : view.runs) {
        for (const auto& m : r.run->memory)
            for (const auto& [phase, bytes] : m.phasePeaks)
                phaseSet.insert(phase);
    }
    // Phases in the order a run goes through them, unknown ones after.
    std::vector<std::string> phases;
    for (const char* p : {"load", "compile", "warmup", "measure", "sweep"}) {
        if (phaseSet.erase(p))
            phases.push_back(p);
    }
    phases.insert(phases.end(), phaseSet.begin(), phaseSet.end());
    std::vector<Column> columns{{"setting", true}, {"memory", true}};
    for (const auto& p : phases)
        columns.push_back({"peak in " + p});
    columns.push_back({"peak overall"});
    HtmlTable table(columns);
    for (const auto& r : view.runs) {
        for (const auto& m : r.run->memory) {
            table.beginRow();
            table.html(runLabelHtml(r));
            table.text(kindTitle(m.kind));
            for (const auto& p : phases) {
                auto it = m.phasePeaks.find(p);
                table.text(it == m.phasePeaks.end() ? "—"
                                                    : formatBytes(static_cast<double>(it->second)),
                           it == m.phasePeaks.end()
                               ? ""
                               : formatCount(static_cast<double>(it->second)) + " bytes");
            }
            int64_t peak = -1;
            for (const auto& [t, bytes] : m.samples)
                peak = std::max(peak, bytes);
            for (const auto& [phase, bytes] : m.phasePeaks)
                peak = std::max(peak, bytes);
            table.text(peak >= 0 ? formatBytes(static_cast<double>(peak)) : "—",
                       peak >= 0 ? formatCount(static_cast<double>(peak)) + " bytes" : "");
        }
    }
    if (table.rows() > 0)
        out << table.str();
}

void writeAllocatorStats(std::ostream& out, const ReportView& view) {
    HtmlTable table({{"setting", true},
                     {"phase", true},
                     {"edge", true},
                     {"allocated"},
                     {"reserved", false, "held by torch's caching allocator, allocated or not"},
                     {"peak allocated"},
                     {"peak reserved"}});
    for (const auto& r : view.runs) {
        for (const auto& s : r.run->memoryStats) {
            table.beginRow();
            table.html(runLabelHtml(r));
            table.text(s.phase);
            table.text(s.edge);
            for (int64_t v : {s.allocated, s.reserved, s.peakAllocated, s.peakReserved})
                table.text(formatBytes(static_cast<double>(v)),
                           formatCount(static_cast<double>(v)) + " bytes");
        }
    }
    if (table.rows() == 0)
        return;
    out << "<h3>torch.cuda.memory_stats() at phase boundaries</h3>" << table.str();
}

// What was held before and after the same calls, twice (docs/measuring.md,
// "Memory kept per call"): growth in both windows is memory kept per call.
void writeKeptPerCall(std::ostream& out, const ReportView& view) {
    HtmlTable table({{"setting", true},
                     {"counter", true},
                     {"per call", false, "growth over both windows, per call"},
                     {"measured calls"},
                     {"cross-check calls"},
                     {"kept per call", true}});
    for (const auto& r : view.runs) {
        for (const auto& kept : keptMemory(*r.run)) {
            table.beginRow();
            table.html(runLabelHtml(r));
            table.text(keptCounterText(kept));
            const double perCall = kept.bytesPerCall();
            table.text((perCall < 0 ? "-" : "") + formatBytes(std::abs(perCall)));
            table.text(heldWindowText(kept.measure, ""));
            table.text(heldWindowText(kept.crosscheck, ""));
            switch (kept.verdict()) {
            case KeptVerdict::Kept:
                table.text("yes: it grows with every call", "", "bad");
                break;
            case KeptVerdict::TooFewCalls:
                table.text("can't tell", notKeptText(kept));
                break;
            case KeptVerdict::NotKept:
                table.text("no", notKeptText(kept));
                break;
            }
        }
    }
    if (table.rows() == 0)
        return;
    out << "<h3>Memory kept per call at the same inputs</h3>" << table.str();
}

} // namespace

void writeMemory(std::ostream& out, const ReportView& view) {
    beginSection(
        out, "memory", "Memory",
        "Bytes the process held through each run, with its phases shaded: load, compile (the first "
        "call), warmup, measure.");
    out << importedNoDataNote(view, "memory samples");
    if (allRunsImported(view.report)) {
        endSection(out);
        return;
    }
    bool anyDevice = false, anySeries = false;
    for (const auto& r : view.runs) {
        for (const auto& m : r.run->memory) {
            if (m.samples.empty())
                continue;
            anySeries = true;
            anyDevice |= m.kind == "device";
            writeTimeline(out, r, m);
        }
    }
    if (!anySeries)
        out << "<p class=\"empty\">No memory samples were recorded.</p>";
    if (!anyDevice) {
        out << "<p class=\"note\">No GPU memory measured: ";
        bool cpu = true;
        for (const auto& r : view.runs)
            cpu &= r.run->probe.device.rfind("cuda", 0) != 0;
        out << (cpu ? "the runs were on CPU (no CUDA device), so host resident memory stands in."
                    : "CUPTI was not active; see Kernels for why.")
            << "</p>";
    }
    writePeaks(out, view);
    writeKeptPerCall(out, view);
    writeAllocatorStats(out, view);
    endSection(out);
}

} // namespace cs::core::html
