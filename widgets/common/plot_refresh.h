// Replot only a chart that is on screen: a plot in a hidden tab has no size,
// and painting it warns. Charts replot when shown (see their showEvent).
#pragma once

#include <qcustomplot.h>

namespace cs::widgets {

inline void replotWhenShown(QCustomPlot* plot) {
    if (plot->isVisible() && plot->width() > 0 && plot->height() > 0)
        plot->replot(QCustomPlot::rpQueuedReplot);
}

} // namespace cs::widgets
