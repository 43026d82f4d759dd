// Per-iteration latency of every run, filling live while a probe measures.
#pragma once

#include <QWidget>

#include "widgets/common/refresh_throttle.h"

class QCustomPlot;

namespace cs::core {
struct Run;
}

namespace cs::widgets {

class ReportDocument;

class IterationChart : public QWidget {
    Q_OBJECT
  public:
    explicit IterationChart(ReportDocument* document, QWidget* parent = nullptr);
    void refresh();

  private:
    void markRecompiledCalls(const core::Run& run, const QString& label, const QColor& color);

    ReportDocument* document_;
    QCustomPlot* plot_;
    RefreshThrottle throttle_{100}; // live events arrive faster than a person can see
};

} // namespace cs::widgets
