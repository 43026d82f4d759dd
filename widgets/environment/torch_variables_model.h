// The variables that change torch which the probes started with, one row per
// name, value and origin (core::variablesAcrossRuns): the shell's apart from
// what compilescope set, what each does, and the settings that had it. One
// that voids the measurement (compile off, blocking launches) is red.
#pragma once

#include <QAbstractTableModel>

#include "core/analysis/torch_environment.h"

namespace cs::widgets {

class TorchVariablesModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Column { Variable, Value, From, Effect, Settings, ColumnCount };

    using QAbstractTableModel::QAbstractTableModel;

    void showReport(const core::Report& report);
    const std::vector<core::VariableAcrossRuns>& variables() const { return variables_; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

  private:
    QString text(const core::VariableAcrossRuns& v, int column) const;

    std::vector<core::VariableAcrossRuns> variables_;
};

} // namespace cs::widgets
