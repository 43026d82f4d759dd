// Warmup: what the first calls cost per setting — the first call split into
// compile phases (stacked bars) and the first-calls curve down to steady state.
#pragma once

#include <QWidget>

#include "widgets/common/refresh_throttle.h"

class QLabel;

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

    ReportDocument* document_;
    QLabel* summary_;
    CompilePhaseChart* phases_;
    FirstCallsChart* firstCalls_;
    RefreshThrottle throttle_{250};
};

} // namespace cs::widgets
