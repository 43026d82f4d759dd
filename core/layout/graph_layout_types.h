// The input and output of a graph layout engine: boxes with sizes and
// directed edges in; centres, edge curves and cluster frames out. Plain data
// with no Qt, so the engines build and test on their own; the graph view
// converts at the one place it hands a graph over (GraphPictureBuilder).
// Coordinates are points, y pointing down.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace cs::layout {

struct Point {
    double x = 0;
    double y = 0;

    friend Point operator+(Point a, Point b) { return {a.x + b.x, a.y + b.y}; }
    friend Point operator-(Point a, Point b) { return {a.x - b.x, a.y - b.y}; }
    friend Point operator*(Point p, double f) { return {p.x * f, p.y * f}; }
    friend Point operator/(Point p, double d) { return {p.x / d, p.y / d}; }
    friend bool operator==(Point, Point) = default;
};

struct Size {
    double width = 0;
    double height = 0;
};

struct Rect {
    double x = 0; // left
    double y = 0; // top
    double width = 0;
    double height = 0;

    // The rectangle spanned by two opposite corners, in either order.
    static Rect spanning(Point a, Point b) {
        // Same arithmetic as QRectF(a, b).normalized(), so frames convert bit for bit.
        Rect r{a.x, a.y, b.x - a.x, b.y - a.y};
        if (r.width < 0) {
            r.x += r.width;
            r.width = -r.width;
        }
        if (r.height < 0) {
            r.y += r.height;
            r.height = -r.height;
        }
        return r;
    }
    double right() const { return x + width; }
    double bottom() const { return y + height; }
};

// A cubic Bézier sequence (p0 c1 c2 p1 c3 c4 p2 …); the arrow tip is the last point.
using Curve = std::vector<Point>;

struct LayoutProblem {
    struct Cluster {
        int parent = -1; // index into clusters
        int firstItem = 0;
        int endItem = 0;
        std::string label; // UTF-8
    };
    std::vector<Size> sizes;
    std::vector<std::pair<int, int>> edges;
    std::vector<Cluster> clusters; // pre-order: a parent comes before its children
};

struct LayoutSolution {
    bool ok = false;
    std::string error;
    std::vector<Point> centres;
    std::vector<Curve> curves;      // one per edge, in the problem's order
    std::vector<Rect> clusterRects; // empty when the engine leaves frames to the caller
    Rect bounds;
};

// Why an engine cannot lay out this problem (an edge or a cluster names a box that
// does not exist, a cluster comes before its parent), or empty when it can.
std::string problemError(const LayoutProblem& problem);

// Returns true when the caller no longer wants the result (a newer request came).
using CancelCheck = std::function<bool()>;

} // namespace cs::layout
