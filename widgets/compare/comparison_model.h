// One row per setting of the comparison against eager (core::compareRuns),
// recomputed as the report changes. The Compare tab shows it; tests read it.
#pragma once

#include <QAbstractTableModel>

#include "core/analysis/comparison.h"
#include "widgets/common/refresh_throttle.h"

namespace cs::widgets {

class ReportDocument;

class ComparisonModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Column {
        Setting,
        Status,
        Graphs,
        Breaks,
        Recompiles,
        Warmup,
        Sweep, // hidden by the Compare tab when no setting swept its inputs
        Median,
        P99,
        Speedup,
        Outputs, // eager's outputs beside the setting's on the same inputs: beside the speed
        BreakEven,
        Memory,
        Notes,
        ColumnCount
    };
    // Set on a cell that holds its column's best value (a bool).
    static constexpr int BestRole = Qt::UserRole + 2;

    explicit ComparisonModel(ReportDocument* document, QObject* parent = nullptr);
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    const core::Comparison& comparison() const { return comparison_; }
    void recompute();

  signals:
    void recomputed();

  private:
    QVariant display(const core::ComparisonRow& row, int column) const;
    QVariant sortValue(const core::ComparisonRow& row, int column) const;
    QVariant toolTip(const core::ComparisonRow& row, int column) const;

    ReportDocument* document_;
    core::Comparison comparison_;
    RefreshThrottle throttle_{250}; // a live run changes with every call
};

} // namespace cs::widgets
