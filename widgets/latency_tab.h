// Latency: per-call latency of every run (live) above their statistics.
#pragma once

#include <QWidget>

class QTableView;

namespace cs::widgets {

class IterationChart;
class ReportDocument;
class RunsModel;

class LatencyTab : public QWidget {
    Q_OBJECT
public:
    explicit LatencyTab(ReportDocument* document, QWidget* parent = nullptr);
    IterationChart* chart() const { return chart_; }
    QTableView* table() const { return table_; }
    RunsModel* model() const { return model_; }

private:
    IterationChart* chart_;
    QTableView* table_;
    RunsModel* model_;
};

} // namespace cs::widgets
