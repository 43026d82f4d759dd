// Latency of each of the first calls per setting, on a log axis: the curve
// from the compiling call down to steady state, with where warmup ends.
#pragma once

#include <QTimer>
#include <QWidget>

class QCustomPlot;

namespace cs::widgets {

class ReportDocument;

class FirstCallsChart : public QWidget {
    Q_OBJECT
  public:
    explicit FirstCallsChart(ReportDocument* document, QWidget* parent = nullptr);
    QCustomPlot* plot() const { return plot_; }
    void refresh();

  private:
    ReportDocument* document_;
    QCustomPlot* plot_;
    QTimer throttle_;
};

} // namespace cs::widgets
