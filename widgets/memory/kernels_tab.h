// Kernels: what each setting's GPU did per measured iteration (launches,
// GPU time, busy fraction, copies, dropped records) and the top kernels of the
// selected setting. A run without kernel data says why.
#pragma once

#include <QWidget>

#include "widgets/common/refresh_throttle.h"

class QLabel;
class QStackedWidget;
class QTableView;

namespace cs::widgets {

class KernelRunsModel;
class KernelTableModel;
class ReportDocument;
class RunBarChart;
class SettingPicker;

class KernelsTab : public QWidget {
    Q_OBJECT
  public:
    explicit KernelsTab(ReportDocument* document, QWidget* parent = nullptr);
    void refresh();

  private:
    ReportDocument* document_;
    SettingPicker* picker_;
    KernelRunsModel* runsModel_;
    QTableView* runsTable_;
    RunBarChart* launches_;
    RunBarChart* gpuTime_;
    QLabel* kernelTitle_;
    QStackedWidget* kernelStack_;
    KernelTableModel* kernelModel_;
    QTableView* kernelTable_;
    QLabel* emptyReason_;
    RefreshThrottle throttle_{150};
};

} // namespace cs::widgets
