// Warmup: what the first calls cost per setting — the first call split into
// compile phases (stacked bars) and the first-calls curve down to steady state;
// with warm starts measured, each setting's cold starts side by side.
#pragma once

#include <QWidget>

#include "widgets/common/refresh_throttle.h"

class QLabel;
class QStandardItemModel;
class QTableView;

namespace cs::widgets {

class CompilePhaseChart;
class FirstCallsChart;
class ReportDocument;

class WarmupTab : public QWidget {
    Q_OBJECT
  public:
    explicit WarmupTab(ReportDocument* document, QWidget* parent = nullptr);

  private:
    void updateSummary();
    void updateWarmStarts();

    ReportDocument* document_;
    QLabel* summary_;
    // Cold starts (compilescope-cli warmstart, the settings dock's "warm
    // starts"): shown only when the report measured a warm or artifacts start.
    QTableView* warmStarts_;
    QStandardItemModel* warmStartModel_;
    CompilePhaseChart* phases_;
    FirstCallsChart* firstCalls_;
    RefreshThrottle throttle_{250};
};

} // namespace cs::widgets
