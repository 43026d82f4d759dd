// Where the time goes: per setting with a profiled kernel window, the top
// kernels and the hot source lines (docs/kernel-cost.md). Written only when a
// run has a kernel profile.
#include <algorithm>
#include <cstdio>
#include <optional>
#include <utility>
#include <vector>

#include "core/analysis/kernel_cost.h"
#include "core/analysis/units.h"
#include "core/html/html_sections.h"
#include "core/html/html_table.h"
#include "core/html/report_html.h"

namespace cs::core::html {

namespace {

constexpr size_t kTopKernels = 10;
constexpr size_t kTopLines = 15;
constexpr size_t kTopModules = 20;

std::string percent(double share) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f %%", share * 100.0);
    return text;
}

std::string baseName(const std::string& path) {
    const size_t slash = path.find_last_of("/\\");
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

// "model.py:21" with the full path as its tooltip, escaped.
std::string placeHtml(const std::string& file, int line) {
    return "<span title=\"" + htmlEscape(file) + "\">" + htmlEscape(baseName(file)) + ":" +
           std::to_string(line) + "</span>";
}

// A module's path, indented under its parent's.
std::string indentedModule(const ModuleCostRow& row) {
    return "<span class=\"module\" style=\"padding-left:" + std::to_string(row.depth - 1) +
           "em\"><code>" + htmlEscape(row.path) + "</code></span>";
}

// "a, b, c, …": the first three of a list, costliest first.
std::string firstThree(const std::vector<std::string>& names) {
    std::string out;
    for (size_t i = 0; i < names.size() && i < 3; ++i)
        out += (i == 0 ? "" : ", ") + names[i];
    if (names.size() > 3)
        out += ", …";
    return out;
}

std::string kernelLinesHtml(const KernelCostRow& row) {
    if (!row.kernel)
        return row.kind == "wrapper" ? "" : "not in the generated code";
    std::string out;
    size_t shown = 0;
    for (const auto& frame : row.kernel->lines) {
        if (shown == 3) {
            out += ", …";
            break;
        }
        out += (shown == 0 ? "" : ", ") + placeHtml(frame.file, frame.line);
        ++shown;
    }
    return out;
}

// The model's modules, indented under their parents, as deep as kTopModules
// rows allow: a model built of containers runs most of its time on the line
// that calls one, its modules tell the layers apart.
void writeModules(std::ostream& out, const CostBreakdown& cost) {
    const auto modules = moduleOverview(cost, kTopModules);
    if (modules.empty())
        return;
    // An eager setting compiles nothing; a compiled one runs ops eagerly only
    // after a graph break.
    const bool compiled = std::any_of(modules.begin(), modules.end(),
                                      [](const auto* row) { return row->compiledNsPerCall > 0; });
    const bool eager = std::any_of(modules.begin(), modules.end(),
                                   [](const auto* row) { return row->eagerNsPerCall > 0; });
    std::vector<Column> columns{{"module", true, "its path in the model, submodules indented"}};
    if (compiled) {
        columns.emplace_back("compiled share", false,
                             "of the compiled kernels' time, submodules included");
        columns.emplace_back("compiled per call", false, "its nodes' share of their kernels' time");
    } else {
        columns.emplace_back("eager share", false, "of the call's ops, submodules included");
    }
    if (eager)
        columns.emplace_back("eager per call", false,
                             "the ops that ran in it uncompiled, by the innermost module running");
    if (compiled)
        columns.emplace_back("kernels", true, "costliest first");
    HtmlTable table(std::move(columns));
    for (const auto* row : modules) {
        table.beginRow();
        table.html(row->attributed ? indentedModule(*row) : "<i>no module</i>");
        if (!compiled) {
            table.text(percent(row->eagerShare));
            table.text(formatDuration(row->eagerNsPerCall));
            continue;
        }
        const bool rowCompiled = row->compiledNsPerCall > 0; // else it ran wholly uncompiled
        table.text(rowCompiled ? percent(row->compiledShare) : "—");
        table.text(rowCompiled ? formatDuration(row->compiledNsPerCall) : "—");
        if (eager)
            table.text(row->eagerNsPerCall > 0 ? formatDuration(row->eagerNsPerCall) : "—");
        std::vector<std::string> names;
        for (const auto& kernel : row->kernels)
            names.push_back(shortKernelName(kernel));
        table.text(firstThree(names), {}, "names");
    }
    out << "<p><b>Hot modules</b></p>" << table.str();
}

// The hot modules of the settings side by side, time per call (compiled and
// eager), the fastest of each row in bold: which block a setting made faster
// or slower than eager. The rows are the first setting's with compiled time
// by module, else the first one's.
void writeModulesAcross(std::ostream& out,
                        const std::vector<std::pair<const RunView*, CostBreakdown>>& runs) {
    if (runs.size() < 2)
        return;
    const auto* lead = &runs.front().second;
    for (const auto& [run, cost] : runs) {
        if (std::any_of(cost.modules.begin(), cost.modules.end(),
                        [](const ModuleCostRow& row) { return row.compiledNsPerCall > 0; })) {
            lead = &cost;
            break;
        }
    }
    auto timeIn = [](const CostBreakdown& cost, const std::string& path) -> std::optional<double> {
        for (const auto& row : cost.modules) {
            if (row.attributed && row.path == path)
                return row.compiledNsPerCall + row.eagerNsPerCall;
        }
        return std::nullopt;
    };
    std::vector<Column> columns{{"module", true, "its path in the model, submodules indented"}};
    for (const auto& [run, cost] : runs)
        columns.emplace_back(run->label, false, "compiled and eager time per call");
    HtmlTable table(std::move(columns));
    for (const auto* row : moduleOverview(*lead, kTopModules)) {
        if (!row->attributed)
            continue;
        std::vector<std::optional<double>> times;
        double best = 0;
        for (const auto& [run, cost] : runs) {
            times.push_back(timeIn(cost, row->path));
            if (times.back() && *times.back() > 0 && (best == 0 || *times.back() < best))
                best = *times.back();
        }
        table.beginRow();
        table.html(indentedModule(*row));
        for (const auto& ns : times)
            table.text(durationOrDash(ns), {}, ns && *ns == best ? "best" : "");
    }
    if (table.rows() == 0)
        return;
    out << "<h3>Modules across settings</h3><p>Each module's time per call in every setting "
           "with a profiled window, compiled kernels and eager ops together; the fastest in "
           "bold.</p>"
        << table.str();
}

void writeRun(std::ostream& out, const RunView& r, const CostBreakdown& cost) {
    out << "<h3>" << runLabelHtml(r) << ": " << htmlEscape(formatCount(cost.calls))
        << " profiled calls (" << htmlEscape(cost.source) << ")</h3>";
    out << "<p>Per call: ";
    // An eager setting compiles nothing: its zeros would only be noise.
    if (cost.compiledNsPerCall > 0 || cost.wrapperNsPerCall > 0)
        out << "compiled kernels " << htmlEscape(formatDuration(cost.compiledNsPerCall))
            << " · compiled graphs outside kernels "
            << htmlEscape(formatDuration(cost.wrapperNsPerCall)) << " · ";
    out << "eager ops " << htmlEscape(formatDuration(cost.eagerNsPerCall)) << " · the call "
        << htmlEscape(formatDuration(cost.callNsPerCall))
        << " with the Python between its ops, which the window's line tracer slows</p>";
    if (!r.run->kernelProfile.note.empty())
        out << "<p class=\"note\">" << htmlEscape(r.run->kernelProfile.note) << "</p>";

    // A model of plain functions has no modules: the column would read "the model".
    const bool submodules = hasSubmoduleCost(cost);
    std::vector<Column> kernelColumns{
        {"kernel", true},
        {"kind", true},
        {"graph", true, "compile id and part (inference, forward, backward)"},
        {"time per call", false, "the kernel's time in the window / calls"},
        {"share", false, "of the compiled kernels' time"},
        {"launches per call"},
        {"lines", true, "the user lines of its FX nodes"}};
    if (submodules)
        kernelColumns.emplace_back("module", true, "the nn.Module its FX nodes come from");
    HtmlTable kernels(std::move(kernelColumns));
    size_t shown = 0;
    for (const auto& row : cost.kernels) {
        if (!row.nsPerCall || shown == kTopKernels)
            break;
        ++shown;
        const bool wrapper = row.kind == "wrapper";
        kernels.beginRow();
        kernels.html(wrapper ? "<i>outside kernels</i>"
                             : "<code>" + htmlEscape(row.name) + "</code>" +
                                   (row.ambiguous ? " *" : ""));
        kernels.text(kernelKindLabel(row.kind, row.name));
        kernels.text(
            row.compileId.empty() ? "?" : row.compileId + (row.part.empty() ? "" : " ") + row.part);
        kernels.text(formatDuration(*row.nsPerCall));
        kernels.text(wrapper ? "" : percent(row.share));
        kernels.text(wrapper ? "" : formatCount(static_cast<double>(row.launchesPerCall)));
        kernels.html(kernelLinesHtml(row));
        if (submodules)
            kernels.text(modulesText(row.modules));
    }
    if (shown > 0)
        out << "<p><b>Top kernels</b></p>" << kernels.str();
    else
        out << "<p>No compiled kernel ran in the window: the time below was spent eagerly.</p>";
    bool ambiguous = false;
    for (const auto& row : cost.kernels)
        ambiguous |= row.ambiguous;
    if (ambiguous)
        out << "<p class=\"note\">* a kernel name several graphs share: its time was split "
               "evenly between them.</p>";

    // The rows shown, and which kinds of time they have: an eager setting's
    // lines have no compiled time, a whole-graph compile's no eager time.
    std::vector<const LineCostRow*> shownLines;
    size_t withLine = 0;
    for (const auto& row : cost.lines) {
        const bool noLine = row.file.empty();
        if (!noLine && withLine == kTopLines)
            continue;
        withLine += noLine ? 0 : 1;
        shownLines.push_back(&row);
    }
    const bool anyCompiled = std::any_of(shownLines.begin(), shownLines.end(), [](const auto* row) {
        return row->compiledNsPerCall > 0;
    });
    const bool anyEager = std::any_of(shownLines.begin(), shownLines.end(),
                                      [](const auto* row) { return row->eagerNsPerCall > 0; });
    std::vector<Column> lineColumns{{"line", true}, {"code", true}};
    if (anyCompiled) {
        lineColumns.emplace_back("compiled share", false, "of the compiled kernels' time");
        lineColumns.emplace_back("compiled per call", false,
                                 "its nodes' share of their kernels' time");
    }
    if (anyEager) {
        lineColumns.emplace_back("eager share", false,
                                 "of the call's ops: compiled kernels, graphs and eager ops");
        lineColumns.emplace_back("eager per call", false,
                                 "time on this line outside compiled graphs");
    }
    if (anyCompiled)
        lineColumns.emplace_back("kernels", true);
    HtmlTable lines(std::move(lineColumns));
    for (const auto* row : shownLines) {
        lines.beginRow();
        lines.html(row->file.empty() ? "<i>no source line</i>" : placeHtml(row->file, row->line));
        lines.html(row->code.empty() ? ""
                                     : "<code class=\"src\">" + htmlEscape(row->code) + "</code>");
        const bool compiled = row->compiledNsPerCall > 0;
        if (anyCompiled) {
            lines.text(compiled ? percent(row->compiledShare) : "—");
            lines.text(compiled ? formatDuration(row->compiledNsPerCall) : "—");
        }
        const bool eager = row->eagerNsPerCall > 0;
        if (anyEager) {
            lines.text(eager ? percent(row->eagerShare) : "—");
            lines.text(eager ? formatDuration(row->eagerNsPerCall) : "—");
        }
        if (anyCompiled)
            lines.text(firstThree(row->kernels), {}, "names");
    }
    out << "<p><b>Hot lines</b></p>";
    if (lines.rows() == 0)
        out << "<p class=\"empty\">No line took time in the window.</p>";
    else
        out << lines.str();
    writeModules(out, cost);
}

} // namespace

void writeCosts(std::ostream& out, const ReportView& view) {
    if (!hasCostBreakdown(view.report))
        return;
    beginSection(out, "costs", "Where the time goes",
                 "A short profiled window after the measure phase: each kernel's time per call, "
                 "and each source line's share of the compiled kernels' time (a kernel's time "
                 "split equally over its FX nodes, each node to its line; docs/kernel-cost.md), "
                 "beside the time the line spent uncompiled and its share of the call's ops.");
    std::vector<std::pair<const RunView*, CostBreakdown>> withModules;
    for (const auto& r : view.runs) {
        CostBreakdown cost = costBreakdown(*r.run);
        if (!cost.profiled)
            continue;
        writeRun(out, r, cost);
        if (hasSubmoduleCost(cost))
            withModules.emplace_back(&r, std::move(cost));
    }
    writeModulesAcross(out, withModules);
    endSection(out);
}

} // namespace cs::core::html
