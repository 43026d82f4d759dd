#include "core/layout/dot_layout.h"

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <mutex>
#include <string>
#include <utility>

namespace cs::layout {

namespace {

std::mutex& graphvizMutex() {
    static std::mutex mutex;
    return mutex;
}

// One context for the process: gvContext() loads the plugin configuration,
// which is too slow to repeat per layout. Never freed, on purpose.
GVC_t* context() {
    static GVC_t* gvc = gvContext();
    return gvc;
}

char* cstr(const char* text) {
    return const_cast<char*>(text); // cgraph takes char* but does not modify it
}

std::string inches(double points) {
    return std::to_string(points / 72.0);
}

// Graph attribute on the root: declared with a default, then set.
void setGraphAttr(Agraph_t* g, const char* name, const std::string& value) {
    agattr(g, AGRAPH, cstr(name), cstr(value.c_str()));
}

} // namespace

LayoutSolution DotLayout::run(const LayoutProblem& problem) {
    LayoutSolution out;
    const size_t n = problem.sizes.size();
    if (std::string error = problemError(problem); !error.empty()) {
        out.error = std::move(error); // an index out of range would crash below
        return out;
    }
    if (n == 0) {
        out.ok = true;
        return out;
    }
    std::lock_guard lock(graphvizMutex());
    GVC_t* gvc = context();
    if (!gvc) {
        out.error = "Graphviz could not start (gvContext failed)";
        return out;
    }
    Agraph_t* g = agopen(cstr("g"), Agdirected, nullptr);
    const bool fast = static_cast<int>(n) > kFastSettingsAbove;
    setGraphAttr(g, "rankdir", "TB");
    setGraphAttr(g, "nodesep", "0.25");
    setGraphAttr(g, "ranksep", "0.4");
    setGraphAttr(g, "splines", fast ? "line" : "spline");
    if (fast) {
        // Bounded crossing minimisation and network simplex passes: most of dot's time.
        setGraphAttr(g, "mclimit", "0.3");
        setGraphAttr(g, "nslimit", "2");
        setGraphAttr(g, "nslimit1", "2");
        setGraphAttr(g, "remincross", "false");
    }
    Agsym_t* shape = agattr(g, AGNODE, cstr("shape"), cstr("box"));
    Agsym_t* fixed = agattr(g, AGNODE, cstr("fixedsize"), cstr("true"));
    Agsym_t* width = agattr(g, AGNODE, cstr("width"), cstr("1"));
    Agsym_t* height = agattr(g, AGNODE, cstr("height"), cstr("0.5"));
    agattr(g, AGNODE, cstr("label"), cstr(""));
    Agsym_t* clusterLabel = agattr(g, AGRAPH, cstr("label"), cstr(""));
    agattr(g, AGRAPH, cstr("fontsize"), cstr("10"));
    Agsym_t* clusterMargin = agattr(g, AGRAPH, cstr("margin"), cstr(""));
    (void)shape;
    (void)fixed;

    std::vector<Agnode_t*> nodes(n);
    for (size_t i = 0; i < n; ++i) {
        const std::string name = "n" + std::to_string(i);
        nodes[i] = agnode(g, cstr(name.c_str()), 1);
        agxset(nodes[i], width, cstr(inches(problem.sizes[i].width).c_str()));
        agxset(nodes[i], height, cstr(inches(problem.sizes[i].height).c_str()));
    }
    std::vector<Agraph_t*> clusters(problem.clusters.size(), nullptr);
    for (size_t c = 0; c < problem.clusters.size(); ++c) {
        const auto& cluster = problem.clusters[c];
        Agraph_t* parent = cluster.parent >= 0 ? clusters[static_cast<size_t>(cluster.parent)] : g;
        const std::string name = "cluster_" + std::to_string(c);
        clusters[c] = agsubg(parent, cstr(name.c_str()), 1);
        agxset(clusters[c], clusterLabel, cstr(cluster.label.c_str()));
        agxset(clusters[c], clusterMargin, cstr("8")); // points, for clusters
        for (int item = cluster.firstItem; item < cluster.endItem; ++item)
            agsubnode(clusters[c], nodes[static_cast<size_t>(item)], 1);
    }
    std::vector<Agedge_t*> edges(problem.edges.size(), nullptr);
    for (size_t e = 0; e < problem.edges.size(); ++e) {
        const auto [from, to] = problem.edges[e];
        edges[e] =
            agedge(g, nodes[static_cast<size_t>(from)], nodes[static_cast<size_t>(to)], nullptr, 1);
    }

    if (gvLayout(gvc, g, "dot") != 0) {
        out.error = "Graphviz dot could not lay out this graph";
        agclose(g);
        return out;
    }
    const boxf bb = GD_bb(g);
    // dot's y axis points up; the scene's points down.
    auto toScene = [&bb](pointf p) { return Point{p.x - bb.LL.x, bb.UR.y - p.y}; };
    out.centres.resize(n);
    for (size_t i = 0; i < n; ++i)
        out.centres[i] = toScene(ND_coord(nodes[i]));
    out.curves.resize(edges.size());
    for (size_t e = 0; e < edges.size(); ++e) {
        Curve curve;
        const splines* spl = ED_spl(edges[e]);
        if (spl && spl->size > 0 && spl->list[0].size >= 4) {
            const bezier& bz = spl->list[0];
            for (int k = 0; k < bz.size; ++k)
                curve.push_back(toScene(bz.list[k]));
            if (bz.eflag) {
                // The spline stops where dot would draw its arrowhead; extend it to the tip.
                const Point last = curve.back();
                const Point tip = toScene(bz.ep);
                curve.insert(curve.end(),
                             {last + (tip - last) / 3.0, last + (tip - last) * 2.0 / 3.0, tip});
            }
        } else {
            const Point a = out.centres[static_cast<size_t>(problem.edges[e].first)];
            const Point b = out.centres[static_cast<size_t>(problem.edges[e].second)];
            curve = {a, a + (b - a) / 3.0, a + (b - a) * 2.0 / 3.0, b};
        }
        out.curves[e] = curve;
    }
    out.clusterRects.resize(clusters.size());
    for (size_t c = 0; c < clusters.size(); ++c) {
        const boxf cb = GD_bb(clusters[c]);
        out.clusterRects[c] = Rect::spanning(toScene(cb.LL), toScene(cb.UR));
    }
    out.bounds = Rect{0, 0, bb.UR.x - bb.LL.x, bb.UR.y - bb.LL.y};
    gvFreeLayout(gvc, g);
    agclose(g);
    out.ok = true;
    return out;
}

} // namespace cs::layout
