#include "widgets/timing/runs_model.h"

#include <QBrush>
#include <QColor>

#include "core/analysis/palette.h"
#include "core/analysis/probe_rounds.h"
#include "core/analysis/stats.h"
#include "widgets/charts/chart_setup.h"
#include "widgets/common/report_document.h"
#include "widgets/common/table_setup.h"

namespace cs::widgets {

RunsModel::RunsModel(ReportDocument* document, QObject* parent)
    : PerRunTableModel(document, ColumnCount, parent) {}

QVariant RunsModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal)
        return {};
    static const char* names[] = {
        "setting", "status", "calls",    "median",     "median 95% CI",    "p90",  "p99",
        "mean",    "std",    "outliers", "first call", "harness overhead", "error"};
    static const char* tips[] = {
        "How the model was compiled (mode, backend, dynamic, fullgraph)",
        "ok, failed, crashed, timeout or cancelled",
        "Measured calls (after warmup)",
        "Median latency per call in steady state",
        "95% confidence interval of the median (distribution-free)",
        "90th percentile latency",
        "99th percentile latency",
        "Mean latency (skewed by outliers)",
        "Sample standard deviation",
        "Calls outside 1.5 IQR of the quartiles",
        "Latency of the first call, where torch.compile compiles",
        "The timing loop around an empty function: part of every latency, not subtracted",
        "What went wrong"};
    if (section < 0 || section >= ColumnCount)
        return {};
    if (role == Qt::DisplayRole)
        return tr(names[section]);
    if (role == Qt::ToolTipRole)
        return tr(tips[section]);
    return {};
}

QVariant RunsModel::data(const QModelIndex& index, int role) const {
    const auto* run = document_->run(index.row());
    if (!run)
        return {};
    const auto stats = core::computeStats(run->measuredLatencies());
    const auto warm = run->warmupLatencies();
    auto number = [&](double ns) -> QVariant {
        if (role == SortRole)
            return ns;
        if (role == Qt::ToolTipRole)
            return QStringLiteral("%1 ns").arg(ns, 0, 'f', 0);
        return durationText(ns);
    };
    const int column = index.column();
    if (role == Qt::DecorationRole && column == Setting)
        return toQColor(core::runColor(document_->report(), index.row()));
    if (role == Qt::TextAlignmentRole)
        return column <= Status || column == Error ? int(Qt::AlignLeft | Qt::AlignVCenter)
                                                   : int(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ForegroundRole && column == Status && run->finished() &&
        run->status != core::RunStatus::Ok)
        return QBrush(QColor("#c0392b"));
    if (role != Qt::DisplayRole && role != SortRole && role != Qt::ToolTipRole)
        return {};
    switch (column) {
    case Setting:
        return QString::fromStdString(run->setting.label());
    case Status:
        return QString::fromLatin1(core::toString(run->status));
    case Calls:
        return static_cast<qulonglong>(stats ? stats->count : 0);
    case Error:
        if (!run->error)
            return {};
        return role == Qt::ToolTipRole
                   ? QString::fromStdString(run->error->message + "\n\n" + run->error->traceback)
                   : QString::fromStdString(run->error->message).section('\n', 0, 0);
    case FirstCall:
        if (warm.empty())
            return {};
        return number(static_cast<double>(warm.front()));
    case Overhead:
        if (run->harnessOverheadNs < 0)
            return {};
        return number(static_cast<double>(run->harnessOverheadNs));
    default:
        break;
    }
    if (!stats)
        return {};
    switch (column) {
    case Median:
        // --repeat: this is the first probe's; the others' are in the tooltip.
        if (const std::string spread = core::probeSpreadText(*run);
            role == Qt::ToolTipRole && !spread.empty())
            return tr("%1 ns, the first probe's\n\nmeasured by %2")
                .arg(stats->median, 0, 'f', 0)
                .arg(QString::fromStdString(spread));
        return number(stats->median);
    case MedianCi:
        if (role == SortRole)
            return stats->medianCiHigh - stats->medianCiLow;
        return QStringLiteral("%1 – %2").arg(durationText(stats->medianCiLow),
                                             durationText(stats->medianCiHigh));
    case P90:
        return number(stats->p90);
    case P99:
        return number(stats->p99);
    case Mean:
        return number(stats->mean);
    case Std:
        return number(stats->std);
    case Outliers:
        return static_cast<qulonglong>(stats->outliers);
    default:
        return {};
    }
}

} // namespace cs::widgets
