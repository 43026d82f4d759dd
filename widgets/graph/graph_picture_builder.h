// Turns a hierarchy and an expansion into a GraphPicture: labels and box
// sizes, then a layout by dot when the visible graph is small enough for it
// and by LayeredLayout otherwise. Pure; runs on layout threads.
#pragma once

#include <memory>

#include "core/layout/graph_layout_types.h"
#include "widgets/graph/graph_picture.h"
#include "widgets/graph/label_metrics.h"

namespace cs::widgets {

class GraphPictureBuilder {
  public:
    enum class Engine { Auto, Dot, Layered };
    // dot stays well under half a second up to here on a loaded 2-core machine (BM_Dot in
    // docs/BENCHMARKS.md: 130 ms at 600 boxes, 430 ms at 1,000, 1.6 s at 2,000).
    static constexpr int kDotMaxItems = 600;
    // The default view shows at most this many boxes; bigger graphs start collapsed.
    static constexpr int kDefaultBudget = 160;

    static std::shared_ptr<GraphPicture> build(std::shared_ptr<const GraphHierarchy> hierarchy,
                                               Expansion expansion, const LabelMetrics& metrics,
                                               const layout::CancelCheck& cancelled = {},
                                               Engine engine = Engine::Auto);
};

} // namespace cs::widgets
