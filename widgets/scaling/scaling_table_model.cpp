#include "widgets/scaling/scaling_table_model.h"

#include <QBrush>
#include <QColor>

#include "core/analysis/palette.h"
#include "core/analysis/units.h"
#include "widgets/charts/chart_setup.h"
#include "widgets/common/report_document.h"
#include "widgets/common/table_setup.h"

namespace cs::widgets {

namespace {

QString countText(double count) {
    return QString::fromStdString(core::formatCount(count));
}

} // namespace

ScalingTableModel::ScalingTableModel(ReportDocument* document, QObject* parent)
    : QAbstractTableModel(parent), document_(document) {
    rebuild(); // the tab calls it again when the report changes
}

void ScalingTableModel::rebuild() {
    beginResetModel();
    curves_ = core::scaleCurves(document_->report());
    rows_.clear();
    for (size_t c = 0; c < curves_.size(); ++c) {
        for (size_t r = 0; r < curves_[c].rows.size(); ++r)
            rows_.push_back({c, r});
    }
    endResetModel();
}

int ScalingTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int ScalingTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ScalingTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return {};
    static const char* names[] = {"setting", "batch",       "median (95% CI)", "samples/s",
                                  "speedup", "peak memory", "first call"};
    static const char* tips[] = {
        "The setting whose probe walked the batch sizes",
        "Samples per call",
        ("Median latency of one call at this batch size, with the 95% confidence interval of the "
         "median"),
        "Throughput: batch size / median latency",
        "Eager's median / this median, at the same batch size",
        "Peak memory at this batch size: CUDA allocated on a GPU, the resident set on a CPU",
        "The first call at this batch size: the compile for this size included"};
    if (role == Qt::DisplayRole)
        return tr(names[section]);
    if (role == Qt::ToolTipRole)
        return tr(tips[section]);
    return {};
}

QVariant ScalingTableModel::data(const QModelIndex& index, int role) const {
    if (index.row() < 0 || index.row() >= rowCount() || index.column() < 0 ||
        index.column() >= ColumnCount)
        return {};
    const core::ScaleCurve& curve = curves_[rows_[static_cast<size_t>(index.row())].curve];
    const core::ScaleRow& r = curve.rows[rows_[static_cast<size_t>(index.row())].row];
    const int column = index.column();
    const auto& stats = r.latency;
    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case Setting:
            return QString::fromStdString(curve.label);
        case Batch:
            return QVariant::fromValue(static_cast<qlonglong>(r.batchSize));
        case Median:
            if (!stats)
                return QStringLiteral("—");
            return tr("%1 (%2–%3)")
                .arg(durationText(stats->median), durationText(stats->medianCiLow),
                     durationText(stats->medianCiHigh));
        case Throughput:
            return r.throughput > 0 ? countText(r.throughput) : QStringLiteral("—");
        case Speedup:
            return r.speedup ? QStringLiteral("%1×").arg(*r.speedup, 0, 'f', 2)
                             : QStringLiteral("—");
        case PeakMemory:
            return r.peakMemoryBytes >= 0 ? bytesText(static_cast<double>(r.peakMemoryBytes))
                                          : QStringLiteral("—");
        case FirstCall:
            return r.firstCallNs >= 0 ? durationText(static_cast<double>(r.firstCallNs))
                                      : QStringLiteral("—");
        }
        return {};
    case SortRole:
        // Raw numbers; a missing figure sorts first.
        switch (column) {
        case Setting:
            return static_cast<qulonglong>(curve.runIndex);
        case Batch:
            return static_cast<qlonglong>(r.batchSize);
        case Median:
            return stats ? stats->median : -1.0;
        case Throughput:
            return r.throughput;
        case Speedup:
            return r.speedup.value_or(-1.0);
        case PeakMemory:
            return static_cast<qlonglong>(r.peakMemoryBytes);
        case FirstCall:
            return static_cast<qlonglong>(r.firstCallNs);
        }
        return {};
    case Qt::ToolTipRole:
        switch (column) {
        case Median:
            if (stats)
                return tr("%1 ns over %2 measured calls; median 95% CI %3 – %4 ns")
                    .arg(countText(stats->median), countText(static_cast<double>(stats->count)),
                         countText(stats->medianCiLow), countText(stats->medianCiHigh));
            return tr("No measured calls at this batch size");
        case Throughput:
            if (r.throughput > 0)
                return tr("%1 samples/s; from the median's interval %2 – %3")
                    .arg(countText(r.throughput), countText(r.throughputLow),
                         countText(r.throughputHigh));
            return {};
        case Speedup:
            if (curve.eager)
                return tr("Eager is the baseline every speedup is measured against");
            if (!r.speedup)
                return tr("No eager walk measured this batch size: nothing to compare with");
            return tr("Eager's median at batch %1 / this median").arg(r.batchSize);
        case PeakMemory:
            if (r.peakMemoryBytes >= 0)
                return tr("%1 bytes").arg(r.peakMemoryBytes);
            return tr("Not measured");
        case FirstCall:
            if (r.firstCallNs >= 0)
                return tr("%1 ns: the first call at this size, its compile included")
                    .arg(countText(static_cast<double>(r.firstCallNs)));
            return {};
        default:
            return {};
        }
    case Qt::DecorationRole:
        if (column == Setting)
            return toQColor(core::runColor(document_->report(), static_cast<int>(curve.runIndex)));
        return {};
    case Qt::TextAlignmentRole:
        return column == Setting ? int(Qt::AlignLeft | Qt::AlignVCenter)
                                 : int(Qt::AlignRight | Qt::AlignVCenter);
    default:
        return {};
    }
}

} // namespace cs::widgets
