// Graph breaks: a break map per compiled setting (captured graphs in execution
// order, breaks as marked gaps) and every distinct break with its source line.
#include <algorithm>
#include <map>

#include "core/analysis/function_name.h"
#include "core/html/html_sections.h"
#include "core/html/html_table.h"
#include "core/html/report_html.h"

namespace cs::core::html {

namespace {

std::string where(const SourceFrame* f) {
    if (!f)
        return "unknown location";
    return f->file + ":" + std::to_string(f->line);
}

void writeBreakMap(std::ostream& out, const RunView& r) {
    const Run& run = *r.run;
    out << "<h3>" << runLabelHtml(r) << " — " << run.graphs.size()
        << (run.graphs.size() == 1 ? " graph, " : " graphs, ") << run.graphBreaks.size()
        << (run.graphBreaks.size() == 1 ? " break" : " breaks") << "</h3><div class=\"map\">";
    std::vector<const Graph*> graphs;
    for (const auto& g : run.graphs)
        graphs.push_back(&g);
    std::stable_sort(graphs.begin(), graphs.end(),
                     [](const Graph* a, const Graph* b) { return a->index < b->index; });
    const auto tied = [&graphs](int index) {
        return std::any_of(graphs.begin(), graphs.end(),
                           [index](const Graph* g) { return g->index == index; });
    };
    // In the order they ran, as in the Breaks tab's map: a break with no graph
    // before it just before the graph after it, one tied to no graph last.
    auto breaksWhere = [&run](auto test) {
        std::vector<const GraphBreak*> found;
        for (const auto& b : run.graphBreaks) {
            if (test(b))
                found.push_back(&b);
        }
        return found;
    };
    auto writeBreak = [&out](const GraphBreak* b) {
        std::string summary = b->cause();
        if (summary.size() > 120)
            summary = summary.substr(0, 120) + "…";
        if (const auto skipped = b->skippedFrame())
            summary += "; " + functionLabel(skipped->function) + " skipped, runs eagerly";
        out << "<div class=\"brk\" title=\"" << htmlEscape(where(b->location())) << "\">break at "
            << htmlEscape(where(b->location()).substr(where(b->location()).find_last_of('/') + 1))
            << ": " << htmlEscape(summary) << "</div>";
    };
    for (const Graph* g : graphs) {
        for (const auto* b : breaksWhere([&](const GraphBreak& gb) {
                 return !tied(gb.graphBefore) && gb.graphAfter == g->index;
             }))
            writeBreak(b);
        out << "<div class=\"g\" title=\"" << htmlEscape(g->file + ":" + std::to_string(g->line))
            << "\"><b>graph " << g->index << "</b><small>" << g->nodes.size() << " nodes · "
            << htmlEscape(functionLabel(g->function)) << "</small></div>";
        for (const auto* b :
             breaksWhere([&](const GraphBreak& gb) { return gb.graphBefore == g->index; }))
            writeBreak(b);
    }
    for (const auto* b : breaksWhere(
             [&](const GraphBreak& gb) { return !tied(gb.graphBefore) && !tied(gb.graphAfter); }))
        writeBreak(b);
    // Breaks that name a graph this run did not report still show, at the end.
    for (const auto& b : run.graphBreaks) {
        const bool placed = b.graphBefore == -1 ||
                            std::any_of(graphs.begin(), graphs.end(),
                                        [&b](const Graph* g) { return g->index == b.graphBefore; });
        if (!placed)
            writeBreak(&b);
    }
    out << "</div>";
}

} // namespace

void writeBreaks(std::ostream& out, const ReportView& view) {
    beginSection(out, "breaks", "Graph breaks",
                 "Where torch.compile split the model into separate graphs, and why; each break "
                 "costs a return to "
                 "Python between graphs. The location is the innermost frame in your code.");
    bool anyCompiled = false;
    for (const auto& r : view.runs) {
        const Run& run = *r.run;
        if (run.setting.mode == "eager" || (run.graphs.empty() && run.graphBreaks.empty()))
            continue;
        anyCompiled = true;
        writeBreakMap(out, r);
    }
    if (!anyCompiled) {
        out << "<p class=\"empty\">No compiled setting reported graphs: eager only, every "
               "compiled setting failed before compiling, or compile was off (see "
               "Advice).</p>";
        endSection(out);
        return;
    }

    // The same break usually shows up in every compiled setting: list it once.
    struct Seen {
        const GraphBreak* first;
        std::vector<const RunView*> runs;
    };
    std::vector<std::pair<std::string, Seen>> distinct;
    std::map<std::string, size_t> byKey;
    for (const auto& r : view.runs) {
        for (const auto& b : r.run->graphBreaks) {
            const std::string key = where(b.location()) + "\n" + b.reason;
            auto [it, added] = byKey.emplace(key, distinct.size());
            if (added)
                distinct.push_back({key, {&b, {}}});
            auto& runs = distinct[it->second].second.runs;
            if (runs.empty() || runs.back() != &r)
                runs.push_back(&r);
        }
    }
    if (distinct.empty()) {
        out << "<p class=\"note\">No graph breaks: each compiled setting captured the model "
               "whole.</p>";
        endSection(out);
        return;
    }
    HtmlTable table({{"#"},
                     {"reason", true},
                     {"where", true, "the innermost frame in your code; hover for the full path"},
                     {"source line", true},
                     {"settings", true}});
    size_t number = 0;
    for (const auto& [key, seen] : distinct) {
        const GraphBreak& b = *seen.first;
        const SourceFrame* f = b.location();
        table.beginRow();
        table.text(std::to_string(++number));
        // torch's reasons run to many lines (explanation, hints): the first line, the rest folded.
        const size_t newline = b.reason.find('\n');
        std::string reason =
            "<span class=\"err\">" + htmlEscape(b.reason.substr(0, newline)) + "</span>";
        if (newline != std::string::npos)
            reason += "<details><summary>full reason</summary><pre>" + htmlEscape(b.reason) +
                      "</pre></details>";
        if (const auto skipped = b.skippedFrame()) {
            const std::string name = htmlEscape(functionLabel(skipped->function));
            reason += "<small>" + htmlEscape(b.gbType) + ": torch skipped the frame " + name +
                      " for it; all of " + name + " runs eagerly</small>";
        } else if (!b.gbType.empty() && b.gbType != b.reason.substr(0, newline)) {
            reason += "<small>" + htmlEscape(b.gbType) + "</small>";
        }
        table.html(reason, "reason");
        std::string place = "—";
        if (f) {
            const size_t slash = f->file.find_last_of('/');
            const std::string name =
                slash == std::string::npos ? f->file : f->file.substr(slash + 1);
            place = "<span title=\"" + htmlEscape(f->file) + "\">" +
                    htmlEscape(name + ":" + std::to_string(f->line)) + "</span><br><small>in " +
                    htmlEscape(functionLabel(f->function)) + "</small>";
            if (b.userFrame < 0)
                place += "<br><small>library code: no frame of yours</small>";
        }
        table.html(place);
        table.html(f && !f->code.empty() ? "<code class=\"src\">" + htmlEscape(f->code) + "</code>"
                                         : "—");
        std::string runs;
        for (const auto* r : seen.runs)
            runs += (runs.empty() ? "" : "<br>") + runLabelHtml(*r);
        table.html(runs);
        if (b.frames.size() > 1) {
            std::string frames = "<details><summary>" + std::to_string(b.frames.size()) +
                                 " frames, innermost last</summary><pre>";
            for (const auto& fr : b.frames) {
                frames +=
                    htmlEscape(fr.file + ":" + std::to_string(fr.line) + " in " + fr.function +
                               (fr.user ? "" : "  [library]") + "\n    " + fr.code) +
                    "\n";
            }
            table.wide(frames + "</pre></details>");
        }
    }
    out << table.str();
    endSection(out);
}

} // namespace cs::core::html
