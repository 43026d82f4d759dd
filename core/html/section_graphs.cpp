// Graphs: the nodes of every captured FX graph, folded away until opened.
#include "core/analysis/function_name.h"
#include "core/html/html_sections.h"
#include "core/html/html_table.h"
#include "core/html/report_html.h"

namespace cs::core::html {

namespace {
// Beyond this a node table is no longer read by anyone; the JSON keeps all.
constexpr size_t kMaxNodesShown = 2000;
} // namespace

void writeGraphs(std::ostream& out, const ReportView& view) {
    beginSection(out, "graphs", "Captured graphs",
                 "Each FX graph Dynamo handed to the backend, in execution order, with its nodes' "
                 "shapes and "
                 "source lines.");
    bool any = false;
    for (const auto& r : view.runs) {
        for (const auto& g : r.run->graphs) {
            any = true;
            out << "<details><summary>" << runLabelHtml(r) << " — graph " << g.index << " ("
                << htmlEscape(g.compileId) << "), " << htmlEscape(functionLabel(g.function))
                << " at " << htmlEscape(g.file + ":" + std::to_string(g.line)) << ", "
                << g.nodes.size() << " nodes</summary>";
            HtmlTable table({{"node", true},
                             {"op", true},
                             {"target", true},
                             {"shape", true},
                             {"dtype", true},
                             {"module", true},
                             {"source", true},
                             {"inputs", true}});
            size_t shown = 0;
            for (const auto& n : g.nodes) {
                if (shown++ == kMaxNodesShown)
                    break;
                table.beginRow();
                table.html("<code>" + htmlEscape(n.name) + "</code>");
                table.text(n.op);
                table.html("<code>" + htmlEscape(n.target) + "</code>");
                table.text(n.shape);
                table.text(n.dtype);
                table.text(n.module);
                table.text(n.file.empty() ? "" : n.file + ":" + std::to_string(n.line));
                std::string inputs;
                for (const auto& i : n.inputs)
                    inputs += (inputs.empty() ? "" : ", ") + i;
                table.text(inputs);
            }
            out << table.str();
            if (g.nodes.size() > kMaxNodesShown)
                out << "<p class=\"note\">" << g.nodes.size() - kMaxNodesShown
                    << " more nodes are in the JSON report.</p>";
            out << "</details>";
        }
    }
    if (!any)
        out << "<p class=\"empty\">No graphs were captured.</p>";
    endSection(out);
}

} // namespace cs::core::html
