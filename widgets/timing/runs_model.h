// One row per run: status and latency statistics. Adapts the report; the
// latency tab, the status of a live session and tests all read it.
#pragma once

#include "widgets/common/per_run_table_model.h"

namespace cs::widgets {

class RunsModel : public PerRunTableModel {
    Q_OBJECT
  public:
    enum Column {
        Setting,
        Status,
        Calls,
        Median,
        MedianCi,
        P90,
        P99,
        Mean,
        Std,
        Outliers,
        FirstCall,
        Overhead,
        Error,
        ColumnCount
    };

    explicit RunsModel(ReportDocument* document, QObject* parent = nullptr);
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;
};

} // namespace cs::widgets
