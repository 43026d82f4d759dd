// The first call of each setting split into torch's compile phases: one
// stacked bar per setting, outlined in the setting's colour.
#pragma once

#include <QWidget>

#include "widgets/common/refresh_throttle.h"

class QCustomPlot;

namespace cs::widgets {

class ReportDocument;

class CompilePhaseChart : public QWidget {
    Q_OBJECT
  public:
    explicit CompilePhaseChart(ReportDocument* document, QWidget* parent = nullptr);
    void refresh();

    // "Dynamo tracing" for "dynamo_tracing"; unknown names pass through.
    static QString phaseTitle(const QString& name);

  private:
    void showHover(const QPoint& pos, const QPoint& globalPos);

    ReportDocument* document_;
    QCustomPlot* plot_;
    RefreshThrottle throttle_{250}; // live events arrive faster than a person can see
};

} // namespace cs::widgets
