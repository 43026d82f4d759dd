// Warmup: the compile time split into torch's named phases per setting, and
// the latency of the first calls from the compiling one to steady state.
#include <algorithm>
#include <cmath>
#include <map>

#include "core/analysis/measurement_check.h"
#include "core/analysis/units.h"
#include "core/html/html_sections.h"
#include "core/html/html_table.h"
#include "core/html/report_html.h"
#include "core/html/svg_chart.h"

namespace cs::core::html {

namespace {

// Phase colours: fixed per phase name so bars read the same in every report.
std::string phaseColor(const std::string& name, size_t fallbackIndex) {
    static const std::map<std::string, std::string> known{{"dynamo_tracing", "#4e79a7"},
                                                          {"aot_autograd", "#f28e2b"},
                                                          {"inductor_codegen", "#59a14f"},
                                                          {"cpp_triton_compile", "#76b7b2"},
                                                          {"precompiled_header", "#8c510a"},
                                                          {"autotune", "#e15759"},
                                                          {"cudagraph_recording", "#b07aa1"},
                                                          {"other", "#bab0ac"},
                                                          {"export", "#8c6bb1"},
                                                          {"package", "#c994c7"},
                                                          {"load", "#41ab5d"},
                                                          {"first_call", "#a1d99b"}};
    static const char* spare[] = {"#edc948", "#ff9da7", "#9c755f", "#86bcb6"};
    auto it = known.find(name);
    return it != known.end() ? it->second : spare[fallbackIndex % 4];
}

void writePhases(std::ostream& out, const ReportView& view) {
    std::vector<std::string> names; // in first-seen order
    for (const auto& r : view.runs) {
        for (const auto& p : r.run->compilePhases) {
            if (std::find(names.begin(), names.end(), p.name) == names.end())
                names.push_back(p.name);
        }
    }
    std::vector<const RunView*> rows;
    for (const auto& r : view.runs) {
        if (!r.run->compilePhases.empty() || r.run->firstCallNs >= 0)
            rows.push_back(&r);
    }
    if (rows.empty() || names.empty()) {
        out << "<p class=\"empty\">No compile phases were reported (eager only, or torch exposed "
               "no counters).</p>";
        return;
    }
    SvgChart chart("Compile time by phase per setting", 760,
                   60 + 34.0 * static_cast<double>(rows.size()));
    chart.setXAxis(
        {"compile time of the first call (s); black tick: measured wall time of that call",
         AxisUnit::Seconds});
    std::vector<std::string> categories;
    for (size_t row = 0; row < rows.size(); ++row) {
        const Run& run = *rows[row]->run;
        categories.push_back(rows[row]->label);
        double x = 0;
        const double y = static_cast<double>(row);
        for (const auto& p : run.compilePhases) {
            const size_t k =
                static_cast<size_t>(std::find(names.begin(), names.end(), p.name) - names.begin());
            chart.addRect(x, y - 0.32, x + p.seconds, y + 0.32, phaseColor(p.name, k),
                          rows[row]->label + " — " + p.name + ": " +
                              formatDuration(p.seconds * 1e9));
            x += p.seconds;
        }
        if (run.firstCallNs >= 0) {
            const double wall = static_cast<double>(run.firstCallNs) / 1e9;
            chart.addSegment({wall, y - 0.42}, {wall, y + 0.42}, "currentColor", 2.5,
                             "first call wall time " +
                                 formatDuration(static_cast<double>(run.firstCallNs)));
        }
    }
    chart.setYCategories(categories);
    for (size_t k = 0; k < names.size(); ++k)
        chart.addLegend(names[k], phaseColor(names[k], k));
    out << chart.render();

    std::vector<Column> columns{{"setting", true}};
    for (auto name : names) {
        std::replace(name.begin(), name.end(), '_', ' '); // lets a narrow column wrap
        columns.push_back({name});
    }
    columns.push_back({"sum of phases"});
    columns.push_back({"first call wall time"});
    HtmlTable table(columns);
    // Each source once, with the settings whose phases it gave.
    std::vector<std::pair<std::string, std::vector<std::string>>> sources;
    for (const RunView* r : rows) {
        table.beginRow();
        table.html(runLabelHtml(*r));
        double sum = 0;
        for (const auto& name : names) {
            auto it = std::find_if(r->run->compilePhases.begin(), r->run->compilePhases.end(),
                                   [&name](const CompilePhase& p) { return p.name == name; });
            if (it == r->run->compilePhases.end()) {
                table.text("—");
                continue;
            }
            sum += it->seconds;
            table.text(it->seconds == 0 ? "0" : formatDuration(it->seconds * 1e9));
        }
        table.text(formatDuration(sum * 1e9));
        table.text(r->run->firstCallNs >= 0
                       ? formatDuration(static_cast<double>(r->run->firstCallNs))
                       : "—");
        const std::string& source = r->run->compilePhasesSource;
        if (source.empty())
            continue;
        auto it = std::find_if(sources.begin(), sources.end(),
                               [&source](const auto& s) { return s.first == source; });
        if (it == sources.end())
            it = sources.insert(sources.end(), {source, {}});
        it->second.push_back(r->label);
    }
    out << table.str();
    for (const auto& [source, labels] : sources) {
        std::string settings;
        for (const auto& label : labels)
            settings += (settings.empty() ? "" : ", ") + label;
        // The probe's "none: why" says why a setting has no phases.
        if (source.rfind("none", 0) == 0) {
            const std::string why = source.size() > 6 ? source.substr(6) : std::string();
            out << "<p class=\"note\">" << htmlEscape(settings) << ": no compile phases ("
                << (why.empty() ? "torch's counters held none, so all of it is other"
                                : htmlEscape(why))
                << ").</p>";
        } else {
            out << "<p class=\"note\">" << htmlEscape(settings) << ": phases from <code>"
                << htmlEscape(source) << "</code>.</p>";
        }
    }
}

void writeFirstCalls(std::ostream& out, const ReportView& view) {
    constexpr int kMeasuredShown = 10;
    SvgChart chart("Latency of the first calls per setting (log scale)");
    chart.setXAxis({"call number (warmup calls, then the first measured calls)", AxisUnit::Plain,
                    false, false});
    chart.setYAxis({"latency per call (log scale)", AxisUnit::DurationNs, true});
    bool recompiled = false;
    for (const auto& r : view.runs) {
        std::vector<Point> points;
        std::vector<std::string> tips;
        int measured = 0;
        std::vector<std::pair<Point, std::string>> marks;
        for (const auto& it : r.run->iterations) {
            if (!it.warmup && ++measured > kMeasuredShown)
                break;
            const double call = static_cast<double>(points.size() + 1);
            points.emplace_back(call, static_cast<double>(it.latencyNs));
            tips.push_back(r.label + " call " + std::to_string(points.size()) +
                           (it.warmup ? " (warmup)" : "") + ": " +
                           formatDuration(static_cast<double>(it.latencyNs)));
            if (const Recompile* rc = recompileInCall(*r.run, it.index))
                marks.emplace_back(points.back(), tips.back() + ", recompiled " + rc->function);
        }
        if (points.empty())
            continue;
        chart.addLine(r.label, r.color, std::move(points), true, tips);
        chart.addLegend(r.label, r.color);
        for (auto& [at, tip] : marks)
            chart.addMarker(at, r.color, std::move(tip));
        recompiled = recompiled || !marks.empty();
    }
    if (recompiled)
        chart.addLegend("▼ a call that recompiled", "#222");
    if (chart.empty())
        out << "<p class=\"empty\">No calls were measured.</p>";
    else
        out << chart.render();
}

} // namespace

void writeWarmup(std::ostream& out, const ReportView& view) {
    beginSection(
        out, "warmup", "Warmup",
        "What the first calls cost: the compiling call split into torch's own compile phases (the "
        "unnamed rest is \"other\"), then the latency of each call until steady state.");
    out << "<h3>Compile phases</h3>";
    writePhases(out, view);
    out << "<h3>First calls</h3>";
    writeFirstCalls(out, view);
    endSection(out);
}

} // namespace cs::core::html
