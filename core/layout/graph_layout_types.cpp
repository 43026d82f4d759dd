#include "core/layout/graph_layout_types.h"

namespace cs::layout {

std::string problemError(const LayoutProblem& problem) {
    const auto n = static_cast<long long>(problem.sizes.size());
    const std::string boxes = " (" + std::to_string(n) + " boxes)";
    for (size_t e = 0; e < problem.edges.size(); ++e) {
        const auto [from, to] = problem.edges[e];
        if (from < 0 || from >= n || to < 0 || to >= n)
            return "edge " + std::to_string(e) + " (" + std::to_string(from) + " -> " +
                   std::to_string(to) + ") names a box that does not exist" + boxes;
    }
    for (size_t c = 0; c < problem.clusters.size(); ++c) {
        const auto& cluster = problem.clusters[c];
        if (cluster.parent < -1 || cluster.parent >= static_cast<long long>(c))
            return "cluster " + std::to_string(c) + " has parent " +
                   std::to_string(cluster.parent) + ", which does not come before it";
        if (cluster.firstItem < 0 || cluster.firstItem > cluster.endItem || cluster.endItem > n)
            return "cluster " + std::to_string(c) + " holds items " +
                   std::to_string(cluster.firstItem) + " to " + std::to_string(cluster.endItem) +
                   ", not a range of the boxes" + boxes;
    }
    return {};
}

} // namespace cs::layout
