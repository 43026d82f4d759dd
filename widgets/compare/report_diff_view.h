// Two reports side by side: per setting the deltas of latency, warmup, breaks,
// recompiles and memory with regressions marked, the breaks found in one
// report and not the other, and a threshold to judge by. Shown in its own window.
#pragma once

#include <QWidget>

#include "core/analysis/report_diff.h"

class QDoubleSpinBox;
class QLabel;
class QTableView;
class QTreeWidget;

namespace cs::widgets {

class ReportDiffModel;

class ReportDiffView : public QWidget {
    Q_OBJECT
  public:
    explicit ReportDiffView(QWidget* parent = nullptr);

    void setDiff(core::ReportDiff diff, const QString& nameA, const QString& nameB);
    void setThreshold(double percent);

    QString summaryText() const;
    // The diff as plain text, as compilescope-cli diff prints it.
    QString diffText() const;

  private:
    void updateSummary();
    void fillBreaks();

    ReportDiffModel* model_;
    QLabel* sources_;
    QLabel* summary_;
    QDoubleSpinBox* threshold_;
    QTableView* table_;
    QTreeWidget* breaks_;
    QString nameA_, nameB_;
};

} // namespace cs::widgets
