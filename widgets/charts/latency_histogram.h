// Distribution of steady-state latency per setting, overlaid on shared log
// bins, as a share of each setting's measured calls.
#pragma once

#include <QWidget>

#include "widgets/common/refresh_throttle.h"

class QCustomPlot;

namespace cs::widgets {

class ReportDocument;

class LatencyHistogram : public QWidget {
    Q_OBJECT
  public:
    explicit LatencyHistogram(ReportDocument* document, QWidget* parent = nullptr);
    void refresh();

  private:
    ReportDocument* document_;
    QCustomPlot* plot_;
    RefreshThrottle throttle_{300};
};

} // namespace cs::widgets
