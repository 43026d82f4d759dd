#include "widgets/graph/graph_picture_builder.h"

#include <QElapsedTimer>
#include <QThread>

#include <algorithm>

#include "core/layout/dot_layout.h"
#include "core/layout/layered_layout.h"

namespace cs::widgets {

namespace {

constexpr double kMinWidth = 80;
constexpr double kMaxWidth = 260;
constexpr double kPad = 8;
constexpr double kClusterPad = 10;

// "torch._C._nn.linear" → "linear"; "<built-in function add>" → "add".
QString shortTarget(const std::string& target) {
    std::string text = target;
    if (text.size() > 2 && text.front() == '<' && text.back() == '>') {
        const auto space = text.find_last_of(' ');
        text = text.substr(space == std::string::npos ? 1 : space + 1);
        text.pop_back();
    }
    if (const auto dot = text.find_last_of('.'); dot != std::string::npos && dot + 1 < text.size())
        text = text.substr(dot + 1);
    return QString::fromStdString(text);
}

QString nodeDetail(const core::GraphNode& node) {
    if (node.op == "placeholder")
        return QStringLiteral("input");
    if (node.op == "output")
        return QStringLiteral("output");
    if (node.op == "get_attr")
        return QStringLiteral("attr ") + QString::fromStdString(node.target);
    if (node.op == "call_module")
        return QStringLiteral("module ") + QString::fromStdString(node.target);
    if (node.op == "call_method")
        return QStringLiteral(".") + shortTarget(node.target) + QStringLiteral("()");
    return shortTarget(node.target);
}

QString nodeShape(const core::GraphNode& node) {
    if (node.shape.empty())
        return QString::fromStdString(node.dtype);
    if (node.dtype.empty())
        return QString::fromStdString(node.shape);
    return QString::fromStdString(node.shape + " " + node.dtype);
}

// The layout library's plain types to Qt's: exact, so pixels do not move.
QPointF toQt(layout::Point p) {
    return {p.x, p.y};
}

QRectF toQt(const layout::Rect& r) {
    return {r.x, r.y, r.width, r.height};
}

QPolygonF toQt(const layout::Curve& curve) {
    QPolygonF polygon;
    polygon.reserve(static_cast<qsizetype>(curve.size()));
    for (const layout::Point& p : curve)
        polygon << toQt(p);
    return polygon;
}

} // namespace

std::shared_ptr<GraphPicture>
GraphPictureBuilder::build(std::shared_ptr<const GraphHierarchy> hierarchy, Expansion expansion,
                           const LabelMetrics& metrics, const layout::CancelCheck& cancelled,
                           Engine engine) {
    QElapsedTimer clock;
    clock.start();
    auto picture = std::make_shared<GraphPicture>();
    picture->hierarchy = hierarchy;
    picture->builtOnThread = QThread::currentThreadId();
    const VisibleGraph visible = hierarchy->visible(expansion);
    picture->expansion = std::move(expansion);
    picture->itemOfNode = visible.itemOfNode;

    const double lineHeight = metrics.lineHeight();
    const double height = 3 * lineHeight + kPad;
    layout::LayoutProblem problem;
    problem.sizes.reserve(visible.items.size());
    picture->items.reserve(visible.items.size());
    for (const auto& v : visible.items) {
        GraphPicture::Item item;
        item.group = v.group;
        item.index = v.index;
        if (v.group) {
            const auto& g = hierarchy->group(v.index);
            item.kind = NodeKind::Group;
            item.title = QString::fromStdString(g.label);
            item.detail = QStringLiteral("%1 nodes — double-click to open").arg(g.nodeCount);
            item.shape = QString::fromStdString(hierarchy->kindSummary(v.index));
        } else {
            const auto& node = hierarchy->node(v.index);
            item.kind = hierarchy->kindOf(v.index);
            item.title = QString::fromStdString(node.name);
            item.detail = nodeDetail(node);
            if (item.detail == item.title) // "linear" calling linear: say which one
                item.detail = QString::fromStdString(node.target);
            item.shape = nodeShape(node);
        }
        const double text = std::max(
            {metrics.width(item.title), metrics.width(item.detail), metrics.width(item.shape)});
        const double width = std::clamp(text + 2 * kPad, kMinWidth, kMaxWidth);
        problem.sizes.push_back({width, height + (item.group ? 4 : 0)});
        picture->items.push_back(std::move(item));
    }
    problem.edges.reserve(visible.edges.size());
    for (const auto& e : visible.edges)
        problem.edges.emplace_back(e.from, e.to);
    std::vector<QString> clusterLabels;
    clusterLabels.reserve(visible.clusters.size());
    for (const auto& c : visible.clusters) {
        const auto& g = hierarchy->group(c.group);
        clusterLabels.push_back(
            QStringLiteral("%1 (%2 nodes)").arg(QString::fromStdString(g.label)).arg(g.nodeCount));
        problem.clusters.push_back(
            {c.parent, c.firstItem, c.endItem, clusterLabels.back().toStdString()});
    }

    const int count = static_cast<int>(problem.sizes.size());
    bool useDot = engine == Engine::Dot || (engine == Engine::Auto && count <= kDotMaxItems);
    layout::LayoutSolution solution;
    QElapsedTimer layoutClock;
    layoutClock.start();
    if (useDot) {
        solution = layout::DotLayout::run(problem);
        if (!solution.ok)
            picture->note = QString::fromStdString(solution.error) +
                            QStringLiteral("; used the fast layered layout instead");
    } else if (engine == Engine::Auto) {
        picture->note =
            QStringLiteral("%1 boxes are more than dot lays out quickly (%2): fast layered layout")
                .arg(count)
                .arg(kDotMaxItems);
    }
    if (!solution.ok) {
        useDot = false;
        solution = layout::LayeredLayout::run(problem, cancelled);
        if (!solution.ok)
            return nullptr; // cancelled
    }
    picture->layoutMs = static_cast<double>(layoutClock.nsecsElapsed()) / 1e6;
    picture->engine = useDot ? QStringLiteral("dot") : QStringLiteral("layered");

    QRectF bounds;
    for (size_t i = 0; i < picture->items.size(); ++i) {
        const QSizeF size(problem.sizes[i].width, problem.sizes[i].height);
        picture->items[i].rect =
            QRectF(toQt(solution.centres[i]) - QPointF(size.width() / 2, size.height() / 2), size);
        bounds |= picture->items[i].rect;
    }
    picture->edges.reserve(visible.edges.size());
    for (size_t e = 0; e < visible.edges.size(); ++e) {
        GraphPicture::Edge edge;
        edge.from = visible.edges[e].from;
        edge.to = visible.edges[e].to;
        edge.count = visible.edges[e].count;
        edge.curve = toQt(solution.curves[e]);
        edge.bounds = edge.curve.boundingRect();
        picture->edges.push_back(std::move(edge));
    }

    // Frames: dot's cluster boxes, or the union of the members, children before parents.
    const size_t clusters = visible.clusters.size();
    std::vector<QRectF> rects(clusters);
    if (solution.clusterRects.size() == clusters) {
        std::transform(solution.clusterRects.begin(), solution.clusterRects.end(), rects.begin(),
                       [](const layout::Rect& r) { return toQt(r); });
    } else {
        std::vector<QRectF> inner(clusters);
        for (size_t c = clusters; c-- > 0;) {
            const auto& vc = visible.clusters[c];
            QRectF r = inner[c];
            for (int item = vc.firstItem; item < vc.endItem; ++item)
                r |= picture->items[static_cast<size_t>(item)].rect;
            r.adjust(-kClusterPad, -(kClusterPad + lineHeight), kClusterPad, kClusterPad);
            rects[c] = r;
            if (vc.parent >= 0)
                inner[static_cast<size_t>(vc.parent)] |= r;
        }
    }
    picture->clusters.reserve(clusters);
    for (size_t c = 0; c < clusters; ++c) {
        const auto& vc = visible.clusters[c];
        picture->clusters.push_back(
            {vc.group, vc.depth, vc.firstItem, vc.endItem, rects[c], clusterLabels[c]});
        bounds |= rects[c];
    }
    picture->bounds = bounds.adjusted(-20, -20, 20, 20);
    picture->totalMs = static_cast<double>(clock.nsecsElapsed()) / 1e6;
    return picture;
}

} // namespace cs::widgets
