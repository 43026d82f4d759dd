#include "core/html/report_html.h"

#include <sstream>

#include "core/analysis/kernel_cost.h"
#include "core/analysis/rank_divergence.h"
#include "core/analysis/scaling.h"
#include "core/analysis/warm_start.h"
#include "core/html/html_sections.h"

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
    // No overlong forms (a disguised '<'), no UTF-16 surrogates, nothing past U+10FFFF.
    const auto second = static_cast<unsigned char>(s[i + 1]);
    if ((c == 0xE0 && second < 0xA0) || (c == 0xED && second > 0x9F) ||
        (c == 0xF0 && second < 0x90) || (c == 0xF4 && second > 0x8F))
        return 0;
    return length;
}

} // namespace

std::string htmlEscape(std::string_view text) {
    std::string out;
    out.reserve(text.size() + text.size() / 8);
    for (size_t i = 0; i < text.size();) {
        const char c = text[i];
        switch (c) {
        case '&':
            out += "&amp;";
            ++i;
            continue;
        case '<':
            out += "&lt;";
            ++i;
            continue;
        case '>':
            out += "&gt;";
            ++i;
            continue;
        case '"':
            out += "&quot;";
            ++i;
            continue;
        case '\'':
            out += "&#39;";
            ++i;
            continue;
        default:
            break;
        }
        const size_t length = utf8SequenceLength(text, i);
        if (length == 0) {
            out += "\xEF\xBF\xBD"; // U+FFFD
            ++i;
            continue;
        }
        const auto byte = static_cast<unsigned char>(c);
        if (length == 1 && (byte < 0x20 || byte == 0x7F) && c != '\n' && c != '\t' && c != '\r') {
            out += "\xEF\xBF\xBD"; // control characters are not allowed in HTML text
        } else {
            out.append(text.substr(i, length));
        }
        i += length;
    }
    return out;
}

std::string writeReportHtml(const Report& report) {
    const html::ReportView view = html::makeReportView(report);
    const std::string name = report.model.name.empty() ? report.model.spec : report.model.name;
    const std::string title = "compilescope — " + (name.empty() ? std::string("report") : name);
    std::ostringstream out;
    // The policy comes first: nothing in the page may load or run anything.
    out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        << "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
           "style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'\">"
        << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        << "<meta name=\"generator\" content=\"" << htmlEscape(report.generator) << "\">"
        << "<title>" << htmlEscape(title) << "</title><style>" << html::reportStyle()
        << "</style></head><body>\n";
    out << "<header><h1>" << htmlEscape(title) << "</h1><p class=\"sub\">"
        << htmlEscape(report.model.spec);
    if (!report.created.empty())
        out << " · created " << htmlEscape(report.created);
    const char* unit = allRunsImported(report)
                           ? (report.runs.size() == 1 ? " rank" : " ranks")
                           : (report.runs.size() == 1 ? " setting" : " settings");
    out << " · " << report.runs.size() << unit << "</p>";
    out << "<nav><a href=\"#advice\">Advice</a><a href=\"#environment\">Environment</a><a "
           "href=\"#settings\">Settings</a>"
           "<a href=\"#comparison\">Comparison</a>";
    // Ranks and compiles exist only for an imported TORCH_TRACE log.
    const int imported = importedRunCount(report);
    if (imported >= 2)
        out << "<a href=\"#ranks\">Ranks</a>";
    if (imported > 0)
        out << "<a href=\"#compiles\">Compiles</a>";
    if (hasScaling(report))
        out << "<a href=\"#scaling\">Scaling</a>";
    out << "<a href=\"#breaks\">Breaks</a>"
           "<a href=\"#recompiles\">Recompiles</a>";
    if (hasWarmStarts(report))
        out << "<a href=\"#warm-starts\">Cold starts</a>";
    out << "<a href=\"#warmup\">Warmup</a>"
           "<a href=\"#latency\">Latency</a><a href=\"#memory\">Memory</a><a "
           "href=\"#kernels\">Kernels</a>";
    if (hasCostBreakdown(report))
        out << "<a href=\"#costs\">Where the time goes</a>";
    out << "<a href=\"#graphs\">Graphs</a><a href=\"#problems\">Errors &amp; "
           "console</a></nav></header>\n<main>";
    html::writeAdvice(out, view);
    html::writeEnvironment(out, view);
    html::writeSettings(out, view);
    html::writeComparison(out, view);
    html::writeRanks(out, view);
    html::writeScaling(out, view);
    html::writeBreaks(out, view);
    html::writeRecompiles(out, view);
    html::writeWarmStarts(out, view);
    html::writeWarmup(out, view);
    html::writeLatency(out, view);
    html::writeMemory(out, view);
    html::writeKernels(out, view);
    html::writeCosts(out, view);
    html::writeGraphs(out, view);
    html::writeProblems(out, view);
    out << "</main><footer>Written by "
        << htmlEscape(report.generator.empty() ? "compilescope" : report.generator)
        << ". Report format version " << report.version
        << "; the JSON report holds every value shown here.</footer></body></html>\n";
    return out.str();
}

} // namespace cs::core
