#include "report_html.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "palette.h"
#include "stats.h"
#include "units.h"

namespace cs::core {

namespace {

// Length of a valid UTF-8 sequence starting at s[i], or 0.
size_t utf8SequenceLength(std::string_view s, size_t i) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t length = 0;
    if (c < 0x80)
        return 1;
    if ((c & 0xE0) == 0xC0 && c >= 0xC2)
        length = 2;
    else if ((c & 0xF0) == 0xE0)
        length = 3;
    else if ((c & 0xF8) == 0xF0 && c <= 0xF4)
        length = 4;
    else
        return 0;
    if (i + length > s.size())
        return 0;
    for (size_t k = 1; k < length; ++k) {
        if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80)
            return 0;
    }
    return length;
}

} // namespace

std::string htmlEscape(std::string_view text) {
    std::string out;
    out.reserve(text.size() + text.size() / 8);
    for (size_t i = 0; i < text.size();) {
        const char c = text[i];
        switch (c) {
        case '&': out += "&amp;"; ++i; continue;
        case '<': out += "&lt;"; ++i; continue;
        case '>': out += "&gt;"; ++i; continue;
        case '"': out += "&quot;"; ++i; continue;
        case '\'': out += "&#39;"; ++i; continue;
        default: break;
        }
        const size_t length = utf8SequenceLength(text, i);
        if (length == 0) {
            out += "\xEF\xBF\xBD"; // U+FFFD
            ++i;
            continue;
        }
        const auto byte = static_cast<unsigned char>(c);
        if (length == 1 && byte < 0x20 && c != '\n' && c != '\t' && c != '\r') {
            out += "\xEF\xBF\xBD"; // control characters are not allowed in HTML text
        } else {
            out.append(text.substr(i, length));
        }
        i += length;
    }
    return out;
}

namespace {

std::string latencySvg(const Report& report) {
    // Per-iteration latency of every run, one polyline each, log-free linear axes.
    double maxY = 0;
    size_t maxN = 0;
    for (const auto& run : report.runs) {
        auto samples = run.measuredLatencies();
        maxN = std::max(maxN, samples.size());
        for (auto v : samples)
            maxY = std::max(maxY, static_cast<double>(v));
    }
    if (maxN < 2 || maxY <= 0)
        return "<p class=\"empty\">No measured iterations to chart.</p>";
    const double w = 760, h = 260, left = 70, bottom = 36, top = 12, right = 12;
    const double plotW = w - left - right, plotH = h - top - bottom;
    std::ostringstream svg;
    svg << "<svg class=\"chart\" viewBox=\"0 0 " << w << " " << h
        << "\" role=\"img\" aria-label=\"Per-iteration latency\">";
    for (int tick = 0; tick <= 4; ++tick) {
        const double value = maxY * tick / 4.0;
        const double y = top + plotH - plotH * tick / 4.0;
        svg << "<line x1=\"" << left << "\" x2=\"" << left + plotW << "\" y1=\"" << y << "\" y2=\"" << y
            << "\" class=\"grid\"/><text x=\"" << left - 6 << "\" y=\"" << y + 4
            << "\" text-anchor=\"end\">" << htmlEscape(formatDuration(value)) << "</text>";
    }
    svg << "<text x=\"" << left + plotW / 2 << "\" y=\"" << h - 6
        << "\" text-anchor=\"middle\">measured iteration</text>";
    for (size_t r = 0; r < report.runs.size(); ++r) {
        const auto& run = report.runs[r];
        auto samples = run.measuredLatencies();
        if (samples.size() < 2)
            continue;
        svg << "<polyline fill=\"none\" stroke-width=\"1.5\" stroke=\"" << runColor(report, static_cast<int>(r))
            << "\" points=\"";
        for (size_t i = 0; i < samples.size(); ++i) {
            const double x = left + plotW * static_cast<double>(i) / static_cast<double>(maxN - 1);
            const double y = top + plotH - plotH * static_cast<double>(samples[i]) / maxY;
            svg << x << "," << y << " ";
        }
        svg << "\"><title>" << htmlEscape(run.setting.label()) << "</title></polyline>";
    }
    svg << "</svg>";
    return svg.str();
}

} // namespace

std::string writeReportHtml(const Report& report) {
    std::ostringstream html;
    const std::string title = "compilescope — " + (report.model.name.empty() ? report.model.spec : report.model.name);
    html << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
         << "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">"
         << "<title>" << htmlEscape(title) << "</title><style>"
         << "body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#222;max-width:1100px}"
         << "table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}"
         << "th{background:#f2f2f2}td.l,th.l{text-align:left}.err{color:#b00020;white-space:pre-wrap}"
         << ".chart{width:100%;max-width:760px;font-size:11px}.chart .grid{stroke:#ddd}"
         << ".swatch{display:inline-block;width:10px;height:10px;margin-right:6px}"
         << "pre{background:#f7f7f7;padding:8px;overflow:auto;max-height:300px}"
         << "</style></head><body>\n";
    html << "<h1>" << htmlEscape(title) << "</h1>\n";
    html << "<h2>Environment</h2><table>";
    const auto& e = report.environment;
    for (const auto& [key, value] : std::vector<std::pair<std::string, std::string>>{
             {"model", report.model.spec}, {"python", e.python}, {"torch", e.torch}, {"CUDA", e.cuda},
             {"device", e.device}, {"CPU", e.cpu}, {"host", e.host}, {"platform", e.platform},
             {"created", report.created}, {"generator", report.generator}}) {
        html << "<tr><th class=\"l\">" << htmlEscape(key) << "</th><td class=\"l\">"
             << htmlEscape(value.empty() ? "—" : value) << "</td></tr>";
    }
    html << "</table>\n<h2>Settings and latency</h2><table><tr><th class=\"l\">setting</th>"
         << "<th class=\"l\">status</th><th>iterations</th><th>min</th><th>median</th>"
         << "<th>median 95% CI</th><th>mean</th><th>p90</th><th>p99</th><th>std</th><th>first call</th></tr>";
    for (size_t r = 0; r < report.runs.size(); ++r) {
        const auto& run = report.runs[r];
        html << "<tr><td class=\"l\"><span class=\"swatch\" style=\"background:" << runColor(report, static_cast<int>(r))
             << "\"></span>" << htmlEscape(run.setting.label()) << "</td><td class=\"l\">"
             << toString(run.status) << "</td>";
        const auto stats = computeStats(run.measuredLatencies());
        const auto warm = run.warmupLatencies();
        const std::string firstCall = warm.empty() ? "—" : formatDuration(static_cast<double>(warm.front()));
        if (stats) {
            html << "<td>" << stats->count << "</td><td>" << formatDuration(stats->min) << "</td><td>"
                 << formatDuration(stats->median) << "</td><td>" << formatDuration(stats->medianCiLow)
                 << " – " << formatDuration(stats->medianCiHigh) << "</td><td>"
                 << formatDuration(stats->mean) << "</td><td>" << formatDuration(stats->p90)
                 << "</td><td>" << formatDuration(stats->p99) << "</td><td>"
                 << formatDuration(stats->std) << "</td>";
        } else {
            html << "<td>0</td><td colspan=\"7\">—</td>";
        }
        html << "<td>" << firstCall << "</td></tr>";
        if (run.error) {
            html << "<tr><td colspan=\"11\" class=\"l err\">" << htmlEscape(run.error->message)
                 << "</td></tr>";
        }
    }
    html << "</table>\n<h2>Per-iteration latency</h2>" << latencySvg(report) << "\n";
    html << "</body></html>\n";
    return html.str();
}

} // namespace cs::core
