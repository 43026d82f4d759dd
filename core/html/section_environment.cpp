// Environment: what ran where (python, torch, CUDA, device, host), the model,
// and the variables that change torch which the probes started with.
#include "core/analysis/environment_facts.h"
#include "core/analysis/torch_environment.h"
#include "core/analysis/units.h"
#include "core/html/html_sections.h"
#include "core/html/html_table.h"
#include "core/html/report_html.h"

namespace cs::core::html {

namespace {

std::string orDash(const std::string& text) {
    return text.empty() ? "—" : text;
}

// Every variable, wherever it came from: one the user forgot in their shell
// changes what every setting measures, and no setting shows it.
void writeTorchVariables(std::ostream& out, const Report& report) {
    const auto variables = variablesAcrossRuns(report);
    if (variables.empty())
        return;
    out << "<h3>Torch variables the probes started with</h3>";
    HtmlTable table({{"variable", true},
                     {"value", true},
                     {"from", true,
                      "inherited: from the shell that started compilescope (on a "
                      "--target host, its login), set by no setting"},
                     {"what it does", true},
                     {"settings", true}});
    for (const auto& v : variables) {
        table.beginRow(voidsMeasurement(v.variable) ? "bad" : "");
        table.text(v.variable.name);
        table.text(v.variable.value);
        table.text(toString(v.origin));
        table.text(orDash(variableEffectText(v.variable.name, v.variable.value)));
        table.text(v.everyRun ? "all" : joinList(v.settings));
    }
    out << table.str();
}

// Each probe's own account: which interpreter and CPUs a setting really used.
// A cell that differs from the first probe's is marked: those runs do not
// compare alike.
void writeProbes(std::ostream& out, const ReportView& view) {
    const auto probes = probeFacts(view.report);
    if (probes.empty())
        return;
    out << "<h3>Each probe</h3>";
    HtmlTable table(
        {{"setting", true},
         {"interpreter", true},
         {"python", true},
         {"torch", true},
         {"device", true},
         {"host", true},
         {"threads", true, "torch's intra-op threads, and the CPUs the probe could run on"}});
    for (const auto& p : probes) {
        table.beginRow();
        table.html(runLabelHtml(view.runs[static_cast<size_t>(p.run)]));
        const auto values = p.compared();
        for (size_t k = 0; k < values.size(); ++k) {
            const bool unlike = p.unlikeFirst[k];
            table.text(orDash(values[k]), unlike ? "not what the first probe had" : "",
                       unlike ? "warn" : "");
        }
        table.text(orDash(p.threads));
    }
    out << table.str();
}

} // namespace

void writeEnvironment(std::ostream& out, const ReportView& view) {
    const Report& report = view.report;
    beginSection(out, "environment", "Environment",
                 "What the probe found when it started, and the model it ran.");
    HtmlTable table({{"", true}, {"", true}}, "kv");
    for (const auto& fact : environmentFacts(report)) {
        table.beginRow();
        table.text(fact.name, {}, "key");
        table.text(orDash(fact.value));
    }
    out << table.str();
    if (const auto torches = differingTorchVersions(report); !torches.empty())
        out << "<p class=\"note\">The runs used different torch versions: "
            << htmlEscape(joinList(torches)) << ".</p>";
    writeProbes(out, view);
    writeTorchVariables(out, report);
    endSection(out);
}

} // namespace cs::core::html
