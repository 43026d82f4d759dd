// One box per setting: quartiles, median, Tukey whiskers and every outlier.
#pragma once

#include <QWidget>

#include "widgets/common/refresh_throttle.h"

class QCustomPlot;

namespace cs::widgets {

class ReportDocument;

class LatencyBoxPlot : public QWidget {
    Q_OBJECT
  public:
    explicit LatencyBoxPlot(ReportDocument* document, QWidget* parent = nullptr);
    void refresh();

  private:
    void showHover(const QPoint& pos, const QPoint& globalPos);

    ReportDocument* document_;
    QCustomPlot* plot_;
    RefreshThrottle throttle_{300};
};

} // namespace cs::widgets
