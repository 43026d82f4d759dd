#include "widgets/memory/kernel_table_model.h"

#include "widgets/charts/chart_setup.h"
#include "widgets/common/table_setup.h"

namespace cs::widgets {

KernelTableModel::KernelTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void KernelTableModel::setSummary(const core::KernelSummary& summary) {
    if (summary == summary_)
        return;
    beginResetModel();
    summary_ = summary;
    // The measure phase's kernel time, from the summary (top holds at most 20 kernels).
    gpuNsTotal_ = summary.gpuNsPerIter * summary.iterations;
    endResetModel();
}

int KernelTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(summary_.top.size());
}

int KernelTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant KernelTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return {};
    static const char* names[] = {"kernel", "count", "total", "mean", "GPU share", "per iteration"};
    static const char* tips[] = {"Kernel name (demangled)",
                                 "Launches of this kernel in the measure phase",
                                 "Summed duration in the measure phase",
                                 "Mean duration of one launch",
                                 "Share of all kernel time in the measure phase",
                                 "Time per measured iteration"};
    if (role == Qt::DisplayRole)
        return tr(names[section]);
    if (role == Qt::ToolTipRole)
        return tr(tips[section]);
    return {};
}

QVariant KernelTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const core::KernelStat& k = summary_.top[static_cast<size_t>(index.row())];
    if (role == Qt::TextAlignmentRole)
        return index.column() == Name ? int(Qt::AlignLeft | Qt::AlignVCenter)
                                      : int(Qt::AlignRight | Qt::AlignVCenter);
    if (role != Qt::DisplayRole && role != SortRole && role != Qt::ToolTipRole)
        return {};
    auto duration = [role](double ns) -> QVariant {
        if (role == SortRole)
            return ns;
        if (role == Qt::ToolTipRole)
            return QStringLiteral("%1 ns").arg(ns, 0, 'f', 0);
        return durationText(ns);
    };
    switch (index.column()) {
    case Name:
        return QString::fromStdString(k.name);
    case Count:
        return static_cast<qlonglong>(k.count);
    case Total:
        return duration(double(k.totalNs));
    case Mean:
        return duration(double(k.meanNs));
    case Share: {
        if (gpuNsTotal_ <= 0)
            return {};
        const double share = double(k.totalNs) / gpuNsTotal_;
        if (role == SortRole)
            return share;
        return QStringLiteral("%1 %").arg(share * 100, 0, 'f', 1);
    }
    case PerIter:
        return summary_.iterations > 0 ? duration(double(k.totalNs) / summary_.iterations)
                                       : QVariant();
    default:
        return {};
    }
}

} // namespace cs::widgets
