// One row per setting of a report diff: A, B and the change for latency,
// warmup and memory, the counts of breaks and recompiles, and the outputs
// check. Regressions
// are red, improvements green; a tooltip says why a change does not count.
#pragma once

#include <QAbstractTableModel>

#include "core/analysis/report_diff.h"

namespace cs::widgets {

class ReportDiffModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Column {
        Setting,
        Status,
        MedianA,
        MedianB,
        MedianChange,
        P99A,
        P99B,
        P99Change,
        WarmupA,
        WarmupB,
        WarmupChange,
        Breaks,
        Recompiles,
        PeakA,
        PeakB,
        PeakChange,
        Outputs, // the outputs check against eager's, A → B
        ColumnCount
    };
    // "regression", "improvement" or empty: what the colour of a cell means, for tests and copy.
    static constexpr int ChangeRole = Qt::UserRole + 2;

    explicit ReportDiffModel(QObject* parent = nullptr);
    void setDiff(core::ReportDiff diff);
    // Marks regressions for another threshold; rows stay, colours change.
    void setThreshold(double percent);
    const core::ReportDiff& diff() const { return diff_; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

  private:
    core::ReportDiff diff_;
};

} // namespace cs::widgets
