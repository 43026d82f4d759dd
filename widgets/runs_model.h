// One row per run: status and latency statistics. Adapts the report; the
// latency tab, the status of a live session and tests all read it.
#pragma once

#include <QAbstractTableModel>

namespace cs::widgets {

class ReportDocument;

class RunsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Setting, Status, Calls, Median, MedianCi, P90, P99, Mean, Std, Outliers, FirstCall, Overhead, Error, ColumnCount };

    explicit RunsModel(ReportDocument* document, QObject* parent = nullptr);
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    ReportDocument* document_;
};

} // namespace cs::widgets
