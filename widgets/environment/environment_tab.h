// Environment: what ran where (the model, python, torch, CUDA, device, host,
// remote target), each probe's own account (interpreter, torch, device, host,
// threads and CPUs; a cell unlike the first probe's in orange) and the variables that change torch
// which the probes started with, where each came from. The same facts as the HTML's Environment
// section; the env.* advice points here.
#pragma once

#include <QWidget>

#include "widgets/common/refresh_throttle.h"

class QLabel;
class QStandardItemModel;
class QTableView;

namespace cs::widgets {

class ReportDocument;
class TorchVariablesModel;

class EnvironmentTab : public QWidget {
    Q_OBJECT
  public:
    explicit EnvironmentTab(ReportDocument* document, QWidget* parent = nullptr);
    void refresh();

  private:
    ReportDocument* document_;
    QTableView* facts_;
    QStandardItemModel* factsModel_;
    QLabel* versions_;
    QLabel* probesTitle_ = nullptr;
    QTableView* probes_;
    QStandardItemModel* probesModel_;
    QTableView* variables_;
    TorchVariablesModel* variablesModel_;
    QLabel* variablesNote_;
    RefreshThrottle throttle_{150};
};

} // namespace cs::widgets
