// A cheap layered (Sugiyama-style) layout for graphs too big for dot:
// longest-path ranking with sources pulled down next to their first user,
// barycentric ordering sweeps, then x placement by isotonic regression
// (pool adjacent violators) towards the neighbours' mean. Linear-ish in nodes
// and edges; no virtual nodes, so long edges are drawn straight across.
#pragma once

#include "core/layout/graph_layout_types.h"

namespace cs::layout {

class LayeredLayout {
  public:
    static constexpr double kNodeGap = 24;
    static constexpr double kRankGap = 36;

    static LayoutSolution run(const LayoutProblem& problem, const CancelCheck& cancelled = {});
};

} // namespace cs::layout
