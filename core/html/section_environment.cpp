// Environment: what ran where (python, torch, CUDA, device, host) and the model.
#include <set>

#include "core/analysis/torch_environment.h"
#include "core/html/html_sections.h"
#include "core/html/html_table.h"
#include "core/html/report_html.h"

namespace cs::core::html {

namespace {
std::string orDash(const std::string& text) {
    return text.empty() ? "—" : text;
}
// The torch variables the probes inherited rather than got from compilescope,
// over every run (the env.* advice judges them).
std::string inheritedText(const ReportView& view) {
    std::map<std::string, std::string> inherited;
    for (const auto& r : view.runs) {
        for (const auto& v : inheritedVariables(*r.run, view.report.environment))
            inherited.emplace(v.name, v.value);
    }
    return environmentText(inherited);
}

} // namespace

void writeEnvironment(std::ostream& out, const ReportView& view) {
    const Report& report = view.report;
    beginSection(out, "environment", "Environment",
                 "What the probe found when it started, and the model it ran.");
    HtmlTable table({{"", true}, {"", true}}, "kv");
    const auto& e = report.environment;
    const auto& m = report.model;
    std::string inputs;
    for (const auto& i : m.inputs)
        inputs += (inputs.empty() ? "" : ", ") + i;
    for (const auto& [key, value] : std::vector<std::pair<std::string, std::string>>{
             {"model", m.spec},
             {"model class", m.name},
             {"parameters", m.parameters > 0 ? std::to_string(m.parameters) : ""},
             {"inputs", inputs},
             {"python", e.python},
             {"torch", e.torch},
             {"CUDA", e.cuda},
             {"device", e.device},
             {"CPU", e.cpu},
             {"host", e.host},
             {"remote target", e.target.empty() ? "none: this computer" : e.target},
             {"probe environment (--env)", environmentText(e.probeEnvironment)},
             {"torch variables inherited", inheritedText(view)},
             {"platform", e.platform},
             {"report created", report.created},
             {"written by", report.generator}}) {
        table.beginRow();
        table.text(key, {}, "key");
        table.text(orDash(value));
    }
    out << table.str();
    // Runs can come from different interpreters (a report merged by hand): say so.
    std::set<std::string> torches;
    for (const auto& r : view.runs) {
        if (!r.run->probe.torch.empty())
            torches.insert(r.run->probe.torch);
    }
    if (torches.size() > 1) {
        std::string list;
        for (const auto& t : torches)
            list += (list.empty() ? "" : ", ") + t;
        out << "<p class=\"note\">The runs used different torch versions: " << htmlEscape(list)
            << ".</p>";
    }
    endSection(out);
}

} // namespace cs::core::html
