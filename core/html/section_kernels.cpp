// Kernels: launches and GPU time per iteration per setting, and the top kernels
// (from CUPTI on GPU); on CPU it says why the section is empty.
#include <cstdio>

#include "core/analysis/units.h"
#include "core/html/html_sections.h"
#include "core/html/html_table.h"
#include "core/html/report_html.h"

namespace cs::core::html {

namespace {
std::string fixed(double v, const char* format) {
    char text[48];
    std::snprintf(text, sizeof text, format, v);
    return text;
}
} // namespace

void writeKernels(std::ostream& out, const ReportView& view) {
    beginSection(out, "kernels", "Kernels",
                 "GPU kernels per measured iteration, from CUPTI activity records. CUDA graphs "
                 "(reduce-overhead) "
                 "show up as fewer launches per iteration.");
    HtmlTable summary(
        {{"setting", true},
         {"iterations"},
         {"launches per iteration"},
         {"GPU time per iteration"},
         {"GPU busy", false, "GPU time / iteration wall time"},
         {"memcpy"},
         {"dropped records", false, "CUPTI records lost; non-zero means the totals are low"}});
    std::string tops;
    for (const auto& r : view.runs) {
        const KernelSummary& k = r.run->kernels;
        if (!k.present)
            continue;
        summary.beginRow();
        summary.html(runLabelHtml(r));
        summary.text(std::to_string(k.iterations));
        summary.text(fixed(k.launchesPerIter, "%.1f"));
        summary.text(formatDuration(k.gpuNsPerIter));
        summary.text(fixed(k.busyFraction * 100, "%.1f %%"));
        summary.text(std::to_string(k.memcpyCount) + " · " +
                     formatBytes(static_cast<double>(k.memcpyBytes)) + " · " +
                     formatDuration(static_cast<double>(k.memcpyNs)));
        summary.text(std::to_string(k.dropped), {}, k.dropped > 0 ? "bad" : "");
        if (k.top.empty())
            continue;
        HtmlTable top({{"kernel", true}, {"count"}, {"total"}, {"mean"}});
        for (const auto& t : k.top) {
            top.beginRow();
            top.html("<code>" + htmlEscape(t.name) + "</code>");
            top.text(std::to_string(t.count));
            top.text(formatDuration(static_cast<double>(t.totalNs)));
            top.text(formatDuration(static_cast<double>(t.meanNs)));
        }
        tops += "<h3>" + runLabelHtml(r) + ": top kernels by time</h3>" + top.str();
    }
    if (summary.rows() == 0) {
        out << "<p class=\"empty\">No kernel records: ";
        bool cpu = true;
        for (const auto& r : view.runs)
            cpu &= r.run->probe.device.rfind("cuda", 0) != 0;
        out << (cpu ? "no CUDA device, so GPU memory and kernels are unavailable. Run on a GPU "
                      "machine "
                      "(compilescope-cli works headless) to fill this section."
                    : "CUPTI did not collect any.")
            << "</p>";
        for (const auto& r : view.runs) {
            if (!r.run->cuptiMessage.empty())
                out << "<p class=\"note\">" << runLabelHtml(r) << ": "
                    << htmlEscape(r.run->cuptiMessage) << "</p>";
        }
    } else {
        out << summary.str() << tops;
    }
    endSection(out);
}

} // namespace cs::core::html
