// What the graph view paints for one graph and one expansion: laid-out boxes
// (nodes and collapsed groups), edge curves and frames of expanded groups.
// Built off the GUI thread, then shared read-only.
#pragma once

#include <QPolygonF>
#include <QRectF>
#include <QString>

#include <memory>
#include <vector>

#include "widgets/graph/graph_hierarchy.h"
#include "widgets/graph/node_kind.h"

namespace cs::widgets {

struct GraphPicture {
    struct Item {
        QRectF rect;
        NodeKind kind = NodeKind::OtherCall;
        bool group = false;
        int index = 0; // node index, or group id
        QString title;
        QString detail;
        QString shape;
    };
    struct Edge {
        int from = 0; // item indices
        int to = 0;
        int count = 1;
        QPolygonF curve; // cubic Bézier sequence, arrow at the end
        QRectF bounds;
    };
    struct Cluster {
        int group = 0;
        int depth = 1;
        int firstItem = 0;
        int endItem = 0;
        QRectF rect;
        QString label;
    };

    std::shared_ptr<const GraphHierarchy> hierarchy;
    Expansion expansion;
    std::vector<Item> items;
    std::vector<Edge> edges;
    std::vector<Cluster> clusters;
    std::vector<int> itemOfNode;
    QRectF bounds;
    QString engine; // "dot" or "layered"
    QString note;   // why the engine was chosen, or why dot was not used
    double layoutMs = 0;
    double totalMs = 0;
    Qt::HANDLE builtOnThread = nullptr; // tests check that this is not the GUI thread
};

} // namespace cs::widgets
