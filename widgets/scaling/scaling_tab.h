// Scaling: a batch-size walk (compilescope-cli scale). Throughput, speedup
// over eager and peak memory against batch size, one line per setting, the
// same figures in a table, and how each walk ended. A report without a walk
// says how to make one.
#pragma once

#include <QWidget>

#include "widgets/common/refresh_throttle.h"

class QLabel;
class QTableView;

namespace cs::widgets {

class ReportDocument;
class ScalingChart;
class ScalingTableModel;

class ScalingTab : public QWidget {
    Q_OBJECT
  public:
    explicit ScalingTab(ReportDocument* document, QWidget* parent = nullptr);
    void refresh();

  private:
    ReportDocument* document_;
    QLabel* empty_;
    QWidget* body_;
    QLabel* summary_;
    ScalingChart* throughput_;
    ScalingChart* speedup_;
    ScalingChart* memory_;
    QTableView* table_;
    ScalingTableModel* model_;
    QLabel* stops_;
    RefreshThrottle throttle_{250};
};

} // namespace cs::widgets
