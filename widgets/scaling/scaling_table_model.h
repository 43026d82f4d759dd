// The batch-size walks as a table (core::scaleCurves): one row per setting
// and measured size, with the figures the Scaling charts draw.
#pragma once

#include <QAbstractTableModel>

#include <vector>

#include "core/analysis/scaling.h"

namespace cs::widgets {

class ReportDocument;

class ScalingTableModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Column { Setting, Batch, Median, Throughput, Speedup, PeakMemory, FirstCall, ColumnCount };

    explicit ScalingTableModel(ReportDocument* document, QObject* parent = nullptr);

    const std::vector<core::ScaleCurve>& curves() const { return curves_; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

  public slots:
    void rebuild();

  private:
    struct Row {
        size_t curve;
        size_t row;
    };

    ReportDocument* document_;
    std::vector<core::ScaleCurve> curves_;
    std::vector<Row> rows_; // curves_ flattened, in report then batch order
};

} // namespace cs::widgets
