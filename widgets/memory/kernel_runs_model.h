// One row per setting: what its GPU did per measured iteration (launches,
// kernels, GPU time, busy fraction), memcpy/memset totals and dropped records;
// for a run without kernel data, why.
#pragma once

#include "widgets/common/per_run_table_model.h"

namespace cs::widgets {

class KernelRunsModel : public PerRunTableModel {
    Q_OBJECT
  public:
    enum Column {
        Setting,
        Launches,
        Kernels,
        GpuTime,
        Busy,
        Dropped,
        Memcpy,
        MemcpyBytes,
        MemcpyTime,
        Memset,
        Note,
        ColumnCount
    };

    explicit KernelRunsModel(ReportDocument* document, QObject* parent = nullptr);
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;
};

} // namespace cs::widgets
