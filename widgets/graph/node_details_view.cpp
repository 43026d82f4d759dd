#include "widgets/graph/node_details_view.h"

#include <QFileInfo>
#include <QLabel>
#include <QTextBrowser>
#include <QVBoxLayout>

#include "widgets/breaks/source_file_loader.h"
#include "widgets/graph/graph_picture.h"

namespace cs::widgets {

namespace {

QString esc(const std::string& text) {
    return QString::fromStdString(text).toHtmlEscaped();
}

QString row(const QString& name, const QString& value) {
    return QStringLiteral("<tr><td style='padding-right:8px'><i>%1</i></td><td>%2</td></tr>")
        .arg(name, value);
}

QString swatch(NodeKind kind) {
    if (kind == NodeKind::Group) // near-white: a filled square would not show
        return QStringLiteral("<span style='color:#808080'>❐</span>");
    return QStringLiteral("<span style='color:%1'>■</span>").arg(nodeKindColor(kind).name());
}

QString nodeList(const GraphHierarchy& h, const std::vector<int>& nodes) {
    QStringList names;
    for (size_t i = 0; i < nodes.size() && i < 12; ++i)
        names << esc(h.node(nodes[i]).name);
    if (nodes.size() > 12)
        names << QObject::tr("… %1 more").arg(nodes.size() - 12);
    return names.isEmpty() ? QObject::tr("none") : names.join(QStringLiteral(", "));
}

} // namespace

NodeDetailsView::NodeDetailsView(QWidget* parent)
    : QWidget(parent), details_(new QTextBrowser(this)), legend_(new QLabel(this)) {
    setObjectName("nodeDetails");
    details_->setOpenLinks(false);
    details_->setFrameShape(QFrame::NoFrame);
    QString legend = tr("<b>Colours</b><br>");
    for (int k = 0; k < static_cast<int>(NodeKind::Count); ++k)
        legend += swatch(static_cast<NodeKind>(k)) + QStringLiteral(" ") +
                  nodeKindName(static_cast<NodeKind>(k)).toHtmlEscaped() + QStringLiteral("<br>");
    legend_->setText(legend);
    legend_->setTextFormat(Qt::RichText);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    layout->addWidget(details_, 1);
    layout->addWidget(legend_);
    showText(tr("Hover over or click a node to see its details."));
}

void NodeDetailsView::showText(const QString& text) {
    details_->setHtml(QStringLiteral("<p>%1</p>").arg(text.toHtmlEscaped()));
}

QString NodeDetailsView::text() const {
    return details_->toPlainText();
}

void NodeDetailsView::showItem(const GraphPicture* picture, int item, const SourceText* source) {
    if (!picture || item < 0 || item >= static_cast<int>(picture->items.size())) {
        showText(tr("Hover over or click a node to see its details."));
        return;
    }
    const GraphHierarchy& h = *picture->hierarchy;
    const auto& it = picture->items[static_cast<size_t>(item)];
    QString html;
    if (it.group) {
        const auto& g = h.group(it.index);
        html = QStringLiteral("<h3>%1</h3><table>").arg(esc(g.label));
        html += row(tr("kind"), g.run ? tr("run of consecutive nodes") : tr("module"));
        if (!g.path.empty())
            html += row(tr("module"), esc(g.path));
        html += row(tr("nodes"), QString::number(g.nodeCount));
        html += row(tr("range"),
                    tr("%1 … %2").arg(esc(h.node(g.firstNode).name), esc(h.node(g.lastNode).name)));
        QString kinds;
        for (size_t k = 0; k < g.kinds.size(); ++k) {
            if (g.kinds[k])
                kinds += swatch(static_cast<NodeKind>(k)) +
                         QStringLiteral(" %1 %2<br>")
                             .arg(g.kinds[k])
                             .arg(nodeKindName(static_cast<NodeKind>(k)).toHtmlEscaped());
        }
        html += row(tr("ops"), kinds) + QStringLiteral("</table>");
        html += tr("<p>Double-click the box to open the group; double-click an open group's title "
                   "to close it.</p>");
        details_->setHtml(html);
        return;
    }
    const auto& node = h.node(it.index);
    html = QStringLiteral("<h3>%1</h3><table>").arg(esc(node.name));
    html += row(tr("op"), esc(node.op));
    html += row(tr("target"), esc(node.target));
    html += row(tr("kind"),
                swatch(it.kind) + QStringLiteral(" ") + nodeKindName(it.kind).toHtmlEscaped());
    html += row(tr("shape"), node.shape.empty() ? tr("—") : esc(node.shape));
    html += row(tr("dtype"), node.dtype.empty() ? tr("—") : esc(node.dtype));
    if (!node.module.empty())
        html += row(tr("module"), esc(node.module));
    html += row(tr("inputs"), nodeList(h, h.inputsOf(it.index)));
    html += row(tr("users"), nodeList(h, h.usersOf(it.index)));
    if (!node.file.empty() && node.line > 0)
        html +=
            row(tr("source"),
                QStringLiteral("%1:%2")
                    .arg(QFileInfo(QString::fromStdString(node.file)).fileName().toHtmlEscaped())
                    .arg(node.line));
    html += QStringLiteral("</table>");
    if (!node.file.empty() && node.line > 0) {
        if (!source)
            html += tr("<p><i>reading the source…</i></p>");
        else if (!source->ok)
            html += QStringLiteral("<p><i>%1</i></p>").arg(source->error.toHtmlEscaped());
        else if (node.line <= source->lines.size())
            html += QStringLiteral("<pre>%1: %2</pre>")
                        .arg(node.line)
                        .arg(source->lines[node.line - 1].trimmed().toHtmlEscaped());
    } else {
        html += tr("<p><i>No source line: torch created this node (an input, the output or a "
                   "parameter).</i></p>");
    }
    details_->setHtml(html);
}

} // namespace cs::widgets
