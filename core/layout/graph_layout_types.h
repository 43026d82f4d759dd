// The input and output of a graph layout engine: boxes with sizes and
// directed edges in; centres, edge curves and cluster frames out. Plain data.
#pragma once

#include <QPointF>
#include <QPolygonF>
#include <QRectF>
#include <QSizeF>
#include <QString>

#include <functional>
#include <vector>

namespace cs::widgets {

struct LayoutProblem {
    struct Cluster {
        int parent = -1; // index into clusters
        int firstItem = 0;
        int endItem = 0;
        QString label;
    };
    std::vector<QSizeF> sizes;
    std::vector<std::pair<int, int>> edges;
    std::vector<Cluster> clusters; // pre-order: a parent comes before its children
};

struct LayoutSolution {
    bool ok = false;
    QString error;
    std::vector<QPointF> centres;
    // Per edge, a cubic Bézier sequence (p0 c1 c2 p1 c3 c4 p2 …); the arrow tip is the last point.
    std::vector<QPolygonF> curves;
    std::vector<QRectF> clusterRects; // empty when the engine leaves frames to the caller
    QRectF bounds;
};

// Returns true when the caller no longer wants the result (a newer request came).
using CancelCheck = std::function<bool()>;

} // namespace cs::widgets
