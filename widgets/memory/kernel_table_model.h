// The top kernels of one run's measure phase: name, count, total, mean, share
// of GPU time and time per iteration.
#pragma once

#include <QAbstractTableModel>

#include "core/report/session.h"

namespace cs::widgets {

class KernelTableModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Column { Name, Count, Total, Mean, Share, PerIter, ColumnCount };

    explicit KernelTableModel(QObject* parent = nullptr);
    // Copies what it shows: a live run keeps changing underneath.
    void setSummary(const core::KernelSummary& summary);
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

  private:
    core::KernelSummary summary_;
    double gpuNsTotal_ = 0;
};

} // namespace cs::widgets
