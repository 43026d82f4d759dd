// Latency: per-call latency of every run (live), its distribution
// (histogram, box plot) overlaid across settings, and their statistics
// with the harness's own overhead.
#pragma once

#include <QWidget>

class QCheckBox;
class QLabel;
class QTableView;

namespace cs::widgets {

class IterationChart;
class LatencyBoxPlot;
class LatencyHistogram;
class ReportDocument;
class RunsModel;

class LatencyTab : public QWidget {
    Q_OBJECT
  public:
    explicit LatencyTab(ReportDocument* document, QWidget* parent = nullptr);

  private:
    void updateOverhead();
    void updateChecks();
    // An imported TORCH_TRACE log holds no calls: one line instead of empty charts.
    void updateImported();

    ReportDocument* document_;
    IterationChart* chart_;
    LatencyHistogram* histogram_;
    LatencyBoxPlot* boxPlot_;
    QLabel* overhead_;
    QLabel* crosscheck_;
    QCheckBox* dropUnsettled_;
    QTableView* table_;
    RunsModel* model_;
    QLabel* imported_;
    QWidget* body_ = nullptr;
};

} // namespace cs::widgets
