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
    QTableView* runsTable() const { return runsTable_; }
    QTableView* kernelTable() const { return kernelTable_; }
    KernelRunsModel* runsModel() const { return runsModel_; }
    KernelTableModel* kernelModel() const { return kernelModel_; }
    RunBarChart* launchesChart() const { return launches_; }
    RunBarChart* gpuTimeChart() const { return gpuTime_; }
    QLabel* kernelTitle() const { return kernelTitle_; }
    // The text shown instead of the top-kernel table when the run has none (hidden otherwise).
    QLabel* emptyReason() const { return emptyReason_; }
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
