#include "widgets/memory/kernel_runs_model.h"

#include <QBrush>
#include <QColor>

#include <cmath>

#include "core/analysis/gpu_status.h"
#include "core/analysis/palette.h"
#include "widgets/charts/chart_setup.h"
#include "widgets/common/report_document.h"
#include "widgets/common/table_setup.h"

namespace cs::widgets {

KernelRunsModel::KernelRunsModel(ReportDocument* document, QObject* parent)
    : PerRunTableModel(document, ColumnCount, parent) {}

QVariant KernelRunsModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return {};
    // Dropped records sit next to the figures they undercount, never off to the side.
    static const char* names[] = {"setting",     "launches/iter", "kernels/iter", "GPU/iter",
                                  "busy",        "dropped",       "memcpy",       "memcpy bytes",
                                  "memcpy time", "memset",        "note"};
    static const char* tips[] = {
        "How the model was compiled",
        "What the host launched per measured iteration: a kernel outside a CUDA graph is one "
        "launch; a whole CUDA-graph replay is one",
        "Kernels that ran per measured iteration (CUDA-graph nodes included)",
        "Summed kernel time per measured iteration",
        "Share of the measure phase's wall time in which some kernel ran (overlaps count once)",
        "Activity records CUPTI dropped or the collector turned away: figures undercount when > 0",
        "Memory copies in the measure phase",
        "Bytes copied in the measure phase",
        "Time spent copying in the measure phase",
        "Bytes set by memset in the measure phase",
        "Why a setting has no kernel data, or what CUPTI noted"};
    if (role == Qt::DisplayRole)
        return tr(names[section]);
    if (role == Qt::ToolTipRole)
        return tr(tips[section]);
    return {};
}

QVariant KernelRunsModel::data(const QModelIndex& index, int role) const {
    const core::Run* run = document_->run(index.row());
    if (!run)
        return {};
    const core::KernelSummary& k = run->kernels;
    const int column = index.column();
    if (role == Qt::DecorationRole && column == Setting)
        return toQColor(core::runColor(document_->report(), index.row()));
    if (role == Qt::TextAlignmentRole)
        return column == Setting || column == Note ? int(Qt::AlignLeft | Qt::AlignVCenter)
                                                   : int(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ForegroundRole && column == Dropped && k.dropped > 0)
        return QBrush(QColor("#c0392b"));
    if (role != Qt::DisplayRole && role != SortRole && role != Qt::ToolTipRole)
        return {};
    if (column == Setting)
        return QString::fromStdString(run->setting.label());
    if (column == Note) {
        const std::string why = core::gpuDataMissingReason(*run, core::GpuData::Kernels);
        return QString::fromStdString(why.empty() ? k.note : why);
    }
    if (!k.present)
        return {};
    const bool perIter = k.iterations > 0;
    auto number = [&](double value, const QString& text) -> QVariant {
        if (role == SortRole)
            return value;
        if (role == Qt::ToolTipRole)
            return QString::number(value, 'f', value == std::floor(value) ? 0 : 3);
        return text;
    };
    switch (column) {
    case Launches:
        return perIter ? number(k.launchesPerIter, QString::number(k.launchesPerIter, 'g', 4))
                       : QVariant();
    case Kernels:
        return perIter ? number(k.kernelsPerIter, QString::number(k.kernelsPerIter, 'g', 4))
                       : QVariant();
    case GpuTime:
        return perIter ? number(k.gpuNsPerIter, durationText(k.gpuNsPerIter)) : QVariant();
    case Busy:
        return k.windowNs > 0 ? number(k.busyFraction,
                                       QStringLiteral("%1 %").arg(k.busyFraction * 100, 0, 'f', 1))
                              : QVariant();
    case Memcpy:
        return number(double(k.memcpyCount), QString::number(k.memcpyCount));
    case MemcpyBytes:
        return number(double(k.memcpyBytes), bytesText(double(k.memcpyBytes)));
    case MemcpyTime:
        return number(double(k.memcpyNs), durationText(double(k.memcpyNs)));
    case Memset:
        return number(double(k.memsetBytes), bytesText(double(k.memsetBytes)));
    case Dropped:
        return number(double(k.dropped), QString::number(k.dropped));
    default:
        return {};
    }
}

} // namespace cs::widgets
