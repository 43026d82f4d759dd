// Layered layout by Graphviz dot (libgvc/libcgraph): the best-looking layout,
// with clusters for expanded groups and spline edges, but slow beyond a few
// hundred nodes (see docs/graphs-and-breaks.md). Graphviz keeps global state,
// so calls are serialised.
#pragma once

#include "core/layout/graph_layout_types.h"

namespace cs::layout {

class DotLayout {
  public:
    // Above this many boxes dot is asked for cheaper settings (straight edges, bounded passes).
    static constexpr int kFastSettingsAbove = 150;

    static LayoutSolution run(const LayoutProblem& problem);
};

} // namespace cs::layout
