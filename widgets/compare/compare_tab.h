// Compare: every setting side by side against eager — graphs, breaks,
// recompiles, warmup, latency, speedup, break-even, memory — best per column
// marked, a verdict in words above, a failed setting's error one click away.
#pragma once

#include <QWidget>

class QLabel;
class QPlainTextEdit;
class QSortFilterProxyModel;
class QTableView;

namespace cs::widgets {

class ComparisonModel;
class ReportDocument;

class CompareTab : public QWidget {
    Q_OBJECT
  public:
    explicit CompareTab(ReportDocument* document, QWidget* parent = nullptr);

  private:
    void showDetails(int run);
    void updateSummary();
    void showSweepColumn();

    ReportDocument* document_;
    ComparisonModel* model_;
    QLabel* summary_;
    QTableView* table_;
    QSortFilterProxyModel* proxy_;
    QPlainTextEdit* details_;
    QLabel* legend_ = nullptr;
};

} // namespace cs::widgets
