// Latency of each of the first calls per setting, on a log axis: the curve
// from the compiling call down to steady state, with where warmup ends.
#pragma once

#include <QWidget>

#include "widgets/common/refresh_throttle.h"

class QCustomPlot;

namespace cs::widgets {

class ReportDocument;

class FirstCallsChart : public QWidget {
    Q_OBJECT
  public:
    explicit FirstCallsChart(ReportDocument* document, QWidget* parent = nullptr);
    void refresh();

  private:
    ReportDocument* document_;
    QCustomPlot* plot_;
    RefreshThrottle throttle_{250};
};

} // namespace cs::widgets
